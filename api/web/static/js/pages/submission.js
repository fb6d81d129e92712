// Submission page: follows the judging live (SSE), then shows the verdict, the tests, the
// first failing visible test drawn with expected vs returned and a replayable optimal line,
// the shrunk counterexample, and the highlighted source.
import { API, api, requireUser } from "../api.js";
import { drawCase, replay } from "../boards.js";
import {
  $, clear, formatDate, formatKb, formatMs, formatTestTime, formatValue, h, isFailingVerdict, pageAlert,
  pageData, plural, timeCell, verdictBadge, verdictCss, verdictLabel,
} from "../dom.js";
import { codeBlock } from "../highlight.js";
import { streamEvents } from "../sse.js";

const { id } = pageData();
const user = await requireUser();
const isInstructor = user.role === "instructor";

let sub = null;
let tests = new Map(); // index -> test, for the current judging
let planned = 0;
let following = null; // AbortController of the live stream
const explanations = new Map();

const KIND_NAMES = { sample: "sample", small: "small positions", worst: "worst case", hidden: "hidden", random: "random" };
const isFailure = (test) => isFailingVerdict(test.verdict);
const visibleInput = (test) => test.input !== null && test.input !== undefined;

// The failure to open: the first visible one (a student sees its board, the expected value
// and its counterexample) before any hidden board, whatever their order in the plan.
function firstFailure(list) {
  const failed = list.filter(isFailure).sort((a, b) => a.index - b.index);
  return failed.find((t) => t.kind !== "hidden") || failed[0];
}

function hiddenFailures() {
  return [...tests.values()].filter((t) => isFailure(t) && t.kind === "hidden").length;
}

// ---- header and summary ------------------------------------------------------------------

function renderHeader() {
  const meta = $("#sub-meta");
  meta.replaceChildren(
    h("a", { href: `/problems/${encodeURIComponent(sub.problem)}` }, titleOf(sub.problem)),
    " · by ", h("strong", {}, sub.user), " · submitted ", timeCell(sub.created_at),
  );
  const box = $("#sub-verdict");
  if (sub.status === "done") {
    box.replaceChildren(
      verdictBadge(sub.verdict),
      h("div", { class: "sub-verdict-text" },
        h("strong", {}, verdictLabel(sub.verdict)),
        h("span", { class: "muted" }, sub.verdict === "CE"
          ? "No test was run"
          : `${sub.passed} of ${plural(sub.total, "test")} passed`)),
    );
    box.dataset.verdict = sub.verdict;
  } else if (sub.status === "held") {
    // Not a verdict: grading kept being interrupted on the judge's side.
    box.replaceChildren(verdictBadge(null, "held"),
      h("div", { class: "sub-verdict-text" }, h("strong", {}, "Held for review"),
        h("span", { class: "muted" }, isInstructor
          ? "Grading kept being interrupted. Rejudge it once the cause is fixed."
          : "Grading was interrupted by a problem on the judge's side, not by your code. An instructor will run it again.")));
    delete box.dataset.verdict;
  } else {
    box.replaceChildren(h("span", { class: "spinner", "aria-hidden": "true" }),
      h("div", { class: "sub-verdict-text" }, h("strong", {}, sub.status === "running" ? "Judging…" : "Queued…"),
        h("span", { class: "muted" }, "Results appear below as each test is graded.")));
    delete box.dataset.verdict;
  }
  $("#sub-actions").hidden = !isInstructor;
  renderHold();
}

function renderHold() {
  const box = $("#hold");
  box.hidden = !(isInstructor && sub.status === "held" && sub.hold_reason);
  if (!box.hidden) $("#hold-reason").textContent = sub.hold_reason;
}

function problemOf(slug) {
  return (pageData().problems || []).find((p) => p.slug === slug);
}

function titleOf(slug) {
  const found = problemOf(slug);
  return found ? found.title : slug;
}

// Times as the page shows them: a test stopped at the limit reads "> limit", not its CPU.
function timeText(test) {
  const found = problemOf(sub.problem);
  return formatTestTime(test, found && found.time_s);
}

function slowestStat() {
  const timedOut = sub.tests.find((t) => t.verdict === "TLE");
  if (timedOut) return stat("Slowest test", timeText(timedOut), "stopped at the time limit");
  return stat("Slowest test", formatMs(sub.max_time_ms), "CPU time");
}

