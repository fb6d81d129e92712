// Code similarity (instructors): a problem's (or an assignment's) pairs of students from a
// score up, highest first, with the groups of more than two, the reviewed mark and a CSV. The
// choices live in the address (?problem=&assignment=&threshold=&reviewed=1) so a link or a
// reload keeps them.
import { api, requireUser } from "../api.js";
import { $, clear, formatDate, h, pageAlert, plural } from "../dom.js";
import { download } from "../download.js";

const user = await requireUser();

// The problem, or the assignment when one is chosen (the API takes one of them).
function scope() {
  const assignment = $("#sim-assignment").value;
  return assignment ? { assignment } : { problem: $("#sim-problem").value };
}

function query() {
  const params = new URLSearchParams({ ...scope(), threshold: $("#sim-threshold").value || "0.8" });
  if (!$("#sim-reviewed").checked) params.set("reviewed", "false");
  return params;
}

async function listAssignments() {
  try {
    for (const a of await api("/assignments")) $("#sim-assignment").append(h("option", { value: String(a.id) }, a.title));
  } catch (error) {
    pageAlert(error.message);
  }
}

function readAddress() {
  const params = new URLSearchParams(location.search);
  if (params.get("problem")) $("#sim-problem").value = params.get("problem");
  if (params.get("assignment")) $("#sim-assignment").value = params.get("assignment");
  if (params.get("threshold")) $("#sim-threshold").value = params.get("threshold");
  $("#sim-reviewed").checked = params.get("reviewed") === "1";
}

function writeAddress() {
  const params = new URLSearchParams({ ...scope(), threshold: $("#sim-threshold").value });
  if ($("#sim-reviewed").checked) params.set("reviewed", "1");
  history.replaceState(null, "", `${location.pathname}?${params}`);
}

async function review(pair, reviewed) {
  try {
    await api(`/similarity/pairs/${pair.id}/review`, { method: "PUT", json: { reviewed } });
    await load();
  } catch (error) {
    pageAlert(error.message);
  }
}

function row(pair) {
  const students = `${pair.user_a} and ${pair.user_b}` + ($("#sim-assignment").value ? ` (${pair.problem})` : "");
  return h("tr", {},
    h("td", {}, `${Math.round(pair.score * 100)}%`),
    h("td", {}, students),
    h("td", {}, pair.first, " ", h("span", { class: "muted small" }, formatDate(pair.first === pair.user_a ? pair.submitted_a : pair.submitted_b))),
    h("td", {}, String(pair.matched)),
    h("td", {}, h("button", { type: "button", class: "btn btn-small", onclick: () => review(pair, !pair.reviewed) },
      pair.reviewed ? "Reviewed: not copied (undo)" : "Mark not copied")),
    h("td", {}, h("a", { href: `/instructor/similarity/${pair.id}` }, "Side by side")),
  );
}

async function load() {
  writeAddress();
  let body;
  try {
    body = await api(`/similarity/pairs?${query()}`);
  } catch (error) {
    pageAlert(error.message);
    return;
  }
  const rows = $("#sim-body");
  clear(rows);
  for (const pair of body.pairs) rows.append(row(pair));
  $("#sim-count").textContent = plural(body.pairs.length, "pair");
  const clusters = $("#sim-clusters");
  clear(clusters);
  for (const group of body.clusters) clusters.append(h("li", {}, group.join(", ")));
  $("#sim-clusters-card").hidden = body.clusters.length === 0;
}

if (user.role === "instructor") {
  await listAssignments();
  readAddress();
  for (const id of ["#sim-problem", "#sim-assignment", "#sim-threshold", "#sim-reviewed"]) $(id).addEventListener("change", load);
  const name = () => ($("#sim-assignment").value ? `assignment-${$("#sim-assignment").value}` : $("#sim-problem").value);
  $("#sim-csv").addEventListener("click", () =>
    download(`/similarity/pairs.csv?${query()}`, `similarity-${name()}.csv`).catch((e) => pageAlert(e.message)));
  await load();
}
