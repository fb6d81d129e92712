// A line diff of two texts (one submission's source against another's): Myers' shortest
// edit script over lines, after the common head and tail are set aside, which is where two
// versions of one solution usually agree. No dependency: sources are at most 64 KiB.

// Past this many removed plus added lines the middle is shown as removed and added whole:
// the search keeps one row per edit (about 16 MB at this bound) and says nothing more useful.
const MAX_EDITS = 2000;

// -> [{op: " " | "-" | "+", text, a, b}]: a and b are 1-based line numbers in each text (null
// on the side a line is not in).
export function diffLines(before, after) {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head
    && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const out = [];
  for (let i = 0; i < head; i++) out.push({ op: " ", text: a[i], a: i + 1, b: i + 1 });
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  for (const line of alignMiddle(midA, midB)) {
    out.push({
      ...line,
      a: line.a === null ? null : line.a + head + 1,
      b: line.b === null ? null : line.b + head + 1,
    });
  }
  for (let k = tail; k > 0; k--) {
    out.push({ op: " ", text: a[a.length - k], a: a.length - k + 1, b: b.length - k + 1 });
  }
  return out;
}

// A text's lines: its final newline ends its last line, it does not start an empty one (two
// sources ending in a newline showed a numbered, empty last line in the compare view).
function lines(text) {
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

// The changed middles aligned by a shortest edit script (Myers 1986: the furthest reaching
// path on each diagonal k = x - y, d edits at a time), read back from its end.
function alignMiddle(a, b) {
  const n = a.length;
  const m = b.length;
  const most = Math.min(n + m, MAX_EDITS);
  const v = new Int32Array(2 * most + 3); // v[k + most + 1]: furthest x on diagonal k
  const at = (k) => k + most + 1;
  const trace = []; // trace[d][k + d]: v after d edits, for k in [-d, d]
  let found = -1;
  for (let d = 0; d <= most && found < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[at(k - 1)] < v[at(k + 1)]) ? v[at(k + 1)] : v[at(k - 1)] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[at(k)] = x;
      if (x >= n && y >= m) found = d;
    }
    trace.push(v.slice(at(-d), at(d) + 1));
  }
  if (found < 0) {
    return [...a.map((text, i) => ({ op: "-", text, a: i, b: null })),
      ...b.map((text, j) => ({ op: "+", text, a: null, b: j }))];
  }
  const out = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const previous = trace[d - 1];
    const k = x - y;
    const down = k === -d || (k !== d && previous[k - 1 + d - 1] < previous[k + 1 + d - 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = previous[prevK + d - 1];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x -= 1;
      y -= 1;
      out.push({ op: " ", text: a[x], a: x, b: y });
    }
    if (down) {
      y -= 1;
      out.push({ op: "+", text: b[y], a: null, b: y });
    } else {
      x -= 1;
      out.push({ op: "-", text: a[x], a: x, b: null });
    }
  }
  while (x > 0 && y > 0) {
    x -= 1;
    y -= 1;
    out.push({ op: " ", text: a[x], a: x, b: y });
  }
  return out.reverse();
}

// The diff cut into hunks: each change with `context` unchanged lines around it; the long
// unchanged runs between hunks are left out. -> [[line, ...], ...]; [] when nothing changed.
export function hunks(lines, context = 3) {
  const keep = new Array(lines.length).fill(false);
  lines.forEach((line, k) => {
    if (line.op === " ") return;
    for (let q = Math.max(0, k - context); q <= Math.min(lines.length - 1, k + context); q++) keep[q] = true;
  });
  const out = [];
  let current = null;
  lines.forEach((line, k) => {
    if (!keep[k]) {
      current = null;
      return;
    }
    if (!current) {
      current = [];
      out.push(current);
    }
    current.push(line);
  });
  return out;
}
