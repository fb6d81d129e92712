// An assignment's gradebook (instructors): one row per student with their deadline, each
// problem's score and reason, the total; sorted by clicking a column head and filtered by
// name, both kept in the address (?student=&sort=&dir=desc) as on the progress page; a
// score set by hand with a comment; the CSVs for Canvas and Moodle; the regrades applied (the
// scores a rejudge replaced, kept).
import { api, requireUser } from "../api.js";
import { $, formatDate, h, pageAlert, pageData, plural, showAlert, timeCell } from "../dom.js";
import { download } from "../download.js";

const user = await requireUser();
const { id } = pageData();
let book = null;
let sortKey = "user";
let sortDir = 1;

function points(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
}

function readAddress() {
  const params = new URLSearchParams(location.search);
  $("#gb-search").value = params.get("student") || "";
  sortKey = params.get("sort") || "user";
  sortDir = params.get("dir") === "desc" ? -1 : 1;
}

function writeAddress(typing = false) {
  const params = new URLSearchParams();
  const search = $("#gb-search").value.trim();
  if (search) params.set("student", search);
  if (sortKey !== "user") params.set("sort", sortKey);
  if (sortDir === -1) params.set("dir", "desc");
  const query = params.toString();
  const address = query ? `${location.pathname}?${query}` : location.pathname;
  if (address === location.pathname + location.search) return;
  if (typing) history.replaceState(null, "", address);
  else history.pushState(null, "", address);
}

