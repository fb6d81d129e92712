"""The C++ plug-in: its templates, the sandbox layouts it asks for, the compiler's messages as
a student reads them, and what its driver reports for answers, exceptions and printed output
(through the real sandbox)."""

from __future__ import annotations

import os

import pytest

from judge import problems
from judge.execution.build import BuildCache
from judge.grading.grade import grade
from judge.grading.runs import run_cases
from judge.languages import RunRequest, Style, by_extension, get_language
from judge.languages.cpp import (
    FLAGS,
    GXX,
    LANGUAGE,
    PCH_WRAPPER,
    clean_message,
    compiler_layout,
    includes_bits_first,
    precompiled_header,
)
from judge.languages.tests_text import encode_case
from judge.verdict import Verdict

FOOTHOLDS = problems.get("footholds")
HEAD = "#include <bits/stdc++.h>\nusing namespace std;\n"
FOOTHOLDS_SIGNATURE = "(vector<vector<int>> board, vector<int> aloc, vector<int> bloc)"


def on_samples(source: str, sandbox, build_cache: BuildCache):
    """`source`, a C++ footholds function, run on the samples (built once per session)."""
    return run_cases("footholds", source, sandbox=sandbox, language="cpp", build_cache=build_cache)


def test_found_by_name_and_extension():
    assert get_language("cpp") is LANGUAGE
    assert by_extension("Main.CC") is LANGUAGE and by_extension("a.cpp") is LANGUAGE
    assert LANGUAGE.version().startswith("g++ ")


def test_function_templates_are_the_problem_signatures():
    assert f"int solution{FOOTHOLDS_SIGNATURE} {{" in LANGUAGE.template(FOOTHOLDS, Style.FUNCTION)
    numbergame = problems.get("numbergame")
    assert "int solution(vector<int> board) {" in LANGUAGE.template(numbergame, Style.FUNCTION)
    assert "int main()" in LANGUAGE.template(numbergame, Style.STDIO)


def test_the_compiler_sees_only_the_toolchain():
    layout = compiler_layout()
    sources = {source for source, _ in layout.binds}
    dests = {dest for _, dest in layout.binds}
    assert "/usr/include" in dests and "/usr/bin/g++" in dests and "/usr/bin/ld" in dests
    assert any(dest.endswith("/libstdc++.a") or os.path.isdir(dest) for dest in dests)
    for path in sources | dests:
        assert path.startswith(("/usr/bin/", "/usr/lib/", "/usr/lib64/", "/usr/include")), path
    assert not layout.warm  # a toolchain is never read whole before a run


def test_a_compiled_program_runs_with_nothing_of_the_host():
    request = RunRequest(FOOTHOLDS, Style.FUNCTION, b"", "/some/artifact", start=3)
    command = LANGUAGE.run_command(request)
    assert command.layout is not None and command.layout.binds == ()
    assert command.trees == {"bin": "/some/artifact"}
    assert command.argv[:1] == ("/box/bin/solution",) and "3" in command.argv
    # No tests file: they come one at a time on the tests channel.
    assert command.files == {} and command.input_pipe and "{input_fd}" in command.argv


GCC_OUTPUT = """\
In file included from judge_driver.cpp:578:
solution.cpp: In function 'int judge_student_main_()':
solution.cpp:9:30: warning: no return statement in function returning non-void [-Wreturn-type]
    9 | signed main() { cout << "x"; }
      |                              ^
solution.cpp:3:5: note: a note of that warning
solution.cpp: In function 'int solution()':
solution.cpp:12:5: error: 'foo' was not declared in this scope
   12 |     foo(1);
      |     ^~~
In file included from /usr/include/c++/12/algorithm:61,
                 from /box/solution.cpp:1:
/usr/include/c++/12/bits/stl_algo.h:1234:5: error: no match for 'operator<'
judge_driver.cpp:589:59: error: static assertion failed: no function solution(vector<int> board)
  589 | static_assert(judge_rt_::Callable<Call, judge_rt_::Args>::value, "no function")
judge_driver.cpp:319:34: error: no match for call to '(judge_glue_::Call)'
/usr/bin/ld: /tmp/ccX1abcd.o: in function `main':
judge_driver.cpp:(.text+0x1): undefined reference to `helper()'
collect2: error: ld returned 1 exit status
"""


