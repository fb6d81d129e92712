// expect: RE
// Threads that never end, started until the JVM cannot start another.
class Solution {
    public int solution(int[][] board, int[] aloc, int[] bloc) {
        while (true) {
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    // keep the slot
                }
            });
            t.start();
        }
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
