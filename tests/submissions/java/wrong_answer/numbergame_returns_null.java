// expect: WA
// An Integer that is null where the board is long: the judge says it got null, not an int.
class Solution {
    public Integer solution(int[] board) {
        if (board.length > 3) return null;
        int sum = 0;
        for (int x : board) sum += x;
        return sum;
    }
}
