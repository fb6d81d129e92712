// The finished judging drawn whole: header, summary, source, tests, the first failure and a
// counterexample, and the submission's earlier judgings.
import { $, clear, formatDate, h, verdictBadge } from "../../dom.js";
import { renderHeader, renderSummary, renderTabTitle } from "./header.js";
import { renderSource } from "./source.js";
import { firstFailure, page, timeText } from "./state.js";
import { showCounterexample, showTest } from "./test-detail.js";
import { renderTests } from "./test-list.js";

export function renderFinal() {
  const { sub } = page;
  renderHeader();
  renderSummary();
  renderSource(); // a compile error's line is marked
  $("#live").hidden = true;
  page.tests = new Map(sub.tests.map((t) => [t.index, t]));
  renderTests(sub.tests);
  const failing = firstFailure(sub.tests);
  if (failing) showTest(failing, true);
  else $("#detail").hidden = true;
  // A failing small position is drawn above as it is: nothing smaller to show.
  const shrinkable = (t) => t && t.counterexample && t.kind !== "small";
  const withCounterexample = shrinkable(failing) ? failing : sub.tests.find(shrinkable);
  if (withCounterexample) showCounterexample(withCounterexample);
  else $("#counterexample").hidden = true;
  renderJudgings();
  $("#submission").setAttribute("aria-busy", "false");
  renderTabTitle();
}

function renderJudgings() {
  const list = page.sub.history || [];
  const section = $("#judgings");
  section.hidden = list.length < 2;
  const body = clear($("#judgings-body"));
  for (const j of list.slice().reverse()) {
    body.appendChild(h("tr", {}, h("td", {}, formatDate(j.finished_at)), h("td", {}, j.reason_label),
      h("td", {}, verdictBadge(j.verdict)), h("td", { class: "num" }, j.verdict === "CE" || j.passed == null ? "–" : `${j.passed}/${j.total}`),
      h("td", { class: "num" }, j.verdict === "CE" ? "–" : timeText({ verdict: j.verdict, time_ms: j.max_time_ms }))));
  }
}
