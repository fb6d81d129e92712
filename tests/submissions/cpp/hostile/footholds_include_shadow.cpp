// expect: CE
// The compiler reading the host's secrets: nothing of /etc is in its sandbox.
#include "/etc/shadow"
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return 0;
}
