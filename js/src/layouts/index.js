// Layout switching on a live canvas: "force" (pivot-MDS start + ForceAtlas2),
// "layered", "radial", "circular", "grid", "positions". Nodes move in place (same
// renderer, animated for smaller graphs); pinned nodes keep their place.
import { layered } from "./layered.js";
import { radial, circular, grid, positions } from "./simple.js";
import { startPositions, SPACING } from "../layout.js";

/** @typedef {import("../view.js").CanvasView} View */
/** @typedef {{name: string, options?: Record<string, unknown>}} LayoutSpec  a layout and its options */

export const LAYOUTS = ["force", "layered", "radial", "circular", "grid", "positions"];
const f32 = Math.fround;

// nodes by label, then caption, numbers in captions by value ("node 2" before "node 10"):
// neighbours in the list look alike
const collate = new Intl.Collator(undefined, { numeric: true }).compare;
/**
 * @param {View} view
 * @param {string[]} keys
 * @returns {number[]}
 */
function tidyOrder(view, keys) {
  const order = keys.map((k, i) => i);
  const d = keys.map((k) => view.nd.get(k));
  order.sort((a, b) => d[a].l - d[b].l || collate(d[a].lc, d[b].lc));
  return order;
}

// Target positions {key: [x, y]} of the named layout (force: its start positions).
/**
 * @typedef {object} Targets  where a layout puts the nodes
 * @property {Map<string, number[]> | null} pos  by key (null: nothing to place)
 * @property {string | null} note  what the person should know (shown over the drawing)
 * @property {number[] | null} [spacing]  the slot distance as a share of the drawing's extent (fitSizes)
 * @property {string} [fallback]  the layout drawn instead
 */

/**
 * @param {View} view
 * @param {LayoutSpec} spec
 * @returns {Targets}
 */
export function targets(view, spec) {
  const g = view.graph;
  const keys = g.nodes();
  const name = spec.name || "force";
  /** @type {Record<string, any> & {gap: number, aspect: number}} options as the Python side gave them (each layout reads its own) */
  const opts = { ...(spec.options || {}), gap: SPACING, aspect: view.layouts.layoutAspect ? view.layouts.layoutAspect() : 1.4 };
  /** @type {{pos: (number[] | undefined)[], spacing?: number[]}} */
  let res = { pos: [] };
  /** @type {string | null} */
  let note = null;
  if (name === "positions") {
    const res = positions(keys, (k) => view.nd.get(k).p, opts);
    const xy = `${opts.x || "x"} / ${opts.y || "y"}`;
    if (res.none) note = `positions: no node has a numeric ${xy}; drawn with force`;
    else if (res.missing) note = `positions: ${res.missing.toLocaleString("en-US")} node${res.missing === 1 ? " has" : "s have"} no numeric ${xy} (rows under the map)`;
    if (res.none) return { pos: null, note, spacing: null, fallback: "force" };
    return finish(keys, res, note);
  }
  if (name === "force") {
    /** @type {Map<string, number[]>} */
    const saved = new Map();
    g.forEachNode((k, a) => saved.set(k, [a.x, a.y]));
    startPositions(g, { mds: true });
    const pos = keys.map((k) => {
      const a = g.getNodeAttributes(k);
      return [a.x, a.y];
    });
    g.updateEachNodeAttributes((k, a) => {
      const p = /** @type {number[]} */ (saved.get(k));
      a.x = p[0];
      a.y = p[1];
      return a;
    }, { attributes: ["x", "y"] });
    res = { pos };
  } else if (name === "layered") {
    const drawn = (res = layered(g, keys, opts));
    if (drawn.reversed) note = `layered: ${drawn.reversed.toLocaleString("en-US")} relationship${drawn.reversed === 1 ? " was" : "s were"} reversed to break cycles (they point up)`;
  } else if (name === "radial") {
    const drawn = (res = radial(g, keys, opts));
    if (opts.root !== undefined && opts.root !== null && drawn.root !== String(opts.root)) note = "radial: the root is not drawn; rings start at the most connected node";
  } else if (name === "circular") res = circular(g, keys, tidyOrder(view, keys), opts);
  else if (name === "grid") res = grid(g, keys, tidyOrder(view, keys), opts);
  else if (name !== "positions") return { pos: null, note: `unknown layout ${String(name).slice(0, 40)}` };
  return finish(keys, res, note);
}

/**
 * @param {string[]} keys
 * @param {{pos: (number[] | undefined)[], spacing?: number[]}} res
 * @param {string | null} note
 * @returns {Targets}
 */
function finish(keys, res, note) {
  /** @type {Map<string, number[]>} */
  const out = new Map();
  keys.forEach((k, i) => res.pos[i] && out.set(k, /** @type {number[]} */ (res.pos[i])));
  return { pos: out, note, spacing: res.spacing || null };
}

export class Layouts {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  /**
   * @returns {number}
   */
  layoutAspect() {
    const b = this.view.ui.sigmaBox;
    return b.clientWidth && b.clientHeight ? (b.clientWidth - 120) / Math.max(1, b.clientHeight - 48) : 1.4;
  }

