// expect: CE
class Solution {
    fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int {
        val moves: Int = "none"
        return moves + undefinedHelper(board)
    }
}
