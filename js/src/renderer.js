// The view's sigma renderer: made (or the spare taken), its events bound, dropped when the view is out of sight and
// made again when it comes back; the first frame, then the layout that starts after it.
import Sigma from "sigma";
import { startPositions } from "./layout.js";
import { Layout } from "./force.js";
import { clip } from "./ui.js";
import { killRenderer, takeSpare, spareSoon, hasSpare, dropSpare, internals } from "./spare.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {import("./spare.js").Renderer} Renderer */

// Each sigma instance holds 3 WebGL contexts and Chromium keeps at most 16 per
// page (the oldest is lost beyond that), so a notebook with many graph outputs
// keeps only MAX_LIVE renderers; views out of sight are suspended (renderer
// killed, graph/positions/camera kept) and resumed when they come back. A spare renderer (spare.js) counts as one.
const MAX_LIVE = 5;
// Graphs up to this many nodes have the canvas's padding fitted to their biggest disc (padForSizes).
const PAD_LOOK = 20000;
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
  while (live.size >= MAX_LIVE && order.length) /** @type {View} */ (order.shift()).rendering.suspend();
}

/** A tick of the clock that orders views by when they were last in sight. */
export function nextSeen() {
  return ++clock;
}

export class Rendering {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }


  /**
   * @returns {Renderer} the renderer made (or the spare, taken)
   */
  makeRenderer() {
    const settings = this.view.styles.sigmaSettings();
    let r = takeSpare(this.view.graph, this.view.ui.sigmaBox, settings);
    this.view.times.spare = r !== null;
    if (!r) {
      makeRoom(this.view);
      r = new Sigma(this.view.graph, this.view.ui.sigmaBox, settings);
    }
    this.view.renderer = r;
    this.view.frameNo = 0;
    this.view.scene = null;
    r.on("beforeRender", () => this.view.frameNo++); // caption placement starts afresh each frame
    r.on("afterRender", () => this.view.edgeText.drawLoops());
    r.on("afterRender", () => this.view.rooms.draw(r)); // rooms.js: the opened groups' discs
    r.on("afterRender", () => this.view.report.reportSoon()); // snapshot.js: tell the kernel what is shown
    r.on("afterRender", () => this.padForSizes(r));
    this.bindEvents();
    // someone else's WebGL use may still push ours out: redraw with fresh contexts
    for (const c of this.view.ui.sigmaBox.querySelectorAll("canvas")) {
      c.addEventListener("webglcontextlost", (e) => {
        e.preventDefault();
        setTimeout(() => {
          if (this.view.renderer !== r) return;
          const now = performance.now();
          this.view.losses = (this.view.losses || []).filter((t) => now - t < 10000);
          this.view.losses.push(now);
          this.suspend();
          if (this.view.visible && this.view.losses.length <= 3) this.resume();
        }, 0);
      });
    }
    this.view.suspended = false;
    live.add(this.view);
    this.view.seen = ++clock;
    return r;
  }

  // Sigma fits the nodes' centres into the canvas less its stagePadding, so a disc wider than the padding (an
  // overview's biggest groups, at the drawing's edge) was cut by the canvas's edge. The padding is fitted to the
  // biggest disc of the first frame, once per view (a renderer made again takes the same): what opens, grows or
  // goes later (a drill's members and open discs, a collapse) must not rescale the map.
  /** @param {Renderer} r */
  padForSizes(r) {
    if (this.view.padding !== undefined) return; // a renderer made again starts with it (style.js sigmaSettings)
    const g = this.view.graph;
    let biggest = 0;
    if (g && g.order <= PAD_LOOK && (this.view.zoomGrow || 1) <= 1) { // a layered drawing's nodes fit their slots
      g.forEachNode((key) => {
        const d = r.getNodeDisplayData(key);
        if (d && !d.hidden && d.size > biggest) biggest = d.size;
      });
    }
    const padding = /** @type {number} */ (r.getSetting("stagePadding"));
    this.view.padding = biggest > padding ? Math.ceil(biggest) + 6 : 0; // only a disc wider than the padding is cut
    if (this.view.padding > padding) r.setSetting("stagePadding", this.view.padding);
  }

  dropRenderer() {
    const r = this.view.renderer;
    if (!r) return;
    this.view.renderer = null;
    live.delete(this.view);
    killRenderer(r);
  }

  suspend() {
    if (!this.view.renderer) return;
    this.view.camState = this.view.renderer.getCamera().getState();
    this.dropRenderer();
    this.view.suspended = true;
    this.view.ui.hideTip();
  }

  resume() {
    if (this.view.renderer || !this.view.graph || !this.view.suspended) return;
    const made = this.makeRenderer();
    if (this.view.camState) made.getCamera().setState(this.view.camState);
    if (this.view.pendingFirstFrame || this.view.times.firstFrame === null) this.view.firstFrameGo();
  }

  waitFirstFrame() {
    const id = this.view.instanceId;
    const go = () => {
      if (id !== this.view.instanceId || !this.view.renderer) return;
      const box = this.view.ui.sigmaBox;
      if (!box.offsetWidth || !box.offsetHeight || !box.isConnected) {
        this.view.pendingFirstFrame = true; // the ResizeObserver calls go() again
        return;
      }
      this.view.pendingFirstFrame = false;
      this.view.applyTheme(); // the element may not have been in the page (no CSS variables) before
      const before = this.view.renderer.getDimensions();
      this.view.renderer.resize();
      const now = this.view.renderer.getDimensions();
      if (now.width !== before.width || now.height !== before.height) this.view.renderer.refresh();
      /** @type {Record<string, number>} */ (this.view.times.marks).rendered = performance.now();
      requestAnimationFrame(() => {
        if (id !== this.view.instanceId) return;
        this.view.times.firstFrame = performance.now();
        this.view.resolveReady();
        this.view.send({ kind: "ready", ms: Math.round(this.view.times.firstFrame - this.view.times.start), nodes: this.view.graph.order });
        this.startLayout();
        spareSoon(box.clientWidth, box.clientHeight, () => live.size < MAX_LIVE); // for the next canvas
      });
    };
    this.view.firstFrameGo = go;
    go();
  }

  startLayout() {
    const id = this.view.instanceId;
    // big components unfold from pivot-MDS positions, computed after the first frame (which
    // shows the quick spiral) so the first frame costs what it did; FA2 refines from there
    let unfolded = false;
    if (this.view.layouts.layoutName() === "force" && this.view.unfoldedFor !== id && !this.view.asShown) {
      this.view.unfoldedFor = id;
      unfolded = startPositions(this.view.graph, { mds: true });
      if (unfolded && this.view.renderer) this.view.renderer.refresh();
    }
    if (this.view.layouts.layoutName() !== "force" || this.view.asShown) {
      // a computed layout (layouts/index.js), or the positions a page showed, are placed already: nothing moves
      this.view.times.settled = performance.now();
      this.view.deltas.keepInView();
      this.view.resolveSettled();
      this.view.layouts.layoutSettled();
      return;
    }
    this.view.layout = new Layout(this.view.graph, {
      isFixed: (k) => {
        const d = this.view.nd.get(k);
        return !!(d && d.fixed);
      },
      wide: () => this.view.ui.sigmaBox.clientWidth >= this.view.ui.sigmaBox.clientHeight,
      aspect: () => {
        const b = this.view.ui.sigmaBox;
        // captions stick out to the right of nodes: aim a bit narrower than the box
        return b.clientWidth && b.clientHeight ? (b.clientWidth - 120) / Math.max(1, b.clientHeight - 48) : 1.4;
      },
      onUpdate: () => {},
      onSettled: () => {
        if (id !== this.view.instanceId) return;
        this.view.times.settled = performance.now();
        this.view.times.iterations = this.view.layout ? this.view.layout.iterationsDone : 0;
        this.view.renderer && this.view.renderer.refresh();
        this.view.deltas.keepInView();
        this.view.resolveSettled();
        this.view.layouts.layoutSettled();
      },
    });
    // from an unfolded start FA2 only refines: a shorter time cap for big graphs
    if (unfolded) this.view.layout.cap = Math.min(this.view.layout.cap, 3000 + this.view.graph.order * 0.3);
    this.view.layout.start();
  }

  /** @private */
  bindEvents() {
    const r = /** @type {Renderer} */ (this.view.renderer); // made just before (makeRenderer)

    r.on("clickNode", ({ node, event }) => {
      // on a dense canvas sigma's pick can be a neighbour drawn on top: take the nearest centre
      if (event && Number.isFinite(event.x)) node = this.view.filters.nearestNode(event.x, event.y) || node;
      const add = event && event.original && (event.original.shiftKey || event.original.metaKey || event.original.ctrlKey);
      if (add) {
        const next = new Set(this.view.selected);
        if (next.has(node)) next.delete(node);
        else next.add(node);
        this.view.actions.setSelection([...next], true);
      } else this.view.actions.setSelection([node], true);
      this.view.send({ kind: "click", id: node });
    });
    r.on("doubleClickNode", (e) => {
      e.preventSigmaDefault();
      if (e.event && e.event.preventSigmaDefault) e.event.preventSigmaDefault();
      this.view.send({ kind: "dblclick", id: e.node });
      const s = this.view.model.get("settings") || {};
      if (s.expandable) this.view.ui.setStatus("expanding " + clip(this.view.nd.get(e.node).c, 60) + "…", "info");
    });
    const clickEdge = (/** @type {string} */ edge) => {
      const prev = this.view.selectedEdge;
      this.view.selectedEdge = edge;
      this.view.styles.restyleEdges(/** @type {string[]} */ ([prev, edge].filter(Boolean)));
      this.view.actions.showEdge(edge);
    };
    r.on("clickStage", ({ event }) => {
      // thin edges are easy to miss (sigma picks on a downsized buffer): look around the click
      if (r.getSetting("enableEdgeEvents") && event) {
        for (const [dx, dy] of [[0, 2], [2, 0], [0, -2], [-2, 0], [2, 2], [-2, -2], [2, -2], [-2, 2]]) {
          const e = internals(r).getEdgeAtPoint(event.x + dx, event.y + dy);
          if (e) return clickEdge(e);
        }
      }
      if (this.view.selected.size || this.view.selectedEdge) this.view.actions.setSelection([], true);
    });
    r.on("clickEdge", ({ edge }) => clickEdge(edge));
    r.on("enterNode", ({ node, event }) => {
      const a = this.view.nd.get(node);
      const lines = [a.c];
      const labs = this.view.actions.nodeLabels(a);
      if (labs.length) lines.push(labs.join(", "));
      this.view.ui.showTip(event.x, event.y, lines, this.tipAvoid(node));
    });
    r.on("leaveNode", () => this.view.ui.hideTip());
    r.on("enterEdge", ({ edge, event }) => {
      const a = this.view.ed.get(edge);
      const [s, t] = this.view.graph.extremities(edge);
      const type = a.y >= 0 && this.view.types[a.y] !== undefined ? String(this.view.types[a.y]) : "(no type)";
      const head = a.w ? this.view.actions.countsByType(a) : [type]; // a super-edge: its relationships, counted by type
      this.view.ui.showTip(event.x, event.y, [...head, clip(this.view.nd.get(s).c, 60) + " → " + clip(this.view.nd.get(t).c, 60)]);
    });
    r.on("leaveEdge", () => this.view.ui.hideTip());
  }

  // What the node tooltip must not cover: the node and its caption (screen px).
  /**
   * @param {string} node
   * @returns {import("./ui.js").Rect[] | null}
   * @private
   */
  tipAvoid(node) {
    const r = this.view.renderer;
    const d = r && r.getNodeDisplayData(node);
    if (!d) return null;
    const p = r.framedGraphToViewport(d);
    const size = r.scaleSize(d.size) + 4;
    /** @type {import("./ui.js").Rect[]} */
    const out = [[p.x - size, p.y - size, p.x + size, p.y + size]];
    const spot = this.view.spots && this.view.spots.get(node);
    if (spot) out.push([spot.x - 4, spot.y - 4, spot.x + spot.w + 4, spot.y + 18]);
    else out.push([p.x + size, p.y - 10, p.x + size + 8 * Math.min(48, String(d.label || "").length), p.y + 10]);
    return out;
  }
}
