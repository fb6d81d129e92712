// Board editors for instructors, one per view kind (the problem declares its kind and the
// bounds its editor checks: judge.problems.View, in the page's data). Each calls
// onChange(case) after every edit; the page asks the judge to validate and solve the case (the
// judge is the only authority on what is valid).
//
// grid-two-pieces (footholds): pick the size, then click cells (or move with the arrow keys
// and press Space) to toggle footholds or place A and B, according to the chosen tool. Keys A
// and B place the pieces on the focused cell directly. A and B may share a cell. A piece
// always stands on a foothold: placing one adds it, and the foothold under a piece cannot be
// removed, so the editor never holds a board the judge would refuse for that.
// number-row (numbergame): type the row of numbers (checked here against the judge's bounds
// first).
// json (every other package): the editor made from the problem's signature (case-editor.js).
//
// Rows and columns are counted from 0 in messages, as the drawn axes are.

import { problemSignature, problemView } from "./boards.js";
import { CaseEditor, parseExact, parseType } from "./case-editor.js";
import { h, pageData } from "./dom.js";

let editorCount = 0;

export const cellWords = (r, c) => `row ${r}, column ${c}`;

function options(n) {
  return Array.from({ length: n }, (_, i) => h("option", { value: String(i + 1) }, String(i + 1)));
}

export class FootholdsEditor {
  // bounds: {max_side}, the largest number of rows or columns.
  constructor(container, onChange, initial, bounds) {
    this.onChange = onChange;
    this.maxSide = bounds.max_side;
    this.id = `fe-${++editorCount}`;
    const start = initial || {
      board: Array.from({ length: 4 }, () => [1, 1, 1, 1]),
      aloc: [0, 0],
      bloc: [3, 3],
    };
    this.board = start.board.map((row) => row.slice());
    this.aloc = start.aloc.slice();
    this.bloc = start.bloc.slice();
    this.tool = "foothold";
    this.focus = [0, 0];
    this.build(container);
    this.render();
  }

  get rows() {
    return this.board.length;
  }

  get cols() {
    return this.board[0].length;
  }

  value() {
    return { board: this.board.map((row) => row.slice()), aloc: this.aloc.slice(), bloc: this.bloc.slice() };
  }

