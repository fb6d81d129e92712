// Hidden boards of one problem: the board editor with a live preview (validation errors, the
// reference answer, the winner and the optimal line animated, which surviving mutants the board
// would kill), saving, and the saved list.
import { api, requireUser } from "../api.js";
import { makeEditor } from "../board-editor.js";
import { invalidBox, plainWords, previewBoard, previewContent } from "../board-preview.js";
import { boardNotes, loadReports } from "../board-notes.js";
import { previewRegrade } from "../regrade.js";
import { rejudgeWithProgress } from "../rejudge.js";
import { drawCase } from "../boards.js";
import { confirmed } from "../confirm.js";
import { $, $$, clear, formatDate, h, pageAlert, pageData, plural } from "../dom.js";

const { slug, samples = [] } = pageData();
const user = await requireUser();

const preview = $("#preview");
const saveButton = $("#save-board");
const saveNote = $("#save-note");
let current = null; // the case in the editor
let previewed = null; // JSON of the case the preview (valid) belongs to
let inflight = null;
let timer = null;
let boards = []; // the saved hidden boards, newest first

// ---- which surviving mutants the board would kill (separate request, never blocks the preview)
const KILLS_DELAY_MS = 400;
// The first check of a problem answers 202 "computing" while the judge works out every
// mutant's answers (seconds, more on a busy machine): the same board is asked again this often.
const KILLS_POLL_MS = 1000;
const killsLine = h("p", { class: "preview-kills", id: "preview-kills", role: "status" });
let killsTimer = null;
let killsInflight = null;

function mutantList(list) {
  return list.flatMap((name, i) => (i ? [", ", h("code", {}, name)] : [h("code", {}, name)]));
}

function strengthLink() {
  return h("a", { href: `/instructor/problems/${encodeURIComponent(slug)}/strength` }, "Test strength");
}

function showKills(result) {
  const { kills, survivors, kills_survivors: hits, remaining } = result;
  killsLine.className = "preview-kills";
  if (!survivors.length) {
    killsLine.replaceChildren(`No mutant survives the tests of every plan (samples, small positions, worst cases) and the hidden boards; this board kills ${plural(kills.length, "mutant")} on its own. `, strengthLink());
  } else if (hits.length) {
    killsLine.classList.add("kills-some");
    killsLine.replaceChildren(
      h("strong", {}, `This board would kill ${plural(hits.length, "surviving mutant")}: `), ...mutantList(hits), ". ",
      remaining.length ? `${plural(remaining.length, "survivor")} would remain. ` : "None would remain. ", strengthLink());
  } else {
    killsLine.replaceChildren(
      survivors.length === 1
        ? "This board does not kill the surviving mutant"
        : `This board kills none of the ${survivors.length} surviving mutants`,
      kills.length ? ` (it kills ${plural(kills.length, "mutant")} the other tests already kill). ` : ". ",
      strengthLink());
  }
}

async function checkKills(body) {
  if (killsInflight) killsInflight.abort();
  const controller = new AbortController();
  killsInflight = controller;
  try {
    let result = await api(`/problems/${encodeURIComponent(slug)}/strength/board`, {
      method: "POST", json: { input: body }, signal: controller.signal,
    });
    while (result?.status === "computing" && !controller.signal.aborted) {
      killsLine.replaceChildren("Working out what each mutant answers on this problem's tests (the first check takes a few seconds)…");
      await new Promise((resolve) => setTimeout(resolve, KILLS_POLL_MS));
      if (controller.signal.aborted) return;
      result = await api(`/problems/${encodeURIComponent(slug)}/strength/board`, {
        method: "POST", json: { input: body }, signal: controller.signal,
      });
    }
    if (controller.signal.aborted) return;
    showKills(result);
  } catch (error) {
    if (error.name === "AbortError") return;
    if (error.status === 422) {
      killsLine.replaceChildren(); // the preview says what is wrong with the board
      killsLine.hidden = true;
      return;
    }
    killsLine.className = "preview-kills kills-failed";
    killsLine.replaceChildren(`Could not check which mutants this board kills: ${error.message}`);
  } finally {
    if (killsInflight === controller) killsInflight = null;
  }
}

