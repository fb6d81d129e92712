// expect: AC
// Plain minimax: the recursion returns (the mover wins, moves left) as a pair<bool, int>,
// solution only the number of moves.
#include <bits/stdc++.h>
using namespace std;

int R, C;
const int dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};

pair<bool, int> play(vector<vector<int>>& board, int r, int c, int orow, int ocol) {
    if (!board[r][c]) return {false, 0};  // my foothold vanished under me
    bool win = false;
    int best = INT_MAX, worst = 0;
    for (int d = 0; d < 4; d++) {
        int nr = r + dr[d], nc = c + dc[d];
        if (nr < 0 || nr >= R || nc < 0 || nc >= C || !board[nr][nc]) continue;
        board[r][c] = 0;
        auto [otherWins, moves] = play(board, orow, ocol, nr, nc);
        board[r][c] = 1;
        if (!otherWins) {
            win = true;
            best = min(best, moves + 1);
        } else {
            worst = max(worst, moves + 1);
        }
    }
    return win ? make_pair(true, best) : make_pair(false, worst);
}

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    R = board.size();
    C = board[0].size();
    return play(board, aloc[0], aloc[1], bloc[0], bloc[1]).second;
}
