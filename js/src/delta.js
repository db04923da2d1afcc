// Python -> JS messages: deltas (their steps applied through APPLY, one entry per kind of step), sync, status.
import { addItems } from "./payload.js";
import { kernelMessage } from "./protocol.js";
import { layoutNew, placeNear, SPACING } from "./layout.js";
import { cramped } from "./captions.js";

/** @typedef {import("./view.js").CanvasView} View */


/** @typedef {import("./protocol.js").Op} Op */
/** @typedef {{anchor: string | null, added: string[], relegend: boolean}} Step  one delta's progress: its anchor, the nodes added, whether the legend must be made again */

/**
 * What each kind of delta step does (protocol.js declares the kinds; tsc checks every one has its entry here).
 * @type {{[K in Op["op"]]: (view: View, op: Extract<Op, {op: K}>, step: Step) => void}}
 */
export const APPLY = {
  add(view, op, step) {
    if (Array.isArray(op.labels)) {
      view.labels = op.labels;
      view.styles.updateLabelColors();
      step.relegend = true;
    }
    if (Array.isArray(op.types)) view.types = op.types;
    step.added = step.added.concat(view.deltas.addNodes(op, step.anchor));
    step.relegend = true;
  },
  remove(view, op, step) {
    view.deltas.removeIds(Array.isArray(op.ids) ? op.ids.map(String) : []);
    step.relegend = true;
  },
  highlight(view, op) {
    view.deltas.highlight(Array.isArray(op.ids) ? op.ids.map(String) : [], !!op.only);
  },
  fit(view) {
    view.fitAfter = true;
  },
  // style / filter / layout: filter.js and layouts/index.js
  style(view, op) {
    view.filters.applyStyleOp(op);
  },
  filter(view, op) {
    view.filters.applyFilterOp(op);
  },
  layout(view, op) {
    view.layouts.setLayout({ name: String(op.name), options: op.options && typeof op.options === "object" ? op.options : {} });
  },
};

export class Deltas {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  /**
   * @param {unknown} raw
   */
  onMessage(raw) {
    const msg = kernelMessage(raw); // protocol.js: only the kinds this page handles
    if (!msg) return;
    if (msg.kind === "status") {
      // with the drill's own status: how many of the biggest groups it opened have no caption (captions.js)
      this.view.ui.setStatus(String(msg.text ?? "") + cramped(this.view.roomNote), msg.level);
      return;
    }
    if (msg.kind !== "delta") return;
    if (!this.view.graph) return; // the base graph is still being read: build() asks for a sync afterwards
    const r = Number(msg.revision);
    if (!Number.isInteger(r) || r <= this.view.revision) return;
    if (r > this.view.revision + 1) {
      this.askSync();
      return;
    }
    this.applyDelta(msg);
    this.view.revision = r;
    this.view.syncAsked = -1;
    if (msg.undoable) {
      this.view.undo.push({ t: "py", revision: r });
      this.view.actions.updateButtons();
    }
  }

  /**
   * @param {boolean} [again]  ask even if this revision's sync was asked (its answer may have been lost)
   */
  askSync(again = false) {
    if (this.view.syncAsked === this.view.revision && !again) return;
    this.view.syncAsked = this.view.revision;
    this.view.send({ kind: "sync", have: this.view.revision });
  }

  /**
   * @param {import("./protocol.js").Delta} msg
   * @private
   */
  applyDelta(msg) {
    if (this.view.layout && this.view.layout.running) this.view.layout.settleNow();
    const allBefore = this.view.hlCount > 0 && this.view.hlCount >= this.view.nd.size; // every node matched: no rings
    const ops = Array.isArray(msg.ops) ? msg.ops : [];
    this.view.roomNote = 0; // counted again when the groups a drill opened are captioned (captions.js)
    /** @type {Step} */
    const step = { anchor: msg.anchor, added: [], relegend: false };
    for (const op of ops) {
      if (!op || typeof op !== "object" || !Object.prototype.hasOwnProperty.call(APPLY, op.op)) continue; // a kind this page does not know
      /** @type {(view: View, op: Op, step: Step) => void} */ (APPLY[op.op])(this.view, op, step);
    }
    const { added, relegend } = step;
    if (String(/** @type {HTMLElement} */ (this.view.ui.root.querySelector(".gc-status")).textContent).startsWith("expanding")) this.view.ui.setStatus("", "info");
    if (relegend) {
      this.view.styles.countHighlights();
      if (allBefore !== (this.view.hlCount > 0 && this.view.hlCount >= this.view.nd.size)) this.view.styles.restyleAll(); // rings on / off
      // encodings are of the drawn graph: compute them again, then the legend and count
      const enc = this.view.filters.encode();
      const f = this.view.filt;
      if (enc.color.of || enc.size.of || f.labels.size || f.types.size || f.cats.size || f.nodes.size) this.view.filters.refresh();
      else {
        this.view.filters.updateLegend();
        this.view.actions.updateCount();
      }
      if (added.length && this.view.layouts.layoutName() !== "force") this.view.layouts.setLayout(this.view.layoutSpec);
    }
    // the panel shows the degree and properties as they are now
    const last = [...this.view.selected].pop();
    if (last !== undefined && this.view.graph.hasNode(last)) this.view.actions.showNode(last);
    // style / filter / layout ops repaint through graph events (no full re-index)
    const viewOnly = ops.length && ops.every((op) => op && ["style", "filter", "layout"].includes(op.op));
    if (this.view.renderer && !viewOnly) this.view.renderer.refresh();
    if (this.view.fitAfter) {
      this.view.fitAfter = false;
      this.view.actions.fit();
    } else if (!viewOnly) this.keepInView(); // style and filter ops move nothing (a layout op fits itself)
  }

