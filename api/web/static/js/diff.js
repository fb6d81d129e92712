// A line diff of two texts (one submission's source against another's): the longest common
// subsequence of lines, after the common head and tail are set aside, which is where two
// versions of one solution usually agree. No dependency: sources are at most 64 KiB.

// Above this many cells of the LCS table (the changed middles' lengths multiplied), the
// middle is shown as removed and added whole rather than aligned: it costs too much memory.
const MAX_CELLS = 4_000_000;

// -> [{op: " " | "-" | "+", text, a, b}]: a and b are 1-based line numbers in each text (null
// on the side a line is not in).
export function diffLines(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
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

// The changed middles aligned by their LCS, removals before additions at each change.
function alignMiddle(a, b) {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((text, i) => ({ op: "-", text, a: i, b: null })),
      ...b.map((text, j) => ({ op: "+", text, a: null, b: j }))];
  }
  // lcs[i][j]: the LCS length of a[i:] and b[j:], in one flat array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j]
        ? lcs[(i + 1) * width + j + 1] + 1
        : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ op: " ", text: a[i], a: i, b: j });
      i += 1;
      j += 1;
    } else if (j >= m || (i < n && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      out.push({ op: "-", text: a[i], a: i, b: null });
      i += 1;
    } else {
      out.push({ op: "+", text: b[j], a: null, b: j });
      j += 1;
    }
  }
  return out;
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
