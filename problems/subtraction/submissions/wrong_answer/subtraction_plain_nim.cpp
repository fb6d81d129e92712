// expect: WA
// Plain Nim: XOR of the pile sizes. Right when any number of stones may be taken, but here
// only the amounts in `moves` are allowed, and the move set is never looked at.
#include <bits/stdc++.h>
using namespace std;

bool solution(vector<int> piles, vector<int> moves) {
    int x = 0;
    for (int p : piles) x ^= p;
    return x != 0;
}
