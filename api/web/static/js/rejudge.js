// Rejudging every submission of a problem, with its progress: the queued submissions are
// looked up (a page of the problem's list at a time) until none is waiting any more.
import { api } from "./api.js";
import { h, plural } from "./dom.js";

const POLL_MS = 1500;
const PAGE = 200;

// Statuses of the given submissions, from the problem's list (newest first, by cursor).
async function statuses(slug, ids) {
  const wanted = new Set(ids);
  const found = new Map();
  let cursor = null;
  do {
    const query = new URLSearchParams({ problem: slug, limit: String(PAGE) });
    if (cursor) query.set("cursor", cursor);
    const page = await api(`/submissions?${query}`);
    for (const item of page.items) if (wanted.has(item.id)) found.set(item.id, item.status);
    cursor = page.next_cursor;
  } while (cursor && found.size < wanted.size);
  return found;
}

// Rejudges `slug` and shows the progress in `note` (replaced); resolves when all are done.
// `preview`: the key of a ready regrade preview (regrade.js): only the submissions it changes.
export async function rejudgeWithProgress(slug, note, preview = null) {
  const options = preview ? { method: "POST", json: { preview } } : { method: "POST" };
  const result = await api(`/problems/${encodeURIComponent(slug)}/rejudge`, options);
  const ids = result.queued;
  if (!ids.length) {
    note.replaceChildren(preview ? "No verdict changes: nothing to rejudge." : "There are no submissions to rejudge yet.");
    return 0;
  }
  const bar = h("progress", { max: String(ids.length), value: "0", class: "rejudge-progress",
    "aria-label": "Rejudging progress" });
  const text = h("span", { class: "rejudge-text" });
  note.replaceChildren(bar, " ", text);
  const show = (done) => {
    bar.value = done;
    text.textContent = done < ids.length
      ? `Rejudged ${done} of ${plural(ids.length, "submission")}…`
      : `Rejudged all ${plural(ids.length, "submission")}. Their old verdicts stay in each submission's history.`;
  };
  show(0);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    let found;
    try {
      found = await statuses(slug, ids);
    } catch {
      continue; // a failed look-up only delays the count
    }
    // A submission no longer listed was deleted: nothing left to wait for.
    const done = ids.filter((id) => !found.has(id) || found.get(id) === "done" || found.get(id) === "held").length;
    show(done);
    if (done >= ids.length) return ids.length;
  }
}
