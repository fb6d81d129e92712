// expect: RE, WA
// Writes forged reports on every fd that might be the results channel: a result for the
// next test, claiming no time at all, before its own.
#include <unistd.h>

#include <string>
#include <vector>

static int calls = 0;

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    std::string forged = "{\"event\":\"result\",\"i\":" + std::to_string(calls + 1) +
                         ",\"answer\":{\"type\":\"int\",\"int\":\"0\"},\"cpu\":0,\"wall\":0,"
                         "\"rss_kb\":1}\n";
    for (int fd = 3; fd < 64; fd++) (void)!write(fd, forged.data(), forged.size());
    calls++;
    return 0;
}
