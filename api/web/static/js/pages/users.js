// Accounts (instructors): create students or instructors from a list or a CSV of usernames
// (the initial passwords shown once, and downloadable as a CSV made here from the answer),
// search users, give a new password (shown in the user's row), disable or enable an account,
// and open a user's submissions.
import { api, requireUser } from "../api.js";
import { confirmed } from "../confirm.js";
import { saveText } from "../download.js";
import { $, h, pageAlert, plural, showAlert } from "../dom.js";

const user = await requireUser();
const MAX_CSV_BYTES = 64 * 1024;
// New passwords given on this visit, by username: the judge keeps only their hashes, so
// this page is the one place they are shown (kept across the table's reloads, never stored).
const newPasswords = new Map();
let created = []; // the last batch's accounts, for the CSV download

function passwordRows(accounts) {
  return accounts.map((a) => h("tr", { "data-user": a.username },
    h("td", {}, a.username),
    h("td", {}, a.role),
    h("td", {}, h("code", { class: "password" }, a.password)),
  ));
}

function showPasswords(accounts, note) {
  created = accounts;
  $("#created-body").replaceChildren(...passwordRows(accounts));
  $("#created-note").textContent = note;
  $("#created").hidden = false;
}

function csvField(value) {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function credentialsCsv(accounts) {
  const lines = [["username", "password", "role"], ...accounts.map((a) => [a.username, a.password, a.role])];
  return lines.map((fields) => fields.map(csvField).join(",")).join("\r\n") + "\r\n";
}

async function onCreate(event) {
  event.preventDefault();
  const error = $("#create-error");
  showAlert(error, "");
  const file = $("#new-csv").files[0];
  let text = $("#new-names").value;
  if (file) {
    if (file.size > MAX_CSV_BYTES) {
      showAlert(error, `That file is larger than ${MAX_CSV_BYTES / 1024} KB; split it.`);
      return;
    }
    text = await file.text();
  }
  if (!text.trim()) {
    showAlert(error, "Type at least one username, or choose a CSV file.");
    return;
  }
  const button = $("#create-submit");
  button.disabled = true;
  try {
    const created = await api("/users/batch", { method: "POST", json: { csv: text, role: $("#new-role").value } });
    showPasswords(created, `${plural(created.length, "account")} created. Copy these passwords now: they are shown only this once.`);
    $("#new-names").value = "";
    $("#new-csv").value = "";
    await load();
  } catch (err) {
    showAlert(error, err.message);
  } finally {
    button.disabled = false;
  }
}

function actions(entry) {
  const buttons = [
    h("a", { class: "btn btn-small", href: `/submissions?user=${encodeURIComponent(entry.username)}` }, "Submissions"),
    h("button", { type: "button", class: "btn btn-small", "data-action": "password", "data-id": String(entry.id), "data-name": entry.username }, "New password"),
  ];
  if (entry.id !== user.id) {
    buttons.push(h("button", {
      type: "button",
      class: entry.disabled ? "btn btn-small" : "btn btn-small btn-danger-ghost",
      "data-action": entry.disabled ? "enable" : "disable",
      "data-id": String(entry.id),
      "data-name": entry.username,
    }, entry.disabled ? "Enable" : "Disable"));
  }
  const fresh = newPasswords.get(entry.username);
  return [
    h("div", { class: "row-actions" }, buttons),
    fresh ? h("p", { class: "new-password", role: "status" }, `New password for ${entry.username}: `,
      h("code", { class: "password" }, fresh), h("span", { class: "muted" }, " (shown only on this page, copy it now)")) : null,
  ];
}

// Only the newest listing is drawn: the first one, or a search for fewer letters, can answer
// after a later search did, and must not put back the rows that search replaced.
let listing = null;

async function load() {
  const search = $("#user-search").value.trim();
  const query = search ? `?search=${encodeURIComponent(search)}` : "";
  listing?.abort();
  const mine = new AbortController();
  listing = mine;
  let page;
  try {
    page = await api(`/users${query}`, { signal: mine.signal });
  } catch (err) {
    if (mine.signal.aborted) return;
    throw err;
  }
  if (listing !== mine) return;
  $("#users-body").replaceChildren(...page.items.map((entry) => h("tr", { "data-user": entry.username },
    h("th", { scope: "row" }, entry.username),
    // The labels head each cell where a phone shows the rows as cards (app.css).
    h("td", { "data-label": "Role" }, entry.role),
    h("td", { "data-label": "State" }, entry.disabled ? "disabled" : "active"),
    h("td", { class: "num", "data-label": "Submissions" }, String(entry.submissions)),
    h("td", { class: "user-actions" }, ...actions(entry)),
  )));
  if (!page.items.length) {
    $("#users-body").appendChild(h("tr", {}, h("td", { colspan: "5", class: "muted center" }, "No user matches.")));
  }
  $("#users-note").textContent = page.more ? "More users match: type more of the name." : "";
}

// Disabling and new passwords ask once more on the same button, as rejudging does.
async function onAction(event) {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const { action, id, name } = button.dataset;
  const question = action === "password" ? `Confirm new password for ${name}` : `Confirm disable ${name}`;
  if (action !== "enable" && !confirmed(button, question)) return;
  button.disabled = true;
  try {
    if (action === "password") {
      const result = await api(`/users/${id}/password`, { method: "POST" });
      newPasswords.set(result.username, result.password); // drawn in the user's row by load()
    } else {
      await api(`/users/${id}`, { method: "PATCH", json: { disabled: action === "disable" } });
      $("#users-note").textContent = action === "disable"
        ? `${name} is disabled: they cannot log in or submit.` : `${name} can log in again.`;
    }
    await load();
  } catch (err) {
    pageAlert(`Could not change ${name}: ${err.message}`);
    button.disabled = false;
  }
}

let searchTimer = null;
if (user.role === "instructor") { // for a student, app.js says whose page this is
  $("#create-form").addEventListener("submit", onCreate);
  $("#created-csv").addEventListener("click", () => saveText(credentialsCsv(created), "accounts.csv", "text/csv"));
  $("#users-body").addEventListener("click", onAction);
  $("#user-search-form").addEventListener("submit", (event) => event.preventDefault());
  $("#user-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => load().catch((err) => pageAlert(err.message)), 200);
  });
  load().catch((err) => pageAlert(`Could not load the users: ${err.message}`));
}
