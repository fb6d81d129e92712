// expect: AC
class Solution {
    private int n;
    private int[] suffix;
    private int[][] memo;

    private int best(int i, int m) {
        if (i + 2 * m >= n) return suffix[i];
        if (memo[i][m] != 0) return memo[i][m];
        int opponent = Integer.MAX_VALUE;
        for (int x = 1; x <= 2 * m; x++) {
            opponent = Math.min(opponent, best(i + x, Math.max(m, x)));
        }
        return memo[i][m] = suffix[i] - opponent;
    }

    public int solution(int[] piles) {
        n = piles.length;
        suffix = new int[n + 1];
        for (int i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + piles[i];
        memo = new int[n + 1][n + 1];
        return best(0, 1);
    }
}
