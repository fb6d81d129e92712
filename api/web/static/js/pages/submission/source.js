// The submitted source, highlighted, with the line a compile error names marked.
import { $ } from "../../dom.js";
import { codeBlock } from "../../highlight.js";
import { page } from "./state.js";

// The line a compile error names ("SyntaxError at line 6: ..."), to mark in the source.
export function errorLine() {
  const { sub } = page;
  if (sub.status !== "done" || sub.verdict !== "CE" || !sub.message) return null;
  const found = /\bline (\d+)\b/.exec(sub.message);
  return found ? Number(found[1]) : null;
}

export function renderSource() {
  $("#source").hidden = false;
  const line = errorLine();
  const label = `Source code of submission ${page.sub.id}${line ? `, error at line ${line}` : ""}`;
  const language = page.sub.language || "python";
  $("#source-body").replaceChildren(codeBlock(page.sub.source, label, { markLine: line, language }));
}

export function bindCopyButton() {
  $("#copy-source").addEventListener("click", async (event) => {
    try {
      await navigator.clipboard.writeText(page.sub.source);
      event.target.textContent = "Copied";
    } catch {
      event.target.textContent = "Copy failed";
    }
    setTimeout(() => { event.target.textContent = "Copy"; }, 1500);
  });
}
