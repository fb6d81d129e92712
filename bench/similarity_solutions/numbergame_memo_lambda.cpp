// Independent solution (hard negative): memoised recursion with a std::function.
#include <bits/stdc++.h>
using namespace std;

int solution(vector<int> board) {
    const int n = (int)board.size();
    map<pair<int, int>, int> seen;
    function<int(int, int)> value = [&](int lo, int hi) -> int {
        if (lo > hi) return 0;
        auto it = seen.find({lo, hi});
        if (it != seen.end()) return it->second;
        int res = max(board[lo] - value(lo + 1, hi), board[hi] - value(lo, hi - 1));
        if (hi > lo) res = max({res, -value(lo + 2, hi), -value(lo, hi - 2)});
        seen[{lo, hi}] = res;
        return res;
    };
    return value(0, n - 1);
}
