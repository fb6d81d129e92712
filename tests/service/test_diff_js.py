"""The pages' line diff (api/web/static/js/diff.js), run by Node (the linter's runtime): on
random pairs of texts its edit script rebuilds both texts and is as short as the longest
common subsequence allows, and a change at each end of a long file is two lines, not all."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from api.web import STATIC_DIR

DIFF_JS = STATIC_DIR / "js" / "diff.js"

CHECK = """
import { diffLines, hunks } from %(module)s;

function lcs(a, b) {  // the plain table, as a reference
  const t = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
  return t[0][0];
}

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) %% 2147483648) / 2147483648;
const letter = () => "abcd"[Math.floor(random() * 4)];
const text = () => Array.from({ length: Math.floor(random() * 12) }, letter).join("\\n");
const failures = [];
for (let round = 0; round < 2000; round++) {
  const before = text();
  const after = text();
  const d = diffLines(before, after);
  const rebuiltA = d.filter((l) => l.op !== "+").map((l) => l.text).join("\\n");
  const rebuiltB = d.filter((l) => l.op !== "-").map((l) => l.text).join("\\n");
  const edits = d.filter((l) => l.op !== " ").length;
  const a = before.split("\\n");
  const b = after.split("\\n");
  const numbered = d.every((l) => (l.a === null || a[l.a - 1] === l.text)
    && (l.b === null || b[l.b - 1] === l.text));
  const shortest = edits === a.length + b.length - 2 * lcs(a, b);
  if (rebuiltA !== before || rebuiltB !== after || !shortest || !numbered) {
    failures.push({ before, after });
  }
}
const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\\n");
const ends = diffLines(`top\\n${long}\\nbottom`, long);
console.log(JSON.stringify({
  failures: failures.slice(0, 3),
  endsChanged: ends.filter((l) => l.op !== " ").length,
  endsHunks: hunks(ends).length,
  same: hunks(diffLines(long, long)).length,
  newlineEnded: diffLines("a\\nb\\n", "a\\nc\\n").map((l) => `${l.op}${l.text}`),
}));
"""


def test_the_line_diff_is_a_shortest_edit_script() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is required (make setup installs it for the linter)", pytrace=False)
    script = CHECK % {"module": json.dumps(DIFF_JS.as_uri())}
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["failures"] == []
    assert (result["endsChanged"], result["endsHunks"], result["same"]) == (2, 2, 0)
    # Sources end in a newline: no empty line after their last one.
    assert result["newlineEnded"] == [" a", "-b", "+c"]
