// expect: RE
class Solution {
    private int[][] seen;

    public int solution(int[][] board, int[] aloc, int[] bloc) {
        return seen[aloc[0]][aloc[1]]; // never allocated: NullPointerException
    }
}
