// expect: MLE
// malloc and touch 64 MB blocks until the allocator gives up.
#include <cstdlib>
#include <cstring>
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    long total = 0;
    for (;;) {
        char* block = static_cast<char*>(malloc(64 << 20));
        if (!block) break;
        memset(block, 1, 64 << 20);
        total += 64;
    }
    return total;
}
