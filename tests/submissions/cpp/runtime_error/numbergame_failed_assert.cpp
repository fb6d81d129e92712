// expect: RE
// An assert the tests break: abort().
#include <cassert>
#include <vector>
using namespace std;

int solution(vector<int> board) {
    assert(board.size() < 3);
    return board[0];
}
