#include <vector>
using namespace std;

int solution(vector<int> board) {
    return board.size()  // the semicolon is missing
}
