// The case editor of view kind "json", made from the problem's signature (problem.toml's
// [signature], in the page's data as problems[].param_types), so a new problem needs no
// JavaScript of its own. One field per parameter:
//   int, long  a text field for the digits (a long beyond 2^53 keeps its digits: it goes into
//              the JSON as written, through JSON.rawJSON, never rounded through a double);
//   bool       a checkbox;
//   str        a text field;
//   T[]        a row of cells with Add and Remove;
//   T[][]      a grid with its rows and columns (cells typed by T; pasting rows into a cell
//              fills the grid, and a ragged paste is refused), or a JSON text area when the
//              value is ragged or nested deeper.
// The "JSON" toggle shows the whole case as JSON text (to paste one), kept in sync both ways.
// A field whose value does not parse or fit its type says what is wrong beside it, and the
// editor then reports no case: onChange(null, message).
//
// Rows, columns and items are counted from 0, as the other editors and the drawn axes count.

import { h } from "./dom.js";

let count = 0;

const MAX_SIDE = 50; // a larger grid is edited as JSON text
const RAW = typeof JSON.rawJSON === "function";
const isRaw = (value) => RAW && JSON.isRawJSON(value);
const RANGES = {
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  long: [-(2n ** 63n), 2n ** 63n - 1n],
};
const SAFE = 2n ** 53n - 1n;

// "int[][]" -> {base: "int", depth: 2}; null for a name this editor does not know.
export function parseType(name) {
  const match = /^(int|long|bool|str)((?:\[\])*)$/.exec(name || "");
  return match ? { base: match[1], depth: match[2].length / 2 } : null;
}

// A number the JSON text wrote as something other than an integer literal (1.5, 1e3).
class NotInteger {
  constructor(source) {
    this.source = source;
  }

  toJSON() {
    return Number(this.source);
  }
}

// JSON.parse that keeps every integer exact: one beyond 2^53 stays its digits (JSON.rawJSON),
// and a number written with a fraction or an exponent is marked, so the types can refuse it.
export function parseExact(text) {
  return JSON.parse(text, (key, value, context) => {
    if (typeof value !== "number" || !context || typeof context.source !== "string") return value;
    if (!/^-?\d+$/.test(context.source)) return new NotInteger(context.source);
    if (!Number.isSafeInteger(value) && RAW) return JSON.rawJSON(context.source);
    return value;
  });
}

// Digits (already checked) -> what the case holds: a number when exact, else the raw digits.
function integerOf(digits) {
  const big = BigInt(digits);
  if (big >= -SAFE && big <= SAFE) return Number(big);
  return RAW ? JSON.rawJSON(big.toString()) : null;
}

function rangeProblem(base, big) {
  const [low, high] = RANGES[base];
  if (big < low || big > high) return `out of the ${base} range (${low} to ${high})`;
  return null;
}

// What is wrong with a scalar for its type, or null.
function scalarProblem(value, base) {
  if (base === "bool") return typeof value === "boolean" ? null : "not true or false";
  if (base === "str") {
    if (typeof value !== "string") return "not a string";
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) return "a str is one line, with no control characters";
    if (value.length > 1000) return `${value.length} characters: at most 1000`;
    return null;
  }
  if (isRaw(value)) return rangeProblem(base, BigInt(value.rawJSON));
  if (typeof value !== "number" || !Number.isInteger(value)) return "not an integer";
  if (!Number.isSafeInteger(value)) return "too large to be exact: write its digits";
  return rangeProblem(base, BigInt(value));
}

function where(path, depth) {
  if (depth === 2 && path.length === 2) return `row ${path[0]}, column ${path[1]}`;
  if (depth === 2) return `row ${path[0]}`;
  if (depth === 1) return `item ${path[0]}`;
  return `item ${path.map((i) => `[${i}]`).join("")}`;
}

