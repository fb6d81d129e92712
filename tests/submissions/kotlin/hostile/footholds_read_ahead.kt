// expect: AC
// Tries to read the tests after the one it is answering: a tests file in /box, bytes waiting
// on any pipe it may read (the tests channel, opened by number as the driver opens its own),
// or in the driver's buffer of it (an object of the same program). It checks on its first
// call and on every board wider or taller than 3 (outside the small tier, whose positions are
// handed over together), after a moment's wait; seeing anything answers -1 (a wrong answer),
// so an AC says it saw nothing.
import java.io.File
import java.io.FileDescriptor
import java.io.FileInputStream
import java.nio.file.Files

var calls = 0

fun testsFile(): Boolean = listOf("/box", ".").any { root ->
    File(root).listFiles()?.any {
        it.name.toLowerCase().contains("test") && it.isFile && it.length() > 0
    } ?: false
}

fun bytesWaiting(): Long {
    var waiting = 0L
    for (f in File("/proc/self/fd").listFiles() ?: emptyArray()) {
        try {
            if (!Files.readSymbolicLink(f.toPath()).toString().startsWith("pipe:")) continue
            val info = String(Files.readAllBytes(File("/proc/self/fdinfo/" + f.name).toPath()))
            val flags = info.substring(info.indexOf("flags:") + 6).trim().split(Regex("\\s+"))[0]
            if (flags.toInt(8) and 3 != 0) continue // not opened for reading only
            val descriptor = FileDescriptor()
            val field = FileDescriptor::class.java.getDeclaredField("fd")
            field.isAccessible = true
            field.setInt(descriptor, f.name.toInt())
            waiting += FileInputStream(descriptor).available()
        } catch (e: Exception) {
            // not a descriptor it can look into
        }
    }
    return waiting
}

/** Bytes the driver has read beyond the current test's line, through reflection. */
fun buffered(): Boolean = try {
    val driver = Class.forName("Judge__Driver")
    val filled = driver.getDeclaredField("filled")
    val end = driver.getDeclaredField("end")
    filled.isAccessible = true
    end.isAccessible = true
    filled.getInt(null) > end.getInt(null) + 1
} catch (e: Exception) {
    false
}

class Solution {
    fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int {
        calls++
        if (calls == 1 || board.size > 3 || board[0].size > 3) {
            Thread.sleep(20)
            if (testsFile() || bytesWaiting() > 0 || buffered()) return -1
        }
        return honest(board, aloc, bloc)
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
