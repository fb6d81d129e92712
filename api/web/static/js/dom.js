// Small DOM and formatting helpers shared by the pages.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(node, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    child.forEach((c) => append(node, c));
  } else if (child instanceof Node) {
    node.appendChild(child);
  } else {
    node.appendChild(document.createTextNode(String(child)));
  }
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") Object.entries(value).forEach(([k, v]) => node.style.setProperty(k, v));
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
}

// h("div", {class: "x", onclick: fn}, "text", child, [more])
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// The JSON a page's template embeds in <script type="application/json" id=...>.
function embedded(id, fallback) {
  const node = document.getElementById(id);
  try {
    return node ? JSON.parse(node.textContent) : fallback;
  } catch {
    return fallback;
  }
}

export function pageData() {
  return embedded("page-data", {});
}

let titles = null;

// A language's title ("C++17") from its name ("cpp"), as the server listed them.
export function languageTitle(name) {
  if (!titles) titles = new Map((pageData().language_titles || []).map((l) => [l.name, l.title]));
  const language = name || "python";
  return titles.get(language) || (language === "python" ? "Python 3" : language);
}

export function showAlert(node, message, kind = "error") {
  if (!node) return;
  for (const name of ["alert-error", "alert-info", "alert-success", "alert-warning"]) node.classList.remove(name);
  node.classList.add("alert", `alert-${kind}`);
  node.textContent = message;
  node.hidden = !message;
}

export function pageAlert(message, kind = "error") {
  const node = document.getElementById("page-alert");
  showAlert(node, message, kind);
  if (message && node) node.scrollIntoView({ block: "nearest" });
}

// ---- formatting -------------------------------------------------------------------------

// The verdicts as judge/verdict.py defines them, embedded by base.html: code -> {code, label,
// css, failure}. Read once, on first use.
let verdicts = null;

function verdictInfo(code) {
  if (!verdicts) verdicts = new Map(embedded("verdicts", []).map((v) => [v.code, v]));
  return verdicts.get(code);
}

export function verdictLabel(code) {
  const info = verdictInfo(code);
  return info ? info.label : code;
}

// The end of a badge-/tick- class name: "wa" for WA.
export function verdictCss(code) {
  const info = verdictInfo(code);
  return info ? info.css : "pending";
}

// Ran and did not pass (a skipped test never ran).
export function isFailingVerdict(code) {
  const info = verdictInfo(code);
  return Boolean(info && info.failure);
}

export function verdictBadge(verdict, status) {
  if (!verdict) {
    if (status === "held") {
      return h("span", { class: "badge badge-held", title: "Held for review: grading was interrupted, an instructor will run it again" }, "Held");
    }
    if (status === "received") {
      return h("span", { class: "badge badge-pending", title: "Received: results after your due time" }, "Received");
    }
    const label = status === "running" ? "Judging" : "Queued";
    return h("span", { class: `badge badge-pending`, title: label }, label);
  }
  return h(
    "span",
    { class: `badge badge-${verdictCss(verdict)}`, title: verdictLabel(verdict) },
    verdict,
  );
}

// A judging shown over its visible tests alone while its problem holds the hidden results
// back: says when they come (null otherwise).
export function hiddenPendingNote(item) {
  if (!item.hidden_pending) return null;
  return h("span", { class: "muted small hidden-pending" },
    `hidden tests: results at ${formatDate(item.hidden_release_at)}`);
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 1) return "< 1 ms";
  return `${Math.round(ms)} ms`;
}

// A test stopped for time: its CPU time (up to the kill) says less than the limit it hit.
export function formatTestTime(test, limitS) {
  if (test.verdict === "TLE") return limitS ? `> ${formatSeconds(limitS)} (limit)` : "> limit";
  return formatMs(test.time_ms);
}

function formatSeconds(s) {
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

export function formatKb(kb) {
  if (kb === null || kb === undefined || kb === 0) return "–";
  if (kb >= 1024) return `${(kb / 1024).toFixed(1)} MB`;
  return `${kb} KB`;
}

export function formatDate(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  return date.toLocaleString(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  });
}

export function timeAgo(iso) {
  if (!iso) return "";
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? "yesterday" : `${days} days ago`;
}

export function timeCell(iso) {
  return h("time", { datetime: iso, title: formatDate(iso) }, timeAgo(iso) || formatDate(iso));
}

export function plural(n, word, many = word + "s") {
  return `${n} ${n === 1 ? word : many}`;
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

export function formatValue(value) {
  if (value === null || value === undefined) return "nothing (None)";
  return JSON.stringify(value);
}
