// expect: CE
// A gigabyte of initialized global array: the object file would be a gigabyte.
#include <vector>

static char table[1 << 30] = {1};

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return table[aloc[0]];
}
