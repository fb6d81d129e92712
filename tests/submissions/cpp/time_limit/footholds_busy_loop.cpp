// expect: TLE
// Spins forever on any board with more than four footholds.
#include <vector>
using namespace std;

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    int footholds = 0;
    for (auto& row : board)
        for (int cell : row) footholds += cell;
    volatile unsigned long spin = 0;
    while (footholds > 4) spin = spin + 1;
    return 0;
}