  /**
   * @param {import("./protocol.js").AddOp} op
   * @param {string | null} anchor
   * @returns {string[]}
   */
  addNodes(op, anchor) {
    const g = this.view.graph;
    const before = g.order;
    const nodes = Array.isArray(op.nodes) ? op.nodes : [];
    const edges = Array.isArray(op.edges) ? op.edges : [];
    // where to put each new node
    /** @type {Map<string, string>} */
    const nbr = new Map();
    for (const e of edges) {
      if (!e) continue;
      const s = String(e.s), t = String(e.t);
      if (g.hasNode(s) && !g.hasNode(t) && !nbr.has(t)) nbr.set(t, s);
      if (g.hasNode(t) && !g.hasNode(s) && !nbr.has(s)) nbr.set(s, t);
    }
    const centre = this.graphCentre();
    const step = this.typicalEdgeLength();
    const anchorKey = anchor !== null && anchor !== undefined && g.hasNode(String(anchor)) ? String(anchor) : null;
    /** @type {Map<string | null, number>} */
    const around = new Map();
    const place = (/** @type {string} */ key) => {
      const near = anchorKey || nbr.get(key) || null;
      const c = near ? /** @type {{x: number, y: number}} */ (g.getNodeAttributes(near)) : centre;
      const k = around.get(near) || 0;
      around.set(near, k + 1);
      return placeNear(c, k, nodes.length, near ? step : step * 2);
    };
    this.view.hlCount = (this.view.hlCount || 0) + nodes.filter((n) => n && n.h).length;
    const res = addItems(g, this.view, nodes, edges, this.view.styles.styler(), place);
    if (this.view.drill.restoreDrilled(res.nodes)) return res.nodes; // a super-node folded back: to its own spot (drill.js)
    if (anchorKey && this.view.nd.has(anchorKey) && this.view.nd.get(anchorKey).g && res.nodes.length) {
      this.view.drill.placeWithin(res.nodes, anchorKey, step); // a super-node opens into its members, in place (drill.js)
      return res.nodes;
    }
    // new nodes linked to nothing drawn would be pushed far out by the local layout (nothing pulls
    // them back), so they go in a tidy row just below the drawing instead; the rest are laid out
    if (before === 0 && res.nodes.length > 1 && this.view.renderer) {
      // an empty drawing (a live view's first rows): no old node to keep, so lay it all out and pack it
      if (this.view.layout) this.view.layout.stop();
      this.view.rendering.startLayout();
      return res.nodes;
    }
    const loose = res.nodes.filter((key) => g.degree(key) === 0);
    const linked = res.nodes.filter((key) => g.degree(key) > 0);
    layoutNew(g, linked);
    if (loose.length) this.placeLoose(loose, step);
    return res.nodes;
  }

  /**
   * @param {string[]} keys
   * @param {number} step
   * @private
   */
  placeLoose(keys, step) {
    const g = this.view.graph;
    const set = new Set(keys);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity;
    g.forEachNode((k, a) => {
      if (set.has(k)) return;
      x0 = Math.min(x0, a.x); x1 = Math.max(x1, a.x); y0 = Math.min(y0, a.y);
    });
    if (!Number.isFinite(x0)) { x0 = 0; x1 = 0; y0 = 0; }
    const gap = Math.max(step, 1e-6);
    const perRow = Math.max(1, Math.floor((x1 - x0) / gap) + 1);
    keys.forEach((key, i) => {
      const col = i % perRow, row = Math.floor(i / perRow);
      g.mergeNodeAttributes(key, { x: Math.fround(x0 + col * gap), y: Math.fround(y0 - gap * (1 + row)) });
    });
  }

