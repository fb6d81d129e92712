// Per-problem statistics for instructors: verdict distribution and submissions per day,
// drawn as SVG charts with the same numbers in tables.
import { api, requireUser } from "../api.js";
import { confirmed } from "../confirm.js";
import { barChart, dayChart } from "../charts.js";
import { rejudgeWithProgress } from "../rejudge.js";
import { $, clear, h, pageAlert, pageData, verdictCss, verdictLabel } from "../dom.js";

const { slug } = pageData();
const user = await requireUser();

function stat(label, value) {
  return h("div", { class: "stat" }, h("span", { class: "stat-label" }, label), h("span", { class: "stat-value" }, value));
}

let last = null;

// Drawn at the container's own width, so the text in the charts stays at its real size.
function widthOf(box, min) {
  return Math.max(min, Math.floor(box.clientWidth || min));
}

async function load(days) {
  const stats = await api(`/problems/${encodeURIComponent(slug)}/stats?days=${days}`);
  last = stats;
  draw(stats);
}

function draw(stats) {
  const accepted = (stats.verdicts.find((v) => v.verdict === "AC") || { count: 0 }).count;
  $("#stats-summary").replaceChildren(
    stat("Finished submissions", String(stats.submissions)),
    stat("Accepted", stats.submissions ? `${Math.round((accepted / stats.submissions) * 100)}%` : "–"),
    stat("Students who tried", String(stats.users)),
    stat("Students who solved it", String(stats.solvers)),
    stat("Waiting or running", String(stats.pending)),
  );
  const shown = stats.verdicts.filter((v) => v.count > 0 || ["AC", "WA", "TLE", "RE"].includes(v.verdict));
  const items = shown.map((v) => ({
    label: v.verdict, value: v.count, title: verdictLabel(v.verdict),
    className: `chart-bar-${verdictCss(v.verdict)}`,
  }));
  const verdictBox = clear($("#verdict-chart"));
  verdictBox.appendChild(barChart(items, {
    width: widthOf(verdictBox, 280),
    label: `Verdicts of ${stats.submissions} finished submissions: ` + items.map((i) => `${i.title} ${i.value}`).join(", "),
  }));
  if (!stats.submissions) verdictBox.appendChild(h("p", { class: "muted center" }, "No finished submissions yet."));
  const vt = clear($("#verdict-table"));
  for (const v of stats.verdicts) {
    vt.appendChild(h("tr", {}, h("td", {}, `${v.verdict} · ${verdictLabel(v.verdict)}`), h("td", { class: "num" }, String(v.count))));
  }
  const total = stats.days.reduce((sum, d) => sum + d.total, 0);
  const daysBox = clear($("#days-chart"));
  daysBox.appendChild(dayChart(stats.days, {
    width: widthOf(daysBox, 300),
    height: 260,
    label: `${total} submissions in the last ${stats.days.length} days, ` +
      `${stats.days.reduce((sum, d) => sum + d.accepted, 0)} of them accepted`,
  }));
  const dt = clear($("#days-table"));
  for (const d of stats.days.slice().reverse()) {
    if (d.total) dt.appendChild(h("tr", {}, h("td", {}, d.date), h("td", { class: "num" }, String(d.total)), h("td", { class: "num" }, String(d.accepted))));
  }
  if (!dt.children.length) dt.appendChild(h("tr", {}, h("td", { colspan: "3", class: "muted" }, "No submissions in this range.")));
}

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => last && draw(last), 150);
});

if (user.role === "instructor") {
  const select = $("#days");
  select.addEventListener("change", () => load(Number(select.value)).catch((e) => pageAlert(e.message)));
  try {
    await load(Number(select.value));
  } catch (error) {
    pageAlert(`Could not load the statistics: ${error.message}`);
  }
  const button = $("#rejudge-all");
  button.addEventListener("click", async () => {
    if (!confirmed(button, "Click again to rejudge all")) return;
    button.disabled = true;
    try {
      await rejudgeWithProgress(slug, $("#rejudge-note"));
    } catch (error) {
      pageAlert(`Could not rejudge: ${error.message}`);
    } finally {
      button.disabled = false;
    }
  });
}