// What is wrong with a value for the type {base, depth}, said with where it is, or null.
export function valueProblem(value, type) {
  const walk = (v, depth, path) => {
    if (depth === 0) {
      const problem = scalarProblem(v, type.base);
      return problem && (path.length ? `${where(path, type.depth)}: ${problem}` : problem);
    }
    if (!Array.isArray(v)) return path.length ? `${where(path, type.depth)}: not a list` : "not a list";
    for (let i = 0; i < v.length; i++) {
      const problem = walk(v[i], depth - 1, [...path, i]);
      if (problem) return problem;
    }
    return null;
  };
  return walk(value, type.depth, []);
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// Rows of unequal length: "row 2 has 3 cells, the others 4"; null when rectangular.
export function raggedness(rows) {
  const lengths = rows.map((row) => row.length);
  const tally = new Map();
  for (const n of lengths) tally.set(n, (tally.get(n) || 0) + 1);
  if (tally.size <= 1) return null;
  // The most usual length (on a tie, the one met first: Map keeps that order).
  const common = [...tally.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  const odd = lengths.findIndex((n) => n !== common);
  const others = tally.size === 2 ? "the others" : `row ${lengths.indexOf(common)}`;
  return `row ${odd} has ${plural(lengths[odd], "cell")}, ${others} ${common}`;
}

const defaultScalar = (base) => (base === "bool" ? false : base === "str" ? "" : 0);

function defaultValue(type) {
  if (type.depth === 0) return defaultScalar(type.base);
  if (type.depth === 1) return [0, 0, 0].map(() => defaultScalar(type.base));
  if (type.depth === 2) return [0, 0, 0].map(() => [0, 0, 0].map(() => defaultScalar(type.base)));
  return [];
}

const scalarText = (value) => (isRaw(value) ? value.rawJSON : value === undefined || value === null ? "" : String(value));

// ---- one input of a scalar type: a checkbox (bool) or a text field -----------------------------
// A number is typed into a text field: its digits are kept as typed (a long beyond 2^53 is not
// rounded by a number field's double), a minus sign is on every phone's keyboard (not on every
// numeric keypad), and a typo is named ("not an integer") instead of read as empty.

function scalarInput(base, attrs) {
  if (base === "bool") return h("input", { type: "checkbox", ...attrs });
  return h("input", {
    type: "text", autocomplete: "off", spellcheck: "false",
    class: ["case-input", base === "str" ? "case-str" : "case-number"],
    ...attrs,
  });
}

function readScalar(input, base) {
  if (base === "bool") return { value: input.checked };
  const text = input.value;
  if (base === "str") {
    const problem = scalarProblem(text, "str");
    return problem ? { error: problem } : { value: text };
  }
  const digits = text.trim();
  if (!digits) return { error: "empty: enter an integer" };
  if (!/^[+-]?\d+$/.test(digits)) return { error: "not an integer" };
  const problem = rangeProblem(base, BigInt(digits));
  if (problem) return { error: problem };
  const value = integerOf(digits);
  if (value === null) return { error: "this browser cannot send a number beyond 2^53 exactly" };
  return { value };
}

function writeScalar(input, base, value) {
  if (base === "bool") input.checked = value === true;
  else input.value = scalarText(value);
}

function typeTag(name) {
  return h("code", { class: "case-type" }, name);
}

// ---- fields --------------------------------------------------------------------------------------

class Field {
  constructor(name, typeName, type) {
    this.name = name;
    this.typeName = typeName;
    this.type = type;
    this.id = `ce-${++count}`;
    this.error = h("p", { class: "field-error", id: `${this.id}-error`, hidden: true });
  }

  // Beside the field: what is wrong with it (null: nothing).
  showError(message) {
    this.error.hidden = !message;
    this.error.textContent = message || "";
    for (const input of this.node.querySelectorAll("input, textarea")) {
      if (input.closest(".case-controls")) continue;
      input.setAttribute("aria-invalid", message ? "true" : "false");
    }
  }

  label() {
    return [h("span", { class: "case-name" }, this.name), " ", typeTag(this.typeName)];
  }
}

class ScalarField extends Field {
  constructor(name, typeName, type) {
    super(name, typeName, type);
    this.input = scalarInput(type.base, { id: this.id, "aria-describedby": `${this.id}-error` });
    const label = h("label", { for: this.id }, this.label());
    this.node = type.base === "bool"
      ? h("div", { class: "field case-field case-bool" }, h("div", { class: "case-check" }, this.input, label), this.error)
      : h("div", { class: "field case-field" }, label, this.input, this.error);
  }

  read() {
    return readScalar(this.input, this.type.base);
  }

  write(value) {
    writeScalar(this.input, this.type.base, value);
  }
}

// Any value as JSON text: deeper lists, ragged grids.
class JsonField extends Field {
  constructor(name, typeName, type, note = "") {
    super(name, typeName, type);
    this.note = h("p", { class: "hint", id: `${this.id}-note` }, note);
    this.input = h("textarea", {
      id: this.id, class: "json-input", rows: "3", spellcheck: "false",
      "aria-describedby": `${this.id}-note ${this.id}-error`,
    });
    this.node = h("div", { class: "field case-field" }, h("label", { for: this.id }, this.label(), " as JSON"),
      this.input, this.note, this.error);
  }

  read() {
    let value;
    try {
      value = parseExact(this.input.value);
    } catch {
      return { error: "not valid JSON" };
    }
    const problem = valueProblem(value, this.type);
    return problem ? { error: problem } : { value };
  }

  write(value) {
    this.input.value = JSON.stringify(value);
  }
}

// A list of scalars: a row of cells, Add and Remove.
class ListField extends Field {
  constructor(name, typeName, type, onEdit) {
    super(name, typeName, type);
    this.cells = h("div", { class: "case-cells", role: "group", "aria-label": `${name} items` });
    const add = h("button", { type: "button", class: "btn btn-small", "aria-label": `Add an item to ${name}` }, "Add");
    this.remove = h("button", { type: "button", class: "btn btn-small", "aria-label": `Remove the last item of ${name}` }, "Remove");
    this.node = h("fieldset", { class: "case-field case-fieldset", "aria-describedby": `${this.id}-error` },
      h("legend", {}, this.label()),
      h("div", { class: "case-cells-wrap" }, this.cells),
      h("div", { class: "quick-actions case-controls" }, add, this.remove),
      this.error);
    add.addEventListener("click", () => {
      const cell = this.cell(this.cells.children.length, defaultScalar(type.base));
      this.cells.appendChild(cell);
      this.update();
      cell.focus();
      onEdit();
    });
    this.remove.addEventListener("click", () => {
      this.cells.lastElementChild?.remove();
      this.update();
      onEdit();
    });
  }

  cell(i, value) {
    const input = scalarInput(this.type.base, { "aria-label": `${this.name}, item ${i}`, dataset: { i: String(i) } });
    writeScalar(input, this.type.base, value);
    return input;
  }

  update() {
    this.remove.disabled = this.cells.children.length === 0;
  }

  read() {
    const value = [];
    for (const [i, input] of [...this.cells.children].entries()) {
      const cell = readScalar(input, this.type.base);
      if (cell.error) return { error: `item ${i}: ${cell.error}` };
      value.push(cell.value);
    }
    return { value };
  }

  write(value) {
    this.cells.replaceChildren(...value.map((v, i) => this.cell(i, v)));
    this.update();
  }
}

// Text pasted into a grid cell -> rows of values: JSON ([[1, 2], [3, 4]]) or lines of values
// separated by spaces, commas or tabs. Null: a single value (an ordinary paste into the cell).
function pastedRows(text, base) {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      return { rows: parseExact(trimmed) };
    } catch {
      return { error: "the pasted text is not valid JSON" };
    }
  }
  if (!/[\n\t]/.test(trimmed)) return null;
  const split = base === "str" ? /\t/ : /[\t ,;]+/;
  const rows = trimmed.split(/\r?\n/).map((line) => line.trim().split(split).filter((part) => part !== ""));
  const parse = (part) => {
    if (base === "str") return part;
    if (base === "bool") return part === "true" ? true : part === "false" ? false : part;
    return /^[+-]?\d+$/.test(part) ? integerOf(part) ?? part : part;
  };
  return { rows: rows.map((row) => row.map(parse)) };
}

