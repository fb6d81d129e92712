// Drawing problem inputs and replaying a line of play, one view per kind. A problem names its
// kind (judge.problems.View, in every page's data as problems[].view), never the other way:
//   grid-two-pieces: a grid of footholds (1) and empty cells (0) with the pieces A and B
//                    ({board, aloc, bloc}: footholds);
//   number-row:      a row of numbers that two players take or delete from the ends
//                    ({board}: numbergame).
// A problem whose kind has no view here is shown as JSON (and replays as a list of moves).

import { capitalise, h, pageData, plural, svg } from "./dom.js";

// ---- icons (drawn here: no icon font, no external assets) -------------------------------

// First and last: a bar and a triangle (to the end); back and next: a plain chevron (one move).
const ICONS = {
  first: "M6 5h2v14H6zM20 5v14L9.5 12z",
  prev: "M15 4l2 2-6 6 6 6-2 2-8-8z",
  play: "M7 4.5v15L19.5 12z",
  pause: "M6.5 5h4v14h-4zM13.5 5h4v14h-4z",
  next: "M9 4l8 8-8 8-2-2 6-6-6-6z",
  last: "M4 5v14l10.5-7zM16 5h2v14h-2z",
};

export function icon(name) {
  return svg("svg", { class: "icon", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" },
    svg("path", { d: ICONS[name] }));
}

// ---- grid-two-pieces (footholds) ---------------------------------------------------------------

const cellName = (rc) => `(${rc[0]},${rc[1]})`;
const same = (p, q) => p && q && p[0] === q[0] && p[1] === q[1];

function footholdsLabel(state) {
  const rows = state.board.length;
  const cols = rows ? state.board[0].length : 0;
  const on = state.board.flat().filter((v) => v === 1).length;
  const parts = [`Board ${rows} by ${cols}, ${on} of ${rows * cols} cells with footholds`];
  if (state.a) parts.push(`A at ${cellName(state.a)}`);
  if (state.b) parts.push(`B at ${cellName(state.b)}`);
  return parts.join("; ");
}

// state: {board, a, b, original?, from?, to?, fallen?}
export function drawFootholds(state, { size = "normal", labels = size !== "small", label } = {}) {
  const board = state.board;
  const rows = board.length;
  const cols = rows ? board[0].length : 0;
  const grid = h("div", {
    class: ["fh-board", `fh-${size}`, labels && "fh-labelled"],
    role: "img",
    "aria-label": label || footholdsLabel(state),
    style: { "--cols": String(cols), "--rows": String(rows) },
  });
  if (labels) {
    grid.appendChild(h("span", { class: "fh-axis fh-corner" }));
    for (let c = 0; c < cols; c++) grid.appendChild(h("span", { class: "fh-axis" }, c));
  }
  for (let r = 0; r < rows; r++) {
    if (labels) grid.appendChild(h("span", { class: "fh-axis" }, r));
    for (let c = 0; c < cols; c++) {
      const here = [r, c];
      const wasOn = state.original ? state.original[r][c] === 1 : board[r][c] === 1;
      const on = board[r][c] === 1;
      const cell = h("span", {
        class: [
          "fh-cell",
          on ? "fh-on" : wasOn ? "fh-gone" : "fh-off",
          same(state.from, here) && "fh-from",
          same(state.to, here) && "fh-to",
        ],
        dataset: { r: String(r), c: String(c) },
      });
      const hasA = same(state.a, here);
      const hasB = same(state.b, here);
      if (hasA || hasB) cell.classList.add(hasA && hasB ? "fh-shared" : "fh-occupied");
      if (hasA) cell.appendChild(h("span", { class: ["piece", "piece-a", state.fallen === "A" && "piece-fallen"] }, "A"));
      if (hasB) cell.appendChild(h("span", { class: ["piece", "piece-b", state.fallen === "B" && "piece-fallen"] }, "B"));
      grid.appendChild(cell);
    }
  }
  return grid;
}

function footholdsFrames(input, moves) {
  const original = input.board.map((row) => row.slice());
  let state = { board: original.map((row) => row.slice()), a: input.aloc.slice(), b: input.bloc.slice(), original };
  const frames = [state];
  for (const move of moves) {
    const board = state.board.map((row) => row.slice());
    board[move.from[0]][move.from[1]] = 0;
    const next = { board, a: state.a, b: state.b, original, from: move.from, to: move.to };
    if (move.player === "A") next.a = move.to.slice();
    else next.b = move.to.slice();
    frames.push(next);
    state = next;
  }
  // The loser's foothold may have vanished under it: draw that piece falling.
  const last = frames[frames.length - 1];
  for (const [name, pos] of [["A", last.a], ["B", last.b]]) {
    if (pos && last.board[pos[0]] && last.board[pos[0]][pos[1]] === 0) last.fallen = name;
  }
  return frames;
}

const gridTwoPieces = {
  // What the view draws (guards against surprises: a case it cannot draw is shown as JSON).
  accepts: (input) => Array.isArray(input.board) && input.board.length > 0 && Array.isArray(input.board[0])
    && Array.isArray(input.aloc) && Array.isArray(input.bloc),
  draw: (input, options = {}) =>
    drawFootholds({ board: input.board, a: input.aloc, b: input.bloc }, options),
  describe: (input) => footholdsLabel({ board: input.board, a: input.aloc, b: input.bloc }),
  frames: footholdsFrames,
  drawFrame: (frame, options = {}) => drawFootholds(frame, options),
  moveText: (move) => `${move.player} steps ${cellName(move.from)} → ${cellName(move.to)}`,
  startText: () => "Start: A moves first.",
};

// ---- number-row (numbergame) -------------------------------------------------------------------

const ACTION_TEXT = {
  "take-left": (v) => `takes ${v[0]} from the left`,
  "take-right": (v) => `takes ${v[0]} from the right`,
  "delete-left": (v) => `deletes ${v.join(" and ")} from the left`,
  "delete-right": (v) => `deletes ${v.join(" and ")} from the right`,
};

function numbersLabel(values) {
  return `Row of ${values.length} numbers: ${values.join(", ")}`;
}

// state: {values, marks: [null | "first" | "second" | "deleted"], last: [indexes], score}
export function drawNumbers(state, { size = "normal", label } = {}) {
  const row = h("div", {
    class: ["ng-row", `ng-${size}`],
    role: "img",
    "aria-label": label || numbersLabel(state.values),
  });
  state.values.forEach((value, i) => {
    const mark = state.marks ? state.marks[i] : null;
    row.appendChild(
      h("span", {
        class: ["ng-tile", mark ? `ng-${mark}` : "ng-live", state.last && state.last.includes(i) && "ng-last"],
        title: mark ? `${value}: ${mark === "deleted" ? "deleted" : `taken by the ${mark} player`}` : String(value),
      }, String(value)),
    );
  });
  if (state.score !== undefined) {
    const block = h("div", { class: "ng-wrap" }, row);
    const diff = state.score;
    block.appendChild(h("p", { class: "ng-score" },
      h("span", { class: "ng-key ng-key-first" }, "first"), " ",
      h("span", { class: "ng-key ng-key-second" }, "second"), " ",
      h("span", { class: "ng-key ng-key-deleted" }, "deleted"), " · ",
      h("strong", {}, `first − second = ${diff > 0 ? "+" : ""}${diff}`)));
    return block;
  }
  return row;
}

function numbergameFrames(input, moves) {
  const values = input.board.slice();
  let i = 0;
  let j = values.length;
  let marks = values.map(() => null);
  const frames = [{ values, marks, score: 0, last: [] }];
  for (const move of moves) {
    marks = marks.slice();
    let last = [];
    if (move.action === "take-left") last = [i++];
    else if (move.action === "take-right") last = [--j];
    else if (move.action === "delete-left") { last = [i, i + 1]; i += 2; }
    else if (move.action === "delete-right") { last = [j - 2, j - 1]; j -= 2; }
    const who = move.action.startsWith("delete") ? "deleted" : move.player;
    for (const k of last) marks[k] = who;
    frames.push({ values, marks, score: move.score, last });
  }
  return frames;
}

const numberRow = {
  accepts: (input) => Array.isArray(input.board),
  draw: (input, options = {}) => drawNumbers({ values: input.board }, options),
  describe: (input) => numbersLabel(input.board),
  frames: numbergameFrames,
  drawFrame: (frame, options = {}) => drawNumbers(frame, options),
  moveText: (move) => {
    const text = ACTION_TEXT[move.action];
    const score = `${move.score > 0 ? "+" : ""}${move.score}`;
    return `${move.player} ${text ? text(move.values) : move.action} (${score})`;
  },
  startText: () => "Start: the first player moves first.",
};

// ---- any other problem ---------------------------------------------------------------------

// A case as the "json" view shows it: one line per parameter, a scalar (or a short list of
// them) inline, a rectangular grid of numbers as a small table, anything else as JSON text.
const isScalar = (v) => v === null || typeof v !== "object" || (typeof JSON.isRawJSON === "function" && JSON.isRawJSON(v));
const isNumber = (v) => typeof v === "number" || (typeof JSON.isRawJSON === "function" && JSON.isRawJSON(v));

function numberGrid(value) {
  if (!Array.isArray(value) || !value.length || !value.every(Array.isArray)) return false;
  const cols = value[0].length;
  return cols > 0 && cols <= 40 && value.length <= 40
    && value.every((row) => row.length === cols && row.every(isNumber));
}

export function drawJsonCase(input, { size = "normal", label } = {}) {
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    return h("pre", { class: "json-case" }, JSON.stringify(input, null, 1));
  }
  const box = h("div", { class: ["json-case", "jc-case", `jc-${size}`], role: "group", "aria-label": label || "Case" });
  for (const [name, value] of Object.entries(input)) {
    const key = h("span", { class: "jc-name" }, name);
    if (isScalar(value) || (Array.isArray(value) && value.length <= 40 && value.every(isScalar))) {
      box.appendChild(h("div", { class: "jc-param" }, key, " ", h("code", { class: "jc-value" }, isScalar(value) ? JSON.stringify(value) : `[${value.map((v) => JSON.stringify(v)).join(", ")}]`)));
    } else if (numberGrid(value)) {
      const cols = value[0].length;
      // A picture of the numbers (as the other views draw theirs), its rows in its name: a
      // table of bare numbers has no headers to announce.
      const words = `${name}: ${value.length} by ${cols}: ${value.map((row) => row.map((v) => JSON.stringify(v)).join(" ")).join("; ")}`;
      const table = h("table", { class: "jc-grid", role: "presentation" },
        h("tbody", {}, value.map((row) => h("tr", {}, row.map((v) => h("td", {}, JSON.stringify(v)))))));
      box.appendChild(h("div", { class: "jc-param jc-block" }, key,
        h("div", { class: "jc-scroll", role: "img", "aria-label": words }, table)));
    } else {
      box.appendChild(h("div", { class: "jc-param jc-block" }, key, h("pre", { class: "jc-json" }, JSON.stringify(value))));
    }
  }
  return box;
}

