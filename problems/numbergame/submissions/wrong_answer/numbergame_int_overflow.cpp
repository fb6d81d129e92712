// expect: WA
// An empty row taken as "minus infinity" (INT_MIN) for the player who cannot move: taking
// the last number then computes board[i] - INT_MIN, which overflows an int.
#include <bits/stdc++.h>
using namespace std;

vector<int> a;
map<pair<int, int>, int> memo;

int lead(int i, int j) {
    if (i == j) return INT_MIN;  // no number to take: the worst there is
    auto key = make_pair(i, j);
    if (memo.count(key)) return memo[key];
    int v = max(a[i] - lead(i + 1, j), a[j - 1] - lead(i, j - 1));
    if (j - i >= 2) {
        int left = j - i == 2 ? 0 : -lead(i + 2, j);
        int right = j - i == 2 ? 0 : -lead(i, j - 2);
        v = max({v, left, right});
    }
    return memo[key] = v;
}

int solution(vector<int> board) {
    a = board;
    memo.clear();
    return lead(0, board.size());
}
