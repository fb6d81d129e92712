// expect: AC
// Memoized search over the filled cells as a 25-bit mask; a block fits when it shares no
// bit with the mask.
class Solution {
    companion object {
        private val moves: IntArray by lazy {
            val out = ArrayList<Int>()
            fun bit(r: Int, c: Int) = 1 shl (r * 5 + c)
            for (r in 0 until 5) for (c in 0 until 5) {
                if (c < 4) out.add(bit(r, c) or bit(r, c + 1))
                if (r < 4) out.add(bit(r, c) or bit(r + 1, c))
                if (r < 4 && c < 4) {
                    val cells = listOf(bit(r, c), bit(r, c + 1), bit(r + 1, c), bit(r + 1, c + 1))
                    val square = cells.reduce { a, b -> a or b }
                    for (skip in cells) out.add(square and skip.inv())
                }
            }
            out.toIntArray()
        }
        // 0 unknown, 1 the mover loses, 2 the mover wins
        private val state = ByteArray(1 shl 25)
    }

    private fun wins(mask: Int): Boolean {
        if (state[mask] != 0.toByte()) return state[mask] == 2.toByte()
        val win = moves.any { (mask and it) == 0 && !wins(mask or it) }
        state[mask] = if (win) 2 else 1
        return win
    }

    fun solution(board: Array<String>): String {
        var mask = 0
        for (r in 0 until 5) for (c in 0 until 5) if (board[r][c] == '#') mask = mask or (1 shl (r * 5 + c))
        return if (wins(mask)) "WINNING" else "LOSING"
    }
}
