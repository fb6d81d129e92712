// expect: RE
// Writes through a null pointer.
#include <vector>
using namespace std;

int* cells = nullptr;

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    cells[aloc[0] * 5 + aloc[1]] = 1;
    return board.size();
}
