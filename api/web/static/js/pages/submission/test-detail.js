// One test drawn: its board, expected vs returned, the optimal line of play, and the shrunk
// counterexample of a failing random or worst-case board.
import { api } from "../../api.js";
import { drawCase, replay } from "../../boards.js";
import { copyCallButton } from "../../calls.js";
import { comparison, printedOutput } from "../../results.js";
import { $, clear, formatValue, h, plural, verdictBadge, verdictLabel } from "../../dom.js";
import { hiddenFailures, isFailure, page, timeText, visibleInput } from "./state.js";

const explanations = new Map(); // test index -> promise of its optimal line

// A new judging's tests are other tests: their lines are fetched again.
export function forgetExplanations() {
  explanations.clear();
}

function lineSection(slug, input, explanation, collapsed = false) {
  if (collapsed) {
    const box = h("details", { class: "line-of-play" }, h("summary", {}, "Optimal line of play on this board"));
    if (explanation) box.appendChild(replay(slug, input, explanation));
    return box;
  }
  const box = h("div", { class: "line-of-play" }, h("h3", {}, "Optimal line of play"));
  if (explanation) box.appendChild(replay(slug, input, explanation));
  return box;
}

// The judge's "expected X, got Y" says what the two boxes already show.
function informative(test) {
  return test.message && !(test.verdict === "WA" && /^expected /.test(test.message));
}

async function explanationFor(test) {
  if (!explanations.has(test.index)) {
    explanations.set(test.index, api(`/submissions/${page.id}/tests/${test.index}/explanation`));
  }
  return explanations.get(test.index);
}

export function showTest(test, isFirstFailure) {
  const { sub } = page;
  const section = $("#detail");
  section.hidden = false;
  section.tabIndex = -1;
  const failed = isFailure(test);
  $("#detail-title").textContent = isFirstFailure
    ? `First failing test: #${test.index + 1}`
    : `Test #${test.index + 1}`;
  const body = clear($("#detail-body"));
  body.appendChild(h("p", { class: "detail-meta" }, verdictBadge(test.verdict), " ",
    h("span", {}, test.kind === "small"
      ? `${verdictLabel(test.verdict)} on small position ${test.positions}, the smallest board your solution fails`
      : `${verdictLabel(test.verdict)} on a ${test.kind} board`),
    test.profile ? h("span", { class: "muted" }, ` (${test.profile.replace(/_/g, " ")})`) : null,
    h("span", { class: "muted" }, ` · ${timeText(test)}`)));
  const hiddenFailed = isFirstFailure ? hiddenFailures() : 0;
  if (hiddenFailed) {
    const others = test.kind === "hidden" ? hiddenFailed - 1 : hiddenFailed;
    if (others > 0) {
      body.appendChild(h("p", { class: "muted", id: "hidden-failures" },
        `${plural(others, "hidden board")} ${test.kind === "hidden" ? "more" : "also"} failed (listed in the tests below).`));
    }
  }
  if (!visibleInput(test)) {
    body.appendChild(h("p", { class: "alert alert-info" },
      "This is a hidden board: its input and answer are not shown to students. Check your solution against the rules and the edge cases in the statement."));
    return;
  }
  if (failed && informative(test)) body.appendChild(h("p", { class: "test-message" }, test.message));
  if (test.kind === "hidden" && test.board_id != null) { // only instructors get a hidden input
    body.appendChild(h("p", { class: "small" }, h("a", {
      href: `/instructor/problems/${encodeURIComponent(sub.problem)}/boards#board-${test.board_id}`,
    }, `Hidden board #${test.board_id} in the board editor`)));
  }
  const layout = h("div", { class: "detail-layout" },
    h("div", { class: "detail-board" }, drawCase(sub.problem, test.input)),
    h("div", { class: "detail-info" }, comparison(test.expected, test.got, test.verdict),
      failed ? copyCallButton(sub.problem, test.input, sub.language) : null,
      h("details", { class: "raw-input" }, h("summary", {}, "Input as JSON"),
        h("pre", {}, JSON.stringify(test.input)))));
  body.appendChild(layout);
  body.appendChild(printedSection(test));
  if (test.diagnosis) body.appendChild(diagnosisSection(sub, test.diagnosis));
  // With a shrunk counterexample below, this larger board's line is there on request. A small
  // position is the smallest board already: its line is the one to study.
  const collapsed = Boolean(test.counterexample) && test.kind !== "small";
  let line = lineSection(sub.problem, test.input, null, collapsed);
  line.appendChild(h("p", { class: "muted" }, "Loading the optimal line…"));
  body.appendChild(line);
  explanationFor(test).then((explanation) => {
    const open = line.open;
    const ready = lineSection(sub.problem, test.input, explanation, collapsed);
    if (open) ready.open = true;
    line.replaceWith(ready);
    line = ready;
  }).catch((error) => {
    line.replaceChildren(h(collapsed ? "summary" : "h3", {}, "Optimal line of play"),
      h("p", { class: "alert alert-error" }, `Could not load the optimal line: ${error.message}`));
  });
}

