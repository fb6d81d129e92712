// expect: CE
// Millions of distinct instantiations, each within the nesting limit: the compile's time or
// memory limit ends it.
#include <vector>

template <int A, int B, int C>
struct Cube {
    static constexpr long value =
        (Cube<A - 1, B, C>::value + Cube<A, B - 1, C>::value + Cube<A, B, C - 1>::value) % 1000003;
};
template <int B, int C>
struct Cube<0, B, C> {
    static constexpr long value = 1;
};
template <int A, int C>
struct Cube<A, 0, C> {
    static constexpr long value = 1;
};
template <int A, int B>
struct Cube<A, B, 0> {
    static constexpr long value = 1;
};

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return Cube<250, 250, 250>::value % 7;
}
