// expect: RE
// Forgets that a pile must hold at least m stones: grundy[n - m] with m > n reads index -1
// and throws ArrayIndexOutOfBoundsException as soon as some amount exceeds a small pile.
class Solution {
    public boolean solution(int[] piles, int[] moves) {
        int top = 0;
        for (int p : piles) top = Math.max(top, p);
        int[] grundy = new int[top + 1];
        for (int n = 1; n <= top; n++) {
            boolean[] seen = new boolean[moves.length + 2];
            for (int m : moves) seen[grundy[n - m]] = true;
            int mex = 0;
            while (seen[mex]) mex++;
            grundy[n] = mex;
        }
        int x = 0;
        for (int p : piles) x ^= grundy[p];
        return x != 0;
    }
}
