// expect: WA
// The Bachet shortcut: a pile's value taken as n % (largest move + 1). That is the Grundy
// value only when the moves are exactly 1..k; for {1, 3, 4} or {2, 3} it is wrong.
class Solution {
    public boolean solution(int[] piles, int[] moves) {
        int k = 0;
        for (int m : moves) k = Math.max(k, m);
        int x = 0;
        for (int p : piles) x ^= p % (k + 1);
        return x != 0;
    }
}
