// expect: OLE
// Prints without end: the output limit ends the run, nothing fills the judge's memory.
class Solution {
    fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int {
        val line = "flood ".repeat(1000)
        while (true) println(line)
    }
}

// An honest minimax: (moves * 2 + 1 when the mover wins).
private fun play(b: Array<IntArray>, ar: Int, ac: Int, br: Int, bc: Int): Int {
    if (b[ar][ac] == 0) return 0
    var win = false
    var moved = false
    var best = 0
    var loss = 0
    for ((dr, dc) in listOf(-1 to 0, 1 to 0, 0 to -1, 0 to 1)) {
        val nr = ar + dr
        val nc = ac + dc
        if (nr !in b.indices || nc !in b[0].indices || b[nr][nc] == 0) continue
        moved = true
        b[ar][ac] = 0
        val r = play(b, br, bc, nr, nc)
        b[ar][ac] = 1
        val moves = (r shr 1) + 1
        if (r and 1 == 0) {
            if (!win || moves < best) best = moves
            win = true
        } else if (!win) {
            loss = maxOf(loss, moves)
        }
    }
    if (!moved) return 0
    return if (win) best * 2 + 1 else loss * 2
}

fun honest(board: Array<IntArray>, aloc: IntArray, bloc: IntArray) =
    play(board, aloc[0], aloc[1], bloc[0], bloc[1]) shr 1
