// A problem's versions (instructors): every upload with its digest, who uploaded it and when,
// its check and whether it is the published one; each version's check report (the ones being
// checked asked again until the check is done, said in a live region); uploading a new version
// (PUT) and publishing a version that passed.
import { api, requireUser } from "../api.js";
import { $, h, pageAlert, pageData, timeCell } from "../dom.js";
import { checkBadge, reportBody, shortDigest, stateBadge, uploadForm, versionPath } from "../packages.js";

const { slug } = pageData();
const user = await requireUser();
// A check takes from a few seconds to a minute: a version being checked is asked this often.
const POLL_MS = 1500;
const RETRY_MS = 5000;

let versions = []; // newest first, as the judge lists them
const watching = new Set(); // ids of the versions being polled
const opened = new Set(); // ids whose report the instructor opened (kept across redraws)

const live = $("#check-live");

function say(message) {
  live.textContent = message;
}

function outcome(version) {
  if (version.status === "passed") {
    return version.published
      ? `Version ${version.number} passed every check.`
      : `Version ${version.number} passed every check: it can be published.`;
  }
  const failed = version.report && Array.isArray(version.report.checks)
    ? version.report.checks.filter((c) => !c.ok).map((c) => c.name) : [];
  return `Version ${version.number} failed its check${failed.length ? `: ${failed.join(", ")}` : ""}.`;
}

function rowActions(version) {
  const actions = [h("a", { class: "btn btn-small btn-ghost", href: `#version-${version.id}`,
    dataset: { report: String(version.id) }, "aria-label": `Report of version ${version.number}` }, "Report")];
  if (version.status === "passed" && !version.published) {
    actions.push(h("button", { type: "button", class: "btn btn-small btn-primary",
      dataset: { publish: String(version.id) }, "aria-label": `Publish version ${version.number}` }, "Publish"));
  }
  return h("div", { class: "row-actions" }, actions);
}

function versionRow(version) {
  return h("tr", { dataset: { id: String(version.id), status: version.status } },
    h("th", { scope: "row", class: "num" }, `v${version.number}`),
    // The labels head each cell where a phone shows the rows as cards (course.css).
    h("td", { "data-label": "Digest" }, shortDigest(version.digest)),
    h("td", { "data-label": "By" }, version.uploaded_by || "–"),
    h("td", { "data-label": "When" }, version.created_at ? timeCell(version.created_at) : "–"),
    h("td", { "data-col": "check", "data-label": "Check" }, checkBadge(version)),
    h("td", { "data-col": "published", "data-label": "Published" }, version.published
      ? h("span", { class: "badge badge-ac" }, "Published") : h("span", { class: "muted" }, "–")),
    h("td", { class: "row-actions-cell" }, rowActions(version)));
}

function summaryParts(version) {
  return [h("span", { class: "report-title" }, `Version ${version.number}`), " ", checkBadge(version),
    version.published ? [" ", h("span", { class: "badge badge-ac" }, "Published")] : null,
    version.title ? h("span", { class: "muted small" }, ` ${version.title}`) : null];
}

function reportCard(version) {
  const open = opened.has(version.id) || version.status === "checking";
  const details = h("details", { class: "report", id: `version-${version.id}`,
    dataset: { id: String(version.id), status: version.status }, open },
  h("summary", {}, summaryParts(version)),
  h("div", { class: "report-body" }, reportBody(version)));
  details.addEventListener("toggle", () => {
    if (details.open) {
      opened.add(version.id);
      fillReport(version.id);
    } else {
      opened.delete(version.id);
    }
  });
  return details;
}

function render() {
  const body = $("#versions-body");
  body.replaceChildren(...versions.map(versionRow));
  if (!versions.length) {
    body.appendChild(h("tr", {}, h("td", { colspan: "7", class: "empty-row" },
      "No versions: this problem has not been uploaded. Upload its package above.")));
  }
  $("#reports").replaceChildren(...versions.map(reportCard));
  const newest = versions[0];
  if (newest && newest.title && !titled) showTitle(newest.title);
}

// The server knows the slug alone: the title comes with the problem (its published version's),
// else with the newest version.
let titled = false;

function showTitle(title) {
  $("#problem-title").textContent = title;
  if (!document.getElementById("not-allowed")) document.title = `Versions · ${title} · Footholds Judge`;
}

// One version changed (its check ended, its report came): its row and its report redrawn
// where they are, the report's <details> kept (the keyboard may be on its summary).
function replace(version) {
  const index = versions.findIndex((v) => v.id === version.id);
  if (index < 0) {
    versions.unshift(version);
    versions.sort((a, b) => b.number - a.number);
    render();
    return;
  }
  versions[index] = { ...versions[index], ...version };
  const current = versions[index];
  $(`#versions-body tr[data-id="${current.id}"]`)?.replaceWith(versionRow(current));
  const details = document.getElementById(`version-${current.id}`);
  if (!details) return;
  details.dataset.status = current.status;
  $("summary", details).replaceChildren(...summaryParts(current).flat().filter(Boolean));
  $(".report-body", details).replaceChildren(...reportBody(current));
}