function stat(label, value, extra) {
  return h("div", { class: "stat" }, h("span", { class: "stat-label" }, label),
    h("span", { class: "stat-value" }, value), extra ? h("span", { class: "stat-extra muted" }, extra) : null);
}

function renderSummary() {
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

// ---- tests table ---------------------------------------------------------------------------

function testRow(test) {
  const canView = visibleInput(test) || (isFailure(test) && test.kind === "hidden");
  return h("tr", { dataset: { index: String(test.index), verdict: test.verdict }, class: isFailure(test) && "row-failed" },
    h("td", { class: "num" }, test.index + 1),
    h("td", {}, h("span", { class: `kind kind-${test.kind}` }, KIND_NAMES[test.kind] || test.kind),
      test.profile ? h("span", { class: "muted small hide-sm" }, ` ${test.profile.replace(/_/g, " ")}`) : null,
      test.board_id != null ? h("span", { class: "muted small" }, ` board #${test.board_id}`) : null,
      test.positions != null ? h("span", { class: "muted small", dataset: { positions: String(test.positions) } },
        ` ${positionsText(test)}`) : null),
    h("td", {}, verdictBadge(test.verdict)),
    h("td", { class: "num" }, test.verdict === "SKIPPED" ? "–" : timeText(test)),
    h("td", { class: "num hide-sm" }, formatKb(test.memory_kb)),
    h("td", {}, canView ? h("button", { type: "button", class: "link-button", dataset: { show: String(test.index) },
      "aria-label": `${visibleInput(test) ? "View the board of" : "Details of"} test ${test.index + 1}` },
      "View") : h("span", { class: "muted small" }, test.kind === "hidden" ? "hidden" : "")),
  );
}

// The small tier is one row: every position up to a size, tried smallest first.
function positionsText(test) {
  return test.verdict === "AC" ? `all ${test.positions} positions` : `failed at position ${test.positions}`;
}

let failedOnly = false;

function applyTestFilter() {
  for (const row of $("#tests-body").children) {
    row.hidden = failedOnly && !row.classList.contains("row-failed");
  }
  const failed = [...tests.values()].filter(isFailure).length;
  $("#show-all").textContent = `All (${tests.size})`;
  $("#show-failed").textContent = `Failed only (${failed})`;
  $("#show-all").setAttribute("aria-pressed", String(!failedOnly));
  $("#show-failed").setAttribute("aria-pressed", String(failedOnly));
}

for (const [selector, value] of [["#show-all", false], ["#show-failed", true]]) {
  $(selector).addEventListener("click", () => {
    failedOnly = value;
    applyTestFilter();
  });
}

function renderTests(list) {
  const body = clear($("#tests-body"));
  for (const test of list) body.appendChild(testRow(test));
  $("#tests").hidden = list.length === 0;
  applyTestFilter();
}

function upsertTestRow(test) {
  const body = $("#tests-body");
  const old = body.querySelector(`tr[data-index="${test.index}"]`);
  const row = testRow(test);
  row.classList.add("row-new");
  if (old) old.replaceWith(row);
  else body.appendChild(row);
  $("#tests").hidden = false;
  applyTestFilter();
}

$("#tests-body").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-show]");
  if (!button) return;
  const test = tests.get(Number(button.dataset.show));
  if (test) {
    showTest(test, false);
    $("#detail").scrollIntoView({ behavior: "smooth", block: "start" });
    $("#detail").focus({ preventScroll: true });
  }
});

// ---- a test drawn: input, expected vs returned, optimal line ------------------------------

function comparison(expected, got, verdict) {
  const returned = verdict === "WA" ? formatValue(got) : got === null || got === undefined ? "no answer" : formatValue(got);
  return h("dl", { class: "compare" },
    h("div", { class: "compare-item compare-expected" }, h("dt", {}, "Expected"), h("dd", {}, h("code", {}, formatValue(expected)))),
    h("div", { class: `compare-item ${verdict === "AC" ? "compare-ok" : "compare-got"}` },
      h("dt", {}, "Your function returned"), h("dd", {}, h("code", {}, returned))));
}

