// The submission's own code against another of the same author and problem: a line diff
// (diff.js), always from the older submission to the newer one.
import { api } from "../../api.js";
import { diffLines, hunks } from "../../diff.js";
import { $, clear, h, languageTitle, plural } from "../../dom.js";
import { page } from "./state.js";

let others = []; // summaries of the author's other submissions of this problem, newest first

export async function setupCompare() {
  const { sub, isInstructor } = page;
  const q = new URLSearchParams({ problem: sub.problem, limit: "50" });
  if (isInstructor) q.set("user", sub.user);
  try {
    others = (await api(`/submissions?${q}`)).items.filter((item) => item.id !== sub.id);
  } catch {
    return; // a convenience: the page works without it
  }
  if (!others.length) return;
  const select = $("#compare-with");
  for (const item of others) {
    select.appendChild(h("option", { value: String(item.id) },
      `#${item.id} · ${languageTitle(item.language)} · ${item.verdict || item.status}`));
  }
  select.addEventListener("change", () => compareWith(select.value));
  $("#compare").hidden = false;
}

async function compareWith(value) {
  const body = clear($("#compare-body"));
  if (!value) return;
  let other;
  try {
    other = await api(`/submissions/${value}`);
  } catch (error) {
    body.appendChild(h("p", { class: "alert alert-error" }, `Could not load submission #${value}: ${error.message}`));
    return;
  }
  const [older, newer] = other.id < page.sub.id ? [other, page.sub] : [page.sub, other];
  const lines = diffLines(older.source, newer.source);
  const removed = lines.filter((l) => l.op === "-").length;
  const added = lines.filter((l) => l.op === "+").length;
  body.appendChild(h("p", { id: "compare-summary" },
    h("strong", {}, `#${older.id} → #${newer.id}: `),
    removed || added ? `${plural(removed, "line")} removed, ${plural(added, "line")} added.` : "the same code."));
  const parts = hunks(lines);
  parts.forEach((part, k) => {
    if (k) body.appendChild(h("div", { class: "diff-gap", "aria-hidden": "true" }, "⋯"));
    // Focusable, as the source view is: a long line scrolls it sideways, the keyboard too.
    body.appendChild(h("pre", { class: "diff", tabindex: "0", "aria-label": `Changes ${k + 1} of ${parts.length}` },
      part.map((line) => h("div", {
        class: ["diff-line", line.op === "-" ? "diff-del" : line.op === "+" ? "diff-add" : "diff-same"],
      },
      h("span", { class: "diff-no", "aria-hidden": "true" }, line.a ?? ""),
      h("span", { class: "diff-no", "aria-hidden": "true" }, line.b ?? ""),
      h("span", { class: "diff-op" }, line.op === "-" ? "−" : line.op === "+" ? "+" : " "),
      h("span", { class: "diff-text" }, line.text)))));
  });
}
