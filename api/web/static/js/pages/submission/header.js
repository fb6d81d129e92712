// The top of the page: who submitted what, the verdict (or the judging's state), and once
// judged the summary figures and the judge's message.
import { $, clear, formatKb, formatMs, h, hiddenPendingNote, languageTitle, plural, timeCell, verdictBadge, verdictLabel } from "../../dom.js";
import { errorLine } from "./source.js";
import { page, timeText, titleOf } from "./state.js";

export function renderHeader() {
  const { sub, isInstructor } = page;
  const meta = $("#sub-meta");
  meta.replaceChildren(
    h("a", { href: `/problems/${encodeURIComponent(sub.problem)}` }, titleOf(sub.problem)),
    " · ", h("span", { class: "lang-tag", id: "sub-language" },
      `${languageTitle(sub.language)}${sub.style === "stdio" ? " · whole program" : ""}`),
    " · by ", h("strong", {}, sub.user), " · submitted ", timeCell(sub.created_at),
    // Past the cutoff of every assignment with the problem: it counts for nothing.
    sub.practice ? h("p", { class: "alert alert-warning", id: "practice-note", role: "note" }, sub.practice_note) : null,
  );
  const box = $("#sub-verdict");
  if (sub.status === "done") {
    box.replaceChildren(
      verdictBadge(sub.verdict),
      h("div", { class: "sub-verdict-text" },
        h("strong", {}, verdictLabel(sub.verdict)),
        h("span", { class: "muted" }, sub.verdict === "CE"
          ? "No test was run"
          : `${sub.passed} of ${plural(sub.total, "test")} passed`),
        hiddenPendingNote(sub)),
    );
    box.dataset.verdict = sub.verdict;
  } else if (sub.status === "received") {
    // An assignment shows only this until the student's due time.
    box.replaceChildren(verdictBadge(null, "received"),
      h("div", { class: "sub-verdict-text" }, h("strong", {}, "Received"),
        h("span", { class: "muted" }, "Your submission was received. Its results are shown after your due time.")));
    delete box.dataset.verdict;
  } else if (sub.status === "held") {
    // Not a verdict: grading kept being interrupted on the judge's side.
    box.replaceChildren(verdictBadge(null, "held"),
      h("div", { class: "sub-verdict-text" }, h("strong", {}, "Held for review"),
        h("span", { class: "muted" }, isInstructor
          ? "Grading kept being interrupted. Rejudge it once the cause is fixed."
          : "Grading was interrupted by a problem on the judge's side, not by your code. An instructor will run it again.")));
    delete box.dataset.verdict;
  } else {
    const position = sub.status === "queued" && sub.queue_position
      ? h("span", { class: "queue-position", id: "queue-position" }, queueText(sub.queue_position)) : null;
    // Waiting far beyond the queue's normal (the API's rule): say so, and that nothing is lost.
    const delayed = sub.delayed
      ? h("span", { class: "grading-delayed", id: "grading-delayed", role: "status" },
        "Grading is delayed; your submission is safe and will be graded as soon as the judge is back.")
      : null;
    box.replaceChildren(h("span", { class: "spinner", "aria-hidden": "true" }),
      h("div", { class: "sub-verdict-text" }, h("strong", {}, sub.status === "running" ? "Judging…" : "Queued…"),
        position, delayed,
        h("span", { class: "muted" }, "Results appear below as each test is graded.")));
    delete box.dataset.verdict;
  }
  $("#sub-actions").hidden = !isInstructor;
  renderHold();
  if (sub.status !== "running") renderTabTitle(); // running: the progress sets it
}

function queueText(position) {
  return position === 1 ? "Next in the queue" : `Position ${position} in the queue (${plural(position - 1, "submission")} ahead)`;
}

// The tab says how far the judging is, for a student who looks at another tab meanwhile.
export function renderTabTitle(graded = 0, total = 0) {
  const { sub } = page;
  let prefix = "";
  if (sub.status === "done") prefix = `${sub.verdict} · `;
  else if (sub.status === "held") prefix = "(held) ";
  else if (sub.status === "queued") prefix = sub.queue_position ? `(queued: ${sub.queue_position}) ` : "(queued) ";
  else if (total) prefix = `(${graded}/${total}) `;
  document.title = `${prefix}Submission #${sub.id} · Footholds Judge`;
}

function renderHold() {
  const box = $("#hold");
  box.hidden = !(page.isInstructor && page.sub.status === "held" && page.sub.hold_reason);
  if (!box.hidden) $("#hold-reason").textContent = page.sub.hold_reason;
}

function slowestStat() {
  const timedOut = page.sub.tests.find((t) => t.verdict === "TLE");
  if (timedOut) return stat("Slowest test", timeText(timedOut), "stopped at the time limit");
  return stat("Slowest test", formatMs(page.sub.max_time_ms), "CPU time");
}

function stat(label, value, extra) {
  return h("div", { class: "stat" }, h("span", { class: "stat-label" }, label),
    h("span", { class: "stat-value" }, value), extra ? h("span", { class: "stat-extra muted" }, extra) : null);
}

export function renderSummary() {
  const { sub } = page;
  const box = $("#summary");
  box.hidden = false;
  const seed = stat("Random seed", String(sub.seed), sub.judge_version ? `judge ${sub.judge_version}` : null);
  if (sub.verdict === "CE") {
    // Nothing ran: no pass count, time or memory to speak of.
    box.replaceChildren(stat("Verdict", verdictBadge(sub.verdict), verdictLabel(sub.verdict)),
      stat("Tests", "None run", "the code could not be loaded"), seed);
  } else {
    box.replaceChildren(
      stat("Verdict", verdictBadge(sub.verdict), verdictLabel(sub.verdict)),
      stat("Tests passed", `${sub.passed} / ${sub.total}`),
      slowestStat(),
      stat("Peak memory", formatKb(sub.peak_memory_kb)),
      seed,
    );
  }
  const messages = clear($("#messages"));
  if (sub.sandboxed === false) {
    messages.appendChild(h("div", { class: "alert alert-warning" },
      "This submission was graded without a sandbox (development mode)."));
  }
  if (sub.message) {
    const title = sub.verdict === "CE" ? "Your code could not be run" : sub.verdict === "IE" ? "Internal error" : "Note";
    const line = errorLine();
    messages.appendChild(h("div", { class: `alert ${sub.verdict === "CE" || sub.verdict === "IE" ? "alert-error" : "alert-info"} message-box` },
      h("strong", {}, title), h("pre", { class: "message-text" }, sub.message),
      line ? h("a", { href: "#source", id: "error-line-link" }, `Line ${line} is marked in the source below`) : null));
  }
}
