// expect: MLE
// A memo table of 2^15 x 2^15 ints: four gigabytes asked for at once.
#include <vector>
using namespace std;

int solution(vector<int> board) {
    vector<vector<int>> memo(1 << 15, vector<int>(1 << 15, -1));
    return memo[board.size()][0];
}