function lineSection(slug, input, explanation, collapsed = false) {
  if (collapsed) {
    const box = h("details", { class: "line-of-play" }, h("summary", {}, "Optimal line of play on this board"));
    if (explanation) box.appendChild(replay(slug, input, explanation));
    return box;
  }
  const box = h("div", { class: "line-of-play" }, h("h4", {}, "Optimal line of play"));
  if (explanation) box.appendChild(replay(slug, input, explanation));
  return box;
}

// The judge's "expected X, got Y" says what the two boxes already show.
function informative(test) {
  return test.message && !(test.verdict === "WA" && /^expected /.test(test.message));
}

async function explanationFor(test) {
  if (!explanations.has(test.index)) {
    explanations.set(test.index, api(`/submissions/${id}/tests/${test.index}/explanation`));
  }
  return explanations.get(test.index);
}

function showTest(test, isFirstFailure) {
  const section = $("#detail");
  section.hidden = false;
  section.tabIndex = -1;
  const failed = isFailure(test);
  $("#detail-title").textContent = isFirstFailure
    ? `First failing test: #${test.index + 1}`
    : `Test #${test.index + 1}`;
  const body = clear($("#detail-body"));
  body.appendChild(h("p", { class: "detail-meta" }, verdictBadge(test.verdict), " ",
    h("span", {}, test.kind === "small"
      ? `${verdictLabel(test.verdict)} on small position ${test.positions}, the smallest board your solution fails`
      : `${verdictLabel(test.verdict)} on a ${test.kind} board`),
    test.profile ? h("span", { class: "muted" }, ` (${test.profile.replace(/_/g, " ")})`) : null,
    h("span", { class: "muted" }, ` · ${timeText(test)}`)));
  const hiddenFailed = isFirstFailure ? hiddenFailures() : 0;
  if (hiddenFailed) {
    const others = test.kind === "hidden" ? hiddenFailed - 1 : hiddenFailed;
    if (others > 0) {
      body.appendChild(h("p", { class: "muted", id: "hidden-failures" },
        `${plural(others, "hidden board")} ${test.kind === "hidden" ? "more" : "also"} failed (listed in the tests below).`));
    }
  }
  if (!visibleInput(test)) {
    body.appendChild(h("p", { class: "alert alert-info" },
      "This is a hidden board: its input and answer are not shown to students. Check your solution against the rules and the edge cases in the statement."));
    return;
  }
  if (failed && informative(test)) body.appendChild(h("p", { class: "test-message" }, test.message));
  if (test.kind === "hidden" && test.board_id != null) { // only instructors get a hidden input
    body.appendChild(h("p", { class: "small" }, h("a", {
      href: `/instructor/problems/${encodeURIComponent(sub.problem)}/boards#board-${test.board_id}`,
    }, `Hidden board #${test.board_id} in the board editor`)));
  }
  const layout = h("div", { class: "detail-layout" },
    h("div", { class: "detail-board" }, drawCase(sub.problem, test.input)),
    h("div", { class: "detail-info" }, comparison(test.expected, test.got, test.verdict),
      h("details", { class: "raw-input" }, h("summary", {}, "Input as JSON"),
        h("pre", {}, JSON.stringify(test.input)))));
  body.appendChild(layout);
  // With a shrunk counterexample below, this larger board's line is there on request. A small
  // position is the smallest board already: its line is the one to study.
  const collapsed = Boolean(test.counterexample) && test.kind !== "small";
  let line = lineSection(sub.problem, test.input, null, collapsed);
  line.appendChild(h("p", { class: "muted" }, "Loading the optimal line…"));
  body.appendChild(line);
  explanationFor(test).then((explanation) => {
    const open = line.open;
    const ready = lineSection(sub.problem, test.input, explanation, collapsed);
    if (open) ready.open = true;
    line.replaceWith(ready);
    line = ready;
  }).catch((error) => {
    line.replaceChildren(h(collapsed ? "summary" : "h4", {}, "Optimal line of play"),
      h("p", { class: "alert alert-error" }, `Could not load the optimal line: ${error.message}`));
  });
}

