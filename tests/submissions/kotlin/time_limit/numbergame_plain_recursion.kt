// expect: TLE
// The right recursion without a memo: 4^n calls on a long row.
class Solution {
    private fun go(board: IntArray, left: Int, right: Int): Int {
        if (left > right) return 0
        var best = maxOf(board[left] - go(board, left + 1, right), board[right] - go(board, left, right - 1))
        if (right - left + 1 >= 2) best = maxOf(best, -go(board, left + 2, right), -go(board, left, right - 2))
        return best
    }

    fun solution(board: IntArray): Int = go(board, 0, board.size - 1)
}
