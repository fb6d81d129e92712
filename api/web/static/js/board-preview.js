// The board editor's live preview, shared by the instructors' hidden boards and the students'
// own cases on the problem page: the judge validates a drawn board and answers with its
// reference answer and one optimal line (POST /problems/{slug}/boards/preview), drawn here.
import { api } from "./api.js";
import { cellWords } from "./board-editor.js";
import { replay } from "./boards.js";
import { capitalise, h } from "./dom.js";

export function previewBoard(slug, input, signal) {
  return api(`/problems/${encodeURIComponent(slug)}/boards/preview`, {
    method: "POST", json: { input }, signal,
  });
}

export function winnerText(explanation) {
  const w = explanation.winner;
  if (w === "A" || w === "B") return `${w} wins`;
  if (w === "draw") return "A draw";
  if (w) return `The ${w} player wins`;
  return "";
}

// The answer, the winner, `extra` (nodes of the caller's) and the optimal line, autoplayed.
export function previewContent(slug, result, extra = null) {
  const explanation = result.explanation || {};
  return [
    h("div", { class: "preview-answer" },
      h("div", { class: "answer-box" }, h("span", { class: "answer-label" }, "Reference answer"),
        h("span", { class: "answer-value", id: "preview-answer" }, String(result.answer))),
      h("div", { class: "answer-box" }, h("span", { class: "answer-label" }, "Result"),
        h("span", { class: "answer-value answer-winner", id: "preview-winner" }, winnerText(explanation)))),
    extra,
    explanation.summary ? h("p", { class: "muted" }, capitalise(explanation.summary)) : null,
    replay(slug, result.input, explanation, { autoplay: true, delay: 700 }),
  ].filter(Boolean); // for append(...): it would write a null as the text "null"
}

// The judge's messages name fields ("aloc [4, 0] is not on a foothold (board[4][0] is 0)"):
// said here as the page shows the board. The editor avoids these boards; this is the fallback.
const PIECES = { aloc: "A", bloc: "B" };

export function plainWords(message) {
  return message
    .replace(/^Invalid board: /i, "")
    .replace(/\b(aloc|bloc) \[(\d+), (\d+)\] is not on a foothold \(board\[\d+\]\[\d+\] is 0\)/,
      (_, piece, r, c) => `${PIECES[piece]} stands on ${cellWords(r, c)}, which has no foothold`)
    .replace(/\b(aloc|bloc) \[(\d+), (\d+)\] is off the (\d+)x(\d+) board/,
      (_, piece, r, c, rows, cols) => `${PIECES[piece]} stands on ${cellWords(r, c)}, outside the ${rows} by ${cols} board`)
    .replace(/\bboard\[(\d+)\] is (-?\d+), must be between/, (_, i, v) => `Number ${Number(i) + 1} is ${v}; numbers must be between`);
}

export function invalidBox(lead, message) {
  return h("div", { class: "alert alert-error validation-error", id: "preview-error" },
    h("strong", {}, `${lead} `), message);
}
