// The course's progress table (instructors): one row per student, a column per problem with
// the best verdict, attempts and the first accepted time; sorted by clicking a column head,
// filtered by name, problem and state; downloads of the table and of every submission. The
// sort and the filters live in the address (?student=&problem=&state=&sort=&dir=desc): a link
// or a reload keeps them, and Back and Forward step through them.
import { api, requireUser } from "../api.js";
import { $, h, formatDate, pageAlert, plural, verdictBadge } from "../dom.js";
import { download } from "../download.js";

const user = await requireUser();

let table = null;
let sortKey = "user";
let sortDir = 1; // 1 ascending, -1 descending

const FILTERS = [["student", "#p-search"], ["problem", "#p-problem"], ["state", "#p-state"]];

// The address's choices into the form and the sort (on load, Back and Forward).
function readAddress() {
  const params = new URLSearchParams(location.search);
  for (const [name, id] of FILTERS) {
    const field = $(id);
    field.value = params.get(name) || "";
    if (field.value !== (params.get(name) || "")) field.value = ""; // not an option of a select
  }
  sortKey = params.get("sort") || "user";
  sortDir = params.get("dir") === "desc" ? -1 : 1;
}

// The form and the sort into the address: a new history entry for a choice (a sort, a
// select), the same entry rewritten while a name is typed.
function writeAddress(typing = false) {
  const params = new URLSearchParams();
  for (const [name, id] of FILTERS) {
    const value = $(id).value.trim();
    if (value) params.set(name, value);
  }
  if (sortKey !== "user") params.set("sort", sortKey);
  if (sortDir === -1) params.set("dir", "desc");
  const query = params.toString();
  const address = query ? `${location.pathname}?${query}` : location.pathname;
  if (address === location.pathname + location.search) return;
  if (typing) history.replaceState(null, "", address);
  else history.pushState(null, "", address);
}

// A sortable value per column: names alphabetically; a problem by solved first (earliest
// first AC first), then tried (more attempts first), then untried.
function sortValue(row, key) {
  if (key === "user") return row.user.toLowerCase();
  if (key === "solved") return row.solved;
  const cell = row.problems[key];
  if (!cell) return [2, 0];
  if (cell.verdict === "AC") return [0, Date.parse(cell.first_ac)];
  return [1, -cell.attempts];
}

function compare(a, b) {
  if (Array.isArray(a)) return a[0] - b[0] || a[1] - b[1];
  return a < b ? -1 : a > b ? 1 : 0;
}

function stateOf(row, slug) {
  const cells = slug ? [row.problems[slug]] : Object.values(row.problems);
  if (cells.some((c) => c && c.verdict === "AC")) return "solved";
  return cells.some((c) => c) ? "unsolved" : "untried";
}

function visibleRows() {
  const search = $("#p-search").value.trim().toLowerCase();
  const slug = $("#p-problem").value;
  const state = $("#p-state").value;
  return table.students
    .filter((row) => !search || row.user.toLowerCase().startsWith(search))
    .filter((row) => !state || stateOf(row, slug) === state)
    .sort((a, b) => sortDir * compare(sortValue(a, sortKey), sortValue(b, sortKey)) || compare(a.user, b.user));
}

function headCell(key, label, numeric = false) {
  const sorted = sortKey === key;
  return h("th", {
    scope: "col",
    class: numeric ? "num" : null,
    "aria-sort": sorted ? (sortDir === 1 ? "ascending" : "descending") : "none",
  }, h("button", { type: "button", class: "sort", "data-sort": key }, label, h("span", { class: "sort-mark", "aria-hidden": "true" })));
}

function problemCell(cell) {
  if (!cell) return h("td", { class: "cell muted" }, "–");
  const meta = [plural(cell.attempts, "attempt")];
  if (cell.first_ac) meta.push(`first AC ${formatDate(cell.first_ac)}`);
  return h("td", { class: "cell" },
    cell.verdict ? verdictBadge(cell.verdict) : verdictBadge(null, "queued"),
    h("span", { class: "cell-meta" }, meta.join(" · ")));
}

function draw() {
  if (!table) return; // a filter used before the table arrived: drawn when it does
  if (!["user", "solved", ...table.problems].includes(sortKey)) sortKey = "user"; // an old link
  const slug = $("#p-problem").value;
  const slugs = slug ? [slug] : table.problems;
  $("#progress-head").replaceChildren(h("tr", {},
    headCell("user", "Student"),
    headCell("solved", "Solved", true),
    ...slugs.map((s) => headCell(s, s)),
  ));
  const rows = visibleRows();
  $("#progress-body").replaceChildren(...rows.map((row) => h("tr", { class: row.disabled ? "row-disabled" : null, "data-user": row.user },
    h("th", { scope: "row" }, h("a", { href: `/submissions?user=${encodeURIComponent(row.user)}` }, row.user),
      row.disabled ? h("span", { class: "muted small" }, " (disabled)") : null),
    h("td", { class: "num" }, `${row.solved} / ${table.problems.length}`),
    ...slugs.map((s) => problemCell(row.problems[s])),
  )));
  if (!rows.length) {
    $("#progress-body").appendChild(h("tr", {}, h("td", { colspan: String(slugs.length + 2), class: "muted center" },
      table.students.length ? "No student matches these filters." : "No students yet.")));
  }
  $("#progress-count").textContent = `${plural(rows.length, "student")} shown of ${table.students.length}.`;
}

$("#progress-head").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-sort]");
  if (!button) return;
  const key = button.dataset.sort;
  sortDir = key === sortKey ? -sortDir : 1;
  sortKey = key;
  writeAddress();
  draw();
  $(`button[data-sort="${CSS.escape(key)}"]`).focus();
});
$("#progress-filters").addEventListener("submit", (event) => event.preventDefault());
for (const [, id] of FILTERS) {
  $(id).addEventListener("input", () => {
    writeAddress(id === "#p-search");
    draw();
  });
}
window.addEventListener("popstate", () => {
  readAddress();
  draw();
});
readAddress();

async function save(button, path, filename) {
  button.disabled = true;
  try {
    await download(path, filename);
  } catch (error) {
    pageAlert(`Could not download: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

$("#download-progress").addEventListener("click", (e) => save(e.currentTarget, "/progress.csv", "progress.csv"));
$("#download-submissions").addEventListener("click", (e) => save(e.currentTarget, "/submissions.csv", "submissions.csv"));

if (user.role === "instructor") { // for a student, app.js says whose page this is
  try {
    table = await api("/progress");
    draw();
  } catch (error) {
    pageAlert(`Could not load the progress table: ${error.message}`);
  }
}