// A rectangular list of lists of scalars: rows x columns, one input per cell.
class GridField extends Field {
  constructor(name, typeName, type, onEdit) {
    super(name, typeName, type);
    this.onEdit = onEdit;
    this.pasteError = null;
    const id = this.id;
    const side = (which, label) => h("div", { class: "field field-inline" },
      h("label", { for: `${id}-${which}` }, label),
      h("input", { id: `${id}-${which}`, type: "number", min: "0", max: String(MAX_SIDE), class: "case-side" }));
    const rows = side("rows", "Rows");
    const cols = side("cols", "Columns");
    this.rowsInput = rows.querySelector("input");
    this.colsInput = cols.querySelector("input");
    this.table = h("table", { class: "case-grid" });
    this.wrap = h("div", { class: "case-grid-wrap" }, this.table);
    this.node = h("fieldset", { class: "case-field case-fieldset", "aria-describedby": `${id}-help ${id}-error` },
      h("legend", {}, this.label()),
      h("div", { class: "editor-controls case-controls" }, rows, cols),
      this.wrap,
      h("p", { class: "hint", id: `${id}-help` },
        "Arrow keys move between cells. Rows pasted into a cell (JSON, or lines of values) replace the whole grid."),
      this.error);
    for (const input of [this.rowsInput, this.colsInput]) {
      input.addEventListener("change", () => this.resize());
    }
    this.table.addEventListener("input", () => {
      this.pasteError = null;
    });
    this.table.addEventListener("change", () => {
      this.pasteError = null;
    });
    this.table.addEventListener("keydown", (event) => this.onKey(event));
    this.table.addEventListener("paste", (event) => this.onPaste(event));
  }

