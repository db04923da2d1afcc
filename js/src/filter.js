// What the canvas shows: encodings (style), filters (legend clicks and Python's
// canvas.filter), the legend, and the "style" / "layout" / "filter" delta ops.
import { encodeColor, encodeSize } from "./encode.js";
import { renderLegend } from "./legend.js";
import { LAYOUTS } from "./layouts/index.js";
import { ViewState } from "./state.js";

/** @typedef {import("./index.js").View} View */
/** @typedef {{color?: import("./protocol.js").ColorSpec, size?: import("./protocol.js").SizeSpec, caption?: string}} StyleSpec  the encodings in force */
/** @typedef {import("./layouts/index.js").LayoutSpec} LayoutSpec */
/**
 * @typedef {object} Filter  what the legend and Python's canvas.filter hide
 * @property {Set<string>} labels  hidden by name
 * @property {Set<string>} types
 * @property {Set<string>} cats  colour categories
 * @property {Set<string>} nodes  by key
 * @property {Set<string> | null} keepLabels  Python's "only these" (null: all)
 * @property {Set<string> | null} keepTypes
 * @property {number[] | null} [range]  the ramp's [lo, hi]
 * @property {string} [rangeOf]  the colouring it was set on (JSON)
 */

// labels / types / cats: hidden by name; keepLabels / keepTypes (Python's "only these"): null = all
/** @returns {Filter} */
const emptyFilter = () => ({ labels: new Set(), types: new Set(), cats: new Set(), nodes: new Set(), keepLabels: null, keepTypes: null });
/** @type {(set: Set<string>, keep: Set<string> | null, name: string) => boolean} */
const off = (set, keep, name) => set.has(name) || (keep !== null && !keep.has(name));

export class FilterMethods extends ViewState {
  // from the payload's "view": {style, layout, filter}
  /**
   * @this {View}
   * @param {import("./payload.js").ViewSpec | undefined} v
   */
  readView(v) {
    v = v && typeof v === "object" ? v : {};
    this.styleSpec = v.style && typeof v.style === "object" ? v.style : {};
    const l = v.layout && typeof v.layout === "object" ? v.layout : {};
    this.layoutSpec = l.name !== undefined && LAYOUTS.includes(l.name) ? { name: l.name, options: l.options || {} } : { name: "force", options: {} };
    this.filt = emptyFilter();
    this.filtered = new Set();
    this.pendingFilter = v.filter || null;
  }

  // colours / sizes for every node (after the graph is built, and on every change of it)
  /**
   * @this {View}
   * @returns {import("./encode.js").Encodings} the encodings, now in this.enc
   */
  encode() {
    /** @type {import("./encode.js").Encodings} */
    const enc = { color: encodeColor(this, this.styleSpec.color), size: encodeSize(this, this.styleSpec.size) };
    this.enc = enc;
    return enc;
  }

  /**
   * @this {View}
   * @param {import("./payload.js").NodeData} d
   * @returns {string}
   */
  labelName(d) {
    return d.l >= 0 && this.labels[d.l] ? String(this.labels[d.l].name) : "(no label)";
  }

  /**
   * @this {View}
   * @param {string} k
   * @returns {boolean}
   */
  isHiddenNode(k) {
    return this.hidden.has(k) || !!(this.filtered && this.filtered.has(k));
  }

  /**
   * @this {View}
   * @param {import("./payload.js").EdgeData} d
   * @returns {boolean}
   */
  typeHidden(d) {
    const f = this.filt;
    return !!f && (f.types.size > 0 || f.keepTypes !== null) && off(f.types, f.keepTypes, d.y >= 0 ? String(this.types[d.y]) : "(no type)");
  }