const generic = {
  accepts: () => true,
  draw: (input, options = {}) => drawJsonCase(input, options),
  describe: (input) => JSON.stringify(input),
  frames: (input, moves) => [input, ...moves.map(() => input)],
  drawFrame: (frame, options = {}) => drawJsonCase(frame, options),
  moveText: (move) => JSON.stringify(move),
  startText: () => "Start.",
};

// View kind -> view. tests/service/test_problem_views.py reads these keys: every registered
// problem's kind must be one of them.
export const VIEWS = {
  "grid-two-pieces": gridTwoPieces,
  "number-row": numberRow,
  "json": generic, // a package's default: the case as JSON
};

let declared = null; // slug -> the problem's entry in the page's data, read once

function declaredProblem(slug) {
  if (!declared) declared = Object.fromEntries((pageData().problems || []).map((p) => [p.slug, p]));
  return declared[slug] || {};
}

// The problem's view as the judge declares it: {kind, bounds}.
export function problemView(slug) {
  return declaredProblem(slug).view || { kind: "", bounds: {} };
}

// The problem's signature: {params: [names in order], param_types: {name: "int[][]", ...}}.
export function problemSignature(slug) {
  const problem = declaredProblem(slug);
  return { params: problem.params || [], param_types: problem.param_types || {} };
}

