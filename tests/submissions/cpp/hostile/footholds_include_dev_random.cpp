// expect: CE
// An endless include: the compile's time or memory limit ends it.
#include </dev/random>
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return 0;
}
