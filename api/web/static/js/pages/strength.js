// Test strength of one problem: the mutation analysis of its samples, hidden boards and random
// plan (which deliberately broken solvers the tests catch), and suggested boards that kill the
// survivors, each addable as a hidden board.
import { api, requireUser } from "../api.js";
import { drawCase } from "../boards.js";
import { $, clear, h, pageData, plural } from "../dom.js";

const { slug } = pageData();
const user = await requireUser();
const SEEDS = ["20", "100", "200"];

const status = $("#strength-status");
const report = $("#strength-report");
const seedsSelect = $("#seeds");
let inflight = null;

function percent(x) {
  if (x === null || x === undefined) return "–";
  return `${Number((x * 100).toFixed(1))}%`;
}

function stat(label, value, extra, id) {
  return h("div", { class: "stat", id },
    h("span", { class: "stat-label" }, label),
    h("span", { class: "stat-value" }, value),
    extra ? h("span", { class: "stat-extra muted" }, extra) : null);
}

function names(list) {
  return list.map((name, i) => [i ? ", " : "", h("code", {}, name)]);
}

function showLoading(first, seeds) {
  report.classList.toggle("is-loading", !first);
  clear(status).append(h("div", { class: "strength-loading" },
    h("span", { class: "spinner", "aria-hidden": "true" }),
    h("span", {},
      h("strong", {}, first ? "Running the mutants on the tests…" : "Updating the report…"),
      h("br"),
      h("span", { class: "muted small" },
        `Samples, small positions, worst cases, hidden boards and ${seeds} random plans. The first analysis of a problem takes about 20 seconds at 20 seeds, and longer with more.`))));
}

function summary(data) {
  const n = data.mutant_count;
  const bySamples = data.mutants.filter((m) => m.samples.length).length;
  const byHidden = data.mutants.filter((m) => m.hidden.length).length;
  const bySmall = data.mutants.filter((m) => m.small || m.worst.length).length;
  const rates = data.mutants.map((m) => m.random_rate).filter((r) => r !== null);
  const always = rates.filter((r) => r >= 1).length;
  const sometimes = rates.filter((r) => r > 0).length;
  return [
    stat("Plan kills every mutant", percent(data.kills_all),
      `samples, ${plural(data.hidden_count, "hidden board")} and ${plural(data.random_count, "random board")}, in ${data.seeds} seeded plans`,
      "kill-probability"),
    stat("Without hidden boards", percent(data.plan_kills_all),
      `the default plan; at least ${percent(data.plan_kills_all_low)} (95% confidence)`),
    stat("Killed by samples", `${bySamples} / ${n}`, `${plural(data.sample_count, "sample")}`),
    stat("Killed by small positions or worst cases", `${bySmall} / ${n}`, "every small position and the longest games are in every plan"),
    stat("Killed by hidden boards", `${byHidden} / ${n}`, plural(data.hidden_count, "board")),
    stat("Killed by random boards", rates.length ? `${always} / ${n}` : "–",
      // `sometimes` counts the always-killed too: say only the ones some plans miss.
      !rates.length ? "this problem draws no random boards"
        : sometimes > always ? `in every plan; ${sometimes - always} more in some plans` : "in every plan"),
    stat("Survivors", String(data.survivors.length), "alive after the tests of every plan and the hidden boards", "survivor-count"),
  ];
}

function meter(rate) {
  if (rate === null || rate === undefined) return h("span", { class: "muted" }, "–");
  const kind = rate >= 1 ? "full" : rate > 0 ? "part" : "none";
  return h("span", { class: "rate", title: `Killed in ${percent(rate)} of the random plans` },
    h("span", { class: "meter", "aria-hidden": "true" },
      h("span", { class: `meter-fill meter-${kind}`, style: { width: `${Math.round(rate * 100)}%` } })),
    h("span", { class: "meter-text" }, percent(rate)));
}

function mutantRow(m) {
  const alive = !m.killed;
  return h("tr", { class: alive && "row-survivor", dataset: { name: m.name } },
    h("td", { class: "mutant-cell" },
      // The space keeps a screen reader from reading name and badge as one word.
      h("div", {}, h("code", { class: "mutant-name" }, m.name),
        alive ? [" ", h("span", { class: "badge badge-tried" }, "survivor")] : null),
      h("div", { class: "muted small" }, m.description)),
    h("td", { class: "kill-cell", "data-label": "Samples", title: m.samples.length ? "The samples (numbered as on the problem page) that kill it" : null }, m.samples.length
      ? m.samples.map((i) => String(i + 1)).join(", ")
      : h("span", { class: "muted" }, "–")),
    h("td", { class: "kill-cell", "data-label": "Small / worst", title: m.small ? `First killed by the small position ${JSON.stringify(m.small)}` : null },
      [m.small ? "small" : null, ...m.worst.map((i) => `worst ${i + 1}`)].filter(Boolean).join(", ")
        || h("span", { class: "muted" }, "–")),
    h("td", { class: "kill-cell", "data-label": "Hidden boards" }, m.hidden.length
      ? m.hidden.map((id) => `#${id}`).join(", ")
      : h("span", { class: "muted" }, "–")),
    h("td", { class: "rate-cell", "data-label": "Random-plan kill rate" }, meter(m.random_rate)));
}

