"""Java and Kotlin plug-ins without a JVM: signatures and templates from the problem's types,
and compiler messages cut down to the submission's file (the corpus test compiles for real)."""

from __future__ import annotations

from judge.languages import RunRequest, Style, get_language
from judge.problems import get

JAVAC_DRIVER_ERROR = """\
/box/Judge__Driver.java:292: error: incompatible types: int[][] cannot be converted to int[]
                Object value = new Solution().solution((int[][]) a[0]); \
// EXPECTED: public int solution(int[][] board, int[] aloc, int[] bloc)
                                                       ^
Note: Some messages have been simplified
1 error
"""
JAVAC_OWN_ERROR = """\
Solution.java:3: error: cannot find symbol
        int x = foo("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
                ^
  symbol:   method foo(String)
1 error
"""


def test_signatures_and_templates_follow_the_problems_types():
    java, kotlin = get_language("java"), get_language("kotlin")
    footholds, numbergame = get("footholds"), get("numbergame")
    assert java.signature(footholds) == (
        "public int solution(int[][] board, int[] aloc, int[] bloc)"
    )
    assert kotlin.signature(footholds) == (
        "fun solution(board: Array<IntArray>, aloc: IntArray, bloc: IntArray): Int"
    )
    assert kotlin.signature(numbergame) == "fun solution(board: IntArray): Int"
    assert "class Solution" in java.template(footholds, Style.FUNCTION)
    assert "public class Main" in java.template(numbergame, Style.STDIO)
    assert "fun main()" in kotlin.template(numbergame, Style.STDIO)


def test_a_driver_error_names_the_expected_signature_not_the_driver():
    message = get_language("java").clean_compile_message(JAVAC_DRIVER_ERROR)
    assert "public int solution(int[][] board, int[] aloc, int[] bloc)" in message
    assert "Judge__Driver" not in message and "/box" not in message


def test_the_submissions_own_errors_are_kept_without_paths():
    message = get_language("java").clean_compile_message(JAVAC_OWN_ERROR)
    assert message.startswith("Solution.java:3: error: cannot find symbol")
    assert "symbol:   method foo(String)" in message
    assert "/usr/lib/jvm" not in message


def test_kotlin_errors_keep_file_line_and_column():
    raw = '/box/Solution.kt:4:26: error: type mismatch\n    val x: Int = "a"\n'
    message = get_language("kotlin").clean_compile_message(raw)
    assert message.splitlines()[0] == "Solution.kt:4:26: error: type mismatch"


def test_a_jvm_runs_on_a_warmed_layout_and_compiles_on_a_cold_one():
    # A JVM reads only the pages of the classes it loads: a run's layout is read whole first,
    # so what a run holding hidden boards loaded leaves nothing for a later run to time.
    footholds = get("footholds")
    for name in ("java", "kotlin"):
        language = get_language(name)
        build = language.build_command(footholds, Style.FUNCTION, b"class Solution {}")
        assert build is not None and build.layout is not None and not build.layout.warm
        for style in (Style.FUNCTION, Style.STDIO):
            request = RunRequest(footholds, style, b"", "/nonexistent")
            layout = language.run_command(request).layout
            assert layout is not None and layout.warm, (name, style)
