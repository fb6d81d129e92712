// expect: CE
// The judge's own source (the test writes the real path of judge/harness.py here): it is not
// in the compiler's sandbox.
#include "/work/main/judge/harness.py"
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return 0;
}