def test_compile_messages_name_only_the_submission():
    message = clean_message(GCC_OUTPUT)
    assert message.splitlines() == [
        "solution.cpp: In function 'int solution()':",
        "solution.cpp:12:5: error: 'foo' was not declared in this scope",
        "   12 |     foo(1);",
        "      |     ^~~",
        "stl_algo.h:1234:5: error: no match for 'operator<'",
        "solution.cpp: error: no function solution(vector<int> board)",
        "ld: solution.o: in function `main':",
        "ld: undefined reference to `helper()'",
        "collect2: error: ld returned 1 exit status",
    ]


def test_compile_messages_are_bounded():
    flood = "".join(f"solution.cpp:{n}:1: error: 'x{n}' was not declared\n" for n in range(500))
    lines = clean_message(flood).splitlines()
    assert len(lines) == 61 and lines[-1] == "... (440 more lines)"


@pytest.mark.parametrize("style", ["function", "stdio"])
def test_templates_compile(style, sandbox, build_cache):
    numbergame = problems.get("numbergame")
    source = LANGUAGE.template(numbergame, Style(style))
    result = grade(
        numbergame,
        source,
        sandbox=sandbox,
        language="cpp",
        style=style,
        random_count=1,
        build_cache=build_cache,
    )
    assert result.verdict is Verdict.WA, result.message


ANSWERS = {
    # returned: what the student reads for the first sample (expected 5)
    "double": ("return 1.5;", "double", "expected an int, got 1.5 (double)"),
    "pair": (
        "return make_pair(true, 3);",
        "pair<bool, int>",
        "got (true, 3) (std::pair<bool, int>)",
    ),
    "long long": ("return 3000000000000LL;", "long long", "expected 5, got 3000000000000"),
    "string": ('return "five";', "string", "expected an int, got 'five' (str)"),
    "void": ("return;", "void", "got nothing (void)"),
    "nested list": ("return vector<vector<int>>{{1}};", "vector<vector<int>>", "got [[1]]"),
}


@pytest.mark.parametrize("name", ANSWERS)
def test_answers_of_other_types_are_named_plainly(name, sandbox, build_cache):
    body, returns, expected = ANSWERS[name]
    source = f"{HEAD}{returns} solution{FOOTHOLDS_SIGNATURE} {{ {body} }}\n"
    result = on_samples(source, sandbox, build_cache)
    first = result.results[0]
    assert first.verdict is Verdict.WA and expected in first.message, first.message


@pytest.mark.parametrize(
    ("throw", "expected"),
    [
        ('throw runtime_error("bad board");', "std::runtime_error: bad board"),
        ("throw 42;", "int: 42"),
        ("vector<int> v; return v.at(3);", "std::out_of_range: vector::_M_range_check"),
    ],
)
def test_exceptions_are_runtime_errors_with_type_and_message(throw, expected, sandbox, build_cache):
    source = f"{HEAD}int solution{FOOTHOLDS_SIGNATURE} {{ {throw} }}\n"
    result = on_samples(source, sandbox, build_cache)
    assert [t.verdict for t in result.results] == [Verdict.RE] * len(FOOTHOLDS.SAMPLES)
    assert result.results[0].message.startswith(expected), result.results[0].message


def test_what_a_call_prints_is_captured_per_test(sandbox, build_cache):
    source = (
        f"{HEAD}int solution{FOOTHOLDS_SIGNATURE} {{\n"
        '    printf("rows %d\\n", (int)board.size());\n'
        '    cerr << "to stderr" << endl;\n'
        "    return 0;\n}\n"
    )
    result = on_samples(source, sandbox, build_cache)
    for test, sample in zip(result.results, FOOTHOLDS.SAMPLES, strict=True):
        assert test.stdout == f"rows {len(sample['input']['board'])}\n"
        assert test.stderr == "to stderr\n"


def test_a_student_main_is_never_called(sandbox, build_cache):
    source = f"{HEAD}int main() {{ abort(); }}\nint solution{FOOTHOLDS_SIGNATURE} {{ return 0; }}\n"
    result = on_samples(source, sandbox, build_cache)
    assert {t.verdict for t in result.results} <= {Verdict.AC, Verdict.WA}


