// expect: AC
// style: stdio
fun main() {
    val tokens = System.`in`.bufferedReader().readText().split(Regex("\\s+")).filter { it.isNotEmpty() }
    var at = 0
    fun next() = tokens[at++].toInt()
    val out = StringBuilder()
    repeat(next()) {
        val board = IntArray(next()) { next() }
        val n = board.size
        val memo = Array(n + 2) { arrayOfNulls<Int>(n + 2) } // per case: no answers left over
        fun go(left: Int, right: Int): Int {
            if (left > right) return 0
            memo[left][right]?.let { return it }
            var best = maxOf(board[left] - go(left + 1, right), board[right] - go(left, right - 1))
            if (right - left + 1 >= 2) best = maxOf(best, -go(left + 2, right), -go(left, right - 2))
            memo[left][right] = best
            return best
        }
        out.append(go(0, n - 1)).append('\n')
    }
    print(out)
}
