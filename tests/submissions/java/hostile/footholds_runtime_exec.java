// expect: AC
// Runtime.exec: a shell (not in the sandbox), then the JVM itself, started again and again
// without waiting (a process bomb the pids limit ends). Everything it starts must be gone.
import java.util.ArrayList;
import java.util.List;

class Solution {
    private static boolean tried;

    public int solution(int[][] board, int[] aloc, int[] bloc) {
        if (tried) return honest(board, aloc, bloc);
        tried = true;
        try {
            Process shell = Runtime.getRuntime().exec(new String[] {"/bin/sh", "-c", "id"});
            if (shell.getInputStream().read() >= 0) return -1; // a shell ran: the test says so
        } catch (Exception e) {
            // no shell in the sandbox
        }
        String java = System.getProperty("java.home") + "/bin/java";
        List<Process> started = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            try {
                started.add(Runtime.getRuntime().exec(new String[] {java, "-Xmx8m", "-version"}));
            } catch (Throwable e) {
                break; // the pids limit: no more processes
            }
        }
        return honest(board, aloc, bloc);
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
