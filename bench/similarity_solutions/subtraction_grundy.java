// Independent solution (hard negative): Grundy table with a HashSet per size.
import java.util.*;

class Solution {
    public boolean solution(int[] piles, int[] moves) {
        int max = 0;
        for (int p : piles) max = Math.max(max, p);
        int[] g = new int[max + 1];
        for (int s = 1; s <= max; s++) {
            Set<Integer> seen = new HashSet<>();
            for (int m : moves) {
                if (m <= s) seen.add(g[s - m]);
            }
            int mex = 0;
            while (seen.contains(mex)) mex++;
            g[s] = mex;
        }
        int x = 0;
        for (int p : piles) x ^= g[p];
        return x != 0;
    }
}
