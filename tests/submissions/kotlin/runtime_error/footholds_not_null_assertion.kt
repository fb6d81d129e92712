// expect: RE
class Solution {
    private val seen = HashMap<Int, Int>()

    fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int {
        return seen[aloc[0]]!! // never filled: a KotlinNullPointerException
    }
}
