// Problem page: statement (rendered on the server), sample boards drawn with their optimal
// lines, and the submit form (editor or source file upload, in the language and style the
// selectors say). A submission opens its own page, which follows the judging live. Visitors
// read it all; running and submitting need an account. ?load=ID puts a past submission's
// code in the editor, keeping the draft it replaces. Drafts are kept per language and style.
import { api, currentUser, loginUrl } from "../api.js";
import { drawCase, replay } from "../boards.js";
import { $, capitalise, h, pageData, showAlert, timeCell, verdictBadge } from "../dom.js";
import { CodeEditor } from "../editor.js";
import { highlightBlocks } from "../highlight.js";
import { OwnCases } from "./problem/cases.js";
import { LoadIntoEditor } from "./problem/load.js";
import { startRun } from "./problem/run.js";

const data = pageData();
const slug = data.slug;
const MAX_UPLOAD = 64 * 1024;
// Per language: {name, title, extensions, highlight, installed, templates: {style: source}}.
const languages = new Map((data.languages || []).map((language) => [language.name, language]));
const styles = data.styles && data.styles.length ? data.styles : ["function"];
const CHOICE_KEY = `judge.choice.${slug}`;

highlightBlocks($(".markdown"));

// ---- samples ---------------------------------------------------------------------------------

const samples = $("#samples");
data.samples.forEach((sample, i) => {
  const details = h("details", { class: "sample-line" },
    h("summary", {}, "Optimal line of play"));
  let built = false;
  const board = drawCase(slug, sample.input);
  details.addEventListener("toggle", () => {
    if (details.open && !built) {
      built = true;
      details.appendChild(replay(slug, sample.input, sample.explanation));
    }
    // The open replay starts on this very board: one drawing of it is enough.
    board.hidden = details.open;
  });
  samples.appendChild(
    h("figure", { class: "sample-card" },
      h("figcaption", {}, h("strong", {}, `Sample ${i + 1}`), " · answer ", h("code", {}, String(sample.answer))),
      board,
      h("p", { class: "muted small sample-summary" }, capitalise(sample.explanation.summary)),
      details),
  );
});

// ---- submit form -----------------------------------------------------------------------------

// ---- the language and style the editor is in ------------------------------------------------

function pythonTemplate() {
  const params = data.params.join(", ");
  return `def solution(${params}):\n    # Return the answer for this input.\n    return 0\n`;
}

function readChoice() {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICE_KEY) || "null");
    if (saved && languages.get(saved.language)?.installed && styles.includes(saved.style)) return saved;
  } catch {
    // A damaged entry: the default.
  }
  return { language: "python", style: "function" };
}

let choice = readChoice();

function template(language = choice.language, style = choice.style) {
  const found = languages.get(language);
  const text = found && found.templates ? found.templates[style] : null;
  return text || (language === "python" && style === "function" ? pythonTemplate() : "");
}

// Every language's templates: none of them is a draft worth keeping.
function isTemplate(text) {
  if (text === pythonTemplate()) return true;
  for (const language of languages.values()) {
    if (Object.values(language.templates || {}).includes(text)) return true;
  }
  return false;
}

// A Python function's draft keeps the key it had before there were languages.
function draftKey(language = choice.language, style = choice.style) {
  return language === "python" && style === "function"
    ? `judge.draft.${slug}` : `judge.draft.${slug}.${language}.${style}`;
}

function titleOf(language) {
  return languages.get(language)?.title || (language === "python" ? "Python 3" : language);
}

function languageOfFile(name) {
  const lower = name.toLowerCase();
  for (const language of languages.values()) {
    if (language.extensions.some((ending) => lower.endsWith(ending))) return language.name;
  }
  return languages.size ? null : /\.py$/.test(lower) ? "python" : null;
}

function allExtensions() {
  const endings = [...languages.values()].flatMap((language) => language.extensions);
  return endings.length ? endings : [".py"];
}

const form = $("#submit-form");
const error = $(".form-error", form);
const fileInput = $("#file");
const fileNote = $("#file-note");
const submitButton = $("#submit-button");
const draftNote = $("#draft-note");
let signedIn = false; // a visitor may write a draft, not send it
let uploaded = null; // {name, text, file} while the editor shows an unchanged upload
let replaced = null; // the code a file or the template replaced, until undone or edited
let fileRefused = false; // Submit stays off, even if the sign-in check answers later

// A new decision about the code (an edit, a reset, another file): Submit is on again.
function allowSubmit() {
  fileRefused = false;
  submitButton.disabled = !signedIn;
}

function saveDraft(text) {
  try {
    localStorage.setItem(draftKey(), text);
  } catch {
    // Storage full or blocked: the editor still holds the code.
  }
}

function forgetUpload() {
  uploaded = null;
  fileInput.value = "";
  fileNote.hidden = true;
}

function hideUndo() {
  replaced = null;
  draftNote.hidden = true;
}

