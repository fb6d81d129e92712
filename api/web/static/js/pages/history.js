// Submission history: filters in the URL (a plain GET form), newest first, paged by cursor
// (?cursor= from the API, ?at= the first row's position, only for the "1–20 of N" line).
import { api, requireUser } from "../api.js";
import { $, $$, clear, formatKb, formatTestTime, h, hiddenPendingNote, languageTitle, pageAlert, pageData, timeCell, verdictBadge } from "../dom.js";

const params = new URLSearchParams(location.search);
// 20 a page; ?size=N (1 to 200) for more or fewer.
const PAGE_SIZE = Math.min(200, Math.max(1, Number.parseInt(params.get("size") || "20", 10) || 20));
const titles = Object.fromEntries((pageData().problems || []).map((p) => [p.slug, p.title]));
const timeLimits = Object.fromEntries((pageData().problems || []).map((p) => [p.slug, p.time_s]));

const FIELDS = [["problem", "#f-problem"], ["verdict", "#f-verdict"], ["language", "#f-language"], ["from", "#f-from"], ["to", "#f-to"], ["user", "#f-user"]];

// The form says what the address says: on load, and when Back brings the page out of the
// back/forward cache with the choices (and the fields disabled on submit) of before. It is
// filled and wired before the account is asked for, so a choice made while that request is
// in flight is not reset under the user's hand.
function fillForm() {
  const current = new URLSearchParams(location.search);
  for (const [name, id] of FIELDS) {
    $(id).value = current.get(name) || "";
    $(id).disabled = false;
  }
}
fillForm();
window.addEventListener("pageshow", (event) => {
  if (event.persisted) fillForm();
});
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

const user = await requireUser();
const isInstructor = user.role === "instructor";

if (isInstructor) {
  $("#history-title").textContent = params.get("user") ? `Submissions by ${params.get("user")}` : "All submissions";
  $("#history-sub").textContent = "Everyone's submissions, newest first. Filter by user to see one student's work.";
  for (const node of $$("[data-col=user]")) node.hidden = false;
}

// The user filter names one account: while an instructor types, the names that start with
// what is typed are offered (any case).
async function usersStartingWith(prefix, limit) {
  const q = new URLSearchParams({ search: prefix, limit: String(limit) });
  return (await api(`/users?${q}`)).items.map((u) => u.username);
}

if (isInstructor) {
  let typing = null;
  $("#f-user").addEventListener("input", (event) => {
    clearTimeout(typing);
    const prefix = event.target.value.trim();
    if (!prefix) return;
    typing = setTimeout(async () => {
      try {
        const names = await usersStartingWith(prefix, 8);
        $("#user-suggestions").replaceChildren(...names.map((name) => h("option", { value: name })));
      } catch {
        // suggestions are a convenience: the filter works without them
      }
    }, 150);
  });
}

// Nobody has exactly that name: say so, and offer the names that start with it.
async function noSuchUser(name) {
  let names;
  try {
    names = await usersStartingWith(name, 6);
  } catch {
    return null;
  }
  if (names.includes(name)) return null;
  const links = names.map((n) => h("a", { href: `/submissions?user=${encodeURIComponent(n)}` }, n));
  return h("p", { id: "user-hint", class: "muted" }, `No user is named ${name}.`,
    ...(links.length ? [" Did you mean ", ...links.flatMap((a, i) => (i ? [", ", a] : [a])), "?"] : []));
}

function localDay(value, addDays = 0) {
  const [y, m, d] = value.split("-").map(Number);
  return new Date(y, m - 1, d + addDays).toISOString();
}

function query() {
  const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (params.get("cursor")) q.set("cursor", params.get("cursor"));
  else if (params.get("offset")) q.set("offset", params.get("offset")); // an old bookmark
  if (params.get("problem")) q.set("problem", params.get("problem"));
  if (params.get("verdict")) q.set("verdict", params.get("verdict"));
  if (params.get("language")) q.set("language", params.get("language"));
  if (params.get("from")) q.set("since", localDay(params.get("from")));
  if (params.get("to")) q.set("until", localDay(params.get("to"), 1));
  if (isInstructor && params.get("user")) q.set("user", params.get("user"));
  return q;
}

function pageLink(cursor, at) {
  const next = new URLSearchParams(params);
  next.delete("offset");
  if (cursor) {
    next.set("cursor", cursor);
    next.set("at", String(at));
  } else {
    next.delete("cursor");
    next.delete("at");
  }
  const text = next.toString();
  return `/submissions${text ? `?${text}` : ""}`;
}

