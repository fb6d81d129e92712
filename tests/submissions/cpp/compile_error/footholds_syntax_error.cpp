// expect: CE
#include <vector>
using namespace std;

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    int moves = 0
    return moves;
}