  // Largest node radius (px) that keeps neighbouring slots of a computed layout
  // apart at full view (spacing: slot distance as a fraction of the drawing's extent).
  // Called again on resize (the box may have no size yet at the first build).
  /**
   * @param {number[] | null | undefined} spacing
   */
  fitSizes(spacing) {
    const b = this.view.ui.sigmaBox;
    const before = this.view.sizeCap;
    this.view.layoutSpacing = spacing;
    this.view.sizeCap = null;
    if (spacing && b.clientWidth && b.clientHeight) {
      const px = Math.min(spacing[0] * (b.clientWidth - 40), spacing[1] * (b.clientHeight - 40));
      this.view.sizeCap = Math.max(1.2, 0.42 * px);
    }
    // nodes held below their own size grow with the zoom until they reach it (zoomSettings)
    this.view.zoomGrow = this.view.sizeCap ? Math.max(1, (this.view.baseSize * 1.3) / this.view.sizeCap) : 1;
    if (before === this.view.sizeCap || (!before && !this.view.sizeCap)) return;
    if (this.view.renderer) {
      this.view.renderer.setSettings(this.view.styles.zoomSettings());
      this.view.styles.restyleAll();
    } else {
      this.view.graph.updateEachNodeAttributes((k, a) => this.view.styles.styleNode(k, a));
      this.view.graph.updateEachEdgeAttributes((k, a) => this.view.styles.styleEdge(k, a)); // lines follow zoomGrow
    }
  }

  /**
   * @returns {string}
   */
  layoutName() {
    return (this.view.layoutSpec && this.view.layoutSpec.name) || "force";
  }

  /** @private */
  newLayoutPromise() {
    this.view.layoutPromise = new Promise((r) => (this.view.resolveLayout = r));
  }

  layoutSettled() {
    if (this.view.resolveLayout) this.view.resolveLayout();
  }

  // Positions of a computed (non-force) layout written straight into the graph (first build).
  placeComputed() {
    const { pos, note, spacing, fallback } = targets(this.view, this.view.layoutSpec);
    this.view.layoutNote = note;
    this.fitSizes(spacing);
    if (fallback) {
      this.view.layoutSpec = { name: fallback }; // e.g. positions without any coordinates: force runs
      startPositions(this.view.graph);
    }
    if (!pos) return;
    this.view.graph.updateEachNodeAttributes((k, a) => {
      const p = pos.get(k);
      if (p && !(this.view.nd.get(k) || {}).fixed) {
        a.x = f32(p[0]);
        a.y = f32(p[1]);
      }
      return a;
    }, { attributes: ["x", "y"] });
  }

  // Switch to layout `spec` ({name, options}) on the live canvas.
  /**
   * @param {LayoutSpec} spec
   */
  setLayout(spec) {
    if (!spec || !LAYOUTS.includes(spec.name)) return;
    this.view.layoutSpec = spec;
    this.view.asShown = false;
    if (this.view.layout) this.view.layout.stop();
    this.view.layout = null;
    this.newLayoutPromise();
    let { pos, note, spacing, fallback } = targets(this.view, spec);
    if (fallback) {
      spec = this.view.layoutSpec = { name: fallback };
      pos = targets(this.view, spec).pos;
    }
    this.view.layoutNote = note;
    this.fitSizes(spacing);
    this.view.ui.setNotes(this.view.payload.notes.concat(note ? [note] : []));
    /** @type {[string, number, number, number, number][]} */
    const moving = [];
    this.view.graph.forEachNode((k, a) => {
      const p = pos && pos.get(k);
      if (p && !this.view.nd.get(k).fixed) moving.push([k, a.x, a.y, p[0], p[1]]);
    });
    // keep pinned nodes where they are: centre the new layout on the old drawing's centre
    const token = (this.view.layoutToken = (this.view.layoutToken || 0) + 1);
    const done = () => {
      if (token !== this.view.layoutToken) return;
      if (this.view.renderer) this.view.renderer.refresh();
      this.view.actions.fit();
      if (spec.name === "force") this.view.rendering.startLayout();
      else setTimeout(() => token === this.view.layoutToken && this.layoutSettled(), 320); // after the camera's refit
    };
    const write = (/** @type {number} */ t) => {
      /** @type {Map<string, number[]>} */
      const m = new Map();
      for (const [k, x0, y0, x1, y1] of moving) m.set(k, [f32(x0 + (x1 - x0) * t), f32(y0 + (y1 - y0) * t)]);
      this.view.graph.updateEachNodeAttributes((k, a) => {
        const p = m.get(k);
        if (p) (a.x = p[0]), (a.y = p[1]);
        return a;
      }, { attributes: ["x", "y"] });
    };
    if (!this.view.renderer || moving.length > 5000) {
      write(1);
      return done();
    }
    const t0 = performance.now(), ms = 450;
    const step = () => {
      if (token !== this.view.layoutToken) return;
      const t = Math.min(1, (performance.now() - t0) / ms);
      write(t < 1 ? 1 - Math.pow(1 - t, 3) : 1);
      if (t < 1) requestAnimationFrame(step);
      else done();
    };
    requestAnimationFrame(step);
  }
}
