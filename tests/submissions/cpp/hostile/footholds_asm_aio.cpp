// expect: AC
// Linux AIO through inline assembly: io_setup's contexts count in the machine-wide
// /proc/sys/fs/aio-nr, a channel to a concurrent run. Honest only when every call is refused.
#include <algorithm>
#include <utility>
#include <vector>

static long raw_syscall(long number, long a, long b, long c, long d = 0, long e = 0) {
    long result;
    register long r10 asm("r10") = d;
    register long r8 asm("r8") = e;
    asm volatile("syscall"
                 : "=a"(result)
                 : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                 : "rcx", "r11", "memory");
    return result;
}

static bool escaped() {
    const long SYS_io_setup = 206, SYS_io_destroy = 207, SYS_io_getevents = 208,
               SYS_io_submit = 209, SYS_io_cancel = 210, SYS_io_pgetevents = 333;
    const long EPERM = 1;
    unsigned long context = 0;
    if (raw_syscall(SYS_io_setup, 64, (long)&context, 0) == 0) {
        raw_syscall(SYS_io_destroy, (long)context, 0, 0);
        return true;
    }
    // The kernel answers these EINVAL for a null context; the filter, EPERM.
    for (long number : {SYS_io_destroy, SYS_io_getevents, SYS_io_submit, SYS_io_cancel,
                        SYS_io_pgetevents})
        if (raw_syscall(number, 0, 0, 0, 0, 0) != -EPERM) return true;
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
