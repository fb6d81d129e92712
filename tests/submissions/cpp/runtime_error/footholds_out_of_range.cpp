// expect: RE
// vector::at past the last row: std::out_of_range, never caught.
#include <vector>
using namespace std;

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    return board.at(board.size()).at(0);
}