// What the submission printed on this test (visible tests keep it; hidden ones never do).
function printedSection(test) {
  const box = h("section", { class: "test-output", "aria-label": "What your code printed" },
    h("h3", {}, "What your code printed"));
  const printed = printedOutput(test);
  box.appendChild(printed || h("p", { class: "muted", id: "printed-nothing" },
    test.stdout === undefined || test.stdout === null
      ? "Printed output is not kept for this test."
      : "Nothing: your code printed nothing on this test."));
  return box;
}

// Where is the bug: the position below the failing board where the submission is wrong
// although it is right one move later, drawn with its children (judge/diagnose.py).
function positionCard(slug, probe, { wrong, title, language }) {
  return h("figure", { class: ["diag-position", wrong ? "diag-wrong" : "diag-right"] },
    h("figcaption", {}, h("strong", {}, title), " · expected ", h("code", {}, formatValue(probe.expected)),
      ", returned ", h("code", { class: wrong ? "diag-got-wrong" : "" }, formatValue(probe.got))),
    drawCase(slug, probe.case, { size: wrong ? "normal" : "small" }),
    wrong ? copyCallButton(slug, probe.case, language) : null);
}

function diagnosisSection(sub, diagnosis) {
  const children = diagnosis.children || [];
  const depth = diagnosis.depth || 0;
  const where = depth === 0 ? "on this very board" : `${plural(depth, "move")} below this board`;
  return h("section", { class: "diagnosis", id: "diagnosis", "aria-labelledby": "diagnosis-title" },
    h("h3", { id: "diagnosis-title" }, "Where is the bug?"),
    h("p", { class: "diagnosis-summary", id: "diagnosis-summary" }, diagnosis.summary),
    h("p", { class: "muted small" }, `The judge asked your own function about the positions below the failing board and found this one, ${where}.`),
    h("div", { class: "diag-grid" },
      positionCard(sub.problem, diagnosis, { wrong: true, title: "Wrong here", language: sub.language }),
      children.length
        ? h("div", { class: "diag-children" },
          h("p", { class: "diag-children-title" }, children.length === 1
            ? "Right on the position one move later:"
            : `Right on all ${children.length} positions one move later:`),
          h("div", { class: "diag-children-grid" },
            ...children.map((child, k) => positionCard(sub.problem, child, { wrong: false, title: `After move ${k + 1}` }))))
        : h("p", { class: "muted diag-children" }, "No position follows this one: the game ends here.")));
}

export function showCounterexample(test) {
  const { sub } = page;
  const cx = test.counterexample;
  const section = $("#counterexample");
  if (!cx) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const body = clear($("#cx-body"));
  body.appendChild(h("p", { class: "muted" },
    `Test #${test.index + 1} failed on a ${test.kind === "worst" ? "worst-case" : "random"} board. The judge shrank it to this smaller board, where your solution still fails:`));
  body.appendChild(h("p", { class: "detail-meta" }, verdictBadge(cx.verdict), " ",
    h("span", {}, verdictLabel(cx.verdict))));
  if (informative(cx)) body.appendChild(h("p", { class: "test-message" }, cx.message));
  body.appendChild(h("div", { class: "detail-layout" },
    h("div", { class: "detail-board" }, drawCase(sub.problem, cx.input)),
    h("div", { class: "detail-info" }, comparison(cx.expected, cx.got, cx.verdict),
      copyCallButton(sub.problem, cx.input, sub.language),
      h("details", { class: "raw-input" }, h("summary", {}, "Input as JSON"), h("pre", {}, JSON.stringify(cx.input))))));
  if (cx.explanation) body.appendChild(lineSection(sub.problem, cx.input, cx.explanation));
}
