// What the canvas shows: encodings (style), filters (legend clicks and Python's
// canvas.filter), the legend, and the "style" / "layout" / "filter" delta ops.
import { encodeColor, encodeSize } from "./encode.js";
import { renderLegend } from "./legend.js";
import { LAYOUTS } from "./layouts/index.js";

/** @typedef {import("./view.js").CanvasView} View */
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

export class Filters {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  // from the payload's "view": {style, layout, filter}
  /**
   * @param {import("./payload.js").ViewSpec | undefined} v
   */
  readView(v) {
    v = v && typeof v === "object" ? v : {};
    this.view.styleSpec = v.style && typeof v.style === "object" ? v.style : {};
    const l = v.layout && typeof v.layout === "object" ? v.layout : {};
    this.view.layoutSpec = l.name !== undefined && LAYOUTS.includes(l.name) ? { name: l.name, options: l.options || {} } : { name: "force", options: {} };
    this.view.filt = emptyFilter();
    this.view.filtered = new Set();
    this.view.pendingFilter = v.filter || null;
  }

  // colours / sizes for every node (after the graph is built, and on every change of it)
  /**
   * @returns {import("./encode.js").Encodings} the encodings, now in view.enc
   */
  encode() {
    /** @type {import("./encode.js").Encodings} */
    const enc = { color: encodeColor(this.view, this.view.styleSpec.color), size: encodeSize(this.view, this.view.styleSpec.size) };
    this.view.enc = enc;
    return enc;
  }

  /**
   * @param {import("./payload.js").NodeData} d
   * @returns {string}
   * @private
   */
  labelName(d) {
    return d.l >= 0 && this.view.labels[d.l] ? String(this.view.labels[d.l].name) : "(no label)";
  }

  /**
   * @param {string} k
   * @returns {boolean}
   */
  isHiddenNode(k) {
    return this.view.hidden.has(k) || !!(this.view.filtered && this.view.filtered.has(k)) || !!(this.view.absent && this.view.absent.has(k));
  }

  // A relationship is drawn when neither end is hidden and it is neither hidden itself nor marked hidden.
  /**
   * @param {string} k
   * @returns {boolean}
   */
  isDrawnEdge(k) {
    const g = this.view.graph;
    return !this.isHiddenNode(g.source(k)) && !this.isHiddenNode(g.target(k)) && !this.view.hidden.has(k) && !g.getEdgeAttribute(k, "hidden");
  }

  /**
   * @param {import("./payload.js").EdgeData} d
   * @returns {boolean}
   */
  typeHidden(d) {
    const f = this.view.filt;
    if (f && f.cats.size && f.cats.has(/** @type {string} */ (this.view.styles.edgeCategory(d)))) return true; // coloured by a category: filtered by it too
    return !!f && (f.types.size > 0 || f.keepTypes !== null) && off(f.types, f.keepTypes, d.y >= 0 ? String(this.view.types[d.y]) : "(no type)");
  }

  /** @private */
  refilter() {
    const f = this.view.filt;
    /** @type {Set<string>} */
    const out = new Set();
    const cat = this.view.enc && this.view.enc.color.cat;
    // the ramp's range filter [lo, hi], for the colouring it was set on
    const val = f.range && f.rangeOf === JSON.stringify(this.view.styleSpec.color) && this.view.enc && this.view.enc.color.val;
    const range = /** @type {number[]} */ (f.range);
    const outside = (/** @type {string} */ k) => val && val.has(k) && (/** @type {number} */ (val.get(k)) < range[0] || /** @type {number} */ (val.get(k)) > range[1]);
    for (const [k, d] of this.view.nd) {
      if (((f.labels.size || f.keepLabels) && off(f.labels, f.keepLabels, this.labelName(d))) || f.nodes.has(k) || (f.cats.size && cat && f.cats.has(/** @type {string} */ (cat.get(k)))) || outside(k)) out.add(k);
    }
    this.view.filtered = out;
    const sel = [...this.view.selected].filter((k) => !out.has(k));
    if (sel.length !== this.view.selected.size) this.view.actions.setSelection(sel, true);
  }

  /**
   * @returns {number}
   */
  hiddenCount() {
    if (!this.view.filtered) return this.view.hidden.size;
    let n = this.view.filtered.size;
    for (const k of this.view.hidden) if (!this.view.filtered.has(k)) n++;
    return n;
  }

