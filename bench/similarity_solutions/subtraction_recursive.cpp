// Independent solution (hard negative): recursive Grundy with a memo vector.
#include <bits/stdc++.h>
using namespace std;

static vector<int> memo;
static vector<int> allowed;

int grundy(int n) {
    if (memo[n] >= 0) return memo[n];
    set<int> reach;
    for (int a : allowed) if (a <= n) reach.insert(grundy(n - a));
    int mex = 0;
    while (reach.count(mex)) ++mex;
    return memo[n] = mex;
}

bool solution(vector<int> piles, vector<int> moves) {
    allowed = moves;
    int top = 0;
    for (int p : piles) top = max(top, p);
    memo.assign(top + 1, -1);
    int x = 0;
    for (int p : piles) x ^= grundy(p);
    return x != 0;
}