def test_tests_text_is_typed_tokens():
    case = {"board": [[1, 1, 1], [1, 0, 1]], "aloc": [1, 0], "bloc": [1, 2]}
    numbergame = problems.get("numbergame")
    assert encode_case(FOOTHOLDS, case) == b"2 3 1 1 1 3 1 0 1 2 1 0 2 1 2\n"
    assert encode_case(numbergame, {"board": [-3]}) == b"1 -3\n"
    assert encode_case(numbergame, {"board": []}) == b"0\n"
    assert LANGUAGE.test_line(numbergame, {"board": [-3]}) == b"1 -3\n"


@pytest.mark.parametrize(
    ("body", "signal"),
    [
        ("int* p = nullptr; return *p + board.size();", "11 (segmentation fault)"),
        ("abort();", "6 (aborted)"),
    ],
)
def test_a_crash_is_named_by_its_signal(body, signal, sandbox, build_cache):
    source = f"{HEAD}int solution{FOOTHOLDS_SIGNATURE} {{ {body} }}\n"
    result = on_samples(source, sandbox, build_cache)
    first = result.results[0]
    assert first.verdict is Verdict.RE
    assert first.message == f"the process was killed by signal {signal}", first.message


def test_global_names_of_the_c_library_are_the_students(sandbox, build_cache):
    # Alone, with only <vector>, this compiles and runs: so it must with the driver around it
    # (no POSIX header in its unit; read and write by system call, not by the libc symbols a
    # global variable of the same name takes over in a static link).
    source = (
        "#include <vector>\nusing namespace std;\n"
        "int time, index, link, read, write, pipe, close, poll, y1;\n"
        f"int solution{FOOTHOLDS_SIGNATURE} {{ read = write = 2; return read + write; }}\n"
    )
    result = on_samples(source, sandbox, build_cache)
    assert result.status == "done", result.message
    assert [t.got for t in result.results] == [4] * len(FOOTHOLDS.SAMPLES)


# Counts what g++ compiles in a `python -m judge grade` process: the runtime on the host
# (subprocess.run) and the submission in the sandbox (bwrap's argv ends in g++'s), each
# through subprocess.Popen.
COUNTING_CLI = """
import subprocess, sys
from judge import cli
compiles = []
real = subprocess.Popen.__init__
def counted(self, args, *rest, **kw):
    argv = [str(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    if any(a.endswith("g++") for a in argv) and "-o" in argv:
        compiles.append(argv[argv.index("-o") + 1])
    real(self, args, *rest, **kw)
subprocess.Popen.__init__ = counted
code = cli.main(sys.argv[1:])
print("compiled:", ",".join(compiles), file=sys.stderr)
sys.exit(code)
"""


