// The student's own boards for a run: drawn with the board editor of the problem's view kind
// (the one instructors draw hidden boards with) and its live preview of the reference answer
// and the optimal line, or pasted as JSON. Kept in this browser per problem, at most 10 (the
// runs API's limit).
import { makeEditor } from "../../board-editor.js";
import { invalidBox, plainWords, previewBoard, previewContent } from "../../board-preview.js";
import { drawCase } from "../../boards.js";
import { parseExact } from "../../case-editor.js";
import { $, clear, formatValue, h } from "../../dom.js";

export const MAX_CASES = 10;

export class OwnCases {
  // canPreview: a visitor has no account to ask the judge with; the editor still draws.
  constructor(slug, { canPreview }) {
    this.slug = slug;
    this.canPreview = canPreview;
    this.key = `judge.cases.${slug}`;
    this.cases = this.read(); // [{input, answer}]
    this.current = null; // the board in the editor
    this.previewed = null; // JSON of the board the preview (valid) belongs to
    this.answer = null; // its reference answer
    this.inflight = null;
    this.timer = null;
    this.built = false;
  }

  read() {
    try {
      // Exact: a long beyond 2^53 comes back with its digits, not rounded.
      const kept = parseExact(localStorage.getItem(this.key) || "[]");
      return Array.isArray(kept) ? kept.filter((c) => c && typeof c.input === "object").slice(0, MAX_CASES) : [];
    } catch {
      return [];
    }
  }

  save() {
    try {
      localStorage.setItem(this.key, JSON.stringify(this.cases));
    } catch {
      // storage full or blocked: the list lives as long as the page
    }
  }

  // The editor is built the first time the student asks for their own boards.
  show() {
    $("#own-cases").hidden = false;
    if (this.built) return;
    this.built = true;
    const editor = makeEditor(this.slug, $("#case-editor"), (value, error) => this.changed(value, error));
    this.changed(editor.value());
    $("#add-case").addEventListener("click", () => this.addCurrent());
    $("#add-json").addEventListener("click", () => this.addJson());
    $("#case-list").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-remove]");
      if (!button) return;
      this.cases.splice(Number(button.dataset.remove), 1);
      this.save();
      this.render();
    });
    this.render();
  }

  hide() {
    $("#own-cases").hidden = true;
  }

  inputs() {
    return this.cases.map((c) => c.input);
  }

  changed(value, clientError = null) {
    this.current = value;
    this.previewed = null;
    clearTimeout(this.timer);
    if (this.inflight) this.inflight.abort();
    const box = $("#case-preview");
    if (clientError || value === null) {
      clear(box).append(invalidBox("This board cannot be run.", clientError || "Fix the input first."));
      return;
    }
    if (!this.canPreview) {
      clear(box).append(h("p", { class: "muted" }, "Log in to see the reference answer and an optimal line for this board."));
      return;
    }
    this.timer = setTimeout(() => this.preview(value), 150);
  }

  async preview(value) {
    const controller = new AbortController();
    this.inflight = controller;
    const box = $("#case-preview");
    box.classList.add("is-loading");
    try {
      const result = await previewBoard(this.slug, value, controller.signal);
      if (controller.signal.aborted) return;
      this.previewed = JSON.stringify(value);
      this.answer = result.answer;
      clear(box).append(...previewContent(this.slug, result));
    } catch (error) {
      if (error.name === "AbortError") return;
      clear(box).append(error.status === 422
        ? invalidBox("This board cannot be run.", plainWords(error.message))
        : h("div", { class: "alert alert-error" }, error.message));
    } finally {
      if (this.inflight === controller) {
        this.inflight = null;
        box.classList.remove("is-loading");
      }
    }
  }

  say(message) {
    const note = $("#cases-error");
    note.textContent = message;
    note.hidden = !message;
  }

  room(more) {
    if (this.cases.length + more <= MAX_CASES) return true;
    this.say(`A run takes at most ${MAX_CASES} boards: remove one first.`);
    return false;
  }

  async addCurrent() {
    this.say("");
    if (this.current && this.canPreview && this.previewed !== JSON.stringify(this.current)) {
      // Its preview is still to come (a click right after an edit): the board as it is now
      // is previewed at once, so the answer stored with it is its own, never the last one's.
      clearTimeout(this.timer);
      if (this.inflight) this.inflight.abort();
      await this.preview(this.current);
    }
    if (!this.current || (this.canPreview && this.previewed !== JSON.stringify(this.current))) {
      this.say("This board is not ready: fix it (or wait for its preview) first.");
      return;
    }
    if (!this.room(1)) return;
    this.cases.push({ input: this.current, answer: this.canPreview ? this.answer : null });
    this.save();
    this.render();
  }

  // Pasted boards are checked one by one with the judge before they join the list.
  async addJson() {
    this.say("");
    let value;
    try {
      value = parseExact($("#cases-json").value);
    } catch {
      this.say("This is not valid JSON.");
      return;
    }
    const boards = Array.isArray(value) ? value : [value];
    if (!boards.length || boards.some((b) => !b || typeof b !== "object" || Array.isArray(b))) {
      this.say("Paste one board as a JSON object, or a list of them.");
      return;
    }
    if (!this.room(boards.length)) return;
    const checked = [];
    for (const [k, input] of boards.entries()) {
      let answer = null;
      if (this.canPreview) {
        try {
          answer = (await previewBoard(this.slug, input)).answer;
        } catch (error) {
          const which = boards.length > 1 ? `Board ${k + 1}: ` : "";
          this.say(`${which}${error.status === 422 ? plainWords(error.message) : error.message}`);
          return;
        }
      }
      checked.push({ input, answer });
    }
    this.cases.push(...checked);
    this.save();
    $("#cases-json").value = "";
    this.render();
  }

  render() {
    const list = clear($("#case-list"));
    $("#case-count").textContent = `(${this.cases.length} of ${MAX_CASES})`;
    if (!this.cases.length) {
      list.appendChild(h("li", { class: "empty-row" }, "No boards yet: draw one above and add it."));
      return;
    }
    this.cases.forEach((c, k) => {
      list.appendChild(h("li", { class: "case-item", dataset: { index: String(k) } },
        drawCase(this.slug, c.input, { size: "small" }),
        h("span", { class: "small" }, `Board ${k + 1}`,
          c.answer === null || c.answer === undefined ? "" : ` · expected ${formatValue(c.answer)}`),
        h("button", { type: "button", class: "btn btn-small btn-danger-ghost", dataset: { remove: String(k) },
          "aria-label": `Remove board ${k + 1}` }, "Remove")));
    });
  }
}
