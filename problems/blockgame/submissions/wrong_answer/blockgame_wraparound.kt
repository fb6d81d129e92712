// expect: WA
// The blocks are made by shifting each shape's bits across the 25-bit mask, with no check
// that the shape stays inside one row: a "domino" made of the last cell of a row and the
// first cell of the next one (and such Ls) are counted as moves.
class Solution {
    private val moves: IntArray
    private val known = ByteArray(1 shl 25)  // 0 unknown, 1 lost, 2 won

    init {
        val shapes = intArrayOf(
            0b11,                    // horizontal domino
            (1 shl 5) or 1,          // vertical domino
            0b11 or (1 shl 5),       // the four Ls in a 2x2 square
            0b11 or (1 shl 6),
            1 or (0b11 shl 5),
            2 or (0b11 shl 5)
        )
        val list = ArrayList<Int>()
        for (s in shapes) {
            var shifted = s
            while (shifted < (1 shl 25)) {
                list.add(shifted)
                shifted = shifted shl 1
            }
        }
        moves = list.toIntArray()
    }

    private fun win(filled: Int): Boolean {
        if (known[filled] != 0.toByte()) return known[filled] == 2.toByte()
        val result = moves.any { (filled and it) == 0 && !win(filled or it) }
        known[filled] = if (result) 2 else 1
        return result
    }

    fun solution(board: Array<String>): String {
        var filled = 0
        for (r in 0 until 5) for (c in 0 until 5) if (board[r][c] == '#') filled = filled or (1 shl (r * 5 + c))
        return if (win(filled)) "WINNING" else "LOSING"
    }
}
