// Problem list: acceptance rate and the viewer's standing, from /stats/problems. Public: a
// visitor sees the same list, without a standing of their own.
import { api } from "../api.js";
import { $, $$, h, pageAlert } from "../dom.js";

try {
  const stats = await api("/stats/problems");
  for (const stat of stats) {
    const row = $(`tr[data-slug="${CSS.escape(stat.slug)}"]`);
    if (!row) continue;
    $("[data-col=submissions]", row).textContent = stat.submissions;
    $("[data-col=solvers]", row).textContent = stat.solvers;
    const cell = $("[data-col=acceptance]", row);
    if (stat.acceptance === null) {
      cell.replaceChildren(h("span", { class: "muted" }, "no verdicts yet"));
    } else {
      const percent = Math.round(stat.acceptance * 100);
      const meter = h("span", { class: "meter", "aria-hidden": "true" }, h("span", { class: "meter-fill" }));
      meter.firstChild.style.width = `${percent}%`;
      cell.replaceChildren(meter, h("span", { class: "meter-text" }, `${percent}%`),
        h("span", { class: "muted small" }, ` (${stat.accepted}/${stat.submissions})`));
    }
    const mine = $("[data-col=mine]", row);
    mine.replaceChildren(
      stat.mine === "solved" ? h("span", { class: "badge badge-ac" }, "Solved")
        : stat.mine === "tried" ? h("span", { class: "badge badge-tried" }, "Tried") : "",
    );
  }
} catch (error) {
  pageAlert(`Could not load the acceptance rates: ${error.message}`);
  for (const cell of $$("[data-col]")) if (cell.textContent === "–") cell.textContent = "?";
}
