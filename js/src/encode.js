// Encodings: what a node's colour and size mean, computed over the drawn graph.
// The spec comes from Python ({color: {by, name}, size: {by, name}}); values are
// read from the properties the payload carries (text and numbers only).
import { parseColor, toHex } from "./theme.js";
import { communities, pagerank } from "./metrics.js";

/** @typedef {{graph: import("./payload.js").GraphT, nd: Map<string, import("./payload.js").NodeData>, theme?: import("./theme.js").Theme, areaScale?: {graph: import("./payload.js").GraphT, hi: number}}} Drawn  what an encoding reads of the view (and, for an overview, its area scale kept) */
/** @typedef {import("./protocol.js").ColorSpec} ColorSpec */
/** @typedef {import("./protocol.js").SizeSpec} SizeSpec */
/**
 * @typedef {object} ColorEncoding  the colour of every node (null `of`: by label)
 * @property {string} by
 * @property {Map<string, string> | null} of  node -> colour
 * @property {Map<string, string | null> | null} cat  node -> its category (the legend's filter)
 * @property {Map<string, unknown>} [val]  node -> its number (a ramp: the legend's range filter)
 * @property {string} [prop]  categories of this property: a relationship that has it is coloured (and filtered) alike
 * @property {Map<string, string>} [colours]  category -> its colour
 * @property {import("./legend.js").ColorLegend} legend
 */
/** @typedef {{by: string, of: Map<string, number> | null, legend: import("./legend.js").SizeLegend}} SizeEncoding  the size factor of every node (null `of`: by degree) */
/** @typedef {{color: ColorEncoding, size: SizeEncoding}} Encodings */

// 12 well-separated colours (min CIELAB distance 30 between any two; same as render/palette.py)
export const CATEGORY_PALETTE = [
  "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
  "#b07aa1", "#ff9da7", "#9c755f", "#f032e6", "#cf1c90", "#cedb9c",
];
export const OTHER = "#9aa0a6";
// viridis: lightness grows with the value
const SEQUENTIAL = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"];
const SEQ_RGB = SEQUENTIAL.map((c) => parseColor(c) || [0, 0, 0, 1]);
export const SIZE_METRICS = ["degree", "in_degree", "out_degree", "pagerank"];
export const MEMBER_SIZE = 0.5; // an overview's drilled member (one node): its dot, as a share of the base size

/** @param {number} t */
export function sequential(t) {
  t = Math.max(0, Math.min(1, Number.isFinite(t) ? t : 0));
  const x = t * (SEQ_RGB.length - 1);
  const i = Math.min(SEQ_RGB.length - 2, Math.floor(x));
  const f = x - i, a = SEQ_RGB[i], b = SEQ_RGB[i + 1];
  return toHex([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, 1]);
}

const isNum = (/** @type {unknown} */ v) => typeof v === "number" && Number.isFinite(v);
const fmt = (/** @type {number} */ v) => (Number.isInteger(v) ? v.toLocaleString("en-US") : Number(v.toPrecision(3)).toLocaleString("en-US"));

/**
 * @param {import("./payload.js").NodeData | undefined} d
 * @param {string | undefined} name
 * @returns {unknown}
 */
function propValue(d, name) {
  if (!d || !d.p || !Object.prototype.hasOwnProperty.call(d.p, /** @type {string} */ (name))) return undefined;
  const v = d.p[/** @type {string} */ (name)];
  return v === null ? undefined : v;
}

// Colours on a sequential scale over the values' range (nodes without one: grey).
/**
 * @param {Drawn} view
 * @param {string} by
 * @param {string} name
 * @param {Map<string, unknown>} values  node -> its number
 * @param {number[]} nums
 * @param {Map<string, string | null>} cat
 * @param {Map<string, string>} out
 * @returns {ColorEncoding}
 */
