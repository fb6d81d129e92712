// expect: RE
// Threads that never end, started until the JVM cannot start another.
class Solution {
    fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int {
        while (true) Thread { Thread.sleep(Long.MAX_VALUE) }.start()
    }
}