function gotText(got) {
  if (got && typeof got === "object" && !Array.isArray(got) && "raised" in got) return `raises ${got.raised}`;
  return `answers ${JSON.stringify(got)}`;
}

function suggestionCard(s, index) {
  const add = h("button", { type: "button", class: "btn btn-primary btn-small", dataset: { add: String(index) } },
    "Add as hidden board");
  return h("article", { class: "suggestion", dataset: { index: String(index) }, "aria-label": `Suggested board ${index + 1}` },
    h("div", { class: "suggestion-board" }, drawCase(slug, s.input)),
    h("div", { class: "suggestion-meta" },
      h("p", {}, "Reference answer ", h("strong", {}, JSON.stringify(s.answer)), " · kills ",
        h("strong", {}, plural(s.kills.length, "survivor"))),
      h("ul", { class: "suggestion-kills" },
        s.kills.map((name) => h("li", {}, h("code", {}, name), " ", h("span", { class: "muted" }, gotText(s.got[name]))))),
      h("div", { class: "form-actions" }, add),
      h("p", { class: "field-error", role: "alert", hidden: true })));
}

let current = null;
const POLL_MS = 1500;

function render(data) {
  current = data;
  $("#strength-summary").replaceChildren(...summary(data));
  $("#mutant-count").textContent = `(${data.mutant_count})`;
  $("#mutant-body").replaceChildren(...data.mutants.map(mutantRow));
  $("#suggest-count").textContent = `(${data.suggestions.length})`;
  const list = clear($("#suggestions"));
  if (!data.survivors.length) {
    list.append(h("p", { class: "empty-state-inline", id: "all-killed" },
      "Every mutant is already killed by the tests of every plan (samples, small positions, worst cases) or the hidden boards: there is nothing to suggest."));
  } else {
    data.suggestions.forEach((s, i) => list.append(suggestionCard(s, i)));
    if (data.unkillable.length) {
      list.append(h("p", { class: "alert alert-warning", id: "unkillable" },
        "No small board was found in time for ", names(data.unkillable),
        ". Random boards may still kill them; try drawing one in the board editor."));
    }
  }
  report.hidden = false;
}

async function load() {
  const seeds = seedsSelect.value;
  if (inflight) inflight.abort();
  const controller = new AbortController();
  inflight = controller;
  showLoading(current === null, seeds);
  try {
    const url = `/problems/${encodeURIComponent(slug)}/strength?seeds=${seeds}&suggestions=true`;
    let data = await api(url, { signal: controller.signal });
    // A worker computes the report in the background (202 "computing"): ask again shortly.
    while (data && data.status === "computing" && !controller.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (controller.signal.aborted) return;
      data = await api(url, { signal: controller.signal });
    }
    if (controller.signal.aborted) return;
    clear(status);
    render(data);
  } catch (error) {
    if (error.name === "AbortError") return;
    clear(status).append(h("div", { class: "alert alert-error", id: "strength-error" },
      h("strong", {}, "Could not analyse the tests. "), error.message));
  } finally {
    if (inflight === controller) {
      inflight = null;
      report.classList.remove("is-loading");
    }
  }
}

$("#suggestions")?.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-add]");
  if (!button || !current) return;
  const suggestion = current.suggestions[Number(button.dataset.add)];
  const card = button.closest(".suggestion");
  const error = $(".field-error", card);
  error.hidden = true;
  button.disabled = true;
  button.textContent = "Adding…";
  try {
    const board = await api(`/problems/${encodeURIComponent(slug)}/boards`, {
      method: "POST", json: { input: suggestion.input },
    });
    $("#suggest-note").textContent = `Added as hidden board #${board.id} (answer ${board.answer}).`;
    await load();
  } catch (err) {
    button.disabled = false;
    button.textContent = "Add as hidden board";
    error.textContent = `Could not add the board: ${err.message}`;
    error.hidden = false;
  }
});

if (user.role === "instructor") {
  const asked = new URLSearchParams(location.search).get("seeds");
  if (SEEDS.includes(asked)) seedsSelect.value = asked;
  seedsSelect.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("seeds", seedsSelect.value);
    history.replaceState(null, "", url);
    load();
  });
  load();
}
