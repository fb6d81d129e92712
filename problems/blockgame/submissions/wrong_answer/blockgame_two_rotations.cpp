// expect: WA
// Bitmask DP whose L-blocks come in 2 rotations only ("┌" and "┘"): the "┐" and "└" shapes
// are missing, so boards where only those fit are answered as if no block fit.
#include <bits/stdc++.h>
using namespace std;

int cache[1 << 25];
vector<int> moves;

int cell(int r, int c) { return 1 << (r * 5 + c); }

bool play(int board) {
    int& ret = cache[board];
    if (ret != 0) return ret == 1;
    ret = -1;
    for (int m : moves)
        if (!(board & m) && !play(board | m)) {
            ret = 1;
            break;
        }
    return ret == 1;
}

string solution(vector<string> board) {
    if (moves.empty()) {
        for (int r = 0; r < 5; r++)
            for (int c = 0; c < 5; c++) {
                if (c < 4) moves.push_back(cell(r, c) | cell(r, c + 1));
                if (r < 4) moves.push_back(cell(r, c) | cell(r + 1, c));
                if (r < 4 && c < 4) {
                    moves.push_back(cell(r, c) | cell(r, c + 1) | cell(r + 1, c));
                    moves.push_back(cell(r, c + 1) | cell(r + 1, c) | cell(r + 1, c + 1));
                }
            }
    }
    int mask = 0;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++)
            if (board[r][c] == '#') mask |= cell(r, c);
    return play(mask) ? "WINNING" : "LOSING";
}
