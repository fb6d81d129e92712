// Problem packages (instructors): what the problem packages page and a problem's versions page
// share: the upload form, the badges of a problem's state and of a version's check, and a
// version's check report. Every message a package's checks write is the package author's
// text: it goes in as text, never as HTML.
import { api } from "./api.js";
import { $, h, plural, showAlert } from "./dom.js";

const STATE_BADGES = {
  draft: ["badge-pending", "Draft"],
  published: ["badge-ac", "Published"],
  hidden: ["badge-skipped", "Hidden"],
  retired: ["badge-held", "Retired"],
};

const CHECK_BADGES = {
  checking: ["badge-pending", "Checking…"],
  passed: ["badge-ac", "Passed"],
  failed: ["badge-wa", "Failed"],
};

export function stateBadge(state) {
  const [css, label] = STATE_BADGES[state] || ["badge-pending", state];
  return h("span", { class: `badge ${css}`, "data-state": state }, label);
}

export function checkBadge(version) {
  const [css, label] = CHECK_BADGES[version.status] || ["badge-pending", version.status];
  return h("span", { class: `badge ${css}`, "data-status": version.status }, label);
}

// The digest's first characters, enough to tell two versions apart; the whole one on hover.
export function shortDigest(digest) {
  if (!digest) return "–";
  const hex = String(digest).replace(/^sha256:/, "");
  return h("code", { class: "digest", title: String(digest) }, hex.slice(0, 12));
}

export function versionsUrl(slug) {
  return `/instructor/problems/${encodeURIComponent(slug)}/versions`;
}

export function versionPath(slug, id = null) {
  const base = `/problems/${encodeURIComponent(slug)}/versions`;
  return id === null ? base : `${base}/${id}`;
}

// A version's check report: checking (a spinner, the page polls), or every check with ok or
// failed and its message.
export function reportBody(version) {
  if (version.status === "checking") {
    return [h("p", { class: "check-pending" },
      h("span", { class: "spinner spinner-small", "aria-hidden": "true" }),
      "Checking… a check takes from a few seconds to a minute.")];
  }
  const report = version.report;
  if (!report || !Array.isArray(report.checks)) {
    return [h("p", { class: "muted" }, "No report: the check did not write one.")];
  }
  const failed = report.checks.filter((check) => !check.ok);
  const summary = report.ok && !failed.length
    ? `Every check passed (${plural(report.checks.length, "check")}).`
    : failed.length
      ? `${failed.length} of ${plural(report.checks.length, "check")} failed.`
      : "The check failed.";
  return [
    h("p", { class: report.ok ? "check-summary check-summary-ok" : "check-summary check-summary-failed" }, summary),
    h("ul", { class: "check-list" }, report.checks.map((check) => h("li", {
      class: ["check", check.ok ? "check-ok" : "check-failed"], "data-check": check.name,
    },
    h("span", { class: `badge ${check.ok ? "badge-ac" : "badge-wa"}` }, check.ok ? "ok" : "failed"),
    h("strong", { class: "check-name" }, check.name),
    h("span", { class: "check-message" }, check.message || "")))),
  ];
}

// The upload form (#upload-form): a .zip checked here for being one, sent as the multipart
// field `file`; the judge's refusal (its `detail`) shown in the form's error box.
// `more(error)`: what to add after the judge's message (a link to follow), or null.
// `onUploaded(version, {known})`: known when the judge had that content as a version already.
export function uploadForm({ method, path, onUploaded, more = () => null }) {
  const form = $("#upload-form");
  const input = $("#package-file");
  const error = $("#upload-error");
  const note = $("#upload-note");
  const button = $("#upload-submit");

  function refuse(message, extra = null) {
    showAlert(error, message);
    if (extra) error.append(" ", extra);
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", "upload-error");
  }

  input.addEventListener("change", () => {
    showAlert(error, "");
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showAlert(error, "");
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
    const file = input.files[0];
    if (!file) {
      refuse("Choose the package's .zip file first.");
      input.focus();
      return;
    }
    if (!/\.zip$/i.test(file.name)) {
      refuse(`“${file.name}” is not a .zip file: zip the package's folder and upload that.`);
      input.focus();
      return;
    }
    const body = new FormData();
    body.append("file", file);
    button.disabled = true;
    note.textContent = `Uploading ${file.name}…`;
    try {
      const answer = await api(path, { method, form: body, withStatus: true });
      note.textContent = "";
      form.reset();
      // 200: the same content as a version the problem has already (nothing stored); 202: new.
      await onUploaded(answer.data, { known: answer.status === 200 });
    } catch (err) {
      note.textContent = "";
      refuse(`The judge refused ${file.name}: ${err.message}`, more(err));
    } finally {
      button.disabled = false;
    }
  });
}
