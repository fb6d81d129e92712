// One answer checked, as the submission page and the Run panel both show it: expected vs
// returned, what the code printed (capped by the judge, with a note when cut), and an error
// with its traceback.
import { formatValue, h } from "./dom.js";

export function comparison(expected, got, verdict) {
  const returned = verdict === "WA" ? formatValue(got) : got === null || got === undefined ? "no answer" : formatValue(got);
  return h("dl", { class: "compare" },
    h("div", { class: "compare-item compare-expected" }, h("dt", {}, "Expected"), h("dd", {}, h("code", {}, formatValue(expected)))),
    h("div", { class: `compare-item ${verdict === "AC" ? "compare-ok" : "compare-got"}` },
      h("dt", {}, "Your function returned"), h("dd", {}, h("code", {}, returned))));
}

// stdout and stderr of one call (or of the calls of one test); null when it printed nothing.
export function printedOutput(entry) {
  const streams = [["stdout", "Printed (stdout)"], ["stderr", "Error output (stderr)"]]
    .filter(([key]) => entry[key]);
  if (!streams.length && !entry.output_cut) return null;
  return h("div", { class: "printed" },
    ...streams.map(([key, label]) => h("div", { class: `printed-stream printed-${key}` },
      h("h5", {}, label), h("pre", { class: "printed-text" }, entry[key]))),
    entry.output_cut
      ? h("p", { class: "hint printed-cut" }, "The output was cut: the judge keeps only the first few kilobytes of what your code prints.")
      : null);
}

// The error a call raised, with its traceback (which ends with the error's message); null
// when it raised none.
export function errorDetails(entry) {
  if (!entry.error && !entry.traceback) return null;
  return h("div", { class: "run-error" },
    h("p", {}, h("strong", {}, entry.error || "Error"), entry.traceback ? "" : entry.message ? `: ${entry.message}` : ""),
    entry.traceback ? h("pre", { class: "traceback" }, entry.traceback) : null);
}