  build(container) {
    const id = this.id;
    this.rowsSelect = h("select", { id: `${id}-rows` }, options(this.maxSide));
    this.colsSelect = h("select", { id: `${id}-cols` }, options(this.maxSide));
    const tool = (value, label, key) =>
      h("label", { class: "tool" },
        h("input", { type: "radio", name: `${id}-tool`, value, checked: value === this.tool }),
        h("span", { class: `tool-swatch tool-${value}`, "aria-hidden": "true" }, key),
        h("span", {}, label));
    this.tools = h("fieldset", { class: "tool-picker" },
      h("legend", {}, "Clicking a cell"),
      tool("foothold", "toggles a foothold", ""),
      tool("a", "places A", "A"),
      tool("b", "places B", "B"));
    this.grid = h("div", {
      class: "fh-board fh-editor fh-labelled",
      role: "grid",
      "aria-label": "Board editor",
      "aria-describedby": `${id}-help`,
    });
    const quick = h("div", { class: "quick-actions" },
      h("button", { type: "button", class: "btn btn-small", dataset: { fill: "1" } }, "All footholds"),
      h("button", { type: "button", class: "btn btn-small", dataset: { fill: "0" } }, "No footholds"),
      h("button", { type: "button", class: "btn btn-small", dataset: { random: "1" } }, "Random"));
    container.append(
      h("div", { class: "editor-controls" },
        h("div", { class: "field field-inline" }, h("label", { for: `${id}-rows` }, "Rows"), this.rowsSelect),
        h("div", { class: "field field-inline" }, h("label", { for: `${id}-cols` }, "Columns"), this.colsSelect),
        quick),
      this.tools,
      h("div", { class: "editor-grid-wrap" }, this.grid),
      h("p", { class: "hint", id: `${id}-help` },
        "Arrow keys move between cells; Space or Enter applies the tool; the keys A and B place a piece on the focused cell."),
      this.notice = h("p", { class: "hint editor-notice", id: `${id}-notice`, role: "status" }),
    );
    this.rowsSelect.addEventListener("change", () => this.resize(Number(this.rowsSelect.value), this.cols));
    this.colsSelect.addEventListener("change", () => this.resize(this.rows, Number(this.colsSelect.value)));
    this.tools.addEventListener("change", (event) => {
      this.tool = event.target.value;
    });
    quick.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button) return;
      if (button.dataset.fill !== undefined) {
        const v = Number(button.dataset.fill);
        this.board = this.board.map((row) => row.map(() => v));
        this.keepPiecesOnFootholds();
      } else if (button.dataset.random) {
        this.randomise();
      }
      this.changed();
    });
    this.grid.addEventListener("click", (event) => {
      const cell = event.target.closest("[data-r]");
      if (!cell) return;
      this.focus = [Number(cell.dataset.r), Number(cell.dataset.c)];
      this.apply(this.tool);
    });
    this.grid.addEventListener("keydown", (event) => this.onKey(event));
    // Focus that arrives by Tab or a click is where the keys act from (roving tabindex).
    this.grid.addEventListener("focusin", (event) => {
      const cell = event.target.closest("[data-r]");
      if (!cell) return;
      this.focus = [Number(cell.dataset.r), Number(cell.dataset.c)];
      for (const other of this.grid.querySelectorAll("[data-r]")) other.tabIndex = other === cell ? 0 : -1;
    });
  }

  randomise() {
    const rows = this.rows;
    const cols = this.cols;
    this.board = Array.from({ length: rows }, () => Array.from({ length: cols }, () => (Math.random() < 0.8 ? 1 : 0)));
    const cells = [];
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) cells.push([r, c]);
    const pick = () => cells[Math.floor(Math.random() * cells.length)];
    this.aloc = pick();
    this.bloc = pick();
    this.board[this.aloc[0]][this.aloc[1]] = 1;
    this.board[this.bloc[0]][this.bloc[1]] = 1;
  }

  resize(rows, cols) {
    this.board = Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cols }, (_, c) => (this.board[r] && this.board[r][c] !== undefined ? this.board[r][c] : 1)));
    const clamp = (p) => [Math.min(p[0], rows - 1), Math.min(p[1], cols - 1)];
    this.aloc = clamp(this.aloc);
    this.bloc = clamp(this.bloc);
    this.focus = clamp(this.focus);
    this.keepPiecesOnFootholds();
    this.changed();
  }

  keepPiecesOnFootholds() {
    for (const [r, c] of [this.aloc, this.bloc]) this.board[r][c] = 1;
  }

  piecesAt(r, c) {
    return [["A", this.aloc], ["B", this.bloc]].filter(([, p]) => p[0] === r && p[1] === c).map(([name]) => name);
  }

  apply(tool) {
    const [r, c] = this.focus;
    this.notice.textContent = "";
    if (tool === "a") this.aloc = [r, c];
    else if (tool === "b") this.bloc = [r, c];
    else if (this.board[r][c] && this.piecesAt(r, c).length) {
      const pieces = this.piecesAt(r, c);
      this.notice.textContent = `${pieces.join(" and ")} ${pieces.length > 1 ? "stand" : "stands"} on ${cellWords(r, c)}: `
        + `move ${pieces.length > 1 ? "them" : "it"} first to remove this foothold.`;
      return;
    } else this.board[r][c] = this.board[r][c] ? 0 : 1;
    this.keepPiecesOnFootholds();
    this.changed(true);
  }

  onKey(event) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    let [r, c] = this.focus;
    if (moves[event.key]) {
      event.preventDefault();
      r = Math.max(0, Math.min(this.rows - 1, r + moves[event.key][0]));
      c = Math.max(0, Math.min(this.cols - 1, c + moves[event.key][1]));
      this.focus = [r, c];
      this.render(true);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      this.focus = [r, event.key === "Home" ? 0 : this.cols - 1];
      this.render(true);
    } else if (event.key === "a" || event.key === "A" || event.key === "b" || event.key === "B") {
      event.preventDefault();
      this.apply(event.key.toLowerCase());
    }
  }

  changed(keepFocus = false) {
    this.render(keepFocus);
    this.onChange(this.value());
  }

  cellLabel(r, c) {
    const parts = [`Row ${r}, column ${c}`, this.board[r][c] ? "foothold" : "empty"];
    const a = this.aloc[0] === r && this.aloc[1] === c;
    const b = this.bloc[0] === r && this.bloc[1] === c;
    if (a) parts.push("A");
    if (b) parts.push("B");
    return parts.join(", ");
  }

  render(focusCell = false) {
    this.rowsSelect.value = String(this.rows);
    this.colsSelect.value = String(this.cols);
    const grid = this.grid;
    grid.style.setProperty("--cols", String(this.cols));
    grid.style.setProperty("--rows", String(this.rows));
    grid.replaceChildren();
    const header = h("div", { role: "row", class: "fh-row" }, h("span", { class: "fh-axis fh-corner", role: "presentation" }));
    for (let c = 0; c < this.cols; c++) header.appendChild(h("span", { class: "fh-axis", role: "columnheader" }, c));
    grid.appendChild(header);
    for (let r = 0; r < this.rows; r++) {
      const row = h("div", { role: "row", class: "fh-row" }, h("span", { class: "fh-axis", role: "rowheader" }, r));
      for (let c = 0; c < this.cols; c++) {
        const a = this.aloc[0] === r && this.aloc[1] === c;
        const b = this.bloc[0] === r && this.bloc[1] === c;
        const focused = this.focus[0] === r && this.focus[1] === c;
        // A gridcell takes no aria-pressed: whether it is a foothold is in its name.
        const cell = h("button", {
          type: "button",
          role: "gridcell",
          class: ["fh-cell", this.board[r][c] ? "fh-on" : "fh-off", a && b ? "fh-shared" : (a || b) && "fh-occupied"],
          dataset: { r: String(r), c: String(c) },
          tabindex: focused ? "0" : "-1",
          "aria-label": this.cellLabel(r, c),
        },
        a ? h("span", { class: "piece piece-a", "aria-hidden": "true" }, "A") : null,
        b ? h("span", { class: "piece piece-b", "aria-hidden": "true" }, "B") : null);
        row.appendChild(cell);
      }
      grid.appendChild(row);
    }
    if (focusCell) {
      const target = grid.querySelector(`[data-r="${this.focus[0]}"][data-c="${this.focus[1]}"]`);
      if (target) target.focus();
    }
  }
}

