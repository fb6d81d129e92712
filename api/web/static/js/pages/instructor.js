// Instructor overview: per problem, the number of hidden boards, submissions and acceptance,
// and rejudging every submission of a problem.
import { api, requireUser } from "../api.js";
import { $, $$, pageAlert, plural } from "../dom.js";

const user = await requireUser();

async function load() {
  const [stats, ...boardLists] = await Promise.all([
    api("/stats/problems"),
    ...$$(".problem-card").map((card) => api(`/problems/${encodeURIComponent(card.dataset.slug)}/boards`)),
  ]);
  $$(".problem-card").forEach((card, i) => {
    $("[data-stat=boards]", card).textContent = String(boardLists[i].length);
    const stat = stats.find((s) => s.slug === card.dataset.slug);
    if (stat) {
      $("[data-stat=submissions]", card).textContent = String(stat.submissions);
      $("[data-stat=acceptance]", card).textContent =
        stat.acceptance === null ? "–" : `${Math.round(stat.acceptance * 100)}%`;
    }
  });
}

// Rejudging a whole problem asks once more on the same button.
async function onRejudge(event) {
  const button = event.target.closest("button[data-rejudge]");
  if (!button) return;
  const card = button.closest(".problem-card");
  const note = $("[data-note]", card);
  if (button.dataset.armed !== "1") {
    button.dataset.armed = "1";
    button.textContent = "Click again to rejudge all";
    button.classList.add("btn-danger");
    setTimeout(() => {
      if (button.dataset.armed === "1") {
        button.dataset.armed = "";
        button.textContent = "Rejudge all";
        button.classList.remove("btn-danger");
      }
    }, 4000);
    return;
  }
  button.dataset.armed = "";
  button.disabled = true;
  button.textContent = "Rejudge all";
  button.classList.remove("btn-danger");
  try {
    const result = await api(`/problems/${encodeURIComponent(button.dataset.rejudge)}/rejudge`, { method: "POST" });
    note.textContent = result.queued.length
      ? `Queued ${plural(result.queued.length, "submission")} for rejudging. Their old verdicts stay in each submission's history.`
      : "There are no submissions to rejudge yet.";
  } catch (error) {
    note.textContent = "";
    pageAlert(`Could not rejudge: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

if (user.role === "instructor") {
  document.addEventListener("click", onRejudge);
  try {
    await load();
  } catch (error) {
    pageAlert(`Could not load the overview: ${error.message}`);
  }
}
