// expect: TLE
class Solution {
    public int solution(int[][] board, int[] aloc, int[] bloc) {
        long spins = 0;
        while (board.length > 0) spins++;
        return (int) spins;
    }
}
