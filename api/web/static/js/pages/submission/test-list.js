// The table of tests: one row per graded test, the "failed only" filter, and the View button
// that opens a test's detail.
import { $, clear, formatKb, h, verdictBadge } from "../../dom.js";
import { showTest } from "./test-detail.js";
import { isFailure, page, timeText, visibleInput } from "./state.js";

const KIND_NAMES = { sample: "sample", small: "small positions", worst: "worst case", hidden: "hidden", random: "random" };

let failedOnly = false;

function testRow(test) {
  const canView = visibleInput(test) || (isFailure(test) && test.kind === "hidden");
  return h("tr", { dataset: { index: String(test.index), verdict: test.verdict }, class: isFailure(test) && "row-failed" },
    h("td", { class: "num" }, test.index + 1),
    h("td", {}, h("span", { class: `kind kind-${test.kind}` }, KIND_NAMES[test.kind] || test.kind),
      test.profile ? h("span", { class: "muted small hide-sm" }, ` ${test.profile.replace(/_/g, " ")}`) : null,
      test.board_id != null ? h("span", { class: "muted small" }, ` board #${test.board_id}`) : null,
      test.positions != null ? h("span", { class: "muted small", dataset: { positions: String(test.positions) } },
        ` ${positionsText(test)}`) : null,
      test.stdout || test.stderr ? h("span", { class: "printed-tag small", title: "Your code printed something on this test: View shows it" }, " printed") : null),
    h("td", {}, verdictBadge(test.verdict)),
    h("td", { class: "num" }, test.verdict === "SKIPPED" ? "–" : timeText(test)),
    h("td", { class: "num hide-sm" }, formatKb(test.memory_kb)),
    h("td", {}, canView ? h("button", { type: "button", class: "link-button", dataset: { show: String(test.index) },
      "aria-label": `View ${visibleInput(test) ? "the board of" : "details of"} test ${test.index + 1}` },
      "View") : h("span", { class: "muted small" }, test.kind === "hidden" ? "hidden" : "")),
  );
}

// The small tier is one row: every position up to a size, tried smallest first.
function positionsText(test) {
  if (test.verdict !== "AC") return `failed at position ${test.positions}`;
  return test.positions === 1 ? "its 1 position" : `all ${test.positions} positions`;
}

function applyTestFilter() {
  for (const row of $("#tests-body").children) {
    row.hidden = failedOnly && !row.classList.contains("row-failed");
  }
  const failed = [...page.tests.values()].filter(isFailure).length;
  $("#show-all").textContent = `All (${page.tests.size})`;
  $("#show-failed").textContent = `Failed only (${failed})`;
  $("#show-all").setAttribute("aria-pressed", String(!failedOnly));
  $("#show-failed").setAttribute("aria-pressed", String(failedOnly));
}

export function renderTests(list) {
  const body = clear($("#tests-body"));
  for (const test of list) body.appendChild(testRow(test));
  $("#tests").hidden = list.length === 0;
  applyTestFilter();
}

export function upsertTestRow(test) {
  const body = $("#tests-body");
  const old = body.querySelector(`tr[data-index="${test.index}"]`);
  const row = testRow(test);
  row.classList.add("row-new");
  if (old) old.replaceWith(row);
  else body.appendChild(row);
  $("#tests").hidden = false;
  applyTestFilter();
}

export function bindTestList() {
  for (const [selector, value] of [["#show-all", false], ["#show-failed", true]]) {
    $(selector).addEventListener("click", () => {
      failedOnly = value;
      applyTestFilter();
    });
  }
  $("#tests-body").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-show]");
    if (!button) return;
    const test = page.tests.get(Number(button.dataset.show));
    if (test) {
      showTest(test, false);
      $("#detail").scrollIntoView({ behavior: "smooth", block: "start" });
      $("#detail").focus({ preventScroll: true });
    }
  });
}
