// expect: CE
// A constant expression of 2^60 steps.
#include <vector>

constexpr long long spin(long long n) {
    long long sum = 0;
    for (long long k = 0; k < n; k++) sum += k % 3;
    return sum;
}

constexpr long long huge = spin(1LL << 60);

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return huge % 7;
}