// A report the list did not carry is asked for when its version is opened.
async function fillReport(id) {
  const version = versions.find((v) => v.id === id);
  if (!version || version.status === "checking" || version.report) return;
  try {
    replace(await api(versionPath(slug, id)));
  } catch (err) {
    pageAlert(`Could not load the report of version ${version.number}: ${err.message}`);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Asks for a version until its check is done, then says how it ended.
async function watch(id) {
  if (watching.has(id)) return;
  watching.add(id);
  let version = versions.find((v) => v.id === id);
  say(`Checking version ${version.number}…`);
  try {
    while (version.status === "checking") {
      await sleep(POLL_MS);
      try {
        version = await api(versionPath(slug, id));
      } catch (err) {
        if (err.status === 404) throw err;
        say(`Could not ask how the check of version ${version.number} goes (${err.message}); asking again.`);
        await sleep(RETRY_MS);
        continue;
      }
      if (version.status !== "checking") replace(version);
    }
    say(outcome(version));
  } catch (err) {
    pageAlert(`Could not follow the check of version ${version.number}: ${err.message}`);
  } finally {
    watching.delete(id);
  }
}

async function loadState() {
  const { items: problems } = await api("/problems/manage");
  const problem = problems.find((p) => p.slug === slug);
  const line = $("#problem-state");
  if (!problem) {
    line.hidden = true;
    return;
  }
  line.hidden = false;
  line.replaceChildren("State: ", stateBadge(problem.state),
    problem.published_version ? ` Students see version ${problem.published_version.number}.` : " Students do not see it.");
  if (problem.title) {
    titled = true;
    showTitle(problem.title);
  }
}

async function load() {
  const { items } = await api(versionPath(slug));
  versions = items;
  // The newest version's report is open, and the one the address names.
  const named = /^#version-(\d+)$/.exec(location.hash);
  if (named) opened.add(Number(named[1]));
  else if (versions.length) opened.add(versions[0].id);
  render();
  for (const version of versions) {
    if (version.status === "checking") watch(version.id);
    else if (opened.has(version.id)) fillReport(version.id);
  }
  if (named) document.getElementById(`version-${named[1]}`)?.scrollIntoView({ block: "start" });
}

async function onPublish(event) {
  const button = event.target.closest("button[data-publish]");
  if (!button) return;
  const id = Number(button.dataset.publish);
  const version = versions.find((v) => v.id === id);
  button.disabled = true;
  try {
    const problem = await api(`${versionPath(slug, id)}/publish`, { method: "POST" });
    versions = versions.map((v) => ({ ...v, published: v.id === id }));
    render();
    say("");
    $("#versions-note").textContent = `Version ${version.number} is published: students see ${problem.title || slug}${problem.state === "published" ? " in the problem list" : ` once the problem is published (it is ${problem.state})`}.`;
    await loadState().catch(() => {});
    $("#versions-title").focus();
  } catch (err) {
    button.disabled = false;
    pageAlert(`Could not publish version ${version.number}: ${err.message}`);
  }
}

function onReportLink(event) {
  const link = event.target.closest("a[data-report]");
  if (!link) return;
  const details = document.getElementById(`version-${link.dataset.report}`);
  if (details) details.open = true;
}

if (user.role === "instructor") { // for a student, app.js says whose page this is
  $("#versions-body").addEventListener("click", onPublish);
  $("#versions-body").addEventListener("click", onReportLink);
  uploadForm({
    method: "PUT",
    path: `/problems/${encodeURIComponent(slug)}`,
    onUploaded: (version) => {
      const known = versions.find((v) => v.id === version.id);
      opened.add(version.id);
      replace(version);
      $("#versions-note").textContent = known
        ? `This package is the same as version ${version.number}: nothing new was uploaded.`
        : `Uploaded as version ${version.number}.`;
      document.getElementById(`version-${version.id}`)?.scrollIntoView({ block: "nearest" });
      if (version.status === "checking") watch(version.id);
      else say(outcome(version));
    },
  });
  try {
    await Promise.all([load(), loadState()]);
  } catch (err) {
    $("#versions-body").replaceChildren();
    pageAlert(err.status === 404
      ? `There is no uploaded problem called “${slug}”: upload it on the problem packages page.`
      : err.status === 409
        ? `“${slug}” is a built-in problem: it has no uploaded versions.`
        : `Could not load the versions: ${err.message}`);
  }
}