function showCounterexample(test) {
  const cx = test.counterexample;
  const section = $("#counterexample");
  if (!cx) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const body = clear($("#cx-body"));
  body.appendChild(h("p", { class: "muted" },
    `Test #${test.index + 1} failed on a ${test.kind === "worst" ? "worst-case" : "random"} board. The judge shrank it to this smaller board, where your solution still fails:`));
  body.appendChild(h("p", { class: "detail-meta" }, verdictBadge(cx.verdict), " ",
    h("span", {}, verdictLabel(cx.verdict))));
  if (informative(cx)) body.appendChild(h("p", { class: "test-message" }, cx.message));
  body.appendChild(h("div", { class: "detail-layout" },
    h("div", { class: "detail-board" }, drawCase(sub.problem, cx.input)),
    h("div", { class: "detail-info" }, comparison(cx.expected, cx.got, cx.verdict),
      h("details", { class: "raw-input" }, h("summary", {}, "Input as JSON"), h("pre", {}, JSON.stringify(cx.input))))));
  if (cx.explanation) body.appendChild(lineSection(sub.problem, cx.input, cx.explanation));
}

// ---- final result ----------------------------------------------------------------------------

function renderFinal() {
  renderHeader();
  renderSummary();
  renderSource(); // a compile error's line is marked
  $("#live").hidden = true;
  tests = new Map(sub.tests.map((t) => [t.index, t]));
  renderTests(sub.tests);
  const failing = firstFailure(sub.tests);
  if (failing) showTest(failing, true);
  else $("#detail").hidden = true;
  // A failing small position is drawn above as it is: nothing smaller to show.
  const shrinkable = (t) => t && t.counterexample && t.kind !== "small";
  const withCounterexample = shrinkable(failing) ? failing : sub.tests.find(shrinkable);
  if (withCounterexample) showCounterexample(withCounterexample);
  else $("#counterexample").hidden = true;
  renderJudgings();
  $("#submission").setAttribute("aria-busy", "false");
  document.title = `#${sub.id} ${sub.verdict} · Footholds Judge`;
}

function renderJudgings() {
  const list = sub.history || [];
  const section = $("#judgings");
  section.hidden = list.length < 2;
  const body = clear($("#judgings-body"));
  for (const j of list.slice().reverse()) {
    body.appendChild(h("tr", {}, h("td", {}, formatDate(j.finished_at)), h("td", {}, j.reason_label),
      h("td", {}, verdictBadge(j.verdict)), h("td", { class: "num" }, j.verdict === "CE" ? "–" : `${j.passed}/${j.total}`),
      h("td", { class: "num" }, j.verdict === "CE" ? "–" : timeText({ verdict: j.verdict, time_ms: j.max_time_ms }))));
  }
}

// The line a compile error names ("SyntaxError at line 6: ..."), to mark in the source.
function errorLine() {
  if (sub.status !== "done" || sub.verdict !== "CE" || !sub.message) return null;
  const found = /\bline (\d+)\b/.exec(sub.message);
  return found ? Number(found[1]) : null;
}

function renderSource() {
  $("#source").hidden = false;
  const line = errorLine();
  const label = `Source code of submission ${sub.id}${line ? `, error at line ${line}` : ""}`;
  $("#source-body").replaceChildren(codeBlock(sub.source, label, { markLine: line }));
}

$("#copy-source").addEventListener("click", async (event) => {
  try {
    await navigator.clipboard.writeText(sub.source);
    event.target.textContent = "Copied";
  } catch {
    event.target.textContent = "Copy failed";
  }
  setTimeout(() => { event.target.textContent = "Copy"; }, 1500);
});

// ---- live progress ----------------------------------------------------------------------------

function updateProgress(statusText) {
  const graded = tests.size;
  const total = Math.max(planned, graded, 1);
  const bar = $("#progress");
  bar.setAttribute("aria-valuemax", String(total));
  bar.setAttribute("aria-valuenow", String(graded));
  bar.setAttribute("aria-valuetext", `${graded} of ${total} tests graded`);
  $("#progress-fill").style.width = `${Math.round((graded / total) * 100)}%`;
  const failed = [...tests.values()].filter(isFailure);
  const passed = [...tests.values()].filter((t) => t.verdict === "AC").length;
  let text = statusText || holdText(sub.status);
  if (!text) {
    text = graded ? `Graded ${graded} of ${planned ? total : "?"} tests · ${passed} passed` : "Running your code…";
    if (failed.length) text += ` · test #${failed[0].index + 1} failed (${failed[0].verdict})`;
  }
  $("#live-text").textContent = text;
  const strip = $("#test-strip");
  while (strip.children.length < total) strip.appendChild(h("li", { class: "tick tick-pending" }));
  [...tests.values()].forEach((test) => {
    const tick = strip.children[test.index];
    if (!tick) return;
    tick.className = `tick tick-${verdictCss(test.verdict)}`;
    tick.title = `Test ${test.index + 1} (${test.kind}): ${test.verdict}`;
  });
}

