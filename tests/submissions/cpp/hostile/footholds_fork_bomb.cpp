// expect: WA
// Forks sleeping children until the process limit stops it, then answers wrongly.
#include <unistd.h>
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    for (int k = 0; k < 10000; k++) {
        pid_t pid = fork();
        if (pid < 0) break;
        if (pid == 0) {
            sleep(3600);
            _exit(0);
        }
    }
    return -1;
}
