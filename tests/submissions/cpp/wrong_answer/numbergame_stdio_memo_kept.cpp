// expect: WA
// style: stdio
// The memo table is cleared once, before the first case: the next case of the same run
// reads the previous row's answers.
#include <algorithm>
#include <cstdio>
#include <cstring>

int n, a[50];
int memo[51][51];
bool done[51][51];

int lead(int i, int j) {
    if (i == j) return 0;
    if (done[i][j]) return memo[i][j];
    int v = std::max(a[i] - lead(i + 1, j), a[j - 1] - lead(i, j - 1));
    if (j - i >= 2) v = std::max(v, std::max(-lead(i + 2, j), -lead(i, j - 2)));
    done[i][j] = true;
    return memo[i][j] = v;
}

int main() {
    int cases;
    scanf("%d", &cases);
    memset(done, 0, sizeof done);
    while (cases--) {
        scanf("%d", &n);
        for (int k = 0; k < n; k++) scanf("%d", &a[k]);
        printf("%d\n", lead(0, n));
    }
}
