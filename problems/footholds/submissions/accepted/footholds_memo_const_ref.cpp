// expect: AC
// Memoized over (footholds bitmask, mover, other); parameters by const reference and a
// long long answer.
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {
int rows, cols;
std::unordered_map<std::uint64_t, std::pair<bool, int>> memo;

std::pair<bool, int> go(std::uint32_t alive, int me, int other) {
    if (!(alive >> me & 1)) return {false, 0};
    std::uint64_t key = (std::uint64_t(alive) << 10) | (me << 5) | other;
    auto found = memo.find(key);
    if (found != memo.end()) return found->second;
    int r = me / cols, c = me % cols;
    const int steps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    bool win = false;
    int best = 1 << 30, worst = 0;
    for (auto& s : steps) {
        int nr = r + s[0], nc = c + s[1];
        if (nr < 0 || nr >= rows || nc < 0 || nc >= cols) continue;
        int next = nr * cols + nc;
        if (!(alive >> next & 1)) continue;
        auto [otherWins, moves] = go(alive & ~(1u << me), other, next);
        if (!otherWins) win = true, best = std::min(best, moves + 1);
        else worst = std::max(worst, moves + 1);
    }
    return memo[key] = win ? std::make_pair(true, best) : std::make_pair(false, worst);
}
}  // namespace

long long solution(const std::vector<std::vector<int>>& board, const std::vector<int>& aloc,
                   const std::vector<int>& bloc) {
    rows = board.size();
    cols = board[0].size();
    memo.clear();
    std::uint32_t alive = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (board[r][c]) alive |= 1u << (r * cols + c);
    return go(alive, aloc[0] * cols + aloc[1], bloc[0] * cols + bloc[1]).second;
}
