// numbergame as Algospot's whole program: C cases from stdin, one answer per line. The memo
// table is cleared for every case (state left from the previous case is this format's bug).
#include <cstdio>
#include <cstring>
#include <algorithm>
using namespace std;

int n, board[64], memo[64][64];
bool seen[64][64];

int best(int lo, int hi) {
    if (lo > hi) return 0;
    if (seen[lo][hi]) return memo[lo][hi];
    int value = max(board[lo] - best(lo + 1, hi), board[hi] - best(lo, hi - 1));
    if (hi - lo >= 1) value = max(value, max(-best(lo + 2, hi), -best(lo, hi - 2)));
    seen[lo][hi] = true;
    return memo[lo][hi] = value;
}

int main() {
    int cases;
    if (scanf("%d", &cases) != 1) return 1;
    while (cases--) {
        scanf("%d", &n);
        for (int i = 0; i < n; ++i) scanf("%d", &board[i]);
        memset(seen, 0, sizeof seen);
        printf("%d\n", best(0, n - 1));
    }
    return 0;
}