  // a legend entry clicked: hide or show that label, relationship type or colour category
  /**
   * @param {string} kind
   * @param {any} name
   * @private
   */
  toggleLegend(kind, name) {
    const f = this.view.filt;
    if (kind === "range") {
      // name: [lo, hi] from the ramp's two handles (null: the whole range)
      f.range = Array.isArray(name) && name.length === 2 && name.every(Number.isFinite) ? [Math.min(...name), Math.max(...name)] : null;
      f.rangeOf = JSON.stringify(this.view.styleSpec.color);
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
   * @param {boolean} [edgesToo]
   */
  refresh(edgesToo = true) {
    this.refilter();
    this.view.styles.countHighlights();
    this.view.graph.updateEachNodeAttributes((k, a) => this.view.styles.styleNode(k, a), {
      attributes: ["color", "size", "label", "hidden", "forceLabel", "ringColor", "ringSize", "gapColor"],
    });
    if (edgesToo) {
      this.view.graph.updateEachEdgeAttributes((k, a) => this.view.styles.styleEdge(k, a), {
        attributes: ["color", "size", "type", "label", "forceLabel", "hidden"],
      });
    }
    this.updateLegend();
    this.view.actions.updateCount();
  }

  /**
   * @param {import("./protocol.js").StyleOp} op
   */
  applyStyleOp(op) {
    const next = { ...this.view.styleSpec };
    if (op.color) next.color = op.color;
    if (op.size) next.size = op.size;
    if (op.caption) next.caption = op.caption;
    this.view.styleSpec = next;
    // values of the colour property the payload had left out (nodes with very many properties)
    const named = [op.color, op.size].filter((s) => s && s.name).map((s) => String(/** @type {{name: string}} */ (s).name));
    if (op.values && typeof op.values === "object" && named.length) {
      for (const [k, v] of Object.entries(op.values)) {
        const d = this.view.nd.get(k);
        if (d && v !== null && typeof v === "object") for (const name of named) if (name in v) d.p = { ...(d.p || {}), [name]: v[name] };
      }
    }
    if (op.captions && typeof op.captions === "object") {
      for (const [k, c] of Object.entries(op.captions)) {
        const d = this.view.nd.get(k);
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
   * @param {import("./protocol.js").FilterOp} op
   */
  applyFilterOp(op) {
    const f = emptyFilter();
    const all = (/** @type {string[] | undefined} */ list) => new Set((list || []).map(String));
    if (Array.isArray(op.labels)) f.keepLabels = all(op.labels); // also hides labels an expansion brings later
    if (Array.isArray(op.types)) f.keepTypes = all(op.types);
    if (Array.isArray(op.hide)) f.nodes = all(op.hide);
    this.view.filt = f;
    this.refresh();
  }

  updateLegend() {
    /** @type {Map<number, number>} */
    const counts = new Map();
    const gone = this.view.absent; // a time slider's moment: its nodes are counted, not every moment's (nor its faded ones)
    for (const [k, d] of this.view.nd) if (!gone || !(gone.has(k) || d.o)) counts.set(d.l, (counts.get(d.l) || 0) + 1);
    /** @type {import("./legend.js").Entry[]} */
    const labels = [];
    this.view.labels.forEach((lab, i) => {
      if (lab && counts.get(i)) labels.push({ name: String(lab.name), color: this.view.labelColors[i] || this.view.theme.node, n: counts.get(i) });
    });
    if (counts.get(-1)) labels.push({ name: "(no label)", color: this.view.theme.node, n: counts.get(-1) });
    /** @type {Map<number, number>} */
    const tc = new Map();
    for (const [k, d] of this.view.ed) if (!gone || !(gone.has(k) || d.o)) tc.set(d.y, (tc.get(d.y) || 0) + 1);
    /** @type {import("./legend.js").Entry[]} */
    const types = [];
    this.view.types.forEach((t, i) => tc.get(i) && types.push({ name: String(t), n: tc.get(i) }));
    const enc = this.view.enc || { color: { legend: { title: "colour: label", kind: "label" } }, size: { legend: { title: "size: degree" } } };
    const f = this.view.filt;
    /** @type {(list: import("./legend.js").Entry[], set: Set<string>, keep: Set<string> | null) => Set<string>} */
    const offOf = (list, set, keep) => new Set(list.filter((e) => off(set, keep, e.name)).map((e) => e.name));
    renderLegend(this.view.ui.legend, {
      color: enc.color.legend,
      labels,
      types,
      size: enc.size.legend,
      off: { labels: offOf(labels, f.labels, f.keepLabels), types: offOf(types, f.types, f.keepTypes), cats: f.cats, range: f.range && f.rangeOf === JSON.stringify(this.view.styleSpec.color) ? f.range : null },
      hidden: this.hiddenCount(),
      edge: this.view.theme.edge,
    }, (kind, name) => this.toggleLegend(kind, name));
  }

  // ---- the testing contract ---------------------------------------------------------
  /**
   * @param {string} k
   */
  nodeStyle(k) {
    if (!this.view.graph.hasNode(k)) return null;
    const a = this.view.graph.getNodeAttributes(k);
    const r = this.view.renderer;
    const d = r && r.getNodeDisplayData(k);
    return { color: a.color, size: d ? r.scaleSize(d.size) : a.size, hidden: this.isHiddenNode(k) };
  }

  // the node nearest to a click (viewport px), among those within `reach` px of their rim
  /**
   * @param {number} x
   * @param {number} y
   * @param {number} [reach]
   * @returns {string | null}
   */
  nearestNode(x, y, reach = 4) {
    const r = this.view.renderer;
    if (!r) return null;
    let best = null, bestD = Infinity;
    this.view.graph.forEachNode((k) => {
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