const editor = new CodeEditor($("#source"), {
  language: languages.get(choice.language)?.highlight || choice.language,
  onChange: (value) => {
    saveDraft(value);
    hideUndo();
    allowSubmit(); // a refused file no longer stands for the code
    if (uploaded && value !== uploaded.text) forgetUpload();
  },
});

function storedDraft() {
  try {
    return localStorage.getItem(draftKey());
  } catch {
    return null;
  }
}

const languageSelect = $("#language");
const styleSelect = $("#style");

// The label, hint and selectors say which language and style the editor holds.
function showChoice() {
  languageSelect.value = choice.language;
  styleSelect.value = choice.style;
  $("#language-title").textContent = `(${titleOf(choice.language)}${choice.style === "stdio" ? ", whole program" : ""})`;
  $("#source-hint-function").hidden = choice.style !== "function";
  $("#source-hint-stdio").hidden = choice.style !== "stdio";
  const limits = languages.get(choice.language);
  $("#language-limits").textContent = limits && limits.time_s !== undefined
    ? `${titleOf(choice.language)}: ${limits.time_s} s per test${limits.start_s ? ` (+${limits.start_s} s on a run's first test, for the start)` : ""}, ${limits.memory_mb} MB.` : "";
  fileInput.accept = allExtensions().join(",");
}

// Switch the editor to another language or style: its draft there, else its template. The
// code it holds now is kept as that language's draft (saved on every change already).
function switchTo(language, style) {
  editor.flush();
  if (language === choice.language && style === choice.style) return;
  choice = { language, style };
  try {
    localStorage.setItem(CHOICE_KEY, JSON.stringify(choice));
  } catch {
    // Blocked storage: the choice lasts for this visit.
  }
  editor.language = languages.get(language)?.highlight || language;
  editor.value = storedDraft() || template();
  hideUndo();
  forgetUpload();
  showAlert(error, "");
  allowSubmit();
  showChoice();
}

for (const language of languages.values()) {
  const label = language.installed ? language.title : `${language.title} (not installed)`;
  languageSelect.appendChild(h("option", { value: language.name, disabled: !language.installed }, label));
}
if (!languages.size) languageSelect.appendChild(h("option", { value: "python" }, "Python 3"));
for (const style of styles) {
  styleSelect.appendChild(h("option", { value: style },
    style === "stdio" ? "Whole program (stdin → stdout)" : "Function solution(…)"));
}
$("#style-field").hidden = styles.length < 2;
languageSelect.addEventListener("change", () => switchTo(languageSelect.value, choice.style));
styleSelect.addEventListener("change", () => switchTo(choice.language, styleSelect.value));
editor.value = storedDraft() || template();
showChoice();

// Putting other code in the editor (a file, the template) keeps the old code one click away.
function replaceCode(text, note) {
  const previous = editor.value;
  editor.value = text;
  saveDraft(text);
  if (previous.trim() && previous !== text && !isTemplate(previous)) {
    replaced = previous;
    $("#draft-note-text").textContent = note;
    draftNote.hidden = false;
  } else {
    hideUndo();
  }
}

$("#draft-undo").addEventListener("click", () => {
  if (replaced === null) return;
  editor.value = replaced;
  saveDraft(replaced);
  hideUndo();
  forgetUpload();
  showAlert(error, "");
  allowSubmit();
  editor.textarea.focus();
});

$("#reset-code").addEventListener("click", () => {
  forgetUpload();
  showAlert(error, "");
  allowSubmit();
  replaceCode(template(), "The editor was reset to the template.");
  editor.textarea.focus();
});

// A refused file leaves Submit off until another file is chosen or the code is edited: the
// student meant to send the file, not whatever the editor happens to hold.
function refuseFile(message) {
  forgetUpload();
  showAlert(error, message);
  fileRefused = true;
  submitButton.disabled = true;
}

fileInput.addEventListener("change", async () => {
  showAlert(error, "");
  allowSubmit();
  const file = fileInput.files[0];
  if (!file) return;
  const fileLanguage = languageOfFile(file.name);
  if (!fileLanguage) {
    refuseFile(`“${file.name}” is not a source file the judge knows. Choose a file ending in ${allExtensions().join(", ")}.`);
    return;
  }
  if (file.size > MAX_UPLOAD) {
    refuseFile(`“${file.name}” is ${Math.ceil(file.size / 1024)} KB; the limit is ${MAX_UPLOAD / 1024} KB. Choose a smaller file.`);
    return;
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    text = null;
  }
  if (text !== null && !text.trim()) {
    // The same rule as an empty editor.
    refuseFile(`“${file.name}” is empty. Choose the file with your solution.`);
    return;
  }
  if (fileLanguage !== choice.language) {
    switchTo(fileLanguage, choice.style); // the file's name says its language
  }
  if (text === null) {
    // Let the judge say what is wrong with it; the editor keeps the draft.
    uploaded = { name: file.name, text: null, file };
    fileNote.textContent = `“${file.name}” is not UTF-8 text; submitting it will be refused.`;
  } else {
    replaceCode(text, `Your code was replaced by “${file.name}”.`);
    uploaded = { name: file.name, text, file };
    fileNote.textContent = `Loaded “${file.name}”. Submitting sends this file; editing the code switches back to the editor.`;
  }
  fileNote.hidden = false;
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showAlert(error, "");
  const source = editor.value;
  if (!uploaded && (!source.trim() || source === template())) {
    showAlert(error, "Write your solution in the editor or choose a source file first.");
    editor.textarea.focus();
    return;
  }
  // Coming back to the problem shows the code that was sent.
  saveDraft(uploaded && uploaded.text !== null ? uploaded.text : source);
  const button = submitButton;
  button.disabled = true;
  button.textContent = "Submitting…";
  try {
    let queued;
    if (uploaded) {
      const body = new FormData();
      body.append("problem", slug);
      body.append("style", choice.style);
      body.append("file", uploaded.file, uploaded.name); // its name says its language
      queued = await api("/submissions", { method: "POST", form: body });
    } else {
      const { language, style } = choice;
      queued = await api("/submissions", { method: "POST", json: { problem: slug, source, language, style } });
    }
    location.assign(`/submissions/${queued.id}`);
  } catch (err) {
    let message = err.message;
    if (err.status === 413) message = `Your code is too large for the judge. ${err.message}`;
    if (err.status === 429) message = `You are submitting too often. ${err.message}`;
    showAlert(error, message);
    button.disabled = !signedIn;
    button.textContent = "Submit";
  }
});

// ---- run: the code on the samples or the student's own boards, not a submission -------------

const runButton = $("#run-button");
let ownCases = null; // built once the account is known (a visitor's editor has no preview)
let runOwn = false;

function chooseCases(own) {
  runOwn = own;
  $("#cases-samples").setAttribute("aria-pressed", String(!own));
  $("#cases-own").setAttribute("aria-pressed", String(own));
  if (!ownCases) return;
  if (own) ownCases.show();
  else ownCases.hide();
}

$("#cases-samples").addEventListener("click", () => chooseCases(false));
$("#cases-own").addEventListener("click", () => chooseCases(true));

runButton.addEventListener("click", () => {
  showAlert(error, "");
  const source = editor.value;
  // The untouched template runs too: trying it first is how a newcomer learns what Run shows.
  if (!source.trim()) {
    showAlert(error, "Write your solution in the editor first.");
    editor.textarea.focus();
    return;
  }
  const cases = runOwn ? ownCases.inputs() : null;
  if (cases && !cases.length) {
    showAlert(error, "Add a board of your own first, or choose the samples.");
    return;
  }
  startRun({ slug, source, ...choice, cases, samples: data.samples.length, button: runButton });
});

// ---- a past submission into the editor (?load=ID), the draft it replaces kept aside --------

const loading = new LoadIntoEditor(slug, editor, {
  isTemplate,
  current: () => ({ ...choice }),
  put: (text, from) => {
    if (from && languages.has(from.language) && styles.includes(from.style || "function")) {
      switchTo(from.language, from.style || "function");
    }
    editor.value = text;
    saveDraft(text);
    hideUndo();
    forgetUpload();
    showAlert(error, "");
    allowSubmit();
  },
});

// ---- who is here: a visitor reads; a student also submits and sees their recent work --------

const user = await currentUser().catch(() => null); // app.js says why it failed
signedIn = Boolean(user);
submitButton.disabled = !signedIn || fileRefused;
runButton.disabled = !signedIn;
ownCases = new OwnCases(slug, { canPreview: signedIn });
chooseCases(runOwn);
if (!user) {
  $("#login-link").href = loginUrl();
  $("#login-needed").hidden = false;
} else {
  await loading.loadRequested();
  await showRecent();
}

async function showRecent() {
  try {
    const page = await api(`/submissions?problem=${encodeURIComponent(slug)}&limit=5`);
    if (page.items.length) {
      const list = $("#recent-list");
      for (const item of page.items) {
        list.appendChild(h("li", {},
          h("a", { href: `/submissions/${item.id}` }, `#${item.id}`), " ",
          verdictBadge(item.verdict, item.status), " ",
          h("span", { class: "lang-tag" }, titleOf(item.language || "python")), " ",
          // A compile error ran no test: no pass count to show.
          item.total !== null && item.verdict !== "CE" ? h("span", { class: "muted small recent-passed" }, `${item.passed}/${item.total}`) : null, " ",
          h("span", { class: "muted small" }, timeCell(item.created_at)), " ",
          h("a", { class: "small load-link", href: `?load=${item.id}`, "aria-label": `Load submission ${item.id} into the editor` }, "Load")));
      }
      list.appendChild(h("li", { class: "more" },
        h("a", { href: `/submissions?problem=${encodeURIComponent(slug)}` }, "All your submissions for this problem →")));
      $("#recent").hidden = false;
    }
  } catch {
    // The list is a convenience; the form works without it.
  }
}
