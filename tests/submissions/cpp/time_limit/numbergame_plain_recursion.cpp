// expect: TLE
// No memo: four choices per move, 4^n calls on a row of n.
#include <bits/stdc++.h>
using namespace std;

vector<int> a;

int lead(int i, int j) {
    if (i == j) return 0;
    int v = max(a[i] - lead(i + 1, j), a[j - 1] - lead(i, j - 1));
    if (j - i >= 2) v = max({v, -lead(i + 2, j), -lead(i, j - 2)});
    return v;
}

int solution(vector<int> board) {
    a = board;
    return lead(0, board.size());
}
