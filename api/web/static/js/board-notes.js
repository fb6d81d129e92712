// On the hidden boards page, per saved board: how many submissions fail it (a board nobody
// fails is weak), the instructor's label and note (editable), and loading the board back into
// the editor to make a variant.
import { api } from "./api.js";
import { h, plural } from "./dom.js";

// The report of every board of the problem, by board id ({} when it cannot be read).
export async function loadReports(slug) {
  const list = await api(`/problems/${encodeURIComponent(slug)}/boards/report`);
  return Object.fromEntries(list.map((r) => [r.id, r]));
}

function failureLine(report) {
  if (!report || !report.judged) {
    return h("span", { class: "muted small board-fails" }, "Not run by any submission yet.");
  }
  if (!report.failing) {
    return h("span", { class: "small board-fails board-weak" },
      `No submission fails it (${report.judged} ran it): a weak board.`);
  }
  return h("span", { class: "small board-fails" },
    `Fails ${report.failing} of ${plural(report.judged, "submission")} ` +
    `(${plural(report.failing_students, "student")}).`);
}

function notesForm(slug, board, report, onSaved) {
  const label = h("input", { id: `bl-${board.id}`, maxlength: "80", value: report?.label || "" });
  const note = h("textarea", { id: `bn-${board.id}`, rows: "3", maxlength: "2000" });
  note.value = report?.note || "";
  const status = h("span", { class: "muted small", role: "status" });
  const form = h("form", { class: "board-notes-form" },
    h("label", { for: label.id }, "Label"), label,
    h("label", { for: note.id }, "Note"), note,
    h("div", { class: "form-actions" }, h("button", { type: "submit", class: "btn btn-small" }, "Save label and note"), status));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "Saving…";
    try {
      const saved = await api(`/problems/${encodeURIComponent(slug)}/boards/${board.id}`, {
        method: "PATCH", json: { label: label.value, note: note.value },
      });
      status.textContent = "Saved.";
      onSaved(saved);
    } catch (error) {
      status.textContent = `Not saved: ${error.message}`;
    }
  });
  return h("details", { class: "board-notes-edit" }, h("summary", {}, "Label and note"), form);
}

// The extra lines of one saved board; `onLoad(board)` puts it into the editor. Saving the
// label and note redraws only what they show, so the form keeps its "Saved." and stays open.
export function boardNotes(slug, board, report, onLoad) {
  const shown = h("div", { class: "board-notes-shown" });
  let current = report ? { ...report } : null;
  // replaceChildren writes a null as the text "null": leave out what is not there.
  const draw = () => shown.replaceChildren(...[
    current?.label ? h("strong", { class: "board-label" }, current.label) : null,
    current?.note ? h("p", { class: "board-note small" }, current.note) : null,
    failureLine(current),
  ].filter(Boolean));
  draw();
  const load = h("button", { type: "button", class: "btn btn-small btn-ghost", "data-load": String(board.id),
    "aria-label": `Load into editor: hidden board ${board.id}` }, "Load into editor");
  load.addEventListener("click", () => onLoad(board));
  const form = notesForm(slug, board, current, (saved) => {
    current = { ...(current || {}), ...saved };
    draw();
  });
  return h("div", { class: "board-notes" }, shown, h("div", { class: "board-notes-actions" }, load, form));
}
