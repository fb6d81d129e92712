// expect: AC
// Tries to read the tests after the one it is answering: a tests file in /box, bytes waiting
// on any pipe it may read (the tests channel, opened by number as the driver opens its own),
// or in the driver's buffer of it (a class of the same program). It checks on its first call
// and on every board wider or taller than 3 (outside the small tier, whose positions are
// handed over together), after a moment's wait; seeing anything answers -1 (a wrong answer),
// so an AC says it saw nothing.
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Paths;

class Solution {
    static int calls = 0;

    static boolean testsFile() {
        for (String root : new String[] {"/box", "."}) {
            File[] files = new File(root).listFiles();
            if (files == null) continue;
            for (File f : files) {
                if (f.getName().toLowerCase().contains("test") && f.isFile() && f.length() > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    static long bytesWaiting() {
        long waiting = 0;
        File[] fds = new File("/proc/self/fd").listFiles();
        if (fds == null) return 0;
        for (File f : fds) {
            try {
                if (!Files.readSymbolicLink(f.toPath()).toString().startsWith("pipe:")) continue;
                String info = new String(Files.readAllBytes(Paths.get("/proc/self/fdinfo/" + f.getName())));
                String flags = info.substring(info.indexOf("flags:") + 6).trim().split("\\s+")[0];
                if ((Integer.parseInt(flags, 8) & 3) != 0) continue; // not opened for reading only
                FileDescriptor descriptor = new FileDescriptor();
                Field field = FileDescriptor.class.getDeclaredField("fd");
                field.setAccessible(true);
                field.setInt(descriptor, Integer.parseInt(f.getName()));
                waiting += new FileInputStream(descriptor).available();
            } catch (Exception e) {
                // not a descriptor it can look into
            }
        }
        return waiting;
    }

    /** Bytes the driver has read beyond the current test's line, through reflection. */
    static boolean buffered() {
        try {
            Class<?> driver = Class.forName("Judge__Driver");
            Field filled = driver.getDeclaredField("filled"), end = driver.getDeclaredField("end");
            filled.setAccessible(true);
            end.setAccessible(true);
            return filled.getInt(null) > end.getInt(null) + 1;
        } catch (Exception e) {
            return false;
        }
    }

    public int solution(int[][] board, int[] aloc, int[] bloc) {
        calls++;
        if (calls == 1 || board.length > 3 || board[0].length > 3) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                // looks at once
            }
            if (testsFile() || bytesWaiting() > 0 || buffered()) return -1;
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
