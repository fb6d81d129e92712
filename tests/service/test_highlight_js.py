"""The pages' highlighters for C++, Java and Kotlin (api/web/static/js/highlight-c.js through
highlight.js), run by Node: the tokens always give back the text exactly (on samples and on
random text), each language's keywords, types, strings, comments, preprocessor lines and
annotations are told apart, and the HTML escapes everything."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from api.web import STATIC_DIR

HIGHLIGHT_JS = STATIC_DIR / "js" / "highlight.js"
BRACES_JS = STATIC_DIR / "js" / "highlight-c.js"

SAMPLES = {
    "cpp": "#include <vector>\nusing namespace std;\n// the move count\n"
    'int solution(vector<vector<int>> board) { auto s = R"(a"b)"; return 0x1F + 2LL; }\n'
    "/* unterminated",
    "java": "import java.util.*;\nclass Solution {\n  @Override public int solution(int[][] b) "
    '{ String s = "x\\"y"; char c = \'q\'; return 0; } // done\n}\n',
    "kotlin": "data class State(val x: Int)\nenum class Dir { UP }\n"
    'fun solution(board: Array<IntArray>): Int { val s = """raw "q" """; return 0 }\n',
}

CHECK = """
import { tokenizeBraces } from %(braces)s;
import { highlight, modeOf } from %(highlight)s;
const samples = %(samples)s;
const out = { kinds: {}, rebuilt: {}, html: highlight("a < b && c > 'd'", "cpp"), modes: [] };
for (const [mode, text] of Object.entries(samples)) {
  const tokens = tokenizeBraces(text, mode);
  out.rebuilt[mode] = tokens.map((t) => t.text).join("") === text;
  const named = tokens.filter((t) => t.text.trim()).map((t) => [t.text, t.type]);
  out.kinds[mode] = Object.fromEntries(named);
}
let seed = 11;
const random = () => (seed = (seed * 1103515245 + 12345) %% 2147483648) / 2147483648;
const alphabet = "ab1 \\n\\t\\"'/*#@<>{}()R\\\\.xe+-_u";
out.fuzz = 0;
for (let round = 0; round < 3000; round++) {
  const pick = () => alphabet[Math.floor(random() * alphabet.length)];
  const text = Array.from({ length: Math.floor(random() * 30) }, pick).join("");
  for (const mode of ["cpp", "java", "kotlin"]) {
    if (tokenizeBraces(text, mode).map((t) => t.text).join("") !== text) out.fuzz++;
  }
}
out.modes = ["c++", "cpp", "java", "kotlin", "kt", "python", "unknown"].map(modeOf);
console.log(JSON.stringify(out));
"""


def run_check() -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is required (make setup installs it for the linter)", pytrace=False)
    script = CHECK % {
        "braces": json.dumps(BRACES_JS.as_uri()),
        "highlight": json.dumps(HIGHLIGHT_JS.as_uri()),
        "samples": json.dumps(SAMPLES),
    }
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_tokens_give_back_the_text() -> None:
    result = run_check()
    assert result["rebuilt"] == {"cpp": True, "java": True, "kotlin": True}
    assert result["fuzz"] == 0


def test_each_language_has_its_keywords_types_strings_and_comments() -> None:
    kinds = run_check()["kinds"]
    cpp, java, kotlin = kinds["cpp"], kinds["java"], kinds["kotlin"]
    assert cpp["#include <vector>"] == "decorator"
    assert (cpp["using"], cpp["namespace"], cpp["return"]) == ("keyword",) * 3
    assert (cpp["vector"], cpp["int"]) == ("builtin", "builtin")
    assert cpp['R"(a"b)"'] == "string"  # a raw string ends at )", not at the inner quote
    assert cpp["0x1F"] == "number" and cpp["2LL"] == "number"
    assert cpp["// the move count"] == "comment" and cpp["/* unterminated"] == "comment"
    assert cpp["solution"] == "call"
    assert java["@Override"] == "decorator" and java["Solution"] == "class"
    assert java['"x\\"y"'] == "string" and java["'q'"] == "string"
    assert (java["public"], java["String"]) == ("keyword", "builtin")
    assert kotlin["data"] == "keyword" and kotlin["State"] == "class"
    assert kotlin["Dir"] == "class" and kotlin["solution"] == "function"
    assert kotlin['"""raw "q" """'] == "string"
    assert (kotlin["IntArray"], kotlin["val"]) == ("builtin", "keyword")


def test_the_html_is_escaped_and_the_modes_resolve() -> None:
    result = run_check()
    assert "<" not in result["html"].replace("<span", "").replace("</span", "")
    assert "&lt;" in result["html"] and "&#39;d&#39;" in result["html"]
    assert result["modes"] == ["cpp", "cpp", "java", "kotlin", "kotlin", "python", "python"]
