// A board as a ready call of the student's function, to paste into their own code and debug
// there: solution([[1, 1, 1]], [1, 0], [1, 2]) for Python. The arguments follow the problem's
// PARAMS order (in every page's data as problems[].params).
import { h, pageData } from "./dom.js";

function pythonLiteral(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value); // a valid Python literal too
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
  const items = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`);
  return `{${items.join(", ")}}`;
}

// Language -> how a call of solution with these arguments is written.
const CALLS = {
  python: (args) => `solution(${args.map(pythonLiteral).join(", ")})`,
};

function paramsOf(slug) {
  const problem = (pageData().problems || []).find((p) => p.slug === slug);
  return problem ? problem.params : null;
}

// The call, or null when the problem's parameters or the language are unknown here.
export function solutionCall(slug, input, language = "python") {
  const params = paramsOf(slug);
  const write = Object.hasOwn(CALLS, language) ? CALLS[language] : null;
  if (!params || !write || !input || typeof input !== "object") return null;
  return write(params.map((name) => input[name]));
}

// A "Copy as a call" button for one board (nothing when no call can be written).
export function copyCallButton(slug, input, language = "python") {
  const call = solutionCall(slug, input, language);
  if (call === null) return null;
  const button = h("button", {
    type: "button", class: "btn btn-small btn-ghost copy-call", title: call, dataset: { call },
  }, "Copy as a call");
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(call);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy failed";
    }
    setTimeout(() => { button.textContent = "Copy as a call"; }, 1500);
  });
  return h("div", { class: "copy-call-row" }, button, " ", h("code", { class: "call-text" }, call));
}