function scheduleKills(body) {
  clearTimeout(killsTimer);
  if (killsInflight) killsInflight.abort();
  killsLine.hidden = false;
  killsLine.className = "preview-kills is-loading";
  killsLine.replaceChildren("Checking which surviving mutants this board kills…");
  killsTimer = setTimeout(() => checkKills(body), KILLS_DELAY_MS);
}

function cancelKills() {
  clearTimeout(killsTimer);
  if (killsInflight) killsInflight.abort();
  killsLine.replaceChildren();
  killsLine.hidden = true;
}

function showPreview(result) {
  clear(preview).append(...previewContent(slug, result, killsLine));
}

// A board already tested (a sample or a saved hidden board) adds nothing: it is not saved again.
const canonical = (value) => JSON.stringify(value, Object.keys(value || {}).sort());

function duplicateOf(value) {
  if (!value) return null;
  const key = canonical(value);
  const sample = samples.findIndex((s) => canonical(s) === key);
  if (sample >= 0) return `sample ${sample + 1}`;
  const saved = boards.find((b) => canonical(b.input) === key);
  return saved ? `hidden board #${saved.id}` : null;
}

// Save only a previewed board that is new; say why not otherwise.
function updateSave() {
  const same = previewed === JSON.stringify(current) ? duplicateOf(current) : null;
  saveButton.disabled = previewed !== JSON.stringify(current) || Boolean(same);
  let note = $("#duplicate-note");
  if (!same) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = h("p", { class: "alert alert-warning", id: "duplicate-note", role: "status" });
    preview.prepend(note);
  }
  note.textContent = `This board is the same as ${same}: saving it again would test nothing new.`;
}

function showInvalid(message) {
  clear(preview).append(invalidBox("This board cannot be saved.", message));
}

async function runPreview() {
  const body = current;
  if (inflight) inflight.abort();
  const controller = new AbortController();
  inflight = controller;
  preview.classList.add("is-loading");
  try {
    const result = await previewBoard(slug, body, controller.signal);
    if (controller.signal.aborted) return;
    previewed = JSON.stringify(body);
    showPreview(result);
    updateSave();
  } catch (error) {
    if (error.name === "AbortError") return;
    previewed = null;
    saveButton.disabled = true;
    if (error.status === 422) showInvalid(plainWords(error.message));
    else clear(preview).append(h("div", { class: "alert alert-error" }, error.message));
  } finally {
    if (inflight === controller) {
      inflight = null;
      preview.classList.remove("is-loading");
    }
  }
}

function onChange(value, clientError = null) {
  current = value;
  saveButton.disabled = true;
  saveNote.textContent = "";
  clearTimeout(timer);
  if (clientError || value === null) {
    if (inflight) inflight.abort();
    previewed = null;
    cancelKills();
    showInvalid(clientError || "Fix the input first.");
    return;
  }
  timer = setTimeout(runPreview, 150);
  scheduleKills(value);
}

let editor = null;
if (user.role === "instructor") {
  editor = makeEditor(slug, $("#board-editor"), onChange);
  current = editor.value();
  runPreview();
  if (current) scheduleKills(current);
}

saveButton?.addEventListener("click", async () => {
  if (!current || previewed !== JSON.stringify(current) || duplicateOf(current)) return;
  saveButton.disabled = true;
  saveNote.textContent = "Saving…";
  try {
    const board = await api(`/problems/${encodeURIComponent(slug)}/boards`, {
      method: "POST", json: { input: current },
    });
    saveNote.textContent = `Saved as hidden board #${board.id} (answer ${board.answer}).`;
    offerRejudge();
    boards.unshift(board);
    renderList(board.id);
    scheduleKills(current); // the board is no longer a what-if: the survivors changed
  } catch (error) {
    saveNote.textContent = "";
    pageAlert(`Could not save the board: ${error.message}`);
  } finally {
    updateSave();
  }
});

// ---- saved boards ----------------------------------------------------------------------------

let reports = {}; // board id -> failures, label, note (board-notes.js)

// A saved board back in the editor, to make a variant of it (saved as a new board).
function loadIntoEditor(board) {
  const container = clear($("#board-editor"));
  editor = makeEditor(slug, container, onChange, board.input);
  onChange(editor.value());
  saveNote.textContent = `Board #${board.id} is in the editor: change it and save it as a new board.`;
  $("#editor-title").scrollIntoView({ block: "start" });
}

