// Problem packages (instructors): every problem, built-in or uploaded, with its state, its
// published version and its latest version's check; uploading a new problem (then its
// versions page shows the check's report as it arrives); hiding, retiring and publishing
// again an uploaded problem (hidden: students do not see it; retired: they see it and their
// submissions, and submit no more). Retiring asks once more on the same button.
import { api, requireUser } from "../api.js";
import { confirmed } from "../confirm.js";
import { $, h, pageAlert } from "../dom.js";
import { checkBadge, stateBadge, uploadForm, versionsUrl } from "../packages.js";

const user = await requireUser();
// While a latest version is being checked, the list is asked again this often.
const POLL_MS = 3000;
let pollTimer = null;

const ACTIONS = {
  published: ["hide", "retire"],
  hidden: ["publish", "retire"],
  retired: ["publish"],
  draft: [],
};
const LABELS = { hide: "Hide", retire: "Retire", publish: "Publish again" };
const TARGET = { hide: "hidden", retire: "retired", publish: "published" };
const DONE = {
  hidden: "is hidden: students no longer see it; publish it again to bring it back.",
  retired: "is retired: students still see it and their submissions, but can no longer submit or run code.",
  published: "is published again: students see it in the list.",
};

function versionCell(version, withCheck) {
  if (!version) return h("span", { class: "muted" }, "–");
  return [h("span", { class: "version-number" }, `v${version.number}`), withCheck ? [" ", checkBadge(version)] : null];
}

// An uploaded problem's (a built-in, the judge's own, is neither hidden nor retired here).
function actionButtons(problem) {
  const buttons = [h("a", { class: "btn btn-small", href: versionsUrl(problem.slug),
    "aria-label": `Versions of ${problem.slug}` }, "Versions")];
  for (const action of ACTIONS[problem.state] || []) {
    if (action === "publish" && !problem.published_version) continue; // nothing to publish again
    buttons.push(h("button", {
      type: "button",
      class: action === "retire" ? "btn btn-small btn-danger-ghost" : "btn btn-small",
      dataset: { action, slug: problem.slug },
      "aria-label": `${LABELS[action]} ${problem.slug}`,
    }, LABELS[action]));
  }
  return buttons;
}

function row(problem) {
  return h("tr", { dataset: { slug: problem.slug } },
    h("th", { scope: "row" }, problem.builtin || problem.state === "published"
      ? h("a", { href: `/problems/${encodeURIComponent(problem.slug)}` }, problem.title)
      : problem.title, " ", h("span", { class: "muted slug" }, problem.slug)),
    // The labels head each cell where a phone shows the rows as cards (course.css).
    h("td", { "data-label": "Source" }, problem.builtin ? "Built-in" : "Uploaded"),
    h("td", { "data-label": "State" }, stateBadge(problem.state)),
    h("td", { "data-col": "published", "data-label": "Published" }, versionCell(problem.published_version, false)),
    h("td", { "data-col": "latest", "data-label": "Latest" }, versionCell(problem.latest_version, true)),
    h("td", { class: "row-actions-cell" },
      problem.builtin ? null : h("div", { class: "row-actions" }, actionButtons(problem))));
}

async function load() {
  clearTimeout(pollTimer);
  const { items: list } = await api("/problems/manage");
  const body = $("#packages-body");
  body.replaceChildren(...list.map(row));
  if (!list.length) {
    body.appendChild(h("tr", {}, h("td", { colspan: "6", class: "empty-row" }, "No problems yet.")));
  }
  if (list.some((p) => p.latest_version && p.latest_version.status === "checking")) {
    pollTimer = setTimeout(() => load().catch((err) => pageAlert(`Could not load the problems: ${err.message}`)), POLL_MS);
  }
  return list;
}

async function onAction(event) {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const { action, slug } = button.dataset;
  if (action === "retire" && !confirmed(button, "Confirm retire", `Confirm: retire ${slug}`)) return;
  button.disabled = true;
  try {
    const problem = await api(`/problems/${encodeURIComponent(slug)}`, {
      method: "PATCH", json: { state: TARGET[action] },
    });
    $("#packages-note").textContent = `${problem.title || slug} ${DONE[problem.state] || `is ${problem.state}.`}`;
    await load();
    // The keyboard stays on the problem's row: its first action.
    const again = $(`tr[data-slug="${CSS.escape(slug)}"] .row-actions`);
    const next = again && (again.querySelector("button") || again.querySelector("a"));
    if (next) next.focus();
  } catch (err) {
    button.disabled = false;
    pageAlert(`Could not change ${slug}: ${err.message}`);
  }
}

if (user.role === "instructor") { // for a student, app.js says whose page this is
  uploadForm({
    method: "POST",
    path: "/problems",
    // The new problem's versions page shows its check's report as it arrives.
    onUploaded: (version) => location.assign(`${versionsUrl(version.slug)}#version-${version.id}`),
    // A problem uploaded before: its new version goes on its versions page.
    more: (err) => {
      const detail = err.detail && typeof err.detail.detail === "string" ? err.detail.detail : "";
      const exists = err.status === 409 && /^problem '([a-z][a-z0-9_]{1,31})' exists/.exec(detail);
      return exists
        ? h("a", { href: versionsUrl(exists[1]) }, `Upload it as a new version of ${exists[1]}`)
        : null;
    },
  });
  $("#packages-body").addEventListener("click", onAction);
  try {
    await load();
  } catch (err) {
    $("#packages-body").replaceChildren();
    pageAlert(`Could not load the problems: ${err.message}`);
  }
}
