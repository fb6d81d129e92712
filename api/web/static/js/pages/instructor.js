// Instructor overview: per problem, the number of hidden boards, submissions and acceptance,
// and rejudging every submission of a problem; the submissions held for review, each with
// its reason and a rejudge button.
import { api, requireUser } from "../api.js";
import { confirmed } from "../confirm.js";
import { $, $$, h, languageTitle, pageAlert } from "../dom.js";
import { rejudgeWithProgress } from "../rejudge.js";

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

async function loadHeld() {
  const held = await api("/submissions/held");
  $("#held").hidden = held.length === 0;
  $("#held-body").replaceChildren(...held.map((sub) => h("tr", { "data-id": String(sub.id) },
    h("td", { class: "num" }, h("a", { href: `/submissions/${sub.id}` }, `#${sub.id}`)),
    h("td", {}, sub.user),
    h("td", {}, sub.problem),
    h("td", {}, languageTitle(sub.language)),
    h("td", {}, sub.hold_reason || ""),
    h("td", {}, h("button", { type: "button", class: "btn btn-small", "data-rejudge-one": String(sub.id) }, "Rejudge")),
  )));
}

async function onRejudgeHeld(event) {
  const button = event.target.closest("button[data-rejudge-one]");
  if (!button) return;
  button.disabled = true;
  try {
    await api(`/submissions/${button.dataset.rejudgeOne}/rejudge`, { method: "POST" });
    button.closest("tr").remove();
    $("#held-note").textContent = `Submission #${button.dataset.rejudgeOne} is queued for rejudging.`;
  } catch (error) {
    button.disabled = false;
    pageAlert(`Could not rejudge: ${error.message}`);
  }
}

// Rejudging a whole problem asks once more on the same button.
async function onRejudge(event) {
  const button = event.target.closest("button[data-rejudge]");
  if (!button) return;
  const card = button.closest(".problem-card");
  const note = $("[data-note]", card);
  if (!confirmed(button, "Click again to rejudge all")) return;
  button.disabled = true;
  try {
    await rejudgeWithProgress(button.dataset.rejudge, note);
  } catch (error) {
    note.textContent = "";
    pageAlert(`Could not rejudge: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

if (user.role === "instructor") {
  document.addEventListener("click", onRejudge);
  document.addEventListener("click", onRejudgeHeld);
  try {
    await Promise.all([load(), loadHeld()]);
  } catch (error) {
    pageAlert(`Could not load the overview: ${error.message}`);
  }
}
