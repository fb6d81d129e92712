// Independent solution (hard negative): Grundy table with a BooleanArray mex.
class Solution {
    fun solution(piles: IntArray, moves: IntArray): Boolean {
        val top = piles.maxOrNull() ?: 0
        val g = IntArray(top + 1)
        for (s in 1..top) {
            val seen = BooleanArray(moves.size + 1)
            for (m in moves) {
                if (m <= s && g[s - m] <= moves.size) seen[g[s - m]] = true
            }
            var v = 0
            while (seen[v]) v++
            g[s] = v
        }
        var x = 0
        for (p in piles) x = x xor g[p]
        return x != 0
    }
}
