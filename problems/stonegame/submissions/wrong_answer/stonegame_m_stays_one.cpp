// expect: WA
// A DP over the position only: M is never updated, so every player may take 1 or 2 piles on
// every turn, however many the previous player took.
#include <bits/stdc++.h>
using namespace std;

int solution(vector<int> piles) {
    int n = piles.size();
    vector<int> suf(n + 1, 0);
    for (int i = n - 1; i >= 0; i--) suf[i] = suf[i + 1] + piles[i];
    vector<int> dp(n + 2, 0);  // dp[i]: most stones the mover gets from piles i..
    for (int i = n - 1; i >= 0; i--) {
        int m = 1;
        int best = 0;
        for (int x = 1; x <= 2 * m && i + x <= n; x++) best = max(best, suf[i] - dp[i + x]);
        dp[i] = best;
    }
    return dp[0];
}
