// A pair of submissions side by side (instructors): each source with the fragments it
// shares with the other highlighted and numbered alike; a click on a fragment scrolls the
// other side to its match. Who submitted first is in the summary and the side's title.
import { api, requireUser } from "../api.js";
import { $, clear, formatDate, h, pageAlert, pageData } from "../dom.js";

const user = await requireUser();
const { id } = pageData();

// The source as text and <mark>s, one per fragment ([start, end) character offsets; the
// fragments of one side never overlap, but may come in any order).
function render(node, source, spans, other) {
  clear(node);
  const sorted = spans.map((span, index) => ({ span, index })).sort((x, y) => x.span[0] - y.span[0]);
  let at = 0;
  for (const { span, index } of sorted) {
    const [start, end] = span;
    if (start < at) continue;
    node.append(source.slice(at, start));
    node.append(h("mark", {
      id: `${node.id}-${index}`,
      class: "similarity-fragment",
      title: `Fragment ${index + 1}`,
      onclick: () => $(`#${other}-${index}`)?.scrollIntoView({ block: "center", behavior: "smooth" }),
    }, h("sup", {}, String(index + 1)), source.slice(start, end)));
    at = end;
  }
  node.append(source.slice(at));
}

async function load() {
  let pair;
  try {
    pair = await api(`/similarity/pairs/${id}`);
  } catch (error) {
    pageAlert(error.message);
    return;
  }
  const aFirst = Date.parse(pair.submitted_a) <= Date.parse(pair.submitted_b);
  $("#pair-title").textContent = `${pair.user_a} and ${pair.user_b}: ${pair.problem}`;
  $("#pair-summary").textContent =
    `Score ${Math.round(pair.score * 100)}% (${Math.round(pair.a_coverage * 100)}% of ${pair.user_a}'s code, ` +
    `${Math.round(pair.b_coverage * 100)}% of ${pair.user_b}'s), ${pair.matched} tokens shared. ` +
    `${pair.first} submitted first.` + (pair.reviewed ? " Reviewed: not copied." : "");
  $("#side-a-title").textContent = `${pair.user_a}, submission ${pair.submission_a}, ${formatDate(pair.submitted_a)}${aFirst ? " (first)" : ""}`;
  $("#side-b-title").textContent = `${pair.user_b}, submission ${pair.submission_b}, ${formatDate(pair.submitted_b)}${aFirst ? "" : " (first)"}`;
  render($("#side-a"), pair.source_a, pair.fragments.map((f) => f.a), "side-b");
  render($("#side-b"), pair.source_b, pair.fragments.map((f) => f.b), "side-a");
  const button = $("#pair-review");
  button.textContent = pair.reviewed ? "Undo: reviewed, not copied" : "Mark reviewed: not copied";
  button.onclick = async () => {
    try {
      await api(`/similarity/pairs/${id}/review`, { method: "PUT", json: { reviewed: !pair.reviewed } });
      await load();
    } catch (error) {
      pageAlert(error.message);
    }
  };
}

if (user.role === "instructor") await load();
