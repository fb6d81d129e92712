// Independent solution (hard negative): bottom-up table by length.
class Solution {
    public int solution(int[] board) {
        int n = board.length;
        int[][] t = new int[n + 2][n + 2];
        for (int len = 1; len <= n; len++) {
            for (int i = 0; i + len <= n; i++) {
                int j = i + len - 1;
                int left = board[i] - (i + 1 <= j ? t[i + 1][j] : 0);
                int right = board[j] - (i <= j - 1 ? t[i][j - 1] : 0);
                int v = Math.max(left, right);
                if (len >= 2) {
                    v = Math.max(v, -(i + 2 <= j ? t[i + 2][j] : 0));
                    v = Math.max(v, -(i <= j - 2 ? t[i][j - 2] : 0));
                }
                t[i][j] = v;
            }
        }
        return n == 0 ? 0 : t[0][n - 1];
    }
}
