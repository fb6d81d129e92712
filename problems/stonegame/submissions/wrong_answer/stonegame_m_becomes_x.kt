// expect: WA
// The DP over (i, M) with M set to X after a move instead of max(M, X): after taking fewer
// piles than M, a player hands the opponent a smaller M than the rules give. Rows of 8 or
// fewer piles never show it.
class Solution {
    fun solution(piles: IntArray): Int {
        val n = piles.size
        val suf = IntArray(n + 1)
        for (i in n - 1 downTo 0) suf[i] = suf[i + 1] + piles[i]
        val memo = Array(n + 1) { IntArray(2 * n + 2) { -1 } }
        fun best(i: Int, m: Int): Int {
            if (i + 2 * m >= n) return suf[i]
            if (memo[i][m] != -1) return memo[i][m]
            var other = Int.MAX_VALUE
            for (x in 1..2 * m) other = minOf(other, best(i + x, x))
            memo[i][m] = suf[i] - other
            return memo[i][m]
        }
        return best(0, 1)
    }
}