  get size() {
    const rows = this.table.tBodies[0] ? this.table.tBodies[0].rows.length : 0;
    const first = rows ? this.table.tBodies[0].rows[0].cells.length - 1 : this.emptyCols || 0;
    return [rows, first];
  }

  inputAt(r, c) {
    return this.table.querySelector(`input[data-r="${r}"][data-c="${c}"]`);
  }

  // rows: a rectangular list of lists (already checked).
  build(rows, cols, valueAt) {
    this.emptyCols = cols;
    const head = h("tr", {}, h("td", { class: "case-corner" }));
    for (let c = 0; c < cols; c++) head.appendChild(h("th", { scope: "col" }, String(c)));
    const body = h("tbody", {});
    for (let r = 0; r < rows; r++) {
      const tr = h("tr", {}, h("th", { scope: "row" }, String(r)));
      for (let c = 0; c < cols; c++) {
        const input = scalarInput(this.type.base, { "aria-label": `row ${r}, column ${c}`, dataset: { r: String(r), c: String(c) } });
        writeScalar(input, this.type.base, valueAt(r, c));
        tr.appendChild(h("td", {}, input));
      }
      body.appendChild(tr);
    }
    this.table.replaceChildren(h("thead", {}, head), body);
    this.rowsInput.value = String(rows);
    this.colsInput.value = String(cols);
  }

  resize() {
    const clampSide = (input) => Math.max(0, Math.min(MAX_SIDE, Math.floor(Number(input.value) || 0)));
    const rows = clampSide(this.rowsInput);
    const cols = clampSide(this.colsInput);
    const old = [...this.table.querySelectorAll("input[data-r]")];
    const kept = new Map(old.map((input) => [`${input.dataset.r},${input.dataset.c}`,
      this.type.base === "bool" ? input.checked : input.value]));
    const base = this.type.base;
    this.build(rows, cols, (r, c) => (kept.has(`${r},${c}`) ? kept.get(`${r},${c}`) : defaultScalar(base)));
    this.pasteError = null;
    this.onEdit();
  }

  read() {
    if (this.pasteError) return { error: this.pasteError };
    const [rows, cols] = this.size;
    const value = [];
    for (let r = 0; r < rows; r++) {
      const row = [];
      for (let c = 0; c < cols; c++) {
        const cell = readScalar(this.inputAt(r, c), this.type.base);
        if (cell.error) return { error: `row ${r}, column ${c}: ${cell.error}` };
        row.push(cell.value);
      }
      value.push(row);
    }
    return { value };
  }

  write(value) {
    const cols = value.length ? value[0].length : 0;
    this.pasteError = null;
    this.build(value.length, cols, (r, c) => value[r][c]);
  }

  onPaste(event) {
    const target = event.target.closest("input[data-r]");
    if (!target) return;
    const pasted = pastedRows(event.clipboardData ? event.clipboardData.getData("text") : "", this.type.base);
    if (!pasted) return;
    event.preventDefault();
    const rows = pasted.rows;
    let problem = pasted.error || null;
    if (!problem && (!Array.isArray(rows) || !rows.every(Array.isArray))) problem = "the pasted text is not a list of rows";
    if (!problem) {
      const ragged = raggedness(rows);
      if (ragged) problem = `the pasted rows are not a grid: ${ragged}`;
    }
    if (!problem && (rows.length > MAX_SIDE || (rows[0] || []).length > MAX_SIDE)) {
      problem = `the pasted grid is larger than ${MAX_SIDE} by ${MAX_SIDE}: use the JSON toggle`;
    }
    if (!problem) problem = valueProblem(rows, { base: this.type.base, depth: 2 });
    if (problem) {
      this.pasteError = `${problem}; the grid is unchanged`;
    } else {
      this.write(rows);
      this.inputAt(0, 0)?.focus();
    }
    this.onEdit();
  }

