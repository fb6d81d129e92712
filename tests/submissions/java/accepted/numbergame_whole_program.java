// expect: AC
// style: stdio
import java.io.*;
import java.util.*;

public class Main {
    static int[] board;
    static int[][] memo;
    static boolean[][] seen;

    static int go(int left, int right) {
        if (left > right) return 0;
        if (seen[left][right]) return memo[left][right];
        int best = Math.max(board[left] - go(left + 1, right), board[right] - go(left, right - 1));
        if (right - left + 1 >= 2) {
            best = Math.max(best, Math.max(-go(left + 2, right), -go(left, right - 2)));
        }
        seen[left][right] = true;
        return memo[left][right] = best;
    }

    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        in.nextToken();
        int cases = (int) in.nval;
        StringBuilder out = new StringBuilder();
        for (int c = 0; c < cases; c++) {
            in.nextToken();
            int n = (int) in.nval;
            board = new int[n];
            for (int i = 0; i < n; i++) {
                in.nextToken();
                board[i] = (int) in.nval;
            }
            memo = new int[n][n]; // a fresh table per case: last case's answers are not this one's
            seen = new boolean[n][n];
            out.append(go(0, n - 1)).append('\n');
        }
        System.out.print(out);
    }
}