export class NumbersEditor {
  // bounds: {max_length, max_abs}, checked here so a typo gets a message without a round trip.
  constructor(container, onChange, initial, bounds) {
    this.onChange = onChange;
    this.maxLength = bounds.max_length;
    this.maxAbs = bounds.max_abs;
    this.id = `ne-${++editorCount}`;
    const id = this.id;
    this.input = h("input", {
      id: `${id}-numbers`, class: "numbers-input", inputmode: "text", autocomplete: "off",
      "aria-describedby": `${id}-hint ${id}-error`,
    });
    this.error = h("p", { class: "field-error", id: `${id}-error`, role: "alert", hidden: true });
    const random = h("button", { type: "button", class: "btn btn-small" }, "Random row");
    container.append(
      h("div", { class: "field" },
        h("label", { for: `${id}-numbers` }, "Numbers"),
        this.input,
        h("p", { class: "hint", id: `${id}-hint` }, "Integers separated by spaces or commas, for example: 7 -5 8 5 1"),
        this.error),
      h("div", { class: "quick-actions" }, random),
    );
    this.input.value = (initial ? initial.board : [7, -5, 8, 5, 1, -4, -8, 6, 7, 9]).join(" ");
    let timer = null;
    this.input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.changed(), 200);
    });
    random.addEventListener("click", () => {
      const n = 6 + Math.floor(Math.random() * 10);
      this.input.value = Array.from({ length: n }, () => Math.round((Math.random() * 2 - 1) * 20)).join(" ");
      this.changed();
    });
  }

  // -> {case} or {error}
  parse() {
    const text = this.input.value.trim().replace(/^\[|\]$/g, "");
    if (!text) return { error: "Enter at least one number." };
    const parts = text.split(/[\s,]+/).filter(Boolean);
    const values = [];
    for (const part of parts) {
      if (!/^[+-]?\d+$/.test(part)) return { error: `“${part}” is not a whole number.` };
      const value = Number(part);
      if (Math.abs(value) > this.maxAbs) {
        const range = `between -${this.maxAbs} and ${this.maxAbs}`;
        return { error: `Number ${values.length + 1} is ${part}: each number must be ${range}.` };
      }
      values.push(value);
    }
    if (values.length > this.maxLength) {
      return { error: `That is ${values.length} numbers: at most ${this.maxLength}.` };
    }
    return { case: { board: values } };
  }

  value() {
    return this.parse().case || null;
  }

  changed() {
    const parsed = this.parse();
    this.error.hidden = !parsed.error;
    this.error.textContent = parsed.error || "";
    this.input.setAttribute("aria-invalid", parsed.error ? "true" : "false");
    this.onChange(parsed.case || null, parsed.error || null);
  }
}

