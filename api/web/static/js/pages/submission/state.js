// The submission page's state, shared by its parts, and the questions they ask of it.
import { formatTestTime, isFailingVerdict, pageData } from "../../dom.js";

export const page = {
  id: pageData().id,
  isInstructor: false, // set by the page once the user is known
  sub: null, // the submission as last fetched or streamed
  tests: new Map(), // index -> test, for the current judging
  planned: 0, // tests the problem's plan runs (0 when unknown)
};

export const isFailure = (test) => isFailingVerdict(test.verdict);
export const visibleInput = (test) => test.input !== null && test.input !== undefined;

// The failure to open: the first visible one (a student sees its board, the expected value
// and its counterexample) before any hidden board, whatever their order in the plan.
export function firstFailure(list) {
  const failed = list.filter(isFailure).sort((a, b) => a.index - b.index);
  return failed.find((t) => t.kind !== "hidden") || failed[0];
}

export function hiddenFailures() {
  return [...page.tests.values()].filter((t) => isFailure(t) && t.kind === "hidden").length;
}

function problemOf(slug) {
  return (pageData().problems || []).find((p) => p.slug === slug);
}

export function titleOf(slug) {
  const found = problemOf(slug);
  return found ? found.title : slug;
}

// Times as the page shows them: a test stopped at the limit reads "> limit", not its CPU.
export function timeText(test) {
  const found = problemOf(page.sub.problem);
  return formatTestTime(test, found && found.time_s);
}