  /**
   * @returns {{x: number, y: number}}
   * @private
   */
  graphCentre() {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    this.view.graph.forEachNode((k, a) => {
      if (a.x < x0) x0 = a.x;
      if (a.x > x1) x1 = a.x;
      if (a.y < y0) y0 = a.y;
      if (a.y > y1) y1 = a.y;
    });
    if (!Number.isFinite(x0)) return { x: 0, y: 0 };
    return { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
  }

  /**
   * @returns {number}
   * @private
   */
  typicalEdgeLength() {
    const g = this.view.graph;
    /** @type {number[]} */
    const lens = [];
    let i = 0;
    g.forEachEdge((k, a, s, t, sa, ta) => {
      if (i++ > 400) return;
      const d = Math.hypot(sa.x - ta.x, sa.y - ta.y);
      if (d > 0) lens.push(d);
    });
    if (!lens.length) return SPACING * 3;
    lens.sort((a, b) => a - b);
    return lens[lens.length >> 1];
  }

  /**
   * @param {string[]} ids
   */
  removeIds(ids) {
    const g = this.view.graph;
    const nodes = [];
    for (const k of ids) {
      if (g.hasNode(k)) nodes.push(k);
      else if (g.hasEdge(k)) g.dropEdge(k);
    }
    const touched = new Set();
    if (nodes.length) this.view.ui.hideTip(); // the hovered node may be one of them (a drilled super-node)
    for (const k of ids) if (this.view.ed.has(k) && !g.hasEdge(k)) this.view.ed.delete(k);
    for (const k of nodes) {
      g.forEachNeighbor(k, (m) => touched.add(m));
      g.forEachEdge(k, (e) => this.view.ed.delete(e));
      g.dropNode(k);
      this.view.nd.delete(k);
      if (this.view.discs && this.view.discCount) {
        this.view.discs.delete(k);
        this.view.discCount.delete(k);
      }
      if (this.view.drillRoot) this.view.drillRoot.delete(k);
      if (this.view.rings) this.view.rings.delete(k);
      this.view.hidden.delete(k);
    }
    for (const k of nodes) touched.delete(k);
    // degrees changed for neighbours
    for (const k of touched) {
      if (g.hasNode(k)) {
        this.view.nd.get(k).deg = g.degree(k);
        g.updateNodeAttributes(k, (a) => this.view.styles.styleNode(k, a));
      }
    }
    const sel = [...this.view.selected].filter((k) => g.hasNode(k));
    if (sel.length !== this.view.selected.size) this.view.actions.setSelection(sel, true);
    if (this.view.selectedEdge && !g.hasEdge(this.view.selectedEdge)) {
      this.view.selectedEdge = null;
      this.view.ui.showInfo(null);
    }
  }

  /**
   * @param {string[]} ids
   * @param {boolean} only
   */
  highlight(ids, only) {
    const g = this.view.graph;
    const want = new Set(ids);
    /** @type {[string, number][]} */ const nodes = [];
    /** @type {[string, number][]} */ const edges = [];
    if (only) {
      for (const [k, d] of this.view.nd) if (d.h !== (want.has(k) ? 1 : 0)) nodes.push([k, want.has(k) ? 1 : 0]);
      for (const [k, d] of this.view.ed) if (d.h !== (want.has(k) ? 1 : 0)) edges.push([k, want.has(k) ? 1 : 0]);
    } else {
      for (const k of want) {
        if (this.view.nd.has(k)) nodes.push([k, 1]);
        else if (this.view.ed.has(k)) edges.push([k, 1]);
      }
    }
    for (const [k, h] of nodes) this.view.nd.get(k).h = h;
    for (const [k, h] of edges) this.view.ed.get(k).h = h;
    const allBefore = this.view.hlCount >= this.view.nd.size && this.view.ehlCount >= this.view.ed.size;
    this.view.styles.countHighlights();
    const allNow = this.view.hlCount >= this.view.nd.size && this.view.ehlCount >= this.view.ed.size;
    if (nodes.length > 200 || edges.length > 200 || allBefore !== allNow) this.view.styles.restyleAll();
    else {
      this.view.styles.restyleNodes(nodes.map((x) => x[0]));
      this.view.styles.restyleEdges(edges.map((x) => x[0]));
    }
  }

  // Refit only when a drawn node ended up outside the canvas.
  keepInView() {
    if (!this.view.renderer) return;
    if (this.view.hooks.nodesInView() < this.view.hooks.nodesDrawn()) this.view.actions.fit();
  }
}
