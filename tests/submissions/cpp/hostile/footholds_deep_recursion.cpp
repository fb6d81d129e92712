// expect: RE, MLE
// Recursion without end, a kilobyte of stack per call: the stack overflows.
#include <vector>

static int dive(int depth) {
    volatile char frame[1024];
    frame[depth % 1024] = 1;
    return dive(depth + 1) + frame[0];
}

int solution(std::vector<std::vector<int>> board, std::vector<int> aloc, std::vector<int> bloc) {
    return dive(0);
}