  /** @this {View} */
  refilter() {
    const f = this.filt;
    /** @type {Set<string>} */
    const out = new Set();
    const cat = this.enc && this.enc.color.cat;
    // the ramp's range filter [lo, hi], for the colouring it was set on
    const val = f.range && f.rangeOf === JSON.stringify(this.styleSpec.color) && this.enc && this.enc.color.val;
    const range = /** @type {number[]} */ (f.range);
    const outside = (/** @type {string} */ k) => val && val.has(k) && (/** @type {number} */ (val.get(k)) < range[0] || /** @type {number} */ (val.get(k)) > range[1]);
    for (const [k, d] of this.nd) {
      if (((f.labels.size || f.keepLabels) && off(f.labels, f.keepLabels, this.labelName(d))) || f.nodes.has(k) || (f.cats.size && cat && f.cats.has(/** @type {string} */ (cat.get(k)))) || outside(k)) out.add(k);
    }
    this.filtered = out;
    const sel = [...this.selected].filter((k) => !out.has(k));
    if (sel.length !== this.selected.size) this.setSelection(sel, true);
  }

  /**
   * @this {View}
   * @returns {number}
   */
  hiddenCount() {
    if (!this.filtered) return this.hidden.size;
    let n = this.filtered.size;
    for (const k of this.hidden) if (!this.filtered.has(k)) n++;
    return n;
  }

  // a legend entry clicked: hide or show that label, relationship type or colour category
  /**
   * @this {View}
   * @param {string} kind
   * @param {any} name
   */
  toggleLegend(kind, name) {
    const f = this.filt;
    if (kind === "range") {
      // name: [lo, hi] from the ramp's two handles (null: the whole range)
      f.range = Array.isArray(name) && name.length === 2 && name.every(Number.isFinite) ? [Math.min(...name), Math.max(...name)] : null;
      f.rangeOf = JSON.stringify(this.styleSpec.color);
      return this.refresh();
    }
    const [set, keepName] = kind === "type" ? [f.types, "keepTypes"] : kind === "category" ? [f.cats, null] : [f.labels, "keepLabels"];
    const keep = keepName ? f[/** @type {"keepTypes" | "keepLabels"} */ (keepName)] : null;
    if (off(set, keep, name)) {
      set.delete(name);
      if (keep) keep.add(name);
    } else set.add(name);
    this.refresh();
  }

  // everything that depends on style or filter state, redrawn in one pass (positions untouched).
  // The hints name no layout field, so sigma repaints in place without re-indexing (a full
  // refresh of 10k nodes costs ~1 s in software WebGL); edges only when a filter changed.
  /**
   * @this {View}
   * @param {boolean} [edgesToo]
   */
  refresh(edgesToo = true) {
    this.refilter();
    this.styles.countHighlights();
    this.graph.updateEachNodeAttributes((k, a) => this.styles.styleNode(k, a), {
      attributes: ["color", "size", "label", "hidden", "forceLabel", "ringColor", "ringSize", "gapColor"],
    });
    if (edgesToo) {
      this.graph.updateEachEdgeAttributes((k, a) => this.styles.styleEdge(k, a), {
        attributes: ["color", "size", "type", "label", "forceLabel", "hidden"],
      });
    }
    this.updateLegend();
    this.updateCount();
  }

  /**
   * @this {View}
   * @param {import("./protocol.js").StyleOp} op
   */
  applyStyleOp(op) {
    const next = { ...this.styleSpec };
    if (op.color) next.color = op.color;
    if (op.size) next.size = op.size;
    if (op.caption) next.caption = op.caption;
    this.styleSpec = next;
    // values of the colour property the payload had left out (nodes with very many properties)
    const named = [op.color, op.size].filter((s) => s && s.name).map((s) => String(/** @type {{name: string}} */ (s).name));
    if (op.values && typeof op.values === "object" && named.length) {
      for (const [k, v] of Object.entries(op.values)) {
        const d = this.nd.get(k);
        if (d && v !== null && typeof v === "object") for (const name of named) if (name in v) d.p = { ...(d.p || {}), [name]: v[name] };
      }
    }
    if (op.captions && typeof op.captions === "object") {
      for (const [k, c] of Object.entries(op.captions)) {
        const d = this.nd.get(k);
        if (d) {
          d.c = String(c);
          d.lc = d.c.toLowerCase();
        }
      }
    }
    this.encode();
    this.refresh(false);
  }

