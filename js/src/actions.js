// Selection, the side panel, search and the toolbar's actions.
import { clip } from "./ui.js";

/** @typedef {import("./view.js").CanvasView} View */

/** @param {unknown} v */
function fmtValue(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") {
    try {
      return JSON.stringify(v);
    } catch (e) {
      return String(v);
    }
  }
  return String(v);
}

export class Actions {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  /**
   * @param {import("./payload.js").NodeData} a
   * @returns {string[]}
   */
  nodeLabels(a) {
    const out = [];
    if (a.l >= 0 && this.view.labels[a.l]) out.push(String(this.view.labels[a.l].name));
    if (a.L) for (const x of a.L) if (!out.includes(x)) out.push(x);
    return out;
  }

  /**
   * @param {unknown[] | null} ids
   * @param {boolean} fromUser
   */
  setSelection(ids, fromUser) {
    const next = new Set((ids || []).map(String).filter((k) => this.view.graph.hasNode(k)));
    const changed = new Set([...this.view.selected, ...next]);
    this.view.selected = next;
    const prevEdge = this.view.selectedEdge;
    this.view.selectedEdge = null;
    this.view.styles.restyleNodes(changed);
    if (prevEdge) this.view.styles.restyleEdges([prevEdge]);
    const first = [...next][next.size - 1];
    if (first !== undefined) this.showNode(first);
    else this.view.ui.showInfo(null);
    this.updateButtons();
    if (fromUser) {
      this.view.model.set("selected", [...next]);
      this.view.model.save_changes();
    }
  }

  selectFromModel() {
    const want = this.view.model.get("selected") || [];
    const same = want.length === this.view.selected.size && want.every((/** @type {unknown} */ k) => this.view.selected.has(String(k)));
    if (!same) this.setSelection(want, false);
  }

  /**
   * @param {string} key
   */
  showNode(key) {
    const a = this.view.nd.get(key);
    /** @type {[string, string][]} */
    const rows = [["id", key]];
    const labs = this.nodeLabels(a);
    if (labs.length) rows.push([labs.length > 1 ? "labels" : "label", labs.join(", ")]);
    rows.push(["degree", String(this.view.graph.degree(key))]);
    if (a.o) rows.push(["shown", "faded: not there at this moment (a ghost)"]);
    propertyRows(rows, a.p, a.d);
    this.view.ui.showInfo({ title: a.c, rows });
  }

  /**
   * @param {string} key
   */
  showEdge(key) {
    const a = this.view.ed.get(key);
    const [s, t] = this.view.graph.extremities(key);
    const type = a.y >= 0 && this.view.types[a.y] !== undefined ? String(this.view.types[a.y]) : "(no type)";
    /** @type {[string, string][]} */
    const rows = [
      ["from", this.view.nd.get(s).c],
      ["to", this.view.nd.get(t).c],
      ["id", key],
    ];
    if (a.o) rows.push(["shown", "faded: not there at this moment (a ghost)"]);
    propertyRows(rows, a.p, a.d);
    this.view.ui.showInfo({ title: type, rows });
  }

  // A super-edge's tooltip lines: "1,234 relationships", then "KNOWS ≈987 (80%) · LIKES ≈247 (20%)" from its
  // `types` shares ("KNOWS 80%, LIKES 20%").
  /**
   * @param {import("./payload.js").EdgeData} d
   * @returns {string[]}
   */
  countsByType(d) {
    const n = d.w, out = [n.toLocaleString("en-US") + (n === 1 ? " relationship" : " relationships")];
    const types = d.p && typeof d.p.types === "string" ? d.p.types : "";
    const parts = types.split(", ").map((part) => {
      const m = /^(.*) (\d+)%$/.exec(part);
      return m ? `${clip(m[1], 30)} ≈${Math.round((n * Number(m[2])) / 100).toLocaleString("en-US")} (${m[2]}%)` : clip(part, 30);
    });
    if (types) out.push(parts.join(" · "));
    return out;
  }

  fit() {
    if (this.view.renderer) this.view.renderer.getCamera().animatedReset({ duration: 300 });
  }

  hideSelected() {
    const ids = [...this.view.selected].filter((k) => !this.view.hidden.has(k));
    if (!ids.length) return;
    for (const k of ids) this.view.hidden.add(k);
    this.view.undo.push({ t: "hide", ids });
    this.setSelection([], true);
    this.view.styles.restyleNodes(ids);
    this.updateCount();
  }

  pinSelected() {
    const ids = [...this.view.selected];
    if (!ids.length) return;
    const allPinned = ids.every((k) => this.view.nd.get(k).fixed);
    const prev = ids.map((k) => /** @type {[string, boolean]} */ ([k, !!this.view.nd.get(k).fixed]));
    for (const k of ids) {
      this.view.nd.get(k).fixed = !allPinned;
      if (this.view.layout) this.view.layout.setFixed(k, !allPinned);
    }
    this.view.undo.push({ t: "pin", prev });
    this.view.styles.restyleNodes(ids);
    this.updateButtons();
  }

