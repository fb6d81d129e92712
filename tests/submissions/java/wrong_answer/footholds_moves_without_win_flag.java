// expect: WA
// The classic slip: the recursion returns only the number of moves, not who wins, so a
// player cannot tell a winning reply from a losing one and takes the longest line.
class Solution {
    private static final int[] DR = {-1, 1, 0, 0};
    private static final int[] DC = {0, 0, -1, 1};
    private int[][] board;

    private int play(int ar, int ac, int br, int bc) {
        if (board[ar][ac] == 0) return 0;
        int best = 0;
        for (int d = 0; d < 4; d++) {
            int nr = ar + DR[d], nc = ac + DC[d];
            if (nr < 0 || nr >= board.length || nc < 0 || nc >= board[0].length) continue;
            if (board[nr][nc] == 0) continue;
            board[ar][ac] = 0;
            best = Math.max(best, play(br, bc, nr, nc) + 1);
            board[ar][ac] = 1;
        }
        return best;
    }

    public int solution(int[][] board, int[] aloc, int[] bloc) {
        this.board = board;
        return play(aloc[0], aloc[1], bloc[0], bloc[1]);
    }
}
