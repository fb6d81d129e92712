// An assignment's form (instructors): title, times in the reader's zone (sent as UTC), the
// late rule, which submission counts, the feedback policy, the problems from the catalog
// with points, attempt limits and scoring; then its extensions, one per student.
import { api, requireUser } from "../api.js";
import { $, $$, formatDate, h, pageData, pageAlert, showAlert } from "../dom.js";
import { fromLocalInput, toLocalInput, zoneName } from "../local-time.js";

await requireUser();
const { id, problems } = pageData();
const KINDS = ["sample", "small", "worst", "random", "hidden"];
let rowCount = 0;

$("#zone").textContent = zoneName();

function weightsText(weights) {
  return weights ? Object.entries(weights).map(([k, w]) => `${k} ${w}`).join(", ") : "";
}

// "sample 1, hidden 3" -> {sample: 1, hidden: 3}; empty -> null (every kind weighs 1).
function parseWeights(text) {
  if (!text.trim()) return null;
  const weights = {};
  for (const part of text.split(",")) {
    const [kind, value] = part.trim().split(/\s+/);
    if (!KINDS.includes(kind) || !(Number(value) >= 0)) {
      throw new Error(`Weights are "kind number" pairs, kinds among ${KINDS.join(", ")}.`);
    }
    weights[kind] = Number(value);
  }
  return weights;
}

function problemRow(p = { problem: problems[0]?.slug, points: 10, max_attempts: null, scoring: "ac", weights: null }) {
  const n = ++rowCount;
  const weights = h("input", { id: `p-weights-${n}`, "data-field": "weights", value: weightsText(p.weights), placeholder: "sample 1, hidden 3", autocomplete: "off" });
  const scoring = h("select", { id: `p-scoring-${n}`, "data-field": "scoring" },
    h("option", { value: "ac" }, "All or nothing on AC"), h("option", { value: "tests" }, "By passed tests"));
  scoring.value = p.scoring;
  const weightsBox = h("span", { class: "weights", hidden: p.scoring !== "tests" || null },
    h("label", { for: `p-weights-${n}` }, "Weights"), weights);
  scoring.addEventListener("change", () => { weightsBox.hidden = scoring.value !== "tests"; });
  const select = h("select", { id: `p-problem-${n}`, "data-field": "problem", "aria-label": `Problem ${n}` },
    ...problems.map((q) => h("option", { value: q.slug }, q.title)));
  select.value = p.problem;
  const row = h("tr", { "data-row": String(n) },
    h("td", {}, select),
    h("td", {}, h("input", { type: "number", min: "0.01", step: "any", required: true, value: String(p.points), "data-field": "points", "aria-label": `Points of problem ${n}` })),
    h("td", {}, h("input", { type: "number", min: "1", step: "1", value: p.max_attempts ?? "", "data-field": "max_attempts", "aria-label": `Attempts at problem ${n}` })),
    h("td", {}, h("label", { class: "sr-only", for: `p-scoring-${n}` }, `Scoring of problem ${n}`), scoring, weightsBox),
    h("td", {}, h("button", { type: "button", class: "btn btn-small btn-danger-ghost", "data-remove": "1" }, "Remove")));
  row.querySelector("[data-remove]").addEventListener("click", () => row.remove());
  return row;
}

function showLateFields() {
  const rule = $("#a-late-rule").value;
  for (const node of $$("[data-late]")) {
    node.hidden = rule === "none" || (node.dataset.late !== "" && node.dataset.late !== rule);
  }
}

function fill(a) {
  $("#a-title").value = a.title;
  $("#a-release").value = toLocalInput(a.release_at);
  $("#a-due").value = toLocalInput(a.due_at);
  $("#a-late-rule").value = a.late_rule;
  $("#a-late-until").value = toLocalInput(a.late_until);
  $("#a-late-percent").value = a.late_percent ?? "";
  $("#a-late-factor").value = a.late_factor ?? "";
  $("#a-counts").value = a.counts;
  $("#a-feedback").value = a.feedback;
  $("#problem-rows").replaceChildren(...a.problems.map(problemRow));
  showLateFields();
}