function row(item) {
  const ran = item.total !== null && item.verdict !== "CE"; // a compile error ran no test
  return h("tr", { dataset: { id: String(item.id), verdict: item.verdict || "" } },
    h("td", { class: "num" }, h("a", { href: `/submissions/${item.id}`, "aria-label": `Submission ${item.id}` }, `#${item.id}`)),
    h("td", {}, timeCell(item.created_at)),
    isInstructor ? h("td", {}, h("a", { href: `/submissions?user=${encodeURIComponent(item.user)}` }, item.user)) : null,
    h("td", {}, h("a", { href: `/problems/${encodeURIComponent(item.problem)}` }, titles[item.problem] || item.problem)),
    h("td", {}, h("span", { class: "lang-tag" }, languageTitle(item.language))),
    h("td", {}, verdictBadge(item.verdict, item.status), " ", hiddenPendingNote(item)),
    h("td", { class: "num" }, ran ? `${item.passed}/${item.total}` : "–"),
    h("td", { class: "num hide-sm" }, ran
      ? formatTestTime({ verdict: item.verdict, time_ms: item.max_time_ms }, timeLimits[item.problem]) : "–"),
    h("td", { class: "num hide-sm" }, ran ? formatKb(item.peak_memory_kb) : "–"),
    h("td", {}, item.user === user.username ? h("a", {
      class: "small load-link",
      href: `/problems/${encodeURIComponent(item.problem)}?load=${item.id}`,
      "aria-label": `Load into editor: submission ${item.id}`,
    }, "Load into editor") : null),
  );
}

const body = $("#history-body");
const inverted = params.get("from") && params.get("to") && params.get("from") > params.get("to");
if (inverted) {
  // Say so rather than list nothing.
  const swapped = new URLSearchParams(params);
  swapped.set("from", params.get("to"));
  swapped.set("to", params.get("from"));
  swapped.delete("cursor");
  swapped.delete("at");
  clear(body).appendChild(h("tr", {}, h("td", { colspan: "10", class: "empty-row", id: "inverted-range" },
    `The “From” date (${params.get("from")}) is after the “To” date (${params.get("to")}), so nothing can match. `,
    h("a", { href: `/submissions?${swapped}` }, "Swap the dates"))));
  $("#f-from").setAttribute("aria-invalid", "true");
  $("#f-to").setAttribute("aria-invalid", "true");
} else {
  await showPage();
}

// One page of the list, with the pager.
async function showPage() {
  try {
    const page = await api(`/submissions?${query()}`);
    // Rows before this page: 0 on the first page, else what the link that led here said.
    const wanted = Number.parseInt(params.get("at") || params.get("offset") || "0", 10) || 0;
    const start = page.prev_cursor ? Math.max(0, wanted) : 0;
    clear(body);
    if (!page.items.length) {
      const filtered = ["problem", "verdict", "language", "from", "to", "user"].some((k) => params.get(k));
      if ((params.get("cursor") || params.get("offset")) && page.total > 0) {
        location.replace(pageLink(null, 0)); // past the last page: back to the first
      }
      const cell = h("td", { colspan: "10", class: "empty-row" },
        filtered ? "No submissions match these filters." : "No submissions yet. Pick a problem and submit a solution.",
        " ", h("a", { href: filtered ? "/submissions" : "/problems" }, filtered ? "Clear the filters" : "Go to the problems"));
      body.appendChild(h("tr", {}, cell));
      if (isInstructor && params.get("user")) {
        const hint = await noSuchUser(params.get("user"));
        if (hint) cell.appendChild(hint);
      }
    }
    for (const item of page.items) body.appendChild(row(item));
    if (page.items.length) {
      const pager = $("#pager");
      pager.hidden = false;
      const last = start + page.items.length;
      const total = page.total_exact ? String(Math.max(page.total, last)) : `more than ${page.total.toLocaleString("en")}`;
      $("#page-info").textContent = `${start + 1}–${last} of ${total}`;
      const prev = $("#prev-page");
      const next = $("#next-page");
      if (page.prev_cursor) prev.href = pageLink(page.prev_cursor, Math.max(0, start - PAGE_SIZE));
      else { prev.removeAttribute("href"); prev.setAttribute("aria-disabled", "true"); }
      if (page.next_cursor) next.href = pageLink(page.next_cursor, last);
      else { next.removeAttribute("href"); next.setAttribute("aria-disabled", "true"); }
      // One page only: just the count.
      prev.hidden = next.hidden = !page.prev_cursor && !page.next_cursor;
    }
  } catch (error) {
    clear(body).appendChild(h("tr", {}, h("td", { colspan: "10", class: "empty-row" }, "Could not load the submissions.")));
    pageAlert(error.message);
  }
}
