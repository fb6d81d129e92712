// expect: CE
// style: stdio
#include <cstdio>

int main() {
    int cases;
    scanf("%d", &cases);
    while (cases--) printf("%d\n", answer);
}
