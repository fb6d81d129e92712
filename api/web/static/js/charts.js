// Charts drawn as inline SVG (no chart library). Each chart scales with its container
// (viewBox) and carries an aria-label; the pages put the same numbers in a table too.

import { svg } from "./dom.js";

function niceStep(max, ticks = 4) {
  if (max <= ticks) return 1;
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  const nice = unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10;
  return nice * power;
}

// Horizontal bars: items [{label, value, className}].
export function barChart(items, { label, width = 560 } = {}) {
  const rowHeight = 30;
  const labelWidth = 64;
  const valueWidth = 56;
  const top = 6;
  const height = top * 2 + items.length * rowHeight;
  const max = Math.max(1, ...items.map((item) => item.value));
  const total = items.reduce((sum, item) => sum + item.value, 0);
  const barSpace = width - labelWidth - valueWidth;
  const chart = svg("svg", {
    class: "chart chart-bars",
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": label || items.map((item) => `${item.label}: ${item.value}`).join(", "),
  });
  items.forEach((item, i) => {
    const y = top + i * rowHeight;
    const w = item.value ? Math.max(2, (item.value / max) * barSpace) : 0;
    const share = total ? Math.round((item.value / total) * 100) : 0;
    const group = svg("g", { class: "chart-row" },
      svg("title", {}, `${item.title || item.label}: ${item.value} (${share}%)`),
      svg("text", { x: labelWidth - 10, y: y + rowHeight / 2, class: "chart-label", "text-anchor": "end", "dominant-baseline": "middle" }, item.label),
      svg("rect", { x: labelWidth, y: y + 5, width: barSpace, height: rowHeight - 10, rx: 4, class: "chart-track" }),
      svg("rect", { x: labelWidth, y: y + 5, width: w, height: rowHeight - 10, rx: 4, class: ["chart-bar", item.className] }),
      svg("text", { x: labelWidth + barSpace + 8, y: y + rowHeight / 2, class: "chart-value", "dominant-baseline": "middle" },
        item.value ? `${item.value}` : "0"),
    );
    chart.appendChild(group);
  });
  return chart;
}

function shortDate(iso) {
  const [, month, day] = iso.split("-").map(Number);
  const names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  return `${day} ${names[month - 1]}`;
}

// Columns per day, accepted stacked under the rest: days [{date, total, accepted}].
export function dayChart(days, { label, width = 640, height = 240 } = {}) {
  const left = 36;
  const right = 8;
  const top = 12;
  const bottom = 28;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...days.map((d) => d.total));
  const step = niceStep(max);
  const yMax = Math.ceil(max / step) * step;
  const chart = svg("svg", {
    class: "chart chart-days",
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": label || `Submissions per day over ${days.length} days`,
  });
  for (let v = 0; v <= yMax; v += step) {
    const y = top + plotH - (v / yMax) * plotH;
    chart.appendChild(svg("line", { x1: left, x2: width - right, y1: y, y2: y, class: "chart-grid" }));
    chart.appendChild(svg("text", { x: left - 6, y, class: "chart-axis", "text-anchor": "end", "dominant-baseline": "middle" }, v));
  }
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(28, slot * 0.7));
  const maxLabels = Math.max(2, Math.floor(plotW / 56)); // room for "30 Nov" each
  const labelEvery = Math.max(1, Math.ceil(days.length / maxLabels));
  days.forEach((day, i) => {
    const x = left + i * slot + (slot - barW) / 2;
    const totalH = (day.total / yMax) * plotH;
    const acceptedH = (day.accepted / yMax) * plotH;
    const base = top + plotH;
    const group = svg("g", { class: "chart-day" },
      svg("title", {}, `${day.date}: ${day.total} submissions, ${day.accepted} accepted`),
      svg("rect", { x: left + i * slot, y: top, width: slot, height: plotH, class: "chart-hover" }),
      svg("rect", { x, y: base - totalH, width: barW, height: totalH, rx: 2, class: "chart-bar chart-bar-other" }),
      svg("rect", { x, y: base - acceptedH, width: barW, height: acceptedH, rx: 2, class: "chart-bar chart-bar-ac" }),
    );
    chart.appendChild(group);
    if ((days.length - 1 - i) % labelEvery === 0) { // counted back from today, which is always labelled
      chart.appendChild(svg("text", { x: left + i * slot + slot / 2, y: height - 8, class: "chart-axis", "text-anchor": "middle" }, shortDate(day.date)));
    }
  });
  chart.appendChild(svg("line", { x1: left, x2: width - right, y1: top + plotH, y2: top + plotH, class: "chart-baseline" }));
  return chart;
}
