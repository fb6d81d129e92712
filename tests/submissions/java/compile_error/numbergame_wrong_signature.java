// expect: CE
import java.util.List;

class Solution {
    public int solution(List<Integer> board) {
        return 0;
    }
}
