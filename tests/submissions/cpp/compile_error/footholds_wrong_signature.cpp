// expect: CE
// Takes the board as one flat row: no call of solution(board, aloc, bloc) fits.
#include <vector>
using namespace std;

int solution(vector<int> board, vector<int> aloc, vector<int> bloc) {
    return board.size();
}