function sortValue(row, key) {
  if (key === "user") return row.user.toLowerCase();
  if (key === "total") return row.total;
  if (key === "due") return Date.parse(row.due_at);
  const cell = row.cells.find((c) => c.problem === key);
  return cell ? cell.score : 0;
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function headCell(key, label, numeric = false) {
  return h("th", {
    scope: "col",
    class: numeric ? "num" : null,
    "aria-sort": sortKey === key ? (sortDir === 1 ? "ascending" : "descending") : "none",
  }, h("button", { type: "button", class: "sort", "data-sort": key }, label, h("span", { class: "sort-mark", "aria-hidden": "true" })));
}

function scoreCell(cell) {
  return h("td", { class: "cell", "data-problem": cell.problem, "data-score": String(cell.score) },
    h("strong", {}, `${points(cell.score)} / ${points(cell.points)}`),
    cell.pending ? h("span", { class: "muted small" }, " (judging)") : null,
    h("span", { class: "cell-meta" }, cell.submission_id
      ? h("a", { href: `/submissions/${cell.submission_id}` }, cell.reason) : cell.reason));
}

function draw() {
  if (!book) return;
  const problems = book.assignment.problems.map((p) => p.problem);
  if (!["user", "total", "due", ...problems].includes(sortKey)) sortKey = "user";
  const search = $("#gb-search").value.trim().toLowerCase();
  const rows = book.rows
    .filter((row) => !search || row.user.toLowerCase().startsWith(search))
    .sort((a, b) => sortDir * compare(sortValue(a, sortKey), sortValue(b, sortKey)) || compare(a.user, b.user));
  $("#gb-head").replaceChildren(h("tr", {},
    headCell("user", "Student"), headCell("due", "Due"),
    ...problems.map((p) => headCell(p, p)), headCell("total", `Total (${points(book.assignment.points)})`, true)));
  $("#gb-body").replaceChildren(...rows.map((row) => h("tr", { "data-user": row.user, class: row.disabled ? "row-disabled" : null },
    h("th", { scope: "row" }, h("a", { href: `/submissions?user=${encodeURIComponent(row.user)}` }, row.user)),
    h("td", {}, formatDate(row.due_at), row.extended ? h("span", { class: "cell-meta" }, "extension") : null),
    ...row.cells.map(scoreCell),
    h("td", { class: "num", "data-total": String(row.total) }, points(row.total)))));
  if (!rows.length) {
    $("#gb-body").appendChild(h("tr", {}, h("td", { colspan: String(problems.length + 3), class: "muted center" },
      book.rows.length ? "No student matches." : "No students yet.")));
  }
  $("#gb-count").textContent = `${plural(rows.length, "student")} shown of ${book.rows.length}.`;
}

async function load() {
  book = await api(`/assignments/${id}/gradebook`);
  const a = book.assignment;
  $("#gb-title").textContent = `Gradebook: ${a.title}`;
  $("#gb-rules").textContent = `Due ${formatDate(a.due_at)} · ${a.counts === "last" ? "the last" : "the best"} submission counts · ${plural(a.problems.length, "problem")}, ${points(a.points)} points.`;
  const chosen = [$("#ov-user").value, $("#ov-problem").value];
  $("#ov-user").replaceChildren(...book.rows.map((r) => h("option", { value: r.user }, r.user)));
  $("#ov-problem").replaceChildren(...a.problems.map((p) => h("option", { value: p.problem }, p.problem)));
  if (chosen[0]) $("#ov-user").value = chosen[0];
  if (chosen[1]) $("#ov-problem").value = chosen[1];
  draw();
  await loadRegrades();
}

function regradeRow(r) {
  return h("tr", {},
    h("td", { "data-label": "When" }, timeCell(r.applied_at)),
    h("td", { "data-label": "Student" }, r.student),
    h("td", { "data-label": "Problem" }, r.problem),
    h("td", { "data-label": "Score", class: "num" }, `${points(r.old_score)} → ${points(r.new_score)}`),
    h("td", { "data-label": "Total", class: "num" }, `${points(r.old_total)} → ${points(r.new_total)}`),
    h("td", { "data-label": "Applied by" }, r.applied_by || "—"),
    h("td", { "data-label": "Why" }, r.overridden ? `Override kept: ${r.reason}` : r.reason));
}

async function loadRegrades() {
  const { items } = await api(`/assignments/${id}/regrades`);
  $("#rg-body").replaceChildren(...items.map(regradeRow));
  $("#rg-card").hidden = !items.length;
}

$("#gb-head").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-sort]");
  if (!button) return;
  sortDir = button.dataset.sort === sortKey ? -sortDir : 1;
  sortKey = button.dataset.sort;
  writeAddress();
  draw();
  $(`button[data-sort="${CSS.escape(sortKey)}"]`).focus();
});
$("#gb-filters").addEventListener("submit", (event) => event.preventDefault());
$("#gb-search").addEventListener("input", () => {
  writeAddress(true);
  draw();
});
window.addEventListener("popstate", () => {
  readAddress();
  draw();
});
readAddress();
$("#gb-edit").href = `/instructor/assignments/${id}`;

for (const [button, path, name] of [["#gb-canvas", "/gradebook.canvas.csv", "gradebook-canvas.csv"], ["#gb-moodle", "/gradebook.moodle.csv", "gradebook-moodle.csv"]]) {
  $(button).addEventListener("click", async (event) => {
    event.currentTarget.disabled = true;
    try {
      await download(path, name);
    } catch (error) {
      pageAlert(`Could not download: ${error.message}`);
    } finally {
      $(button).disabled = false;
    }
  });
}

$("#ov-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#ov-error").hidden = true;
  const score = $("#ov-score").value;
  try {
    await api(`/assignments/${id}/scores/${encodeURIComponent($("#ov-user").value)}/${encodeURIComponent($("#ov-problem").value)}`, {
      method: "PUT",
      json: { score: score === "" ? null : Number(score), comment: $("#ov-comment").value },
    });
    $("#ov-score").value = "";
    $("#ov-comment").value = "";
    await load();
  } catch (error) {
    showAlert($("#ov-error"), error.message);
  }
});

if (user.role === "instructor") {
  try {
    await load();
  } catch (error) {
    pageAlert(error.status === 404 ? "There is no such assignment." : `Could not load the gradebook: ${error.message}`);
  }
}
