// expect: AC
// Memoized recursion for the Grundy value of a single pile, then the XOR over the piles.
import java.util.Arrays;

class Solution {
    private int[] moves;
    private int[] memo;

    private int grundy(int n) {
        if (memo[n] >= 0) return memo[n];
        boolean[] seen = new boolean[moves.length + 1];
        for (int m : moves) {
            if (m <= n) {
                int g = grundy(n - m);
                if (g < seen.length) seen[g] = true;
            }
        }
        int mex = 0;
        while (seen[mex]) mex++;
        return memo[n] = mex;
    }

    public boolean solution(int[] piles, int[] moves) {
        this.moves = moves;
        int top = Arrays.stream(piles).max().getAsInt();
        memo = new int[top + 1];
        Arrays.fill(memo, -1);
        int x = 0;
        for (int p : piles) x ^= grundy(p);
        return x != 0;
    }
}