function rampColors(view, by, name, values, nums, cat, out) {
  let lo = Infinity, hi = -Infinity;
  for (const v of nums) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  // on a dark background the darkest end of the scale would vanish: start it a little lighter
  const t0 = view.theme && view.theme.dark ? 0.18 : 0;
  const at = (/** @type {number} */ t) => sequential(t0 + (1 - t0) * t);
  view.graph.forEachNode((k) => {
    const v = /** @type {number | undefined} */ (values.get(k));
    out.set(k, v === undefined ? OTHER : at(hi > lo ? (v - lo) / (hi - lo) : 0.5));
  });
  const missing = view.graph.order - values.size;
  const legend = { title: "colour: " + name, kind: "scale", lo: fmt(lo), hi: fmt(hi), low: at(0), high: at(1), missing, min: lo, max: hi };
  return { by, of: out, cat, val: values, legend }; // val: the numbers, for the legend's range filter
}

// An overview coloured by group (labels do not tell its groups apart): each group the colour of its slot (Python's
// grouped/colours.py: the same every time, linked groups apart), a drilled member its group's, "other" groups grey.
/**
 * @param {Drawn} view
 * @param {Map<string, string>} out
 * @returns {ColorEncoding}
 */
function groupColors(view, out) {
  view.graph.forEachNode((k) => {
    const d = view.nd.get(k), slot = d ? d.k : -1;
    out.set(k, slot >= 0 ? CATEGORY_PALETTE[slot % CATEGORY_PALETTE.length] : OTHER);
  });
  return { by: "group", of: out, cat: null, legend: { title: "colour: group", kind: "groups" } };
}

// Colour of every node: {of: Map key -> colour, cat: Map key -> category text | undefined, legend}
/**
 * @param {Drawn} view
 * @param {ColorSpec | undefined} spec
 * @returns {ColorEncoding}
 */
export function encodeColor(view, spec) {
  const by = (spec && spec.by) || "label";
  /** @type {Map<string, string>} */
  const out = new Map();
  /** @type {Map<string, string | null>} */
  const cat = new Map();
  if (by === "label") return { by, of: null, cat: null, legend: { title: "colour: label", kind: "label" } };
  if (by === "group") return groupColors(view, out);
  /** @type {Map<string, unknown>} */
  const values = new Map();
  if (by === "community") {
    for (const [k, c] of communities(view.graph)) values.set(k, "community " + (c + 1));
  } else {
    view.graph.forEachNode((k) => {
      const v = propValue(view.nd.get(k), spec && spec.name);
      if (v !== undefined) values.set(k, v);
    });
  }
  const name = by === "community" ? "community" : String(spec && spec.name);
  const nums = /** @type {number[]} */ ([...values.values()]);
  const numeric = by !== "community" && nums.length > 0 && nums.every(isNum);
  // a number with few values (voltage levels, codes) reads as categories; spec.as forces either
  const as = spec && spec.as;
  const ramp = numeric && (as === "ramp" || (as !== "categories" && new Set(nums).size > 12));
  if (ramp) return rampColors(view, by, name, values, nums, cat, out);
  // categories: the most frequent first (few numbers: by value), then "other"
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const v of values.values()) {
    const s = typeof v === "object" ? JSON.stringify(v) : String(v);
    counts.set(s, (counts.get(s) || 0) + 1);
  }
  const order = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (numeric && order.length <= CATEGORY_PALETTE.length) order.sort((a, b) => Number(a[0]) - Number(b[0])); // by value
  const colourOf = categoryColours(order.slice(0, CATEGORY_PALETTE.length).map(([s]) => s), spec && spec.colours);
  const otherName = order.length > CATEGORY_PALETTE.length ? "other" : null;
  view.graph.forEachNode((k) => {
    const v = values.get(k);
    if (v === undefined) {
      out.set(k, OTHER);
      cat.set(k, "(no value)");
      return;
    }
    const s = typeof v === "object" ? JSON.stringify(v) : String(v);
    const c = colourOf.get(s);
    out.set(k, c || OTHER);
    cat.set(k, c ? s : otherName);
  });
  /** @type {import("./legend.js").Entry[]} */
  const entries = order.slice(0, CATEGORY_PALETTE.length).map(([s, n]) => ({ name: s, color: colourOf.get(s), n }));
  if (otherName) entries.push({ name: otherName, color: OTHER, n: order.slice(CATEGORY_PALETTE.length).reduce((a, e) => a + e[1], 0) });
  const none = view.graph.order - values.size;
  if (none) entries.push({ name: "(no value)", color: OTHER, n: none });
  const prop = by === "community" ? undefined : name;
  return { by, of: out, cat, prop, colours: colourOf, legend: { title: "colour: " + name, kind: "categories", entries } };
}

