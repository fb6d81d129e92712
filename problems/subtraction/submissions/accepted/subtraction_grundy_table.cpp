// expect: AC
// Grundy values bottom-up; at most 5 moves, so every value is at most 5 and a small array of
// flags finds the mex.
#include <bits/stdc++.h>
using namespace std;

bool solution(vector<int> piles, vector<int> moves) {
    int top = *max_element(piles.begin(), piles.end());
    vector<int> g(top + 1, 0);
    for (int n = 1; n <= top; n++) {
        bool seen[8] = {false};
        for (int m : moves)
            if (m <= n) seen[g[n - m]] = true;
        int mex = 0;
        while (seen[mex]) mex++;
        g[n] = mex;
    }
    int x = 0;
    for (int p : piles) x ^= g[p];
    return x != 0;
}
