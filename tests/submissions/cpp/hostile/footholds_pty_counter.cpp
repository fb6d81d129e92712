// expect: AC
// Opens ptys: each counts in the machine-wide /proc/sys/kernel/pty/nr, a channel to a
// concurrent run. Honest only if no pty can be opened.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

static bool escaped() {
    int fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    for (const char* path : {"/dev/ptmx", "/dev/pts/ptmx"}) {
        fd = open(path, O_RDWR | O_NOCTTY);
        if (fd >= 0) {
            close(fd);
            return true;
        }
    }
    return false;
}

// ---- the honest answer, for when the attack failed ----
static int honest_rows, honest_cols;
static std::pair<bool, int> honest_play(std::vector<std::vector<int>>& b, int r, int c, int orow,
                                        int ocol) {
    if (!b[r][c]) return {false, 0};
    bool win = false;
    int best = 1 << 30, worst = 0;
    const int steps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (auto& s : steps) {
        int nr = r + s[0], nc = c + s[1];
        if (nr < 0 || nr >= honest_rows || nc < 0 || nc >= honest_cols || !b[nr][nc]) continue;
        b[r][c] = 0;
        auto next = honest_play(b, orow, ocol, nr, nc);
        b[r][c] = 1;
        if (!next.first) win = true, best = std::min(best, next.second + 1);
        else worst = std::max(worst, next.second + 1);
    }
    return win ? std::make_pair(true, best) : std::make_pair(false, worst);
}

static int honest(std::vector<std::vector<int>> b, std::vector<int> a, std::vector<int> o) {
    honest_rows = b.size();
    honest_cols = b[0].size();
    return honest_play(b, a[0], a[1], o[0], o[1]).second;
}

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    if (escaped()) return -1;
    return honest(board, aloc, bloc);
}