// The view that draws this problem's input: its kind's, or JSON for an input it cannot draw.
function viewOf(slug, input) {
  const kind = problemView(slug).kind;
  const view = Object.hasOwn(VIEWS, kind) ? VIEWS[kind] : null;
  return view && input && typeof input === "object" && view.accepts(input) ? view : generic;
}

export function drawCase(slug, input, options = {}) {
  return viewOf(slug, input).draw(input, options);
}

// ---- replay: step through a line of play on the drawn board --------------------------------

let replayCount = 0;

export function replay(slug, input, explanation, { autoplay = false, delay = 800 } = {}) {
  const view = viewOf(slug, input);
  const moves = explanation.moves || [];
  const frames = view.frames(input, moves);
  const id = `replay-${++replayCount}`;
  let step = 0;
  let timer = null;

  const stage = h("div", { class: "replay-stage" });
  const caption = h("p", { class: "replay-caption", id: `${id}-caption`, "aria-live": "polite" });
  const button = (act, label, iconName, text) =>
    h("button", { type: "button", class: "btn btn-icon", dataset: { act }, "aria-label": label, title: label },
      icon(iconName), text ? h("span", { class: "btn-text" }, text) : null);
  const firstBtn = button("first", "First position", "first");
  const prevBtn = button("prev", "Back: previous move", "prev", "Back");
  const playBtn = button("play", "Play the moves", "play", "Play");
  const nextBtn = button("next", "Next move", "next", "Next");
  const lastBtn = button("last", "Last position", "last");
  const controls = h("div", { class: "replay-controls", role: "group", "aria-label": "Step through the moves" },
    firstBtn, prevBtn, playBtn, nextBtn, lastBtn);
  const list = h("ol", { class: "replay-moves", "aria-label": "Moves" });
  moves.forEach((move, k) => {
    list.appendChild(h("li", {},
      h("button", { type: "button", class: "move-link", dataset: { step: String(k + 1) } }, view.moveText(move))));
  });
  const summary = explanation.summary
    ? h("p", { class: "replay-summary" }, capitalise(explanation.summary))
    : null;
  const root = h("div", {
    class: "replay", id, tabindex: "0", role: "group",
    "aria-label": "Optimal line of play. Left and right arrow keys step through the moves.",
  }, h("div", { class: "replay-main" }, stage, caption, controls), h("div", { class: "replay-side" },
    summary, moves.length ? list : h("p", { class: "muted" }, "No moves: the first player cannot move.")));

  function render() {
    stage.replaceChildren(view.drawFrame(frames[step]));
    if (step === 0) caption.textContent = moves.length ? `${view.startText()} ${plural(moves.length, "move")} in this line.` : view.startText();
    else {
      caption.textContent = `Move ${step} of ${moves.length}: ${view.moveText(moves[step - 1])}.`;
      if (step === moves.length && explanation.summary) caption.textContent += ` ${capitalise(explanation.summary)}.`;
    }
    firstBtn.disabled = prevBtn.disabled = step === 0;
    nextBtn.disabled = lastBtn.disabled = step === moves.length;
    playBtn.disabled = moves.length === 0;
    list.querySelectorAll(".move-link").forEach((b) => {
      const current = Number(b.dataset.step) === step;
      b.classList.toggle("current", current);
      if (current) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    });
    root.dataset.step = String(step);
  }

  function setPlaying(on) {
    if (on && !timer) {
      if (step === moves.length) step = 0;
      timer = setInterval(() => {
        if (step >= moves.length) return setPlaying(false);
        step += 1;
        render();
        if (step >= moves.length) setPlaying(false);
      }, delay);
      render();
    } else if (!on && timer) {
      clearInterval(timer);
      timer = null;
    }
    // Playing, the caption is not announced: a screen reader would read out every move.
    caption.setAttribute("aria-live", timer ? "off" : "polite");
    playBtn.replaceChildren(icon(timer ? "pause" : "play"), h("span", { class: "btn-text" }, timer ? "Pause" : "Play"));
    playBtn.setAttribute("aria-label", timer ? "Pause" : "Play the moves");
  }

  function go(to) {
    setPlaying(false);
    step = Math.max(0, Math.min(moves.length, to));
    render();
  }

  controls.addEventListener("click", (event) => {
    const act = event.target.closest("button")?.dataset.act;
    if (act === "first") go(0);
    else if (act === "prev") go(step - 1);
    else if (act === "next") go(step + 1);
    else if (act === "last") go(moves.length);
    else if (act === "play") setPlaying(!timer);
  });
  list.addEventListener("click", (event) => {
    const target = event.target.closest(".move-link");
    if (target) go(Number(target.dataset.step));
  });
  root.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowRight") { go(step + 1); event.preventDefault(); }
    else if (event.key === "ArrowLeft") { go(step - 1); event.preventDefault(); }
    else if (event.key === "Home") { go(0); event.preventDefault(); }
    else if (event.key === "End") { go(moves.length); event.preventDefault(); }
  });
  root.stop = () => setPlaying(false);
  render();
  // Autoplay is motion nobody asked for: not when the system asks for less of it.
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  if (autoplay && moves.length && !reduced) setPlaying(true);
  return root;
}
