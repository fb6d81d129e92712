// Assignments: a student's own (their deadline, with an extension, and their score per
// problem with its reason); an instructor's list with links to edit each and its gradebook,
// and the gradebook CSVs for Canvas and Moodle.
import { api, requireUser } from "../api.js";
import { $, formatDate, h, pageAlert, plural } from "../dom.js";
import { download } from "../download.js";

const user = await requireUser();
const instructor = user.role === "instructor";

function points(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
}

function lateText(a) {
  if (a.late_rule === "per_day") return `late work until ${formatDate(a.cutoff ?? a.late_until)}, ${points(a.late_percent)}% off per started day`;
  if (a.late_rule === "fixed") return `late work until ${formatDate(a.cutoff ?? a.late_until)}, at ${points(a.late_factor * 100)}%`;
  return "no late work";
}

const FEEDBACK = {
  all: "Results as soon as each submission is judged.",
  visible: "Visible tests now; hidden tests after your due time.",
  received: "Only \"received\" until your due time; results after it.",
};

function studentCard(a) {
  const id = `a-${a.id}`;
  return h("section", { class: "card", "aria-labelledby": id, "data-assignment": String(a.id) },
    h("h2", { id }, a.title),
    h("p", {},
      h("strong", {}, a.open ? "Due " : "Closed · was due "), formatDate(a.due_at),
      a.extended ? h("span", { class: "badge", "data-extended": "1" }, " (your extension)") : null,
      ` · ${lateText(a)} · ${a.counts === "last" ? "your last submission counts" : "your best submission counts"}`),
    h("p", { class: "muted" }, FEEDBACK[a.feedback] || ""),
    h("div", { class: "table-scroll" },
      h("table", { class: "table" },
        h("caption", { class: "sr-only" }, `Your scores in ${a.title}`),
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, "Problem"), h("th", { scope: "col", class: "num" }, "Score"), h("th", { scope: "col" }, "Why"))),
        h("tbody", {}, ...a.cells.map((c) => h("tr", { "data-problem": c.problem },
          h("th", { scope: "row" }, h("a", { href: `/problems/${encodeURIComponent(c.problem)}` }, c.problem)),
          h("td", { class: "num", "data-score": String(c.score) }, `${points(c.score)} / ${points(c.points)}`),
          h("td", {}, c.submission_id ? h("a", { href: `/submissions/${c.submission_id}` }, c.reason) : c.reason)))),
        h("tfoot", {}, h("tr", {},
          h("th", { scope: "row" }, "Total"),
          h("td", { class: "num", "data-total": String(a.total) }, `${points(a.total)} / ${points(a.points)}`), h("td", {}))))));
}

function instructorCard(a) {
  const id = `a-${a.id}`;
  return h("section", { class: "card", "aria-labelledby": id, "data-assignment": String(a.id) },
    h("h2", { id }, a.title),
    h("p", {}, `Released ${formatDate(a.release_at)} · due ${formatDate(a.due_at)} · ${lateText(a)} · `,
      `${plural(a.problems.length, "problem")}, ${points(a.points)} points`),
    h("div", { class: "card-actions" },
      h("a", { class: "btn btn-primary", href: `/instructor/assignments/${a.id}/gradebook` }, "Gradebook"),
      h("a", { class: "btn", href: `/instructor/assignments/${a.id}` }, "Edit, extensions")));
}

for (const link of [$("#canvas-csv"), $("#moodle-csv")]) {
  link.addEventListener("click", async (event) => {
    event.preventDefault();
    try {
      await download(link.getAttribute("href").replace("/api/v1", ""), link.dataset.download);
    } catch (error) {
      pageAlert(`Could not download: ${error.message}`);
    }
  });
}

try {
  const list = instructor ? await api("/assignments") : await api("/assignments/mine");
  if (instructor) $("#assignments-intro").textContent = "Every assignment, by due time. Times are in your time zone.";
  $("#assignment-list").replaceChildren(...list.map(instructor ? instructorCard : studentCard));
  if (!list.length) $("#assignment-list").replaceChildren(h("p", { class: "muted" }, "No assignments yet."));
} catch (error) {
  pageAlert(`Could not load the assignments: ${error.message}`);
}
