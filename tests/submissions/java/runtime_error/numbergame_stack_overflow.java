// expect: RE
// No base case: the recursion never ends, which the JVM ends with a StackOverflowError.
class Solution {
    private int go(int[] board, int left, int right) {
        return Math.max(board[0] - go(board, left + 1, right), -go(board, left, right - 1));
    }

    public int solution(int[] board) {
        return go(board, 0, board.length - 1);
    }
}
