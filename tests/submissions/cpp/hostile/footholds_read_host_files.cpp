// expect: AC
// Reads the host's files and the judge's: /etc, the judge's sources, the host's /tmp (the
// test's canary), the host's root through /proc/1/root. Honest only if none can be opened.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

static bool readable(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    char buffer[64];
    bool got = read(fd, buffer, sizeof buffer) >= 0;
    close(fd);
    return got;
}

static bool escaped() {
    const char* paths[] = {"/etc/passwd", "/etc/shadow", "/etc/hostname",
                           "/proc/1/root/etc/passwd", "/work/main/judge/harness.py",
                           "/work/main/judge/languages/cpp.py", "/usr/include/stdio.h",
                           "/root/.bash_history", "../etc/passwd"};
    for (const char* path : paths)
        if (readable(path)) return true;
    // The host's /tmp holds the test's canary; the sandbox's own /tmp must be empty.
    if (DIR* dir = opendir("/tmp")) {
        bool found = false;
        while (dirent* entry = readdir(dir))
            if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..") found = true;
        closedir(dir);
        if (found) return true;
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
