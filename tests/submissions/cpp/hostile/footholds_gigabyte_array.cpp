// expect: CE
// A gigabyte of global array.
#include <vector>

static int table[1 << 28];

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    table[aloc[0]] = 1;
    return table[bloc[0]];
}
