// expect: TLE
// The right recursion without a memo: about 4^n calls on a long row.
class Solution {
    private int go(int[] board, int left, int right) {
        if (left > right) return 0;
        int best = Math.max(board[left] - go(board, left + 1, right),
                board[right] - go(board, left, right - 1));
        if (right - left + 1 >= 2) {
            best = Math.max(best, Math.max(-go(board, left + 2, right), -go(board, left, right - 2)));
        }
        return best;
    }

    public int solution(int[] board) {
        return go(board, 0, board.length - 1);
    }
}
