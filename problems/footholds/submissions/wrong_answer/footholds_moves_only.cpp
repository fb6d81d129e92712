// expect: WA
// The classic slip: the recursion returns only the number of moves, without the win flag,
// so a win is recognised only when the opponent is stuck at once (0 moves left).
#include <bits/stdc++.h>
using namespace std;

int R, C;
const int dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};

int play(vector<vector<int>>& board, int r, int c, int orow, int ocol) {
    if (!board[r][c]) return 0;
    int best = INT_MAX, worst = 0;
    bool any = false;
    for (int d = 0; d < 4; d++) {
        int nr = r + dr[d], nc = c + dc[d];
        if (nr < 0 || nr >= R || nc < 0 || nc >= C || !board[nr][nc]) continue;
        any = true;
        board[r][c] = 0;
        int moves = play(board, orow, ocol, nr, nc);
        board[r][c] = 1;
        if (moves == 0) best = min(best, moves + 1);
        else worst = max(worst, moves + 1);
    }
    if (!any) return 0;
    return best != INT_MAX ? best : worst;
}

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    R = board.size();
    C = board[0].size();
    return play(board, aloc[0], aloc[1], bloc[0], bloc[1]);
}
