// The view's sigma renderer: made (or the spare taken), its events bound, dropped when the view is out of sight and
// made again when it comes back; the first frame, then the layout that starts after it.
import Sigma from "sigma";
import { startPositions } from "./layout.js";
import { Layout } from "./force.js";
import { clip } from "./ui.js";
import { killRenderer, takeSpare, spareSoon, hasSpare, dropSpare, internals } from "./spare.js";
import { ViewState } from "./state.js";

/** @typedef {import("./index.js").View} View */
/** @typedef {import("./spare.js").Renderer} Renderer */

// Each sigma instance holds 3 WebGL contexts and Chromium keeps at most 16 per
// page (the oldest is lost beyond that), so a notebook with many graph outputs
// keeps only MAX_LIVE renderers; views out of sight are suspended (renderer
// killed, graph/positions/camera kept) and resumed when they come back. A spare renderer (spare.js) counts as one.
const MAX_LIVE = 5;
/** @type {Set<View>} */
const live = new Set();
let clock = 0;

// Makes room for one more renderer (called before creating one; taking the spare needs none). The spare goes first.
/** @param {View} keep */
function makeRoom(keep) {
  if (live.size + (hasSpare() ? 1 : 0) < MAX_LIVE) return;
  dropSpare();
  if (live.size < MAX_LIVE) return;
  // out of sight first, then the least recently seen
  const order = [...live].filter((v) => v !== keep).sort((a, b) => Number(a.visible) - Number(b.visible) || a.seen - b.seen);
  while (live.size >= MAX_LIVE && order.length) /** @type {View} */ (order.shift()).suspend();
}

/** A tick of the clock that orders views by when they were last in sight. */
export function nextSeen() {
  return ++clock;
}

export class RendererMethods extends ViewState {

  /**
   * @this {View}
   * @returns {Renderer} the renderer made (or the spare, taken)
   */
  makeRenderer() {
    const settings = this.styles.sigmaSettings();
    let r = takeSpare(this.graph, this.ui.sigmaBox, settings);
    this.times.spare = r !== null;
    if (!r) {
      makeRoom(this);
      r = new Sigma(this.graph, this.ui.sigmaBox, settings);
    }
    this.renderer = r;
    this.frameNo = 0;
    this.scene = null;
    r.on("beforeRender", () => this.frameNo++); // caption placement starts afresh each frame
    r.on("afterRender", () => this.edgeText.drawLoops());
    r.on("afterRender", () => this.report.reportSoon()); // snapshot.js: tell the kernel what is shown
    this.bindEvents();
    // someone else's WebGL use may still push ours out: redraw with fresh contexts
    for (const c of this.ui.sigmaBox.querySelectorAll("canvas")) {
      c.addEventListener("webglcontextlost", (e) => {
        e.preventDefault();
        setTimeout(() => {
          if (this.renderer !== r) return;
          const now = performance.now();
          this.losses = (this.losses || []).filter((t) => now - t < 10000);
          this.losses.push(now);
          this.suspend();
          if (this.visible && this.losses.length <= 3) this.resume();
        }, 0);
      });
    }
    this.suspended = false;
    live.add(this);
    this.seen = ++clock;
    return r;
  }

  /** @this {View} */
  dropRenderer() {
    const r = this.renderer;
    if (!r) return;
    this.renderer = null;
    live.delete(this);
    killRenderer(r);
  }

  /** @this {View} */
  suspend() {
    if (!this.renderer) return;
    this.camState = this.renderer.getCamera().getState();
    this.dropRenderer();
    this.suspended = true;
    this.ui.hideTip();
  }

  /** @this {View} */
  resume() {
    if (this.renderer || !this.graph || !this.suspended) return;
    const made = this.makeRenderer();
    if (this.camState) made.getCamera().setState(this.camState);
    if (this.pendingFirstFrame || this.times.firstFrame === null) this.firstFrameGo();
  }

  /** @this {View} */
  waitFirstFrame() {
    const id = this.instanceId;
    const go = () => {
      if (id !== this.instanceId || !this.renderer) return;
      const box = this.ui.sigmaBox;
      if (!box.offsetWidth || !box.offsetHeight || !box.isConnected) {
        this.pendingFirstFrame = true; // the ResizeObserver calls go() again
        return;
      }
      this.pendingFirstFrame = false;
      this.applyTheme(); // the element may not have been in the page (no CSS variables) before
      const before = this.renderer.getDimensions();
      this.renderer.resize();
      const now = this.renderer.getDimensions();
      if (now.width !== before.width || now.height !== before.height) this.renderer.refresh();
      /** @type {Record<string, number>} */ (this.times.marks).rendered = performance.now();
      requestAnimationFrame(() => {
        if (id !== this.instanceId) return;
        this.times.firstFrame = performance.now();
        this.resolveReady();
        this.send({ kind: "ready", ms: Math.round(this.times.firstFrame - this.times.start), nodes: this.graph.order });
        this.startLayout();
        spareSoon(box.clientWidth, box.clientHeight, () => live.size < MAX_LIVE); // for the next canvas
      });
    };
    this.firstFrameGo = go;
    go();
  }

