// expect: AC
// Looks for the host's and the judge's files; finding any answers -1 (a wrong answer).
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Paths;

class Solution {
    public int solution(int[][] board, int[] aloc, int[] bloc) {
        String[] secrets = {"/etc/passwd", "/etc/shadow", "/etc/hostname", "/root", "/home",
            "/work", "/var", "/srv", "/opt", "/run", "/usr/local", "/usr/bin/python3",
            "/usr/lib/python3/dist-packages", "/proc/1/environ"};
        for (String path : secrets) {
            try {
                if (new File(path).exists() && !path.startsWith("/proc")) return -1;
                if (path.startsWith("/proc") && Files.readAllBytes(Paths.get(path)).length > 0
                        && new String(Files.readAllBytes(Paths.get(path))).contains("JUDGE")) {
                    return -1;
                }
            } catch (Exception e) {
                // unreadable: as it should be
            }
        }
        String[] root = new File("/").list();
        if (root != null) {
            for (String name : root) {
                if (name.equals("work") || name.equals("home") || name.equals("root")) return -1;
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
