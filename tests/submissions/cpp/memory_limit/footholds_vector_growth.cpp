// expect: MLE
// Grows a vector by a gigabyte, touching every page.
#include <vector>
using namespace std;

vector<long long> hoard;

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    for (long long k = 0; k < (1LL << 27); k++) hoard.push_back(k);
    return hoard.size();
}
