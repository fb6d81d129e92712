// expect: AC
// Sprague-Grundy with Kotlin collections: mex of the reachable values, then a fold with xor.
class Solution {
    fun solution(piles: IntArray, moves: IntArray): Boolean {
        var top = 0
        for (p in piles) top = maxOf(top, p)
        val grundy = IntArray(top + 1)
        for (n in 1..top) {
            val reachable = moves.filter { it <= n }.map { grundy[n - it] }.toSet()
            grundy[n] = generateSequence(0) { it + 1 }.first { it !in reachable }
        }
        return piles.fold(0) { acc, p -> acc xor grundy[p] } != 0
    }
}