function resetLive() {
  tests = new Map();
  clear($("#test-strip"));
  clear($("#tests-body"));
  $("#tests").hidden = true;
  $("#detail").hidden = true;
  $("#counterexample").hidden = true;
  $("#summary").hidden = true;
  clear($("#messages"));
  explanations.clear();
}

function onEvent({ event, data }) {
  if (event === "status") {
    if (data.status === "queued" && sub.status !== "queued") resetLive();
    sub.status = data.status;
    if (data.status === "held" && isInstructor) {
      api(`/submissions/${id}`).then((fresh) => { sub = fresh; renderHeader(); }).catch(() => {});
    }
    renderHeader();
    updateProgress(statusText(data.status));
  } else if (event === "test") {
    tests.set(data.index, data);
    upsertTestRow(data);
    if (sub.status === "queued") {
      sub.status = "running";
      renderHeader();
    }
    updateProgress();
    const first = firstFailure([...tests.values()]);
    if (first && first.index === data.index) showTest(data, true);
  } else if (event === "done") {
    sub = data;
    renderFinal();
  } else if (event === "gone") {
    pageAlert("This submission no longer exists.");
  } else if (event === "reconnect") {
    // The server lost its database: the loop in follow() opens a new stream.
    updateProgress("The judge is briefly unavailable. Reconnecting…");
  }
}

function holdText(status) {
  return status === "held" ? "Held for review: waiting for an instructor to run it again." : null;
}

function statusText(status) {
  if (status === "queued") return "Waiting in the queue…";
  if (status === "held") return holdText(status);
  return null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function follow() {
  if (following) following.abort();
  const controller = new AbortController();
  following = controller;
  $("#live").hidden = false;
  $("#submission").setAttribute("aria-busy", "true");
  try {
    planned = (await api(`/problems/${encodeURIComponent(sub.problem)}/plan`)).total;
  } catch {
    planned = 0;
  }
  updateProgress(statusText(sub.status));
  let failures = 0;
  while (sub.status !== "done" && !controller.signal.aborted) {
    try {
      await streamEvents(`${API}/submissions/${id}/events`, { onEvent, signal: controller.signal });
      failures = 0;
    } catch (error) {
      if (error.name === "AbortError") return;
      if (error.status === 404 || error.status === 401 || error.status === 403) {
        pageAlert(error.message);
        return;
      }
      failures += 1;
      updateProgress(`${error.message} Reconnecting…`);
    }
    if (sub.status === "done") break;
    await sleep(Math.min(5000, 500 * 2 ** failures));
    try {
      const fresh = await api(`/submissions/${id}`);
      if (fresh.status === "done") {
        sub = fresh;
        renderFinal();
      }
    } catch {
      // keep trying the stream
    }
  }
}

$("#rejudge").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    await api(`/submissions/${id}/rejudge`, { method: "POST" });
    sub = { ...sub, status: "queued", verdict: null };
    resetLive();
    renderHeader();
    follow();
  } catch (error) {
    pageAlert(`Could not rejudge: ${error.message}`);
  } finally {
    button.disabled = false;
  }
});

$("#hold-rejudge").addEventListener("click", () => $("#rejudge").click());

// ---- start -----------------------------------------------------------------------------------

async function start() {
  try {
    sub = await api(`/submissions/${id}`);
  } catch (error) {
    $("#submission").setAttribute("aria-busy", "false");
    $("#sub-meta").textContent = "";
    pageAlert(error.status === 404 ? "There is no submission with this number, or it is not yours." : error.message);
    return;
  }
  renderHeader();
  if (sub.status === "done") {
    renderFinal();
  } else {
    renderSource();
    for (const test of sub.tests) {
      tests.set(test.index, test);
      upsertTestRow(test);
    }
    follow();
  }
}

start();
