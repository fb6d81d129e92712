// expect: WA
// Starts sleeping threads until none can be made, then answers wrongly.
#include <chrono>
#include <system_error>
#include <thread>
#include <vector>

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    try {
        for (int k = 0; k < 100000; k++)
            std::thread([] { std::this_thread::sleep_for(std::chrono::hours(1)); }).detach();
    } catch (const std::system_error&) {
    }
    return -1;
}
