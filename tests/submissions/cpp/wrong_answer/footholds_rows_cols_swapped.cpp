// expect: WA
// Copies the board into a grid with rows and columns swapped, but reads the pieces as given.
#include <bits/stdc++.h>
using namespace std;

int g[5][5], R, C;
const int dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};

pair<bool, int> play(int r, int c, int orow, int ocol) {
    if (!g[r][c]) return {false, 0};
    bool win = false;
    int best = INT_MAX, worst = 0;
    for (int d = 0; d < 4; d++) {
        int nr = r + dr[d], nc = c + dc[d];
        if (nr < 0 || nr >= R || nc < 0 || nc >= C || !g[nr][nc]) continue;
        g[r][c] = 0;
        auto [otherWins, moves] = play(orow, ocol, nr, nc);
        g[r][c] = 1;
        if (!otherWins) win = true, best = min(best, moves + 1);
        else worst = max(worst, moves + 1);
    }
    return win ? make_pair(true, best) : make_pair(false, worst);
}

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    R = board[0].size();  // swapped: the number of columns taken as the number of rows
    C = board.size();
    memset(g, 0, sizeof g);
    for (int r = 0; r < (int)board.size(); r++)
        for (int c = 0; c < (int)board[0].size(); c++) g[c][r] = board[r][c];
    return play(aloc[0], aloc[1], bloc[0], bloc[1]).second;
}