  /**
   * @this {View}
   * @param {import("./protocol.js").FilterOp} op
   */
  applyFilterOp(op) {
    const f = emptyFilter();
    const all = (/** @type {string[] | undefined} */ list) => new Set((list || []).map(String));
    if (Array.isArray(op.labels)) f.keepLabels = all(op.labels); // also hides labels an expansion brings later
    if (Array.isArray(op.types)) f.keepTypes = all(op.types);
    if (Array.isArray(op.hide)) f.nodes = all(op.hide);
    this.filt = f;
    this.refresh();
  }

  /** @this {View} */
  updateLegend() {
    /** @type {Map<number, number>} */
    const counts = new Map();
    for (const d of this.nd.values()) counts.set(d.l, (counts.get(d.l) || 0) + 1);
    /** @type {import("./legend.js").Entry[]} */
    const labels = [];
    this.labels.forEach((lab, i) => {
      if (lab && counts.get(i)) labels.push({ name: String(lab.name), color: this.labelColors[i] || this.theme.node, n: counts.get(i) });
    });
    if (counts.get(-1)) labels.push({ name: "(no label)", color: this.theme.node, n: counts.get(-1) });
    /** @type {Map<number, number>} */
    const tc = new Map();
    for (const d of this.ed.values()) tc.set(d.y, (tc.get(d.y) || 0) + 1);
    /** @type {import("./legend.js").Entry[]} */
    const types = [];
    this.types.forEach((t, i) => tc.get(i) && types.push({ name: String(t), n: tc.get(i) }));
    const enc = this.enc || { color: { legend: { title: "colour: label", kind: "label" } }, size: { legend: { title: "size: degree" } } };
    const f = this.filt;
    /** @type {(list: import("./legend.js").Entry[], set: Set<string>, keep: Set<string> | null) => Set<string>} */
    const offOf = (list, set, keep) => new Set(list.filter((e) => off(set, keep, e.name)).map((e) => e.name));
    renderLegend(this.ui.legend, {
      color: enc.color.legend,
      labels,
      types,
      size: enc.size.legend,
      off: { labels: offOf(labels, f.labels, f.keepLabels), types: offOf(types, f.types, f.keepTypes), cats: f.cats, range: f.range && f.rangeOf === JSON.stringify(this.styleSpec.color) ? f.range : null },
      hidden: this.hiddenCount(),
      edge: this.theme.edge,
    }, (kind, name) => this.toggleLegend(kind, name));
  }

  // ---- the testing contract ---------------------------------------------------------
  /**
   * @this {View}
   * @param {string} k
   */
  nodeStyle(k) {
    if (!this.graph.hasNode(k)) return null;
    const a = this.graph.getNodeAttributes(k);
    const r = this.renderer;
    const d = r && r.getNodeDisplayData(k);
    return { color: a.color, size: d ? r.scaleSize(d.size) : a.size, hidden: this.isHiddenNode(k) };
  }

  // the node nearest to a click (viewport px), among those within `reach` px of their rim
  /**
   * @this {View}
   * @param {number} x
   * @param {number} y
   * @param {number} [reach]
   * @returns {string | null}
   */
  nearestNode(x, y, reach = 4) {
    const r = this.renderer;
    if (!r) return null;
    let best = null, bestD = Infinity;
    this.graph.forEachNode((k) => {
      if (this.isHiddenNode(k)) return;
      const d = r.getNodeDisplayData(k);
      if (!d) return;
      const p = r.framedGraphToViewport(d);
      const dist = Math.hypot(p.x - x, p.y - y);
      if (dist <= r.scaleSize(d.size) + reach && dist < bestD) (best = k), (bestD = dist);
    });
    return best;
  }
}
