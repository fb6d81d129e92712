// expect: OLE
// Writes a gigabyte to stdout.
#include <cstdio>
#include <cstring>
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    static char line[4096];
    memset(line, 'x', sizeof line - 1);
    for (int k = 0; k < (1 << 18); k++) fputs(line, stdout);
    return 0;
}
