// Following a judging as it happens: the event stream (reconnecting when it drops), the
// progress bar and strip of ticks, and each test's row as it is graded.
import { API, api } from "../../api.js";
import { $, clear, h, pageAlert, verdictCss } from "../../dom.js";
import { streamEvents } from "../../sse.js";
import { renderHeader, renderTabTitle } from "./header.js";
import { renderFinal } from "./result.js";
import { firstFailure, isFailure, page } from "./state.js";
import { forgetExplanations, showTest } from "./test-detail.js";
import { upsertTestRow } from "./test-list.js";

let following = null; // AbortController of the live stream

function updateProgress(statusText) {
  const { tests, planned } = page;
  const graded = tests.size;
  const total = Math.max(planned, graded, 1);
  const bar = $("#progress");
  bar.setAttribute("aria-valuemax", String(total));
  bar.setAttribute("aria-valuenow", String(graded));
  bar.setAttribute("aria-valuetext", `${graded} of ${total} tests graded`);
  $("#progress-fill").style.width = `${Math.round((graded / total) * 100)}%`;
  const failed = [...tests.values()].filter(isFailure);
  const passed = [...tests.values()].filter((t) => t.verdict === "AC").length;
  let text = statusText || holdText(page.sub.status);
  if (!text) {
    text = graded ? `Graded ${graded} of ${planned ? total : "?"} tests · ${passed} passed` : "Running your code…";
    if (failed.length) text += ` · test #${failed[0].index + 1} failed (${failed[0].verdict})`;
  }
  $("#live-text").textContent = text;
  renderTabTitle(graded, planned ? total : 0);
  const strip = $("#test-strip");
  while (strip.children.length < total) strip.appendChild(h("li", { class: "tick tick-pending" }));
  [...tests.values()].forEach((test) => {
    const tick = strip.children[test.index];
    if (!tick) return;
    tick.className = `tick tick-${verdictCss(test.verdict)}`;
    tick.title = `Test ${test.index + 1} (${test.kind}): ${test.verdict}`;
  });
}

// A rejudge starts over: nothing of the previous judging stays on the page.
export function resetLive() {
  page.tests = new Map();
  clear($("#test-strip"));
  clear($("#tests-body"));
  $("#tests").hidden = true;
  $("#detail").hidden = true;
  $("#counterexample").hidden = true;
  $("#summary").hidden = true;
  clear($("#messages"));
  forgetExplanations();
}

function onEvent({ event, data }) {
  if (event === "status") {
    if (data.status === "queued" && page.sub.status !== "queued") resetLive();
    page.sub.status = data.status;
    if (data.status === "held" && page.isInstructor) {
      api(`/submissions/${page.id}`).then((fresh) => { page.sub = fresh; renderHeader(); }).catch(() => {});
    }
    renderHeader();
    updateProgress(statusText(data.status));
  } else if (event === "test") {
    page.tests.set(data.index, data);
    upsertTestRow(data);
    if (page.sub.status === "queued") {
      page.sub.status = "running";
      renderHeader();
    }
    updateProgress();
    const first = firstFailure([...page.tests.values()]);
    if (first && first.index === data.index) showTest(data, true);
  } else if (event === "done") {
    page.sub = data;
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

// While queued, the position (and whether grading is delayed) is asked for again every few
// seconds (the event stream says when the status changes, not how the queue moves).
const QUEUE_POLL_MS = 2000;
let queueTimer = null;

function watchQueue(signal) {
  clearTimeout(queueTimer);
  if (page.sub.status !== "queued" || signal.aborted) return;
  queueTimer = setTimeout(async () => {
    try {
      const fresh = await api(`/submissions/${page.id}`);
      if (signal.aborted || page.sub.status !== "queued") return;
      if (fresh.status === "queued") {
        page.sub.queue_position = fresh.queue_position;
        page.sub.delayed = fresh.delayed;
        renderHeader();
      }
    } catch {
      // the stream reports trouble; the position is a nicety
    }
    watchQueue(signal);
  }, QUEUE_POLL_MS);
}

// Streams the judging until it is done; a dropped stream is reopened after a backoff, and a
// judging that finished meanwhile is fetched whole.
export async function follow() {
  if (following) following.abort();
  const controller = new AbortController();
  following = controller;
  $("#live").hidden = false;
  $("#submission").setAttribute("aria-busy", "true");
  try {
    page.planned = (await api(`/problems/${encodeURIComponent(page.sub.problem)}/plan`)).total;
  } catch {
    page.planned = 0;
  }
  updateProgress(statusText(page.sub.status));
  watchQueue(controller.signal);
  let failures = 0;
  while (page.sub.status !== "done" && !controller.signal.aborted) {
    try {
      await streamEvents(`${API}/submissions/${page.id}/events`, { onEvent, signal: controller.signal });
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
    if (page.sub.status === "done") break;
    await sleep(Math.min(5000, 500 * 2 ** failures));
    try {
      const fresh = await api(`/submissions/${page.id}`);
      if (fresh.status === "done") {
        page.sub = fresh;
        renderFinal();
      }
    } catch {
      // keep trying the stream
    }
  }
}
