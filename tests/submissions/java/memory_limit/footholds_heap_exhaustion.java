// expect: MLE
// Hoards memory on the larger boards until the heap is exhausted.
import java.util.ArrayList;
import java.util.List;

class Solution {
    public int solution(int[][] board, int[] aloc, int[] bloc) {
        if (board.length * board[0].length < 25) return honest(board, aloc, bloc);
        List<long[]> hoard = new ArrayList<>();
        while (true) hoard.add(new long[1 << 20]);
    }
    // An honest minimax: (moves * 2 + 1 when the mover wins).
    private int[][] b;

    private int play(int ar, int ac, int br, int bc) {
        if (b[ar][ac] == 0) return 0;
        int[][] steps = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        boolean win = false, moved = false;
        int best = 0, loss = 0;
        for (int[] s : steps) {
            int nr = ar + s[0], nc = ac + s[1];
            if (nr < 0 || nr >= b.length || nc < 0 || nc >= b[0].length || b[nr][nc] == 0) continue;
            moved = true;
            b[ar][ac] = 0;
            int r = play(br, bc, nr, nc);
            b[ar][ac] = 1;
            int moves = (r >> 1) + 1;
            if ((r & 1) == 0) { if (!win || moves < best) best = moves; win = true; }
            else if (!win) loss = Math.max(loss, moves);
        }
        if (!moved) return 0;
        return win ? best * 2 + 1 : loss * 2;
    }

    private int honest(int[][] board, int[] aloc, int[] bloc) {
        b = board;
        return play(aloc[0], aloc[1], bloc[0], bloc[1]) >> 1;
    }
}
