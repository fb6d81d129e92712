// expect: AC
// Alice maximises her stones, Bob (who wants the most for himself) minimises them.
class Solution {
    fun solution(piles: IntArray): Int {
        val n = piles.size
        val prefix = IntArray(n + 1)
        for (i in 0 until n) prefix[i + 1] = prefix[i] + piles[i]
        val memo = HashMap<Triple<Int, Int, Boolean>, Int>()
        fun alice(i: Int, m: Int, aliceTurn: Boolean): Int {
            if (i == n) return 0
            return memo.getOrPut(Triple(i, m, aliceTurn)) {
                var best = if (aliceTurn) Int.MIN_VALUE else Int.MAX_VALUE
                for (x in 1..minOf(2 * m, n - i)) {
                    val next = alice(i + x, maxOf(m, x), !aliceTurn)
                    best = if (aliceTurn) maxOf(best, prefix[i + x] - prefix[i] + next) else minOf(best, next)
                }
                best
            }
        }
        return alice(0, 1, true)
    }
}
