// expect: AC
import java.util.ArrayList;
import java.util.List;

class Solution {
    private static final int N = 5;
    private static int[] blocks;
    // 0: not known yet, 1: the player to move loses, 2: wins. Indexed by the filled cells.
    private static byte[] memo;

    private static int bit(int r, int c) {
        return 1 << (r * N + c);
    }

    private static void init() {
        List<Integer> list = new ArrayList<>();
        for (int r = 0; r < N; r++) {
            for (int c = 0; c < N; c++) {
                if (c + 1 < N) list.add(bit(r, c) | bit(r, c + 1));
                if (r + 1 < N) list.add(bit(r, c) | bit(r + 1, c));
                if (r + 1 < N && c + 1 < N) {
                    int square = bit(r, c) | bit(r, c + 1) | bit(r + 1, c) | bit(r + 1, c + 1);
                    list.add(square & ~bit(r, c));
                    list.add(square & ~bit(r, c + 1));
                    list.add(square & ~bit(r + 1, c));
                    list.add(square & ~bit(r + 1, c + 1));
                }
            }
        }
        blocks = list.stream().mapToInt(Integer::intValue).toArray();
        memo = new byte[1 << (N * N)];
    }

    private boolean canWin(int filled) {
        if (memo[filled] != 0) return memo[filled] == 2;
        boolean win = false;
        for (int b : blocks) {
            if ((filled & b) == 0 && !canWin(filled | b)) {
                win = true;
                break;
            }
        }
        memo[filled] = (byte) (win ? 2 : 1);
        return win;
    }

    public String solution(String[] board) {
        if (blocks == null) init();
        int filled = 0;
        for (int r = 0; r < N; r++) {
            for (int c = 0; c < N; c++) {
                if (board[r].charAt(c) == '#') filled |= bit(r, c);
            }
        }
        return canWin(filled) ? "WINNING" : "LOSING";
    }
}
