// A small code editor: a transparent <textarea> laid exactly over a highlighted <pre>, with a
// line-number gutter. The textarea does all the editing (selection, undo, IME, copy/paste,
// screen readers); the <pre> only paints colours. Both use the same font metrics and grow
// with the text, so one outer box scrolls them together.
//
// Keys: Tab / Shift+Tab indent and dedent (a line or the selected lines), Enter keeps the
// indentation (one level more after a colon in Python, after an opening brace in C++, Java
// and Kotlin), Backspace in leading spaces removes one level. `language` (a language's
// highlight mode or name) picks the colours and those rules.
// Escape releases Tab: the next Tab moves the focus on, so the editor never traps the keyboard.

import { highlight, modeOf } from "./highlight.js";

const INDENT = "    ";

export class CodeEditor {
  constructor(textarea, { onChange, language = "python" } = {}) {
    this.textarea = textarea;
    this.mode = modeOf(language);
    this.onChange = onChange || (() => {});
    this.tabReleased = false;
    this.build();
    this.root.dataset.language = this.mode;
    this.refresh();
  }

  build() {
    const ta = this.textarea;
    const root = document.createElement("div");
    root.className = "code-editor";
    const scroll = document.createElement("div");
    scroll.className = "ce-scroll";
    const inner = document.createElement("div");
    inner.className = "ce-inner";
    const gutter = document.createElement("div");
    gutter.className = "ce-gutter";
    gutter.setAttribute("aria-hidden", "true");
    const stack = document.createElement("div");
    stack.className = "ce-stack";
    const pre = document.createElement("pre");
    pre.className = "ce-highlight";
    pre.setAttribute("aria-hidden", "true");
    const code = document.createElement("code");
    pre.appendChild(code);
    ta.parentNode.insertBefore(root, ta);
    stack.append(pre, ta);
    inner.append(gutter, stack);
    scroll.appendChild(inner);
    root.appendChild(scroll);
    const status = document.createElement("div");
    status.className = "ce-status";
    status.setAttribute("aria-hidden", "true");
    root.appendChild(status);

    ta.classList.add("ce-input");
    ta.setAttribute("wrap", "off");
    ta.setAttribute("spellcheck", "false");
    ta.setAttribute("autocapitalize", "off");
    ta.setAttribute("autocomplete", "off");
    ta.setAttribute("autocorrect", "off");

    this.root = root;
    this.scroll = scroll;
    this.gutter = gutter;
    this.code = code;
    this.status = status;
    this.lineCount = 0;

    // A multi-line insertion can fire an input event per line: paint once per frame. A
    // change still waiting for its frame is handed on when the page is left (the draft saved),
    // else text typed just before following a link would be lost.
    ta.addEventListener("input", () => this.schedule());
    window.addEventListener("pagehide", () => this.flush());
    ta.addEventListener("keydown", (event) => this.onKeyDown(event));
    for (const name of ["keyup", "click", "select", "focus"]) {
      ta.addEventListener(name, () => this.afterMove());
    }
    ta.addEventListener("blur", () => {
      this.tabReleased = false;
      this.root.classList.remove("ce-focus");
    });
    ta.addEventListener("focus", () => this.root.classList.add("ce-focus"));
    // The textarea never scrolls itself: the outer box does.
    ta.addEventListener("scroll", () => {
      ta.scrollTop = 0;
      ta.scrollLeft = 0;
    });
    root.addEventListener("click", (event) => {
      if (event.target === root || event.target === scroll || event.target === inner) ta.focus();
    });
  }

  get language() {
    return this.mode;
  }

  set language(language) {
    this.mode = modeOf(language);
    this.root.dataset.language = this.mode;
    this.refresh();
  }

  get value() {
    return this.textarea.value;
  }

