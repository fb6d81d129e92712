// numbergame, bottom-up: d[lo][end] is the best lead on board[lo..end) for the player to move.
#include <algorithm>
#include <vector>
using namespace std;

int solution(vector<int> board) {
    int n = board.size();
    vector<vector<int>> d(n + 2, vector<int>(n + 2, 0));
    for (int len = 1; len <= n; ++len) {
        for (int lo = 0; lo + len <= n; ++lo) {
            int hi = lo + len - 1;
            int best = max(board[lo] - d[lo + 1][hi + 1], board[hi] - d[lo][hi]);
            if (len >= 2) best = max(best, max(-d[lo + 2][hi + 1], -d[lo][hi - 1]));
            d[lo][hi + 1] = best;
        }
    }
    return d[0][n];
}