  onKey(event) {
    const input = event.target.closest("input[data-r]");
    if (!input) return;
    const r = Number(input.dataset.r);
    const c = Number(input.dataset.c);
    const text = input.type === "text";
    const atStart = !text || (input.selectionStart === 0 && input.selectionEnd === 0);
    const atEnd = !text || (input.selectionStart === input.value.length && input.selectionEnd === input.value.length);
    const to = {
      ArrowUp: [r - 1, c], ArrowDown: [r + 1, c],
      ArrowLeft: atStart ? [r, c - 1] : null, ArrowRight: atEnd ? [r, c + 1] : null,
    }[event.key];
    if (!to) return;
    const next = this.inputAt(to[0], to[1]);
    if (!next) return;
    event.preventDefault();
    next.focus();
    if (next.type === "text") next.select();
  }
}

// A value of a T[][] field: the grid when it is rectangular, else JSON text.
class GridOrJsonField {
  constructor(name, typeName, type, onEdit) {
    this.grid = new GridField(name, typeName, type, onEdit);
    this.json = new JsonField(name, typeName, type);
    // The JSON text made rectangular again: offered back as a grid.
    this.back = h("button", { type: "button", class: "btn btn-small case-controls", hidden: true }, `Edit ${name} as a grid`);
    this.json.node.insertBefore(this.back, this.json.error);
    this.node = h("div", { class: "case-grid-field" }, this.grid.node, this.json.node);
    this.use(this.grid);
    this.back.addEventListener("click", () => {
      const read = this.json.read();
      if (!read.value || this.reason(read.value)) return;
      this.write(read.value);
      this.grid.inputAt(0, 0)?.focus();
      onEdit();
    });
  }

  // Why a value cannot be a grid, or null.
  reason(value) {
    const ragged = Array.isArray(value) && value.every(Array.isArray) ? raggedness(value) : "not a list of rows";
    if (ragged) return `Not a grid (${ragged}): edited as JSON text.`;
    if (value.length > MAX_SIDE || (value[0] || []).length > MAX_SIDE) return `Larger than ${MAX_SIDE} by ${MAX_SIDE}: edited as JSON text.`;
    return null;
  }

  use(field) {
    this.current = field;
    this.grid.node.hidden = field !== this.grid;
    this.json.node.hidden = field !== this.json;
  }

  read() {
    const read = this.current.read();
    if (this.current === this.json) {
      const reason = read.error ? null : this.reason(read.value);
      this.back.hidden = Boolean(read.error || reason);
      this.json.note.hidden = !reason;
      if (reason) this.json.note.textContent = reason;
    }
    return read;
  }

  showError(message) {
    this.current.showError(message);
  }

  write(value) {
    const reason = this.reason(value);
    if (reason) {
      this.json.note.textContent = reason;
      this.json.note.hidden = false;
      this.back.hidden = true;
      this.json.write(value);
      this.use(this.json);
    } else {
      this.grid.write(value);
      this.use(this.grid);
    }
  }
}

// ---- the editor ----------------------------------------------------------------------------------

// The whole case as JSON text, one parameter a line.
export function caseText(value, params) {
  const keys = params.filter((p) => Object.hasOwn(value, p));
  for (const key of Object.keys(value)) if (!keys.includes(key)) keys.push(key);
  return `{\n${keys.map((k) => `  ${JSON.stringify(k)}: ${JSON.stringify(value[k])}`).join(",\n")}\n}`;
}

