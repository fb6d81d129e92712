// Problem page: statement (rendered on the server), sample boards drawn with their optimal
// lines, and the submit form (editor or .py upload). A submission opens its own page, which
// follows the judging live.
import { api, requireUser } from "../api.js";
import { drawCase, replay } from "../boards.js";
import { $, capitalise, h, pageData, showAlert, timeCell, verdictBadge } from "../dom.js";
import { CodeEditor } from "../editor.js";
import { highlightBlocks } from "../highlight.js";

const data = pageData();
const slug = data.slug;
const DRAFT_KEY = `judge.draft.${slug}`;
const MAX_UPLOAD = 64 * 1024;

highlightBlocks($(".markdown"));

// ---- samples ---------------------------------------------------------------------------------

const samples = $("#samples");
data.samples.forEach((sample, i) => {
  const details = h("details", { class: "sample-line" },
    h("summary", {}, "Optimal line of play"));
  let built = false;
  details.addEventListener("toggle", () => {
    if (details.open && !built) {
      built = true;
      details.appendChild(replay(slug, sample.input, sample.explanation));
    }
  });
  samples.appendChild(
    h("figure", { class: "sample-card" },
      h("figcaption", {}, h("strong", {}, `Sample ${i + 1}`), " · answer ", h("code", {}, String(sample.answer))),
      drawCase(slug, sample.input),
      h("p", { class: "muted small sample-summary" }, capitalise(sample.explanation.summary)),
      details),
  );
});

// ---- submit form -----------------------------------------------------------------------------

function template() {
  const params = data.params.join(", ");
  return `def solution(${params}):\n    # Return the answer for this input.\n    return 0\n`;
}

const form = $("#submit-form");
const error = $(".form-error", form);
const fileInput = $("#file");
const fileNote = $("#file-note");
let uploaded = null; // {name, text, file} while the editor shows an unchanged upload

const editor = new CodeEditor($("#source"), {
  onChange: (value) => {
    localStorage.setItem(DRAFT_KEY, value);
    if (uploaded && value !== uploaded.text) {
      uploaded = null;
      fileInput.value = "";
      fileNote.hidden = true;
    }
  },
});
editor.value = localStorage.getItem(DRAFT_KEY) || template();

$("#reset-code").addEventListener("click", () => {
  editor.value = template();
  localStorage.removeItem(DRAFT_KEY);
  uploaded = null;
  fileInput.value = "";
  fileNote.hidden = true;
  editor.textarea.focus();
});

fileInput.addEventListener("change", async () => {
  showAlert(error, "");
  const file = fileInput.files[0];
  if (!file) return;
  if (!/\.py$/i.test(file.name)) {
    showAlert(error, `“${file.name}” is not a .py file. Choose a Python source file.`);
    fileInput.value = "";
    return;
  }
  if (file.size > MAX_UPLOAD) {
    showAlert(error, `“${file.name}” is ${Math.ceil(file.size / 1024)} KB; the limit is ${MAX_UPLOAD / 1024} KB.`);
    fileInput.value = "";
    return;
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    text = null;
  }
  if (text === null) {
    // Let the judge say what is wrong with it; the editor keeps the draft.
    uploaded = { name: file.name, text: null, file };
    fileNote.textContent = `“${file.name}” is not UTF-8 text; submitting it will be refused.`;
  } else {
    uploaded = { name: file.name, text, file };
    editor.value = text;
    fileNote.textContent = `Loaded “${file.name}”. Submitting sends this file; editing the code switches back to the editor.`;
  }
  fileNote.hidden = false;
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showAlert(error, "");
  const source = editor.value;
  if (!uploaded && !source.trim()) {
    showAlert(error, "Write your solution in the editor or choose a .py file first.");
    editor.textarea.focus();
    return;
  }
  const button = $("#submit-button");
  button.disabled = true;
  button.textContent = "Submitting…";
  try {
    let queued;
    if (uploaded) {
      const body = new FormData();
      body.append("problem", slug);
      body.append("file", uploaded.file, uploaded.name);
      queued = await api("/submissions", { method: "POST", form: body });
    } else {
      queued = await api("/submissions", { method: "POST", json: { problem: slug, source } });
    }
    location.assign(`/submissions/${queued.id}`);
  } catch (err) {
    let message = err.message;
    if (err.status === 413) message = `Your code is too large for the judge. ${err.message}`;
    if (err.status === 429) message = `You are submitting too often. ${err.message}`;
    showAlert(error, message);
    button.disabled = false;
    button.textContent = "Submit";
  }
});

// ---- recent submissions for this problem -----------------------------------------------------

await requireUser();
try {
  const page = await api(`/submissions?problem=${encodeURIComponent(slug)}&limit=5`);
  if (page.items.length) {
    const list = $("#recent-list");
    for (const item of page.items) {
      list.appendChild(h("li", {},
        h("a", { href: `/submissions/${item.id}` }, `#${item.id}`), " ",
        verdictBadge(item.verdict, item.status), " ",
        item.total !== null ? h("span", { class: "muted small" }, `${item.passed}/${item.total}`) : null, " ",
        h("span", { class: "muted small" }, timeCell(item.created_at))));
    }
    list.appendChild(h("li", { class: "more" },
      h("a", { href: `/submissions?problem=${encodeURIComponent(slug)}` }, "All your submissions for this problem →")));
    $("#recent").hidden = false;
  }
} catch {
  // The list is a convenience; the form works without it.
}
