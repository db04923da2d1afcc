// The legend: what colour and size mean; label, relationship-type and colour-category
// entries toggle what is shown (a click). Text only (textContent / setAttribute).
import { h, clip } from "./ui.js";

const MAX = 14;

/** @typedef {{name: string, color?: string, n?: number}} Entry  one legend entry */
/** @typedef {(kind: string, name: any) => void} Toggle  a legend entry clicked (kind: label / type / category / range) */
/**
 * @typedef {object} ColorLegend  what colour means (encode.js)
 * @property {string} title
 * @property {string} kind  label / scale / categories / groups
 * @property {Entry[]} [entries]
 * @property {string} [lo]
 * @property {string} [hi]
 * @property {string} [low]
 * @property {string} [high]
 * @property {number} [missing]
 * @property {number} [min]
 * @property {number} [max]
 */
/** @typedef {{title: string, range?: string, missing?: string}} SizeLegend  what size means (encode.js) */
/**
 * @typedef {object} LegendModel
 * @property {ColorLegend} color
 * @property {Entry[]} labels
 * @property {Entry[]} types
 * @property {SizeLegend} size
 * @property {{labels: Set<string>, types: Set<string>, cats: Set<string>, range: number[] | null}} off
 * @property {number} hidden
 * @property {string} edge
 */

/**
 * @param {string} kind
 * @param {Entry} e
 * @param {boolean} off
 * @param {Toggle} toggle
 * @param {boolean} [line]
 */
function entry(kind, e, off, toggle, line) {
  const item = h("span", "gc-item gc-toggle" + (off ? " gc-off" : ""));
  item.setAttribute("data-gestalt-legend", e.name);
  item.setAttribute("role", "button");
  item.setAttribute("aria-pressed", off ? "false" : "true");
  item.tabIndex = 0;
  item.title = (off ? "Show " : "Hide ") + e.name;
  const sw = h("span", line ? "gc-swatch gc-line" : "gc-swatch");
  sw.style.backgroundColor = e.color || ""; // a colour this code made or re-serialised (theme.parseColor)
  item.append(sw, document.createTextNode(clip(e.name, 40)));
  if (e.n) item.append(h("span", "gc-n", " " + e.n.toLocaleString("en-US")));
  const go = (/** @type {Event} */ ev) => {
    ev.preventDefault();
    toggle(kind, e.name);
  };
  item.addEventListener("click", go);
  item.addEventListener("keydown", (ev) => (ev.key === "Enter" || ev.key === " ") && go(ev));
  return item;
}

/**
 * @param {string} kind
 * @param {Entry[]} entries
 * @param {Set<string>} off
 * @param {Toggle} toggle
 * @param {boolean} [line]
 */
function list(kind, entries, off, toggle, line) {
  const out = entries.slice(0, MAX).map((e) => entry(kind, e, off.has(e.name), toggle, line));
  if (entries.length > MAX) out.push(h("span", "gc-item", "+" + (entries.length - MAX) + " more"));
  return out;
}

// Two handles over the ramp: nodes whose value lies outside [low, high] are hidden (on release).
/**
 * @param {ColorLegend & {min: number, max: number}} c
 * @param {number[] | null} range
 * @param {Toggle} toggle
 */
function rangeFilter(c, range, toggle) {
  const box = h("span", "gc-item gc-range");
  const [a, b] = range || [c.min, c.max];
  const handle = (/** @type {number} */ value, /** @type {string} */ name) => {
    const input = h("input", "gc-range-" + name);
    input.type = "range";
    input.min = String(c.min);
    input.max = String(c.max);
    input.step = String((c.max - c.min) / 200);
    input.value = String(value);
    input.setAttribute("aria-label", (name === "lo" ? "lowest " : "highest ") + "value shown");
    input.setAttribute("data-gestalt-range", name);
    return input;
  };
  const lo = handle(a, "lo"), hi = handle(b, "hi");
  const shown = h("span", "gc-n", range ? ` ${fmtNum(a)}–${fmtNum(b)}` : "");
  const go = () => {
    const x = Number(lo.value), y = Number(hi.value);
    toggle("range", x <= c.min && y >= c.max ? null : [x, y]);
  };
  lo.addEventListener("change", go);
  hi.addEventListener("change", go);
  box.append(lo, hi, shown);
  return box;
}

const fmtNum = (/** @type {unknown} */ v) => Number(Number(v).toPrecision(3)).toLocaleString("en-US");

// model: {color: {title, kind, entries | lo/hi/low/high}, labels, types, size: {title, range, missing}, off, hidden}
/**
 * @param {HTMLElement} el
 * @param {LegendModel} m
 * @param {Toggle} toggle
 */
export function renderLegend(el, m, toggle) {
  /** @type {HTMLElement[]} */
  const parts = [];
  const c = m.color || { title: "", kind: "label" };
  parts.push(h("span", "gc-head", c.title || "colour: label"));
  if (c.kind === "scale") {
    const bar = h("span", "gc-item gc-scale");
    const ramp = h("span", "gc-ramp");
    ramp.style.background = `linear-gradient(90deg, ${c.low}, ${c.high})`; // colours made here
    bar.append(document.createTextNode(clip(c.lo, 20) + " "), ramp, document.createTextNode(" " + clip(c.hi, 20)));
    parts.push(bar);
    if (typeof c.min === "number" && typeof c.max === "number" && Number.isFinite(c.min) && Number.isFinite(c.max) && c.max > c.min) parts.push(rangeFilter({ ...c, min: c.min, max: c.max }, m.off.range, toggle));
    if (c.missing) parts.push(h("span", "gc-item gc-muted", c.missing + " without a value: grey"));
  } else if (c.kind === "categories") parts.push(...list("category", c.entries || [], m.off.cats, toggle));
  else if (c.kind === "groups") parts.push(h("span", "gc-item gc-muted", "one per group, members as theirs"));
  else parts.push(...list("label", m.labels || [], m.off.labels, toggle));
  if (c.kind !== "label" && (m.labels || []).length > 1) {
    parts.push(h("span", "gc-head", "labels"));
    // colour means something else here: label entries are filters only (no swatch colour)
    parts.push(...list("label", m.labels.map((l) => ({ ...l, color: "transparent" })), m.off.labels, toggle));
  }
  if ((m.types || []).length) {
    parts.push(h("span", "gc-head", "relationships"));
    parts.push(...list("type", m.types.map((t) => ({ ...t, color: m.edge })), m.off.types, toggle, true));
  }
  const s = m.size || { title: "" };
  parts.push(h("span", "gc-head", (s.title || "size: degree") + (s.range ? " " + s.range : "")));
  if (s.missing) parts.push(h("span", "gc-item gc-muted", s.missing));
  if (m.hidden) parts.push(h("span", "gc-item gc-hidden", m.hidden.toLocaleString("en-US") + " hidden"));
  el.replaceChildren(...parts);
}
