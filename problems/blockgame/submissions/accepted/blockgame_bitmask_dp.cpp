// expect: AC
// The classic bitmask DP: the board is a 25-bit mask of filled cells, cache[mask] says
// whether the player to move wins (0 unknown, 1 lose, 2 win). The cache is shared by all
// boards: a mask's answer never changes.
#include <bits/stdc++.h>
using namespace std;

static vector<int> blocks;
static vector<char> cache;

static int cell(int r, int c) { return 1 << (r * 5 + c); }

static void precalc() {
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++) {
            if (c + 1 < 5) blocks.push_back(cell(r, c) | cell(r, c + 1));
            if (r + 1 < 5) blocks.push_back(cell(r, c) | cell(r + 1, c));
            if (r + 1 < 5 && c + 1 < 5) {
                int sq[4] = {cell(r, c), cell(r, c + 1), cell(r + 1, c), cell(r + 1, c + 1)};
                int all = sq[0] | sq[1] | sq[2] | sq[3];
                for (int k = 0; k < 4; k++) blocks.push_back(all & ~sq[k]);
            }
        }
    cache.assign(1 << 25, 0);
}

static bool wins(int mask) {
    char& ret = cache[mask];
    if (ret) return ret == 2;
    bool win = false;
    for (int b : blocks)
        if ((mask & b) == 0 && !wins(mask | b)) {
            win = true;
            break;
        }
    ret = win ? 2 : 1;
    return win;
}

string solution(vector<string> board) {
    if (blocks.empty()) precalc();
    int mask = 0;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++)
            if (board[r][c] == '#') mask |= cell(r, c);
    return wins(mask) ? "WINNING" : "LOSING";
}
