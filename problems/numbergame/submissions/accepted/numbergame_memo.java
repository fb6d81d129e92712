// expect: AC
import java.util.Arrays;

class Solution {
    private int[] board;
    private int[][] memo;
    private static final int UNSET = Integer.MIN_VALUE;

    private int go(int left, int right) {
        if (left > right) return 0;
        if (memo[left][right] != UNSET) return memo[left][right];
        int best = Math.max(board[left] - go(left + 1, right), board[right] - go(left, right - 1));
        if (right - left + 1 >= 2) {
            best = Math.max(best, Math.max(-go(left + 2, right), -go(left, right - 2)));
        }
        return memo[left][right] = best;
    }

    public int solution(int[] board) {
        this.board = board;
        memo = new int[board.length][board.length];
        for (int[] row : memo) Arrays.fill(row, UNSET);
        return go(0, board.length - 1);
    }
}
