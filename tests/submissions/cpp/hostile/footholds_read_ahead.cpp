// expect: AC
// Tries to read the tests after the one it is answering: a tests file in /box, or bytes
// waiting on any pipe it may read (the tests channel). It checks on its first call and on
// every board wider or taller than 3 (outside the small tier, whose positions are handed over
// together), after a moment's wait; seeing anything answers -1 (a wrong answer), so an AC
// says it saw nothing.
#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

static bool tests_file() {
    const char* roots[] = {"/box", "."};
    for (const char* root : roots) {
        DIR* dir = opendir(root);
        if (!dir) continue;
        bool found = false;
        while (dirent* entry = readdir(dir)) {
            std::string name = entry->d_name;
            if (name.find("test") == std::string::npos) continue;
            int fd = open((std::string(root) + "/" + name).c_str(), O_RDONLY);
            char byte;
            if (fd >= 0 && read(fd, &byte, 1) == 1) found = true;
            if (fd >= 0) close(fd);
        }
        closedir(dir);
        if (found) return true;
    }
    return false;
}

static long bytes_waiting() {
    long waiting = 0;
    for (int fd = 0; fd < 256; ++fd) {
        struct stat info;
        if (fstat(fd, &info) != 0 || !S_ISFIFO(info.st_mode)) continue;
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) != O_RDONLY) continue;
        int count = 0;
        if (ioctl(fd, FIONREAD, &count) == 0) waiting += count;
    }
    return waiting;
}

// ---- the honest answer, for when it saw nothing ----
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

static int calls = 0;

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    ++calls;
    if (calls == 1 || board.size() > 3 || board[0].size() > 3) {
        usleep(20000);
        if (tests_file() || bytes_waiting() > 0) return -1;
    }
    return honest(board, aloc, bloc);
}
