// A problem's versions (instructors): every upload with its digest, who uploaded it and when,
// its check and whether it is the published one; each version's check report (the ones being
// checked asked again until the check is done, said in a live region); uploading a new version
// (PUT) and publishing a version that passed. Publishing a problem with submissions shows
// first what it would change: the judge grades them against the version (a preview, its
// progress said in a live region), then "Publish and rejudge" or "Publish without rejudge".
import { api, requireUser } from "../api.js";
import { $, h, languageTitle, pageAlert, pageData, plural, timeCell, verdictBadge } from "../dom.js";
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

// Publishes `version`; `rejudge`: the submissions whose verdict its preview changes are
// rejudged too.
async function publish(version, rejudge) {
  const problem = await api(`${versionPath(slug, version.id)}/publish`, { method: "POST", json: { rejudge } });
  closePreview();
  versions = versions.map((v) => ({ ...v, published: v.id === version.id }));
  render();
  say("");
  const sent = problem.rejudged.length ? ` ${plural(problem.rejudged.length, "submission")} sent to be rejudged.` : "";
  $("#versions-note").textContent = `Version ${version.number} is published: students see ${problem.title || slug}${problem.state === "published" ? " in the problem list" : ` once the problem is published (it is ${problem.state})`}.${sent}`;
  await loadState().catch(() => {});
  $("#versions-title").focus();
}

// -- the rejudge preview ----------------------------------------------------------------------
const PREVIEW_POLL_MS = 1000;
let previewed = null; // the version being previewed
let previewRound = 0; // bumped when a preview closes: its polling stops

function previewPath(id) {
  return `${versionPath(slug, id)}/preview`;
}

function changeRow(change) {
  return h("tr", { dataset: { submission: String(change.submission_id) } },
    // The labels head each cell where a phone shows the rows as cards (course.css).
    h("td", { "data-label": "Student" }, change.user),
    h("td", { "data-label": "Submission" },
      h("a", { href: `/submissions/${change.submission_id}` }, `#${change.submission_id}`)),
    h("td", { "data-label": "Language" }, languageTitle(change.language)),
    h("td", { "data-col": "verdict" }, h("span", { class: "verdict-change" },
      verdictBadge(change.old_verdict, "done"), h("span", { "aria-hidden": "true" }, "→"),
      h("span", { class: "sr-only" }, "becomes"), verdictBadge(change.new_verdict, "done"),
      h("span", { class: "muted small" }, `${change.new_passed}/${change.new_total} tests`))));
}

// One score a rejudge changes: the problem's and the assignment's, before and after (an
// instructor's override stays: its row says so).
function scoreRow(change) {
  const assignment = h("a", { href: `/instructor/assignments/${change.assignment_id}/gradebook` },
    change.assignment);
  return h("tr", {},
    h("td", { "data-label": "Assignment" }, assignment),
    h("td", { "data-label": "Student" }, change.student),
    h("td", { "data-label": "Problem", class: "num" }, `${change.old} → ${change.new}`),
    h("td", { "data-label": "Assignment", class: "num" }, `${change.old_total} → ${change.new_total}`),
    h("td", { "data-label": "Why" }, change.overridden ? `Override kept: ${change.reason}` : change.reason));
}

function scoresText(count) {
  if (!count) return "";
  return count === 1 ? " 1 assignment score changes." : ` ${count} assignment scores change.`;
}

function showPreview(preview) {
  const computing = preview.status === "computing";
  $("#preview-progress").hidden = !computing;
  const bar = $("#preview-bar");
  bar.max = Math.max(preview.total, 1);
  bar.value = preview.done;
  const changed = preview.changes.filter((c) => c.changed);
  $("#preview-body").replaceChildren(...changed.map(changeRow));
  $("#preview-changes").hidden = computing || !changed.length;
  $("#preview-truncated").hidden = !preview.truncated;
  $("#scores-body").replaceChildren(...preview.score_changes.map(scoreRow));
  $("#preview-scores").hidden = !preview.score_changes.length;
  $("#publish-rejudge").disabled = preview.status !== "ready" || !changed.length;
  const number = previewed.number;
  $("#preview-live").textContent = computing
    ? `Grading ${preview.done} of ${plural(preview.total, "submission")} against version ${number}…`
    : preview.status === "failed"
      ? `The preview failed: ${preview.error || "no reason given"}. You can still publish without rejudge.`
      : `${preview.changed} of ${preview.total} verdicts change.${scoresText(preview.score_changes.length)}`;
}

function closePreview() {
  previewRound += 1;
  previewed = null;
  $("#preview").hidden = true;
}

// Asks for the preview until it is no longer computing. With POST, which answers the preview
// as it is: a preview whose worker was lost is sent again, and one made stale by a new
// submission meanwhile is replaced by the preview of the submissions as they are now.
async function followPreview(preview) {
  const round = previewRound;
  showPreview(preview);
  while (preview.status === "computing") {
    await sleep(PREVIEW_POLL_MS);
    if (round !== previewRound) return;
    try {
      preview = await api(previewPath(previewed.id), { method: "POST" });
    } catch (err) {
      if (round !== previewRound) return;
      $("#preview-live").textContent = `Could not ask how the preview goes (${err.message}); asking again.`;
      await sleep(RETRY_MS);
      continue;
    }
    if (round !== previewRound) return;
    showPreview(preview);
  }
}

async function onPublish(event) {
  const button = event.target.closest("button[data-publish]");
  if (!button) return;
  const id = Number(button.dataset.publish);
  const version = versions.find((v) => v.id === id);
  button.disabled = true;
  try {
    const preview = await api(previewPath(id), { method: "POST" });
    if (preview.total === 0) { // no submissions: nothing to preview
      await publish(version, false);
      return;
    }
    closePreview();
    previewed = version;
    $("#preview-number").textContent = String(version.number);
    $("#preview").hidden = false;
    $("#preview-title").focus();
    followPreview(preview);
  } catch (err) {
    pageAlert(`Could not publish version ${version.number}: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

async function onPreviewPublish(rejudge) {
  const version = previewed;
  if (!version) return;
  const buttons = [$("#publish-rejudge"), $("#publish-only")];
  const was = buttons.map((b) => b.disabled);
  buttons.forEach((b) => { b.disabled = true; });
  try {
    await publish(version, rejudge);
  } catch (err) {
    buttons.forEach((b, i) => { b.disabled = was[i]; });
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
  $("#publish-rejudge").addEventListener("click", () => onPreviewPublish(true));
  $("#publish-only").addEventListener("click", () => onPreviewPublish(false));
  $("#preview-cancel").addEventListener("click", () => {
    const id = previewed && previewed.id;
    closePreview();
    (document.querySelector(`button[data-publish="${id}"]`) || $("#versions-title")).focus();
  });
  $("#versions-body").addEventListener("click", onReportLink);
  uploadForm({
    method: "PUT",
    path: `/problems/${encodeURIComponent(slug)}`,
    // Told by the judge's answer, not by this page's list: the list may still be loading.
    onUploaded: (version, { known }) => {
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