  set value(text) {
    // An edit still waiting for its frame happened before this text: report it first, or its
    // late report would read as an edit of the new text (and hide the replacement's Undo).
    this.flush();
    this.textarea.value = text;
    this.refresh();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => this.flush());
  }

  // Paint and report a pending change now (nothing when none is pending).
  flush() {
    if (!this.frame) return;
    cancelAnimationFrame(this.frame);
    this.frame = null;
    this.refresh();
    this.onChange(this.value);
  }

  refresh() {
    const text = this.textarea.value;
    // A trailing newline needs a line of its own to be painted.
    this.code.innerHTML = highlight(text, this.mode) + "\n";
    const lines = text.split("\n").length;
    if (lines !== this.lineCount) {
      this.lineCount = lines;
      this.gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join("\n");
    }
    this.afterMove();
  }

  caretPosition() {
    const ta = this.textarea;
    const before = ta.value.slice(0, ta.selectionEnd);
    const line = before.split("\n").length;
    const col = before.length - before.lastIndexOf("\n");
    return { line, col };
  }

  afterMove() {
    const { line, col } = this.caretPosition();
    const hint = this.tabReleased ? "Tab moves focus" : "Tab indents · Esc then Tab leaves";
    this.status.textContent = `Ln ${line}, Col ${col} · ${this.lineCount} ${this.lineCount === 1 ? "line" : "lines"} · ${hint}`;
    this.keepCaretVisible(line, col);
  }

  keepCaretVisible(line, col) {
    const style = getComputedStyle(this.code.parentElement);
    const lineHeight = parseFloat(style.lineHeight) || 20;
    const padTop = parseFloat(style.paddingTop) || 0;
    const padLeft = parseFloat(style.paddingLeft) || 0;
    const charWidth = this.charWidth();
    const top = padTop + (line - 1) * lineHeight;
    const box = this.scroll;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + lineHeight + padTop > box.scrollTop + box.clientHeight) {
      box.scrollTop = top + lineHeight + padTop - box.clientHeight;
    }
    const gutterWidth = this.gutter.offsetWidth;
    const x = gutterWidth + padLeft + (col - 1) * charWidth;
    if (x - gutterWidth - padLeft < box.scrollLeft) box.scrollLeft = Math.max(0, x - gutterWidth - padLeft - 4 * charWidth);
    else if (x + 2 * charWidth > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = x + 2 * charWidth - box.clientWidth;
    }
  }

  charWidth() {
    if (!this._charWidth) {
      const probe = document.createElement("span");
      probe.textContent = "0".repeat(20);
      this.code.appendChild(probe);
      this._charWidth = probe.getBoundingClientRect().width / 20 || 8;
      probe.remove();
    }
    return this._charWidth;
  }

  // Replace [start, end) with text, keeping the browser's undo history where it can.
  replace(start, end, text, selectStart = null, selectEnd = null) {
    const ta = this.textarea;
    ta.focus();
    ta.setSelectionRange(start, end);
    let done;
    try {
      done = document.execCommand("insertText", false, text);
    } catch {
      done = false;
    }
    if (!done || ta.value.slice(start, start + text.length) !== text) {
      ta.setRangeText(text, start, end, "end");
      ta.dispatchEvent(new Event("input", { bubbles: true }));
    }
    this.refresh(); // at once: keys typed next must see the new text painted
    if (selectStart !== null) ta.setSelectionRange(selectStart, selectEnd ?? selectStart);
  }

  selectedLines() {
    const ta = this.textarea;
    const value = ta.value;
    const start = value.lastIndexOf("\n", ta.selectionStart - 1) + 1;
    let end = ta.selectionEnd;
    if (end > ta.selectionStart && value[end - 1] === "\n") end -= 1;
    const lineEnd = value.indexOf("\n", end);
    return { start, end: lineEnd === -1 ? value.length : lineEnd };
  }

  onKeyDown(event) {
    const ta = this.textarea;
    if (event.key === "Escape") {
      this.tabReleased = true;
      this.afterMove();
      return;
    }
    if (event.key === "Tab" && !event.ctrlKey && !event.altKey && !event.metaKey) {
      if (this.tabReleased) return; // let the focus move on
      event.preventDefault();
      const multiLine = ta.value.slice(ta.selectionStart, ta.selectionEnd).includes("\n");
      if (event.shiftKey || multiLine) this.shiftLines(event.shiftKey ? -1 : 1);
      else this.replace(ta.selectionStart, ta.selectionEnd, INDENT);
      return;
    }
    this.tabReleased = false;
    if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey && !event.isComposing) {
      event.preventDefault();
      const value = ta.value;
      const lineStart = value.lastIndexOf("\n", ta.selectionStart - 1) + 1;
      const line = value.slice(lineStart, ta.selectionStart);
      let indent = line.match(/^[ \t]*/)[0];
      if (this.mode !== "python") {
        if (/[{([]\s*(\/\/.*)?$/.test(line)) indent += INDENT;
      } else if (/:\s*(#.*)?$/.test(line)) indent += INDENT;
      else if (/^\s*(return|pass|break|continue|raise)\b/.test(line)) indent = indent.slice(0, Math.max(0, indent.length - INDENT.length));
      this.replace(ta.selectionStart, ta.selectionEnd, "\n" + indent);
      return;
    }
    if (event.key === "Backspace" && ta.selectionStart === ta.selectionEnd && ta.selectionStart > 0) {
      const value = ta.value;
      const pos = ta.selectionStart;
      const lineStart = value.lastIndexOf("\n", pos - 1) + 1;
      const before = value.slice(lineStart, pos);
      if (before.length > 0 && /^ +$/.test(before)) {
        event.preventDefault();
        const remove = ((before.length - 1) % INDENT.length) + 1;
        this.replace(pos - remove, pos, "");
      }
    }
  }

  shiftLines(direction) {
    const ta = this.textarea;
    const { start, end } = this.selectedLines();
    const block = ta.value.slice(start, end);
    const lines = block.split("\n");
    const changed = lines.map((line) => {
      if (direction > 0) return line.length ? INDENT + line : line;
      const lead = line.match(/^ {1,4}/);
      return lead ? line.slice(lead[0].length) : line.replace(/^\t/, "");
    });
    const text = changed.join("\n");
    if (text === block) return;
    const single = lines.length === 1;
    const caret = ta.selectionStart;
    const shift = text.length - block.length;
    this.replace(start, end, text);
    if (single) {
      const pos = Math.max(start, caret + shift);
      ta.setSelectionRange(pos, pos);
    } else {
      ta.setSelectionRange(start, start + text.length);
    }
  }
}
