// expect: WA
// Alice maximises, Bob minimises Alice's stones: right idea, but the "everything left can be
// taken" test is off by one (n - 1 taken for the last index), so with 2M + 1 piles left the
// mover is treated as taking them all.
class Solution {
    fun solution(piles: IntArray): Int {
        val n = piles.size
        val suf = IntArray(n + 1)
        for (i in n - 1 downTo 0) suf[i] = suf[i + 1] + piles[i]
        val memo = HashMap<Triple<Int, Int, Boolean>, Int>()
        fun go(i: Int, m: Int, aliceTurn: Boolean): Int {
            if (i + 2 * m >= n - 1) return if (aliceTurn) suf[i] else 0
            return memo.getOrPut(Triple(i, m, aliceTurn)) {
                if (aliceTurn) {
                    var best = 0
                    for (x in 1..2 * m) best = maxOf(best, suf[i] - suf[i + x] + go(i + x, maxOf(m, x), false))
                    best
                } else {
                    var best = Int.MAX_VALUE
                    for (x in 1..2 * m) best = minOf(best, go(i + x, maxOf(m, x), true))
                    best
                }
            }
        }
        return go(0, 1, true)
    }
}
