// A compact Python tokenizer for syntax highlighting (editor and source views), and the
// dispatch to the brace languages' tokenizers (highlight-c.js) by a language's highlight mode.
// It scans left to right with one sticky regular expression per token class; anything it
// does not recognise is emitted as plain text, so highlighting never changes the text.

import { isBraceLanguage, tokenizeBraces } from "./highlight-c.js";

const KEYWORDS = new Set(
  ("False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try " +
    "while with yield match case type").split(" "),
);
const BUILTINS = new Set(
  ("abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile " +
    "complex delattr dict dir divmod enumerate eval exec filter float format frozenset " +
    "getattr globals hasattr hash help hex id input int isinstance issubclass iter len list " +
    "locals map max memoryview min next object oct open ord pow print property range repr " +
    "reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip " +
    "Exception ValueError TypeError KeyError IndexError RuntimeError RecursionError " +
    "NotImplementedError StopIteration ZeroDivisionError AssertionError").split(" "),
);
const SOFT_KEYWORDS = new Set(["match", "case", "type"]);
const NEXT_CHAR = /[ \t]*(\S?)/y; // the next non-blank character on the line, if any

const RULES = [
  ["comment", /#[^\n]*/y],
  // Strings with an optional prefix; triple-quoted ones may span lines, an unterminated
  // single-quoted one stops at the end of its line.
  ["string", /(?:[rRbBuUfF]{1,2})?(?:"""[\s\S]*?(?:"""|$(?![\s\S]))|'''[\s\S]*?(?:'''|$(?![\s\S]))|"(?:\\[\s\S]|[^"\\\n])*(?:"|(?=\n)|$)|'(?:\\[\s\S]|[^'\\\n])*(?:'|(?=\n)|$))/y],
  ["number", /(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)(?![\w])/y],
  ["decorator", /@[A-Za-z_][\w.]*/y],
  ["name", /[A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF]*/y],
  ["space", /\s+/y],
  ["op", /[-+*/%=<>!&|^~:.,;()[\]{}@]/y],
  ["other", /[\s\S]/y],
];

// -> [{type, text}], where the texts concatenate to the input exactly.
export function tokenize(text) {
  const tokens = [];
  let pos = 0;
  let previousName = "";
  while (pos < text.length) {
    for (const [type, regex] of RULES) {
      regex.lastIndex = pos;
      const match = regex.exec(text);
      if (!match || match[0].length === 0) continue;
      const value = match[0];
      let kind = type;
      if (type === "name") {
        NEXT_CHAR.lastIndex = pos + value.length;
        const nextChar = NEXT_CHAR.exec(text)[1];
        if (previousName === "def") kind = "function";
        else if (previousName === "class") kind = "class";
        else if (KEYWORDS.has(value) && !(SOFT_KEYWORDS.has(value) && /[=.,)(\]:]/.test(nextChar))) {
          kind = value === "True" || value === "False" || value === "None" ? "constant" : "keyword";
        } else if (value === "self" || value === "cls") kind = "self";
        else if (BUILTINS.has(value)) kind = "builtin";
        else if (nextChar === "(") kind = "call";
        previousName = value;
      } else if (type !== "space") {
        previousName = "";
      }
      tokens.push({ type: kind, text: value });
      pos += value.length;
      break;
    }
  }
  return tokens;
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const PLAIN = new Set(["space", "other", "name"]);

// The highlighter's mode for a language's name or mode ("c++" and "cpp" alike); Python when
// unknown.
export function modeOf(language) {
  const name = String(language || "python").toLowerCase();
  if (name === "c++" || name === "cc" || name === "cpp17") return "cpp";
  if (name === "kt") return "kotlin";
  return isBraceLanguage(name) ? name : "python";
}

// Highlighted HTML for source in `language` (every piece of text escaped).
export function highlight(text, language = "python") {
  const mode = modeOf(language);
  const tokens = mode === "python" ? tokenize(text) : tokenizeBraces(text, mode);
  let out = "";
  for (const token of tokens) {
    const escaped = escapeHtml(token.text);
    out += PLAIN.has(token.type) ? escaped : `<span class="tok-${token.type}">${escaped}</span>`;
  }
  return out;
}

export function highlightPython(text) {
  return highlight(text, "python");
}

const LINE_PX = 20; // .code-body line-height

// A read-only code block with line numbers; `markLine` (1-based) is drawn as the line at fault.
export function codeBlock(text, label = "Source code", { markLine = null, language = "python" } = {}) {
  const figure = document.createElement("figure");
  figure.className = "code-view";
  const lines = text.replace(/\n$/, "").split("\n").length;
  const gutter = document.createElement("pre");
  gutter.className = "code-gutter";
  gutter.setAttribute("aria-hidden", "true");
  gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join("\n");
  const pre = document.createElement("pre");
  pre.className = "code-body";
  if (Number.isInteger(markLine) && markLine >= 1 && markLine <= lines) {
    const mark = document.createElement("span");
    mark.className = "code-mark";
    mark.textContent = String(markLine);
    gutter.replaceChildren(
      Array.from({ length: markLine - 1 }, (_, i) => `${i + 1}\n`).join(""),
      mark,
      Array.from({ length: lines - markLine }, (_, i) => `\n${markLine + i + 1}`).join(""),
    );
    figure.dataset.markLine = String(markLine);
    pre.classList.add("code-marked");
    pre.style.setProperty("--mark-top", `${(markLine - 1) * LINE_PX}px`);
  }
  pre.tabIndex = 0;
  pre.setAttribute("aria-label", label);
  const code = document.createElement("code");
  code.className = `language-${modeOf(language)}`;
  code.innerHTML = highlight(text.replace(/\n$/, ""), language);
  pre.appendChild(code);
  figure.append(gutter, pre);
  return figure;
}

// Highlight <pre><code class="language-..."> blocks rendered from markdown.
export function highlightBlocks(root = document) {
  for (const code of root.querySelectorAll("pre > code[class*='language-']")) {
    const named = /\blanguage-([\w+]+)/.exec(code.className);
    const mode = named ? modeOf(named[1]) : "python";
    if (mode === "python" && named && named[1] !== "python") continue; // not one we know
    code.innerHTML = highlight(code.textContent, mode);
    code.parentElement.classList.add("highlighted");
  }
}
