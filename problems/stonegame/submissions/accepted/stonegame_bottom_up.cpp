// expect: AC
// Bottom-up DP: dp[i][m] = most stones the player to move gets from piles i.. with M = m.
#include <bits/stdc++.h>
using namespace std;

int solution(vector<int> piles) {
    int n = piles.size();
    vector<int> suf(n + 1, 0);
    for (int i = n - 1; i >= 0; i--) suf[i] = suf[i + 1] + piles[i];
    vector<vector<int>> dp(n + 1, vector<int>(n + 1, 0));
    for (int i = n - 1; i >= 0; i--) {
        for (int m = 1; m <= n; m++) {
            if (i + 2 * m >= n) {
                dp[i][m] = suf[i];
                continue;
            }
            int worst = INT_MAX;
            for (int x = 1; x <= 2 * m; x++) worst = min(worst, dp[i + x][max(m, x)]);
            dp[i][m] = suf[i] - worst;
        }
    }
    return dp[0][1];
}
