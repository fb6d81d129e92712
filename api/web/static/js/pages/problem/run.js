// A run: the editor's code on the samples or the student's own boards, not a submission
// (POST /runs), followed live over its event stream like a submission, each board's result
// drawn as it arrives: the board, expected vs returned, the verdict, the time, what the code
// printed and any error with its traceback.
import { API, api } from "../../api.js";
import { drawCase } from "../../boards.js";
import { copyCallButton } from "../../calls.js";
import { $, clear, formatKb, formatMs, h, isFailingVerdict, plural, verdictBadge, verdictLabel } from "../../dom.js";
import { comparison, errorDetails, printedOutput } from "../../results.js";
import { streamEvents } from "../../sse.js";

const POLL_MS = 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let following = null; // AbortController of the run being followed

function status(text, kind = "info") {
  const box = $("#run-status");
  box.hidden = !text;
  box.className = `run-status alert alert-${kind}`;
  box.textContent = text;
}

function caseCard(slug, entry, fromSamples) {
  const failed = isFailingVerdict(entry.verdict);
  const title = `${fromSamples ? "Sample" : "Board"} ${entry.index + 1}`;
  return h("article", { class: ["run-case", failed && "run-case-failed"], dataset: { index: String(entry.index), verdict: entry.verdict || "" } },
    h("h3", { class: "run-case-head" }, h("span", {}, title), " ",
      entry.verdict ? verdictBadge(entry.verdict) : null,
      h("span", { class: "muted small" }, entry.verdict ? ` ${verdictLabel(entry.verdict)}` : "",
        entry.time_ms !== null && entry.time_ms !== undefined ? ` · ${formatMs(entry.time_ms)}` : "",
        entry.memory_kb ? ` · ${formatKb(entry.memory_kb)}` : "")),
    h("div", { class: "run-case-layout" },
      h("div", { class: "run-case-board" }, entry.input ? drawCase(slug, entry.input) : null),
      h("div", { class: "run-case-info" },
        comparison(entry.expected, entry.answer, entry.verdict),
        // An error's message is in its traceback; "expected X, got Y" is in the boxes above.
        entry.message && !entry.error && !entry.traceback && !/^expected /.test(entry.message)
          ? h("p", { class: "test-message" }, entry.message) : null,
        failed && entry.input ? copyCallButton(slug, entry.input) : null,
        errorDetails(entry),
        printedOutput(entry) || h("p", { class: "muted small printed-none" }, "Printed nothing."))));
}

function showCase(slug, entry, fromSamples) {
  const results = $("#run-results");
  const card = caseCard(slug, entry, fromSamples);
  const old = results.querySelector(`.run-case[data-index="${entry.index}"]`);
  if (old) old.replaceWith(card);
  else results.appendChild(card);
}

function progressText(run, done, total) {
  if (run.status === "queued") return "Waiting for a free sandbox…";
  return `Running your code… ${done} of ${plural(total, "board")} done.`;
}

function finish(slug, run, fromSamples) {
  for (const entry of run.results || []) showCase(slug, entry, fromSamples);
  if (run.status === "error") {
    status(run.message || "The judge could not run your code. Try again in a moment.", "error");
    return;
  }
  if (run.outcome === "compile_error") {
    status("", "info");
    $("#run-results").prepend(h("div", { class: "alert alert-error message-box", id: "run-compile-error" },
      h("strong", {}, "Your code could not be run"), h("pre", { class: "message-text" }, run.message || "")));
    return;
  }
  const results = run.results || [];
  const right = results.filter((r) => r.verdict === "AC").length;
  const kind = right === results.length ? "success" : "warning";
  status(`Done: ${right} of ${plural(results.length, "board")} answered as expected. This run is not a submission: nothing was graded or kept.`, kind);
}

// Follows run `id` until it is done; a dropped stream is replaced by polling GET /runs/{id}.
async function follow(slug, id, total, fromSamples, signal) {
  let done = 0;
  let run = { status: "queued", results: [] };
  status(progressText(run, done, total));
  const onEvent = ({ event, data }) => {
    if (event === "status") {
      run.status = data.status;
      status(progressText(run, done, total));
    } else if (event === "case") {
      done += 1;
      run.status = "running";
      showCase(slug, data, fromSamples);
      status(progressText(run, done, total));
    } else if (event === "done") {
      run = data;
    }
  };
  try {
    await streamEvents(`${API}/runs/${id}/events`, { onEvent, signal });
  } catch (error) {
    if (error.name === "AbortError") return;
  }
  while (run.status !== "done" && run.status !== "error") {
    if (signal.aborted) return;
    try {
      run = await api(`/runs/${id}`, { signal });
    } catch (error) {
      if (error.name === "AbortError") return;
      status(`${error.message} Trying again…`, "warning");
    }
    if (run.status !== "done" && run.status !== "error") await sleep(POLL_MS);
  }
  finish(slug, run, fromSamples);
}

// Starts a run of `source` on `cases` (null: the samples) and follows it on the page.
export async function startRun({ slug, source, language = "python", style = "function", cases, samples, button }) {
  if (following) following.abort();
  const controller = new AbortController();
  following = controller;
  clear($("#run-results"));
  status("Sending your code…");
  $("#run-panel").scrollIntoView({ behavior: "smooth", block: "start" });
  button.disabled = true;
  try {
    const body = { problem: slug, source, language, style };
    if (cases) body.cases = cases;
    const queued = await api("/runs", { method: "POST", json: body });
    const total = cases ? cases.length : samples;
    await follow(slug, queued.id, total, !cases, controller.signal);
  } catch (error) {
    if (error.name === "AbortError") return;
    let message = error.message;
    if (error.status === 429) message = `You are running code too often. ${error.message}`;
    if (error.status === 413) message = `Your code is too large for the judge. ${error.message}`;
    status(message, "error");
  } finally {
    if (following === controller) {
      following = null;
      button.disabled = false;
    }
  }
}