  undoLast() {
    const u = this.view.undo.pop();
    if (!u) return;
    if (u.t === "hide") {
      for (const k of u.ids) this.view.hidden.delete(k);
      this.view.styles.restyleNodes(u.ids);
      this.updateCount();
    } else if (u.t === "pin") {
      for (const [k, f] of u.prev) {
        if (!this.view.graph.hasNode(k)) continue;
        this.view.nd.get(k).fixed = f;
        if (this.view.layout) this.view.layout.setFixed(k, f);
      }
      this.view.styles.restyleNodes(u.prev.map((x) => x[0]));
    } else if (u.t === "py") {
      this.view.send({ kind: "undo" });
    }
    this.updateButtons();
  }

  /**
   * @param {string} q
   */
  search(q) {
    q = String(q || "").trim().toLowerCase();
    if (!q) return this.view.ui.setResults([], "");
    /** @type {string[]} */
    const out = [];
    /** @type {string[]} */
    const starts = [];
    this.view.graph.forEachNode((k) => {
      if (out.length + starts.length >= 200 || this.view.filters.isHiddenNode(k)) return;
      const i = this.view.nd.get(k).lc.indexOf(q);
      if (i === 0) starts.push(k);
      else if (i > 0) out.push(k);
    });
    const keys = starts.concat(out).slice(0, 12);
    this.view.ui.setResults(
      keys.map((k) => {
        const a = this.view.nd.get(k);
        return { key: k, caption: a.c, extra: this.nodeLabels(a).join(", ") };
      }),
      q
    );
  }

  /**
   * @param {string} key
   */
  pick(key) {
    if (!this.view.graph.hasNode(key)) return;
    this.setSelection([key], true);
    this.view.send({ kind: "click", id: key });
    const d = this.view.renderer && this.view.renderer.getNodeDisplayData(key);
    if (d && this.view.renderer) {
      const cam = this.view.renderer.getCamera();
      cam.animate({ x: d.x, y: d.y, ratio: Math.min(cam.getState().ratio, this.view.graph.order > 200 ? 0.25 : 0.7) }, { duration: 400 });
    }
  }

  collapseSelected() {
    const ids = [...this.view.selected].filter((k) => this.view.graph.hasNode(k));
    if (ids.length) this.view.send({ kind: "collapse", ids });
  }

  updateButtons() {
    const collapsible = !!(this.view.model.get("settings") || {}).collapsible;
    this.view.ui.setButtons({ selection: this.view.selected.size > 0, undoable: this.view.undo.length > 0, collapsible });
    this.view.exporter.updateOutButtons();
  }

  updateCount() {
    const present = this.view.timeline.present, filters = this.view.filters, g = this.view.graph;
    if (present) { // a time slider's moment: what is there then (timeline.js), not every moment's nodes at once
      const n = [...present.nodes].filter((k) => !filters.isHiddenNode(k)).length;
      const m = [...present.edges].filter((e) => g.hasEdge(e) && filters.isDrawnEdge(e)).length;
      const plural = (/** @type {number} */ k, /** @type {string} */ word) => k.toLocaleString("en-US") + " " + word + (k === 1 ? "" : "s");
      this.view.ui.setCount(`${plural(n, "node")} · ${plural(m, "relationship")} at this moment (of ${g.order.toLocaleString("en-US")} over all)`);
      return;
    }
    let n = g.order, m = g.size;
    const hiddenN = this.view.filters.hiddenCount();
    if (hiddenN) {
      n = this.view.hooks.nodesDrawn();
      m = this.view.hooks.edgesDrawn();
    }
    const c = this.view.payload.counts || {};
    const tn = Number(c.nodes), tm = Number(c.edges);
    const nodes = n.toLocaleString("en-US") + (tn > this.view.graph.order ? " of " + tn.toLocaleString("en-US") : "") + (tn > this.view.graph.order || n !== 1 ? " nodes" : " node");
    const rels = m.toLocaleString("en-US") + (tm > this.view.graph.size ? " of " + tm.toLocaleString("en-US") : "") + (m === 1 && !(tm > this.view.graph.size) ? " relationship" : " relationships");
    const hid = hiddenN ? " (" + hiddenN.toLocaleString("en-US") + " hidden)" : "";
    this.view.ui.setCount(nodes + " · " + rels + hid);
  }
}

// The panel's property rows: each property's value, a changed one as "old → new" (those changed away listed too).
/**
 * @param {[string, string][]} rows
 * @param {Record<string, unknown> | null} p
 * @param {import("./payload.js").Changes | null} d
 */
function propertyRows(rows, p, d) {
  const changed = (/** @type {string} */ k) => d && Object.prototype.hasOwnProperty.call(d, k) && Array.isArray(d[k]);
  const shown = (/** @type {unknown} */ v) => (v === null || v === undefined ? "(none)" : fmtValue(v));
  const arrow = (/** @type {string} */ k) => shown(/** @type {[unknown, unknown]} */ (d && d[k])[0]) + " → " + shown(/** @type {[unknown, unknown]} */ (d && d[k])[1]);
  if (p) for (const k of Object.keys(p)) rows.push([k, changed(k) ? arrow(k) : fmtValue(p[k])]);
  if (d) for (const k of Object.keys(d)) if (!(p && Object.prototype.hasOwnProperty.call(p, k)) && changed(k)) rows.push([k, arrow(k)]);
}