  /** @this {View} */
  startLayout() {
    const id = this.instanceId;
    // big components unfold from pivot-MDS positions, computed after the first frame (which
    // shows the quick spiral) so the first frame costs what it did; FA2 refines from there
    let unfolded = false;
    if (this.layouts.layoutName() === "force" && this.unfoldedFor !== id && !this.asShown) {
      this.unfoldedFor = id;
      unfolded = startPositions(this.graph, { mds: true });
      if (unfolded && this.renderer) this.renderer.refresh();
    }
    if (this.layouts.layoutName() !== "force" || this.asShown) {
      // a computed layout (layouts/index.js), or the positions a page showed, are placed already: nothing moves
      this.times.settled = performance.now();
      this.deltas.keepInView();
      this.resolveSettled();
      this.layouts.layoutSettled();
      return;
    }
    this.layout = new Layout(this.graph, {
      isFixed: (k) => {
        const d = this.nd.get(k);
        return !!(d && d.fixed);
      },
      wide: () => this.ui.sigmaBox.clientWidth >= this.ui.sigmaBox.clientHeight,
      aspect: () => {
        const b = this.ui.sigmaBox;
        // captions stick out to the right of nodes: aim a bit narrower than the box
        return b.clientWidth && b.clientHeight ? (b.clientWidth - 120) / Math.max(1, b.clientHeight - 48) : 1.4;
      },
      onUpdate: () => {},
      onSettled: () => {
        if (id !== this.instanceId) return;
        this.times.settled = performance.now();
        this.times.iterations = this.layout ? this.layout.iterationsDone : 0;
        this.renderer && this.renderer.refresh();
        this.deltas.keepInView();
        this.resolveSettled();
        this.layouts.layoutSettled();
      },
    });
    // from an unfolded start FA2 only refines: a shorter time cap for big graphs
    if (unfolded) this.layout.cap = Math.min(this.layout.cap, 3000 + this.graph.order * 0.3);
    this.layout.start();
  }

  /** @this {View} */
  bindEvents() {
    const r = /** @type {Renderer} */ (this.renderer); // made just before (makeRenderer)

    r.on("clickNode", ({ node, event }) => {
      // on a dense canvas sigma's pick can be a neighbour drawn on top: take the nearest centre
      if (event && Number.isFinite(event.x)) node = this.filters.nearestNode(event.x, event.y) || node;
      const add = event && event.original && (event.original.shiftKey || event.original.metaKey || event.original.ctrlKey);
      if (add) {
        const next = new Set(this.selected);
        if (next.has(node)) next.delete(node);
        else next.add(node);
        this.actions.setSelection([...next], true);
      } else this.actions.setSelection([node], true);
      this.send({ kind: "click", id: node });
    });
    r.on("doubleClickNode", (e) => {
      e.preventSigmaDefault();
      if (e.event && e.event.preventSigmaDefault) e.event.preventSigmaDefault();
      this.send({ kind: "dblclick", id: e.node });
      const s = this.model.get("settings") || {};
      if (s.expandable) this.ui.setStatus("expanding " + clip(this.nd.get(e.node).c, 60) + "…", "info");
    });
    const clickEdge = (/** @type {string} */ edge) => {
      const prev = this.selectedEdge;
      this.selectedEdge = edge;
      this.styles.restyleEdges(/** @type {string[]} */ ([prev, edge].filter(Boolean)));
      this.actions.showEdge(edge);
    };
    r.on("clickStage", ({ event }) => {
      // thin edges are easy to miss (sigma picks on a downsized buffer): look around the click
      if (r.getSetting("enableEdgeEvents") && event) {
        for (const [dx, dy] of [[0, 2], [2, 0], [0, -2], [-2, 0], [2, 2], [-2, -2], [2, -2], [-2, 2]]) {
          const e = internals(r).getEdgeAtPoint(event.x + dx, event.y + dy);
          if (e) return clickEdge(e);
        }
      }
      if (this.selected.size || this.selectedEdge) this.actions.setSelection([], true);
    });
    r.on("clickEdge", ({ edge }) => clickEdge(edge));
    r.on("enterNode", ({ node, event }) => {
      const a = this.nd.get(node);
      const lines = [a.c];
      const labs = this.actions.nodeLabels(a);
      if (labs.length) lines.push(labs.join(", "));
      this.ui.showTip(event.x, event.y, lines, this.tipAvoid(node));
    });
    r.on("leaveNode", () => this.ui.hideTip());
    r.on("enterEdge", ({ edge, event }) => {
      const a = this.ed.get(edge);
      const [s, t] = this.graph.extremities(edge);
      const type = a.y >= 0 && this.types[a.y] !== undefined ? String(this.types[a.y]) : "(no type)";
      const head = a.w ? this.actions.countsByType(a) : [type]; // a super-edge: its relationships, counted by type
      this.ui.showTip(event.x, event.y, [...head, clip(this.nd.get(s).c, 60) + " → " + clip(this.nd.get(t).c, 60)]);
    });
    r.on("leaveEdge", () => this.ui.hideTip());
  }

  // What the node tooltip must not cover: the node and its caption (screen px).
  /**
   * @this {View}
   * @param {string} node
   * @returns {import("./ui.js").Rect[] | null}
   */
  tipAvoid(node) {
    const r = this.renderer;
    const d = r && r.getNodeDisplayData(node);
    if (!d) return null;
    const p = r.framedGraphToViewport(d);
    const size = r.scaleSize(d.size) + 4;
    /** @type {import("./ui.js").Rect[]} */
    const out = [[p.x - size, p.y - size, p.x + size, p.y + size]];
    const spot = this.spots && this.spots.get(node);
    if (spot) out.push([spot.x - 4, spot.y - 4, spot.x + spot.w + 4, spot.y + 18]);
    else out.push([p.x + size, p.y - 10, p.x + size + 8 * Math.min(48, String(d.label || "").length), p.y + 10]);
    return out;
  }
}
