// Submission page: follows the judging live (SSE), then shows the verdict, the tests, the
// first failing visible test drawn with expected vs returned and a replayable optimal line,
// the shrunk counterexample, and the highlighted source. The parts live in ./submission/.
import { api, requireUser } from "../api.js";
import { $, pageAlert } from "../dom.js";
import { setupCompare } from "./submission/compare.js";
import { renderHeader } from "./submission/header.js";
import { follow, resetLive } from "./submission/live.js";
import { renderFinal } from "./submission/result.js";
import { bindCopyButton, renderSource } from "./submission/source.js";
import { page } from "./submission/state.js";
import { bindTestList, upsertTestRow } from "./submission/test-list.js";

const user = await requireUser();
page.isInstructor = user.role === "instructor";

bindTestList();
bindCopyButton();

$("#rejudge").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    await api(`/submissions/${page.id}/rejudge`, { method: "POST" });
    page.sub = { ...page.sub, status: "queued", verdict: null };
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

async function start() {
  try {
    page.sub = await api(`/submissions/${page.id}`);
  } catch (error) {
    $("#submission").setAttribute("aria-busy", "false");
    $("#sub-meta").textContent = "";
    pageAlert(error.status === 404 ? "There is no submission with this number, or it is not yours." : error.message);
    return;
  }
  renderHeader();
  const load = $("#load-source");
  load.hidden = page.sub.user !== user.username; // one's own code only
  load.href = `/problems/${encodeURIComponent(page.sub.problem)}?load=${page.id}`;
  setupCompare();
  if (page.sub.status === "done") {
    renderFinal();
  } else if (page.sub.status === "received") {
    $("#submission").setAttribute("aria-busy", "false");
    renderSource(); // nothing to follow: results come after the due time
  } else {
    renderSource();
    for (const test of page.sub.tests) {
      page.tests.set(test.index, test);
      upsertTestRow(test);
    }
    follow();
  }
}

start();
