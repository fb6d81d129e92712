// expect: WA
// Off by one at the end of the table: `until` stops before `top`, so the largest pile keeps
// the Grundy value 0 it was initialised with.
class Solution {
    fun solution(piles: IntArray, moves: IntArray): Boolean {
        var top = 0
        for (p in piles) top = maxOf(top, p)
        val grundy = IntArray(top + 1)
        for (n in 1 until top) {
            val reachable = HashSet<Int>()
            for (m in moves) if (m <= n) reachable.add(grundy[n - m])
            var mex = 0
            while (mex in reachable) mex++
            grundy[n] = mex
        }
        var x = 0
        for (p in piles) x = x xor grundy[p]
        return x != 0
    }
}
