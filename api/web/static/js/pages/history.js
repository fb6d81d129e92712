// Submission history: filters in the URL (a plain GET form), newest first, paginated.
import { api, requireUser } from "../api.js";
import { $, $$, clear, formatKb, formatMs, h, pageAlert, pageData, timeCell, verdictBadge } from "../dom.js";

const user = await requireUser();
const isInstructor = user.role === "instructor";
const params = new URLSearchParams(location.search);
// 20 a page; ?size=N (1 to 200) for more or fewer.
const PAGE_SIZE = Math.min(200, Math.max(1, Number.parseInt(params.get("size") || "20", 10) || 20));
const titles = Object.fromEntries((pageData().problems || []).map((p) => [p.slug, p.title]));

// Fill the form from the URL.
for (const [name, id] of [["problem", "#f-problem"], ["verdict", "#f-verdict"], ["from", "#f-from"], ["to", "#f-to"], ["user", "#f-user"]]) {
  if (params.get(name)) $(id).value = params.get(name);
}
if (isInstructor) {
  $("#history-title").textContent = params.get("user") ? `Submissions by ${params.get("user")}` : "All submissions";
  $("#history-sub").textContent = "Everyone's submissions, newest first. Filter by user to see one student's work.";
  for (const node of $$("[data-col=user]")) node.hidden = false;
}

// Drop empty fields so the URL stays short.
$("#filters").addEventListener("submit", (event) => {
  for (const field of event.target.elements) {
    if (field.name && !field.value) field.disabled = true;
  }
  const from = $("#f-from").value;
  const to = $("#f-to").value;
  if (from && to && from > to) {
    event.preventDefault();
    for (const field of event.target.elements) field.disabled = false;
    pageAlert("The “From” date is after the “To” date.");
  }
});

function localDay(value, addDays = 0) {
  const [y, m, d] = value.split("-").map(Number);
  return new Date(y, m - 1, d + addDays).toISOString();
}

function query(offset) {
  const q = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
  if (params.get("problem")) q.set("problem", params.get("problem"));
  if (params.get("verdict")) q.set("verdict", params.get("verdict"));
  if (params.get("from")) q.set("since", localDay(params.get("from")));
  if (params.get("to")) q.set("until", localDay(params.get("to"), 1));
  if (isInstructor && params.get("user")) q.set("user", params.get("user"));
  return q;
}

function pageLink(offset) {
  const next = new URLSearchParams(params);
  if (offset > 0) next.set("offset", String(offset));
  else next.delete("offset");
  const text = next.toString();
  return `/submissions${text ? `?${text}` : ""}`;
}

function row(item) {
  return h("tr", { dataset: { id: String(item.id), verdict: item.verdict || "" } },
    h("td", { class: "num" }, h("a", { href: `/submissions/${item.id}`, "aria-label": `Submission ${item.id}` }, `#${item.id}`)),
    h("td", {}, timeCell(item.created_at)),
    isInstructor ? h("td", {}, h("a", { href: `/submissions?user=${encodeURIComponent(item.user)}` }, item.user)) : null,
    h("td", {}, h("a", { href: `/problems/${encodeURIComponent(item.problem)}` }, titles[item.problem] || item.problem)),
    h("td", {}, verdictBadge(item.verdict, item.status)),
    h("td", { class: "num" }, item.total !== null ? `${item.passed}/${item.total}` : "–"),
    h("td", { class: "num hide-sm" }, formatMs(item.max_time_ms)),
    h("td", { class: "num hide-sm" }, formatKb(item.peak_memory_kb)),
  );
}

const offset = Math.max(0, Number.parseInt(params.get("offset") || "0", 10) || 0);
const body = $("#history-body");
try {
  const page = await api(`/submissions?${query(offset)}`);
  clear(body);
  if (!page.items.length) {
    const filtered = ["problem", "verdict", "from", "to", "user"].some((k) => params.get(k));
    if (offset > 0 && page.total > 0) {
      location.replace(pageLink(0)); // past the last page: back to the first
    }
    body.appendChild(h("tr", {}, h("td", { colspan: "8", class: "empty-row" },
      filtered ? "No submissions match these filters." : "No submissions yet. Pick a problem and submit a solution.",
      " ", h("a", { href: filtered ? "/submissions" : "/problems" }, filtered ? "Clear the filters" : "Go to the problems"))));
  }
  for (const item of page.items) body.appendChild(row(item));
  if (page.total > 0) {
    const pager = $("#pager");
    pager.hidden = false;
    const last = Math.min(page.total, offset + page.items.length);
    $("#page-info").textContent = `${offset + 1}–${last} of ${page.total}`;
    const prev = $("#prev-page");
    const next = $("#next-page");
    if (offset > 0) prev.href = pageLink(Math.max(0, offset - PAGE_SIZE));
    else { prev.removeAttribute("href"); prev.setAttribute("aria-disabled", "true"); }
    if (last < page.total) next.href = pageLink(offset + PAGE_SIZE);
    else { next.removeAttribute("href"); next.setAttribute("aria-disabled", "true"); }
    // One page only: just the count.
    prev.hidden = next.hidden = offset === 0 && last >= page.total;
  }
} catch (error) {
  clear(body).appendChild(h("tr", {}, h("td", { colspan: "8", class: "empty-row" }, "Could not load the submissions.")));
  pageAlert(error.message);
}
