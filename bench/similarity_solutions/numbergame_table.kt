// Independent solution (hard negative): bottom-up over lengths with Array<IntArray>.
class Solution {
    fun solution(board: IntArray): Int {
        val n = board.size
        if (n == 0) return 0
        val best = Array(n + 2) { IntArray(n + 2) }
        for (len in 1..n) {
            for (i in 0..n - len) {
                val j = i + len - 1
                var v = maxOf(board[i] - best[i + 1][j], board[j] - (if (j >= 1) best[i][j - 1] else 0))
                if (len >= 2) {
                    v = maxOf(v, -best[i + 2][j], -(if (j >= 2) best[i][j - 2] else 0))
                }
                best[i][j] = v
            }
        }
        return best[0][n - 1]
    }
}
