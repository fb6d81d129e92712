// Independent solution (hard negative): a full table, filled by increasing length.
#include <bits/stdc++.h>
using namespace std;

int solution(vector<int> board) {
    int n = board.size();
    if (n == 0) return 0;
    vector<vector<int>> f(n + 2, vector<int>(n + 2, 0));
    for (int len = 1; len <= n; ++len) {
        for (int l = 0; l + len - 1 < n; ++l) {
            int r = l + len - 1;
            int a = board[l] - (l + 1 <= r ? f[l + 1][r] : 0);
            int b = board[r] - (l <= r - 1 ? f[l][r - 1] : 0);
            int best = max(a, b);
            if (len >= 2) {
                int c = l + 2 <= r ? f[l + 2][r] : 0;
                int d = l <= r - 2 ? f[l][r - 2] : 0;
                best = max(best, max(-c, -d));
            }
            f[l][r] = best;
        }
    }
    return f[0][n - 1];
}