// Each category's colour: those the spec names (a diff's added / changed / removed / same: the same meaning in the
// same colour in every drawing) their own, checked as "#rrggbb"; the others the palette's in order, skipping those taken.
/**
 * @param {string[]} categories  most frequent first
 * @param {Record<string, string> | undefined} given
 * @returns {Map<string, string>}
 */
function categoryColours(categories, given) {
  /** @type {Map<string, string>} */
  const colourOf = new Map();
  const own = (/** @type {string} */ s) => (given && Object.prototype.hasOwnProperty.call(given, s) && /^#[0-9a-f]{6}$/i.test(given[s]) ? given[s] : null);
  for (const s of categories) {
    const c = own(s);
    if (c) colourOf.set(s, c);
  }
  const taken = new Set(colourOf.values());
  const free = CATEGORY_PALETTE.filter((c) => !taken.has(c));
  for (const s of categories) if (!colourOf.has(s)) colourOf.set(s, free.shift() || OTHER);
  return colourOf;
}

/**
 * @param {Drawn} view
 * @param {string} by
 * @returns {Map<string, number>}
 */
function metric(view, by) {
  const g = view.graph;
  /** @type {Map<string, number>} */
  const vals = new Map();
  if (by === "pagerank") return pagerank(g);
  g.forEachNode((k) => {
    vals.set(k, by === "in_degree" ? g.inDegree(k) : by === "out_degree" ? g.outDegree(k) : g.degree(k));
  });
  return vals;
}

// Size factor of every node (1 = the base size): {of: Map key -> factor, legend}
/**
 * @param {Drawn} view
 * @param {SizeSpec | undefined} spec
 * @returns {SizeEncoding}
 */
export function encodeSize(view, spec) {
  const by = (spec && spec.by) || "default";
  if (by === "default") return { by, of: null, legend: { title: "size: degree" } };
  /** @type {Map<string, number>} */
  let vals;
  if (SIZE_METRICS.includes(by)) vals = metric(view, by);
  else {
    const found = (vals = new Map());
    view.graph.forEachNode((k) => {
      const v = propValue(view.nd.get(k), spec && spec.name);
      if (isNum(v)) found.set(k, /** @type {number} */ (v));
    });
  }
  let lo = Infinity, hi = -Infinity;
  for (const v of vals.values()) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  // an overview's area scale stays that of its biggest group, drilled or not: opening a group rescales nothing
  const area = Boolean(spec && spec.area && vals.size);
  const kept = view.areaScale && view.areaScale.graph === view.graph ? view.areaScale.hi : 0;
  const scale = area ? Math.max(hi, kept) : hi;
  if (area) view.areaScale = { graph: view.graph, hi: scale };
  /** @type {Map<string, number>} */
  const of = new Map();
  view.graph.forEachNode((k) => {
    const v = vals.get(k);
    // monotone: area grows linearly with the value; no value = the smallest size
    const t = v === undefined || !(hi > lo) ? (v === undefined ? 0 : 0.5) : (v - lo) / (hi - lo);
    // spec.area (an overview): area proportional to the value itself, so twice the members is twice the ink
    // (a node without the value there is a drilled group's member: one node, a small dot)
    of.set(k, spec && spec.area && scale > 0 ? (v === undefined ? MEMBER_SIZE : Math.max(0.3, 3 * Math.sqrt(Math.max(0, v) / scale))) : 0.7 + 2.1 * Math.sqrt(Math.max(0, t)));
  });
  const name = by === "property" ? String(spec && spec.name) : by.replace("_", "-");
  const missing = view.graph.order - vals.size;
  const range = vals.size ? (by === "pagerank" ? lo.toFixed(4) + " – " + hi.toFixed(4) : fmt(lo) + " – " + fmt(hi)) : "no values";
  const alone = spec && spec.area ? `· ${missing.toLocaleString("en-US")} ${missing === 1 ? "member" : "members"}, one dot each` : missing + " without a value: smallest";
  return { by, of, legend: { title: spec && spec.title ? String(spec.title) : "size: " + name, range, missing: missing ? alone : "" } };
}