function boardItem(board, highlight) {
  const remove = h("button", { type: "button", class: "btn btn-small btn-danger-ghost", dataset: { delete: String(board.id) },
    "aria-label": `Delete hidden board ${board.id}` }, "Delete");
  return h("li", { class: ["board-item", highlight && "board-item-new"], id: `board-${board.id}`, dataset: { id: String(board.id) } },
    h("div", { class: "board-thumb" }, drawCase(slug, board.input, { size: "small" })),
    h("div", { class: "board-meta" },
      h("div", {}, h("strong", {}, `#${board.id}`), " · answer ", h("strong", {}, String(board.answer))),
      h("span", { class: "muted small" }, `${board.author ? `by ${board.author}, ` : ""}${formatDate(board.created_at)}`)),
    remove,
    boardNotes(slug, board, reports[board.id], loadIntoEditor));
}

// Submissions graded before a board was added never met it: offer to grade them again.
function offerRejudge() {
  const box = $("#rejudge-offer");
  box.hidden = false;
  box.replaceChildren(
    h("span", {}, "Submissions graded before this board have not been tested on it. "),
    h("button", { type: "button", class: "btn btn-small", id: "rejudge-after-save" }, "Rejudge all submissions"),
    " ",
    h("button", { type: "button", class: "btn btn-small", id: "regrade-after-save" }, "Preview what changes"),
  );
  $("#regrade-after-save").addEventListener("click", async (event) => {
    event.currentTarget.disabled = true;
    try {
      await previewRegrade(slug, box);
    } catch (error) {
      box.replaceChildren();
      box.hidden = true;
      pageAlert(`Could not preview the regrade: ${error.message}`);
    }
  });
  $("#rejudge-after-save").addEventListener("click", async (event) => {
    event.currentTarget.disabled = true;
    const progress = h("span", { id: "rejudge-progress" });
    box.replaceChildren(progress);
    try {
      await rejudgeWithProgress(slug, progress);
    } catch (error) {
      box.replaceChildren();
      box.hidden = true;
      pageAlert(`Could not rejudge: ${error.message}`);
    }
  });
}

function renderList(highlightId = null) {
  const list = clear($("#board-list"));
  $("#board-count").textContent = `(${boards.length})`;
  if (!boards.length) {
    list.appendChild(h("li", { class: "empty-row" }, "No hidden boards yet: submissions are graded on the samples and random boards only."));
    return;
  }
  for (const board of boards) list.appendChild(boardItem(board, board.id === highlightId));
}

// Deleting asks once more on the same button, so nothing disappears on a stray click.
$("#board-list")?.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-delete]");
  if (!button) return;
  const id = Number(button.dataset.delete);
  if (!confirmed(button, "Confirm delete", `Confirm: delete hidden board ${id}`)) return;
  button.disabled = true;
  try {
    await api(`/problems/${encodeURIComponent(slug)}/boards/${id}`, { method: "DELETE" });
    const position = boards.findIndex((b) => b.id === id);
    boards = boards.filter((b) => b.id !== id);
    renderList();
    updateSave();
    saveNote.textContent = `Deleted hidden board #${id}.`;
    // Focus stays where the keyboard was: the board that took its place, else the list.
    const next = $$("#board-list button[data-delete]")[Math.min(position, boards.length - 1)];
    if (next) next.focus();
    else $("#list-title").focus();
    if (previewed) scheduleKills(current);
  } catch (error) {
    button.disabled = false;
    pageAlert(`Could not delete board #${id}: ${error.message}`);
  }
});

if (user.role === "instructor") {
  try {
    [boards, reports] = await Promise.all([
      api(`/problems/${encodeURIComponent(slug)}/boards`), loadReports(slug),
    ]);
    boards.sort((a, b) => b.id - a.id);
    // Linked from a submission's hidden test (#board-ID): that board highlighted and shown.
    const linked = /^#board-(\d+)$/.exec(location.hash);
    renderList(linked ? Number(linked[1]) : null);
    if (linked) document.getElementById(`board-${linked[1]}`)?.scrollIntoView({ block: "center" });
    updateSave();
  } catch (error) {
    pageAlert(`Could not load the hidden boards: ${error.message}`);
  }
}
