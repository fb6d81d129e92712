// expect: AC
// Contest habits: `#define int long long`, short macros, and a main() left in for local tests.
#include <bits/stdc++.h>
using namespace std;
#define int long long
#define F first
#define S second
#define pb push_back
#define all(x) (x).begin(), (x).end()
typedef pair<bool, int> pbi;

int R, C;
vector<vector<int>> g;

pbi dfs(int r, int c, int orow, int ocol) {
    if (!g[r][c]) return {false, 0};
    vector<int> wins, losses;
    int d4[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
    for (auto& d : d4) {
        int nr = r + d[0], nc = c + d[1];
        if (nr < 0 || nc < 0 || nr >= R || nc >= C || !g[nr][nc]) continue;
        g[r][c] = 0;
        pbi res = dfs(orow, ocol, nr, nc);
        g[r][c] = 1;
        (res.F ? losses : wins).pb(res.S + 1);
    }
    if (!wins.empty()) return {true, *min_element(all(wins))};
    if (!losses.empty()) return {false, *max_element(all(losses))};
    return {false, 0};
}

int solution(vector<vector<int>> board, vector<int> aloc, vector<int> bloc) {
    g = board;
    R = g.size(), C = g[0].size();
    return dfs(aloc[0], aloc[1], bloc[0], bloc[1]).S;
}

signed main() {
    cout << solution({{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, {1, 0}, {1, 2}) << endl;
}
