// expect: AC
class Solution {
    fun solution(board: IntArray): Int {
        val n = board.size
        val memo = HashMap<Pair<Int, Int>, Int>()
        fun go(left: Int, right: Int): Int {
            if (left > right) return 0
            return memo.getOrPut(left to right) {
                var best = maxOf(board[left] - go(left + 1, right), board[right] - go(left, right - 1))
                if (right - left + 1 >= 2) best = maxOf(best, -go(left + 2, right), -go(left, right - 2))
                best
            }
        }
        return go(0, n - 1)
    }
}