// A plain JSON text area: the fallback for a page that does not know the problem's signature.
export class JsonEditor {
  constructor(container, onChange, initial = {}) {
    this.onChange = onChange;
    const id = `je-${++editorCount}`;
    this.input = h("textarea", { id, rows: "6", class: "json-input", spellcheck: "false" });
    this.error = h("p", { class: "field-error", role: "alert", hidden: true });
    this.input.value = JSON.stringify(initial);
    container.append(h("div", { class: "field" }, h("label", { for: id }, "Input (JSON)"), this.input, this.error));
    this.input.addEventListener("input", () => this.changed());
  }

  value() {
    try {
      return JSON.parse(this.input.value);
    } catch {
      return null;
    }
  }

  changed() {
    const value = this.value();
    this.error.hidden = value !== null;
    this.error.textContent = value === null ? "This is not valid JSON." : "";
    this.onChange(value, value === null ? "This is not valid JSON." : null);
  }
}

// View kind -> editor. tests/service/test_problem_views.py reads these keys: every
// registered problem's kind must be one of them.
export const EDITORS = {
  "grid-two-pieces": FootholdsEditor,
  "number-row": NumbersEditor,
  "json": CaseEditor,
};

// The first sample's input, to start a signature's editor from a real case: the hidden-boards
// page lists the samples' inputs, the problem page the samples themselves.
function firstSample() {
  let data = pageData();
  try {
    data = parseExact(document.getElementById("page-data").textContent); // a long kept exact
  } catch {
    // the page's data as dom.js read it
  }
  const sample = ((data && data.samples) || [])[0];
  if (!sample || typeof sample !== "object") return undefined;
  return "explanation" in sample && "input" in sample ? sample.input : sample;
}

export function makeEditor(slug, container, onChange, initial) {
  const { kind, bounds } = problemView(slug);
  let Editor = Object.hasOwn(EDITORS, kind) ? EDITORS[kind] : CaseEditor;
  const signature = problemSignature(slug);
  if (Editor === CaseEditor) {
    const known = signature.params.length && signature.params.every((p) => parseType(signature.param_types[p]));
    if (!known) return new JsonEditor(container, onChange, initial);
    if (initial === undefined) initial = firstSample();
  }
  return new Editor(container, onChange, initial, bounds, signature);
}
