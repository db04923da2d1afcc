// Selection, the side panel, search and the toolbar's actions.
import { ViewState } from "./state.js";
import { clip } from "./ui.js";

/** @typedef {import("./index.js").View} View */

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

export class ActionMethods extends ViewState {
  /**
   * @this {View}
   * @param {import("./payload.js").NodeData} a
   * @returns {string[]}
   */
  nodeLabels(a) {
    const out = [];
    if (a.l >= 0 && this.labels[a.l]) out.push(String(this.labels[a.l].name));
    if (a.L) for (const x of a.L) if (!out.includes(x)) out.push(x);
    return out;
  }

  /**
   * @this {View}
   * @param {unknown[] | null} ids
   * @param {boolean} fromUser
   */
  setSelection(ids, fromUser) {
    const next = new Set((ids || []).map(String).filter((k) => this.graph.hasNode(k)));
    const changed = new Set([...this.selected, ...next]);
    this.selected = next;
    const prevEdge = this.selectedEdge;
    this.selectedEdge = null;
    this.styles.restyleNodes(changed);
    if (prevEdge) this.styles.restyleEdges([prevEdge]);
    const first = [...next][next.size - 1];
    if (first !== undefined) this.showNode(first);
    else this.ui.showInfo(null);
    this.updateButtons();
    if (fromUser) {
      this.model.set("selected", [...next]);
      this.model.save_changes();
    }
  }

  /** @this {View} */
  selectFromModel() {
    const want = this.model.get("selected") || [];
    const same = want.length === this.selected.size && want.every((/** @type {unknown} */ k) => this.selected.has(String(k)));
    if (!same) this.setSelection(want, false);
  }

  /**
   * @this {View}
   * @param {string} key
   */
  showNode(key) {
    const a = this.nd.get(key);
    /** @type {[string, string][]} */
    const rows = [["id", key]];
    const labs = this.nodeLabels(a);
    if (labs.length) rows.push([labs.length > 1 ? "labels" : "label", labs.join(", ")]);
    rows.push(["degree", String(this.graph.degree(key))]);
    if (a.p) for (const k of Object.keys(a.p)) rows.push([k, fmtValue(a.p[k])]);
    this.ui.showInfo({ title: a.c, rows });
  }

  /**
   * @this {View}
   * @param {string} key
   */
  showEdge(key) {
    const a = this.ed.get(key);
    const [s, t] = this.graph.extremities(key);
    const type = a.y >= 0 && this.types[a.y] !== undefined ? String(this.types[a.y]) : "(no type)";
    /** @type {[string, string][]} */
    const rows = [
      ["from", this.nd.get(s).c],
      ["to", this.nd.get(t).c],
      ["id", key],
    ];
    if (a.p) for (const k of Object.keys(a.p)) rows.push([k, fmtValue(a.p[k])]);
    this.ui.showInfo({ title: type, rows });
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

  /** @this {View} */
  fit() {
    if (this.renderer) this.renderer.getCamera().animatedReset({ duration: 300 });
  }

  /** @this {View} */
  hideSelected() {
    const ids = [...this.selected].filter((k) => !this.hidden.has(k));
    if (!ids.length) return;
    for (const k of ids) this.hidden.add(k);
    this.undo.push({ t: "hide", ids });
    this.setSelection([], true);
    this.styles.restyleNodes(ids);
    this.updateCount();
  }

  /** @this {View} */
  pinSelected() {
    const ids = [...this.selected];
    if (!ids.length) return;
    const allPinned = ids.every((k) => this.nd.get(k).fixed);
    const prev = ids.map((k) => /** @type {[string, boolean]} */ ([k, !!this.nd.get(k).fixed]));
    for (const k of ids) {
      this.nd.get(k).fixed = !allPinned;
      if (this.layout) this.layout.setFixed(k, !allPinned);
    }
    this.undo.push({ t: "pin", prev });
    this.styles.restyleNodes(ids);
    this.updateButtons();
  }

  /** @this {View} */
  undoLast() {
    const u = this.undo.pop();
    if (!u) return;
    if (u.t === "hide") {
      for (const k of u.ids) this.hidden.delete(k);
      this.styles.restyleNodes(u.ids);
      this.updateCount();
    } else if (u.t === "pin") {
      for (const [k, f] of u.prev) {
        if (!this.graph.hasNode(k)) continue;
        this.nd.get(k).fixed = f;
        if (this.layout) this.layout.setFixed(k, f);
      }
      this.styles.restyleNodes(u.prev.map((x) => x[0]));
    } else if (u.t === "py") {
      this.send({ kind: "undo" });
    }
    this.updateButtons();
  }

  /**
   * @this {View}
   * @param {string} q
   */
  search(q) {
    q = String(q || "").trim().toLowerCase();
    if (!q) return this.ui.setResults([], "");
    /** @type {string[]} */
    const out = [];
    /** @type {string[]} */
    const starts = [];
    this.graph.forEachNode((k) => {
      if (out.length + starts.length >= 200 || this.filters.isHiddenNode(k)) return;
      const i = this.nd.get(k).lc.indexOf(q);
      if (i === 0) starts.push(k);
      else if (i > 0) out.push(k);
    });
    const keys = starts.concat(out).slice(0, 12);
    this.ui.setResults(
      keys.map((k) => {
        const a = this.nd.get(k);
        return { key: k, caption: a.c, extra: this.nodeLabels(a).join(", ") };
      }),
      q
    );
  }

  /**
   * @this {View}
   * @param {string} key
   */
  pick(key) {
    if (!this.graph.hasNode(key)) return;
    this.setSelection([key], true);
    this.send({ kind: "click", id: key });
    const d = this.renderer && this.renderer.getNodeDisplayData(key);
    if (d && this.renderer) {
      const cam = this.renderer.getCamera();
      cam.animate({ x: d.x, y: d.y, ratio: Math.min(cam.getState().ratio, this.graph.order > 200 ? 0.25 : 0.7) }, { duration: 400 });
    }
  }

  /** @this {View} */
  collapseSelected() {
    const ids = [...this.selected].filter((k) => this.graph.hasNode(k));
    if (ids.length) this.send({ kind: "collapse", ids });
  }

  /** @this {View} */
  updateButtons() {
    const collapsible = !!(this.model.get("settings") || {}).collapsible;
    this.ui.setButtons({ selection: this.selected.size > 0, undoable: this.undo.length > 0, collapsible });
    this.exporter.updateOutButtons();
  }

  /** @this {View} */
  updateCount() {
    let n = this.graph.order, m = this.graph.size;
    const hiddenN = this.filters.hiddenCount();
    if (hiddenN) {
      n = this.hooks.nodesDrawn();
      m = this.hooks.edgesDrawn();
    }
    const c = this.payload.counts || {};
    const tn = Number(c.nodes), tm = Number(c.edges);
    const nodes = n.toLocaleString("en-US") + (tn > this.graph.order ? " of " + tn.toLocaleString("en-US") : "") + (tn > this.graph.order || n !== 1 ? " nodes" : " node");
    const rels = m.toLocaleString("en-US") + (tm > this.graph.size ? " of " + tm.toLocaleString("en-US") : "") + (m === 1 && !(tm > this.graph.size) ? " relationship" : " relationships");
    const hid = hiddenN ? " (" + hiddenN.toLocaleString("en-US") + " hidden)" : "";
    this.ui.setCount(nodes + " · " + rels + hid);
  }
}
