// A regrade of a problem as it is now (after a hidden board was added): the judge grades its
// submissions again without changing anything (a preview, its progress said), then the
// verdicts and the assignment scores that would change are listed, and "Rejudge the changed
// ones" applies it (the old scores are kept: the gradebook's Regrades).
import { api } from "./api.js";
import { h, plural } from "./dom.js";
import { rejudgeWithProgress } from "./rejudge.js";

const POLL_MS = 1000;

function scoreRow(change) {
  return h("tr", {},
    h("td", { "data-label": "Assignment" },
      h("a", { href: `/instructor/assignments/${change.assignment_id}/gradebook` }, change.assignment)),
    h("td", { "data-label": "Student" }, change.student),
    h("td", { "data-label": "Problem", class: "num" }, `${change.old} → ${change.new}`),
    h("td", { "data-label": "Assignment", class: "num" }, `${change.old_total} → ${change.new_total}`),
    h("td", { "data-label": "Why" }, change.overridden ? `Override kept: ${change.reason}` : change.reason));
}

function scoresTable(changes) {
  return h("div", { class: "table-scroll" },
    h("table", { class: "table preview-table", id: "regrade-scores" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Assignment"), h("th", { scope: "col" }, "Student"),
        h("th", { scope: "col", class: "num" }, "Problem: now → after"),
        h("th", { scope: "col", class: "num" }, "Assignment: now → after"),
        h("th", { scope: "col" }, "Why"))),
      h("tbody", {}, ...changes.map(scoreRow))));
}

function summary(preview) {
  const scores = preview.score_changes.length;
  const said = scores === 1 ? "1 assignment score changes" : `${scores} assignment scores change`;
  const cut = preview.truncated ? " (only the newest submissions were graded: more could count)" : "";
  return `${preview.changed} of ${plural(preview.total, "verdict")} change; ${said}${cut}.`;
}

// Previews the regrade of `slug` in `box` (replaced), then offers to apply it.
export async function previewRegrade(slug, box) {
  const path = `/problems/${encodeURIComponent(slug)}/rejudge/preview`;
  const live = h("span", { id: "regrade-live" }, "Grading the submissions again; nothing changes yet…");
  box.replaceChildren(live);
  // POST while waiting, as the versions page does: a lost preview is sent again, and one made
  // stale by a new submission is replaced by the preview of the submissions as they are now.
  let preview = await api(path, { method: "POST" });
  while (preview.status === "computing") {
    live.textContent = `Grading ${preview.done} of ${plural(preview.total, "submission")} on the current boards; nothing changes yet…`;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    preview = await api(path, { method: "POST" });
  }
  if (preview.status === "failed") {
    live.textContent = `The preview failed: ${preview.error || "no reason given"}.`;
    return;
  }
  live.textContent = summary(preview);
  const apply = h("button", { type: "button", class: "btn btn-small btn-primary", id: "regrade-apply" },
    "Rejudge the changed ones");
  apply.disabled = !preview.changed && !preview.score_changes.length;
  const progress = h("span", { id: "regrade-progress" });
  box.replaceChildren(live, preview.score_changes.length ? scoresTable(preview.score_changes) : "", apply, progress);
  apply.addEventListener("click", async () => {
    apply.disabled = true;
    await rejudgeWithProgress(slug, progress, preview.key);
  });
}
