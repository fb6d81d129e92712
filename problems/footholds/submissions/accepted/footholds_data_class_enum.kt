// expect: AC
// A minimax over positions: a data class for the state, an enum class for the directions.

enum class Direction(val dr: Int, val dc: Int) {
    UP(-1, 0), DOWN(1, 0), LEFT(0, -1), RIGHT(0, 1)
}

data class Cell(val r: Int, val c: Int) {
    fun step(d: Direction) = Cell(r + d.dr, c + d.dc)
}

data class Outcome(val wins: Boolean, val moves: Int)

class Solution {
    private lateinit var board: Array<IntArray>

    private fun inside(cell: Cell) =
        cell.r in board.indices && cell.c in board[0].indices && board[cell.r][cell.c] == 1

    private fun play(me: Cell, other: Cell): Outcome {
        if (board[me.r][me.c] == 0) return Outcome(false, 0)
        var best: Outcome? = null
        for (d in Direction.values()) {
            val next = me.step(d)
            if (!inside(next)) continue
            board[me.r][me.c] = 0
            val reply = play(other, next)
            board[me.r][me.c] = 1
            val mine = Outcome(!reply.wins, reply.moves + 1)
            best = when {
                best == null -> mine
                mine.wins && !best.wins -> mine
                mine.wins && best.wins && mine.moves < best.moves -> mine
                !mine.wins && !best.wins && mine.moves > best.moves -> mine
                else -> best
            }
        }
        return best ?: Outcome(false, 0)
    }

    fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int {
        this.board = board
        return play(Cell(aloc[0], aloc[1]), Cell(bloc[0], bloc[1])).moves
    }
}
