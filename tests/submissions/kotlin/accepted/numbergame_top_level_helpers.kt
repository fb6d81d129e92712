// expect: AC
// Top-level helpers with the names a driver might use, and a main for trying it locally:
// none of them may clash with the judge's driver, and main is not called.
class Capture(val best: Int)

fun nextInt(): Int = 0

fun run(fd: Int, start: Int, capture: Boolean) {}

val data = IntArray(0)

fun encode(board: IntArray): Capture {
    val n = board.size
    val best = Array(n + 1) { IntArray(n + 1) }
    for (length in 1..n) {
        for (left in 0..n - length) {
            val right = left + length - 1
            var value = maxOf(board[left] - best[left + 1][right + 1], board[right] - best[left][right])
            if (length >= 2) value = maxOf(value, -best[left + 2][right + 1], -best[left][right - 1])
            best[left][right + 1] = value
        }
    }
    return Capture(best[0][n])
}

class Solution {
    fun solution(board: IntArray): Int = encode(board).best
}

fun main() {
    println(Solution().solution(intArrayOf(-1000, -1000, -3, -1000, -1000)))
    System.exit(3)
}