def test_a_cached_solution_compiles_nothing_in_a_new_process(sandbox, tmp_path):
    """The runtime object is a build-cache entry too: the second grading of a cached C++
    solution, in a fresh process, runs g++ for nothing (it used to compile the runtime)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    solution = root / "tests/submissions/cpp/accepted/footholds_minimax_pair.cpp"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(root)}
    command = [sys.executable, "-c", COUNTING_CLI, "grade", "footholds", str(solution)]
    command += ["--random", "2", "--seed", "1"]

    def compiled() -> list[str]:
        done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        line = [ln for ln in done.stderr.splitlines() if ln.startswith("compiled:")][-1]
        return [name for name in line.removeprefix("compiled:").strip().split(",") if name]

    # The precompiled header is made once per toolchain and machine user (maybe by another run).
    first = [name for name in compiled() if name != PCH_WRAPPER + ".gch"]
    assert first == ["judge_runtime.o", "/box/out/solution"]
    entries = tmp_path / "footholds-judge" / "builds" / "entries"
    assert any(entry.name.startswith("cppruntime-") for entry in entries.iterdir())
    assert compiled() == []


@pytest.mark.parametrize(
    ("source", "first"),
    [
        (HEAD, True),
        ("// my solution\n\n/* contest\n   template */  #include<bits/stdc++.h>  // all\n", True),
        ("\ufeff#include <bits/stdc++.h>\n", False),  # a BOM: no guess, read as it is
        ("#define int long long\n#include <bits/stdc++.h>\n", False),
        ("#include <vector>\n#include <bits/stdc++.h>\n", False),
        ('#include "bits/stdc++.h"\n', False),
        ("#include <bits/stdc++.h> int x;\n", False),
        ("/* never closed #include <bits/stdc++.h>\n", False),
    ],
)
def test_only_a_source_that_begins_with_bits_stdcpp_gets_it_precompiled(source, first):
    assert includes_bits_first(source.encode()) is first


def test_the_precompiled_header_is_used_and_changes_nothing_a_student_reads(sandbox, tmp_path):
    """<bits/stdc++.h> precompiled once, forced first for a source that begins with it:
    GCC uses it (not silently rejected for options that differ), the build binds it
    read-only, and verdicts and compile messages are what they were."""
    import subprocess

    folder = precompiled_header(BuildCache(str(tmp_path / "builds")))
    assert folder is not None and os.path.isfile(os.path.join(folder, PCH_WRAPPER + ".gch"))
    assert precompiled_header(None) is None  # nothing kept for a caller that keeps nothing
    source = HEAD + f"int solution{FOOTHOLDS_SIGNATURE} {{ return 0; }}\n"
    command = LANGUAGE.build_command(FOOTHOLDS, Style.FUNCTION, source.encode(), pch=folder)
    assert command.trees == {"pch": folder}
    assert command.argv[command.argv.index("-include") + 1] == f"/box/pch/{PCH_WRAPPER}"
    plain = LANGUAGE.build_command(FOOTHOLDS, Style.FUNCTION, b"#include <vector>\n", pch=folder)
    assert plain.trees == {} and "-include" not in plain.argv

    unit = tmp_path / "unit.cpp"
    unit.write_text(HEAD + "int main() { vector<int> v{3, 1}; sort(v.begin(), v.end()); }\n")
    header = os.path.join(folder, PCH_WRAPPER)
    shown = subprocess.run(
        [GXX, *FLAGS, "-H", "-fsyntax-only", "-Winvalid-pch", "-include", header, str(unit)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stderr.splitlines()[0] == f"! {header}.gch", shown.stderr[:500]

    cache = BuildCache(str(tmp_path / "graded"))
    for style in ("function", "stdio"):
        template = LANGUAGE.template(problems.get("numbergame"), Style(style))
        result = grade(
            "numbergame",
            template,
            sandbox=sandbox,
            language="cpp",
            style=style,
            random_count=1,
            build_cache=cache,
        )
        assert result.verdict is Verdict.WA, result.message  # compiled and ran, as without
    broken = HEAD + "\nint solution(vector<int> board) {\n    return board.size() +;\n}\n"
    result = grade("numbergame", broken, sandbox=sandbox, language="cpp", build_cache=cache)
    assert result.verdict is Verdict.CE
    assert "solution.cpp:5:" in result.message, result.message  # its own line numbers
    assert "judge_bits" not in result.message and "/box" not in result.message


def test_the_compilers_answers_are_kept_for_the_g_plus_plus_they_came_from(tmp_path, monkeypatch):
    """g++'s eleven -print answers (what the compile's sandbox binds) and its version are
    asked once per g++ binary and machine user: a fresh process asks g++ nothing; another g++,
    or a file that does not read as ours, asks again and keeps the new answers."""
    import json

    from judge.languages import cpp, kept_answers

    monkeypatch.setattr(kept_answers, "folder", lambda: str(tmp_path))
    asked: list[str] = []
    ask = cpp._print
    monkeypatch.setattr(cpp, "_print", lambda what: asked.append(what) or ask(what))

    def layout() -> object:
        cpp.compiler_layout.cache_clear()  # as in a fresh process
        cpp._version.cache_clear()
        asked.clear()
        return cpp.compiler_layout(), cpp._version()

    try:
        first = layout()
        assert len(asked) == 12 and first[1].startswith("g++ ")
        assert layout() == first and asked == []
        another = ["/usr/bin/another-g++", 1, 2, 3]
        monkeypatch.setattr(kept_answers, "identity", lambda binary: another)
        assert layout() == first and len(asked) == 12
        kept = tmp_path / "g++.json"
        assert json.loads(kept.read_text())["binary"] == another
        for broken in ("{not json", json.dumps({"binary": another}), "[]", '{"answers": 1}'):
            kept.write_text(broken)
            assert layout() == first and len(asked) == 12, broken
        assert layout() == first and asked == []
        # Nothing half-written; beside g++'s answers, its programs' libraries (kept_answers).
        assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["g++.json", "ldd"]
    finally:
        cpp.compiler_layout.cache_clear()
        cpp._version.cache_clear()
