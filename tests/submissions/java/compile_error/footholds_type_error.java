// expect: CE
class Solution {
    public int solution(int[][] board, int[] aloc, int[] bloc) {
        String moves = board.length;
        return moves;
    }
}
