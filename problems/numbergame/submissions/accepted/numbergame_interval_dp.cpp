// expect: AC
// Bottom-up interval DP: best[i][j] is the mover's best lead on board[i..j).
#include <bits/stdc++.h>
using namespace std;

int solution(vector<int> board) {
    int n = board.size();
    vector<vector<int>> best(n + 1, vector<int>(n + 1, 0));
    for (int len = 1; len <= n; len++)
        for (int i = 0; i + len <= n; i++) {
            int j = i + len;
            int v = max(board[i] - best[i + 1][j], board[j - 1] - best[i][j - 1]);
            if (len >= 2) v = max({v, -best[i + 2][j], -best[i][j - 2]});
            best[i][j] = v;
        }
    return best[0][n];
}