export class CaseEditor {
  // signature: {params: [names in order], param_types: {name: "int[][]", ...}}
  constructor(container, onChange, initial, bounds, signature) {
    this.onChange = onChange;
    this.params = signature.params.slice();
    this.types = Object.fromEntries(this.params.map((p) => [p, parseType(signature.param_types[p])]));
    const id = `ce-${++count}`;
    this.fields = {};
    const onEdit = () => this.changed();
    const list = h("div", { class: "case-fields" });
    for (const name of this.params) {
      const typeName = signature.param_types[name];
      const type = this.types[name];
      let field;
      if (type.depth === 0) field = new ScalarField(name, typeName, type);
      else if (type.depth === 1) field = new ListField(name, typeName, type, onEdit);
      else if (type.depth === 2) field = new GridOrJsonField(name, typeName, type, onEdit);
      else field = new JsonField(name, typeName, type);
      this.fields[name] = field;
      list.appendChild(field.node);
    }
    list.addEventListener("input", (event) => {
      if (!event.target.closest(".case-controls")) this.changed();
    });
    this.fieldList = list;

    this.toggle = h("button", {
      type: "button", class: "btn btn-small case-json-toggle", "aria-pressed": "false",
      "aria-describedby": `${id}-toggle-hint ${id}-toggle-note`,
    }, "JSON");
    const toggleHint = h("span", { class: "hint", id: `${id}-toggle-hint` }, "The whole case as JSON text, to copy or paste one.");
    this.toggleNote = h("span", { class: "hint", id: `${id}-toggle-note`, role: "status" });
    this.jsonInput = h("textarea", {
      id: `${id}-json`, class: "json-input", rows: "8", spellcheck: "false",
      "aria-describedby": `${id}-json-error`,
    });
    this.jsonError = h("p", { class: "field-error", id: `${id}-json-error`, hidden: true });
    this.jsonPanel = h("div", { class: "field case-json", hidden: true },
      h("label", { for: `${id}-json` }, "The whole case as JSON"), this.jsonInput, this.jsonError);
    this.root = h("div", { class: "case-editor" },
      h("div", { class: "case-toolbar" }, this.toggle, toggleHint, this.toggleNote),
      list, this.jsonPanel);
    container.append(this.root);
    this.toggle.addEventListener("click", () => this.setJsonMode(this.toggle.getAttribute("aria-pressed") !== "true"));
    this.jsonInput.addEventListener("input", () => this.changed());

    const start = initial && typeof initial === "object" && !Array.isArray(initial)
      ? initial
      : Object.fromEntries(this.params.map((p) => [p, defaultValue(this.types[p])]));
    if (this.caseProblem(start)) {
      // A case that does not fit the signature is shown as it is, with what is wrong.
      this.jsonInput.value = caseText(start, this.params);
      this.panel(true);
      this.show(this.readJson());
    } else {
      this.setFields(start);
      this.show(this.readFields());
    }
  }

  // What is wrong with a whole case, or null.
  caseProblem(value) {
    if (!value || typeof value !== "object" || Array.isArray(value)) return "A case is a JSON object keyed by the parameters.";
    const unknown = Object.keys(value).filter((k) => !this.params.includes(k));
    if (unknown.length) return `“${unknown[0]}” is not a parameter (the parameters: ${this.params.join(", ")}).`;
    for (const name of this.params) {
      if (!Object.hasOwn(value, name)) return `“${name}” is missing.`;
      const problem = valueProblem(value[name], this.types[name]);
      if (problem) return `${name}: ${problem}.`;
    }
    return null;
  }

  setFields(value) {
    for (const name of this.params) this.fields[name].write(value[name]);
  }

  // -> {case} or {error, field?}
  readFields() {
    const value = {};
    let first = null;
    for (const name of this.params) {
      const read = this.fields[name].read();
      this.fields[name].showError(read.error ? `${capital(read.error)}.` : null);
      if (read.error && !first) first = { error: `${name}: ${read.error}.`, field: name };
      value[name] = read.value;
    }
    return first || { case: value };
  }

  readJson() {
    let value;
    try {
      value = parseExact(this.jsonInput.value);
    } catch (error) {
      return { error: `This is not valid JSON (${error.message}).` };
    }
    const problem = this.caseProblem(value);
    return problem ? { error: problem } : { case: value };
  }

  get jsonMode() {
    return !this.jsonPanel.hidden;
  }

  setJsonMode(on) {
    this.toggleNote.textContent = "";
    if (on === this.jsonMode) return;
    if (on) {
      const read = this.readFields();
      if (read.error) {
        this.toggleNote.textContent = `Fix ${read.field} first.`;
        return;
      }
      this.jsonInput.value = caseText(read.case, this.params);
    } else {
      const read = this.readJson();
      if (read.error) {
        this.toggleNote.textContent = "Fix the JSON first: the fields show a valid case only.";
        return;
      }
      this.setFields(read.case);
    }
    this.panel(on); // focus stays on the toggle (a toggle button's way); Tab goes on to the text
  }

  panel(on) {
    this.jsonPanel.hidden = !on;
    this.fieldList.hidden = on;
    this.toggle.setAttribute("aria-pressed", on ? "true" : "false");
  }

  read() {
    if (!this.jsonMode) return this.readFields();
    const read = this.readJson();
    if (read.case) this.setFields(read.case); // the fields follow the JSON text
    return read;
  }

  show(read) {
    this.jsonError.hidden = !(this.jsonMode && read.error);
    this.jsonError.textContent = this.jsonMode ? read.error || "" : "";
    this.jsonInput.setAttribute("aria-invalid", this.jsonMode && read.error ? "true" : "false");
    return read;
  }

  value() {
    return this.read().case || null;
  }

  changed() {
    this.toggleNote.textContent = "";
    const read = this.show(this.read());
    this.onChange(read.case || null, read.error || null);
  }
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
