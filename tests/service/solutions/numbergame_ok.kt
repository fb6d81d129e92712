// numbergame, bottom-up: d[lo][end] is the best lead on board[lo..end) for the player to move.
class Solution {
    fun solution(board: IntArray): Int {
        val n = board.size
        val d = Array(n + 2) { IntArray(n + 2) }
        for (len in 1..n) {
            for (lo in 0..n - len) {
                val hi = lo + len - 1
                var best = maxOf(board[lo] - d[lo + 1][hi + 1], board[hi] - d[lo][hi])
                if (len >= 2) best = maxOf(best, -d[lo + 2][hi + 1], -d[lo][hi - 1])
                d[lo][hi + 1] = best
            }
        }
        return d[0][n]
    }
}