function body() {
  const rule = $("#a-late-rule").value;
  const number = (sel) => ($(sel).value === "" ? null : Number($(sel).value));
  return {
    title: $("#a-title").value.trim(),
    release_at: fromLocalInput($("#a-release").value),
    due_at: fromLocalInput($("#a-due").value),
    late_rule: rule,
    late_until: rule === "none" ? null : fromLocalInput($("#a-late-until").value),
    late_percent: rule === "per_day" ? number("#a-late-percent") : null,
    late_factor: rule === "fixed" ? number("#a-late-factor") : null,
    counts: $("#a-counts").value,
    feedback: $("#a-feedback").value,
    problems: $$("#problem-rows tr").map((row) => {
      const field = (name) => row.querySelector(`[data-field="${name}"]`).value;
      const scoring = field("scoring");
      return {
        problem: field("problem"),
        points: Number(field("points")),
        max_attempts: field("max_attempts") === "" ? null : Number(field("max_attempts")),
        scoring,
        weights: scoring === "tests" ? parseWeights(field("weights")) : null,
      };
    }),
  };
}

$("#a-late-rule").addEventListener("change", showLateFields);
$("#add-problem").addEventListener("click", () => {
  const row = problemRow();
  $("#problem-rows").appendChild(row);
  row.querySelector("select").focus();
});

$("#assignment-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#form-error").hidden = true;
  let sent;
  try {
    sent = body();
    const saved = id
      ? await api(`/assignments/${id}`, { method: "PUT", json: sent })
      : await api("/assignments", { method: "POST", json: sent });
    if (!id) {
      location.assign(`/instructor/assignments/${saved.id}`);
      return;
    }
    fill(saved);
    $("#saved-note").textContent = `Saved at ${formatDate(saved.updated_at)}.`;
  } catch (error) {
    showAlert($("#form-error"), error.message);
  }
});

$("#delete-assignment").addEventListener("click", async () => {
  if (!confirm("Delete this assignment, its extensions and score overrides? The submissions stay.")) return;
  try {
    await api(`/assignments/${id}`, { method: "DELETE" });
    location.assign("/assignments");
  } catch (error) {
    pageAlert(`Could not delete: ${error.message}`);
  }
});

function extensionRow(e) {
  const remove = h("button", { type: "button", class: "btn btn-small btn-danger-ghost" }, "Remove");
  remove.addEventListener("click", async () => {
    try {
      await api(`/assignments/${id}/extensions/${encodeURIComponent(e.user)}`, { method: "DELETE" });
      await loadExtensions();
    } catch (error) {
      pageAlert(`Could not remove it: ${error.message}`);
    }
  });
  return h("tr", { "data-user": e.user },
    h("th", { scope: "row" }, e.user), h("td", {}, formatDate(e.due_at)), h("td", {}, formatDate(e.cutoff)),
    h("td", {}, e.reason || "–"), h("td", {}, `${e.granted_by || "–"}, ${formatDate(e.granted_at)}`),
    h("td", {}, remove));
}

async function loadExtensions() {
  const list = await api(`/assignments/${id}/extensions`);
  $("#ext-rows").replaceChildren(...list.map(extensionRow));
  if (!list.length) $("#ext-rows").replaceChildren(h("tr", {}, h("td", { colspan: "6", class: "muted" }, "No extensions.")));
}

$("#ext-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#ext-error").hidden = true;
  try {
    await api(`/assignments/${id}/extensions/${encodeURIComponent($("#ext-user").value.trim())}`, {
      method: "PUT",
      json: { due_at: fromLocalInput($("#ext-due").value), late_until: fromLocalInput($("#ext-late").value), reason: $("#ext-reason").value },
    });
    $("#ext-form").reset();
    await loadExtensions();
  } catch (error) {
    showAlert($("#ext-error"), error.message);
  }
});

if (id) {
  try {
    const a = await api(`/assignments/${id}`);
    fill(a);
    $("#edit-title").textContent = a.title;
    $("#crumb").textContent = a.title;
    $("#to-gradebook").href = `/instructor/assignments/${id}/gradebook`;
    $("#to-gradebook").hidden = false;
    $("#delete-assignment").hidden = false;
    $("#extensions").hidden = false;
    await loadExtensions();
  } catch (error) {
    pageAlert(error.status === 404 ? "There is no such assignment." : error.message);
  }
} else {
  const now = new Date();
  $("#a-release").value = toLocalInput(now.toISOString());
  $("#a-due").value = toLocalInput(new Date(now.getTime() + 7 * 864e5).toISOString());
  $("#problem-rows").replaceChildren(problemRow());
  showLateFields();
}
