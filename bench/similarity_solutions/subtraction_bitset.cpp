// Independent solution (hard negative): Grundy values with a small bitset for the mex.
#include <bits/stdc++.h>
using namespace std;

bool solution(vector<int> piles, vector<int> moves) {
    int hi = *max_element(piles.begin(), piles.end());
    vector<int> g(hi + 1, 0);
    for (int s = 1; s <= hi; s++) {
        bitset<128> used;
        for (int m : moves)
            if (m <= s) used.set(g[s - m]);
        int v = 0;
        while (used.test(v)) v++;
        g[s] = v;
    }
    int acc = 0;
    for (int p : piles) acc ^= g[p];
    return acc != 0;
}
