// numbergame without the delete moves: a player may only take a number from an end.
class Solution {
    public int solution(int[] board) {
        int n = board.length;
        int[][] d = new int[n + 2][n + 2];
        for (int len = 1; len <= n; len++) {
            for (int lo = 0; lo + len <= n; lo++) {
                int hi = lo + len - 1;
                d[lo][hi + 1] = Math.max(board[lo] - d[lo + 1][hi + 1], board[hi] - d[lo][hi]);
            }
        }
        return d[0][n];
    }
}
