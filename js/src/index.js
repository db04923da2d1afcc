// gestalt-nb graph canvas: render({model, el}) for anywidget (see docs/protocol.md).
import { sendToKernel } from "./protocol.js";
import Sigma from "sigma";
import { normalizePayload, newGraph, addItems, edgeCount } from "./payload.js";
import { startPositions, Layout } from "./layout.js";
import { buildUI, clip } from "./ui.js";
import { readTheme } from "./theme.js";
import { makeHooks } from "./hooks.js";
import { StyleMethods } from "./style.js";
import { ActionMethods } from "./actions.js";
import { DeltaMethods } from "./delta.js";
import { ReportMethods } from "./snapshot.js";
import { ExportMethods } from "./export.js";
import { FilterMethods } from "./filter.js";
import { LayoutMethods } from "./layouts/index.js";
import { killRenderer, takeSpare, spareSoon, hasSpare, dropSpare, internals } from "./spare.js";

/**
 * @typedef {object} Model  the anywidget model of one canvas (its traits: docs/protocol.md)
 * @property {(name: string) => any} get
 * @property {(name: string, value: unknown) => void} set
 * @property {() => void} save_changes
 * @property {(message: import("./protocol.js").PageMessage) => void} send
 * @property {(name: string, fn: (...args: any[]) => void) => void} on
 * @property {(name: string, fn: (...args: any[]) => void) => void} off
 */
/** @typedef {HTMLElement & {gestaltCanvas?: import("./hooks.js").Hooks}} HostElement  an element carrying the test hooks */
/** @typedef {{t: "hide", ids: string[]} | {t: "pin", prev: [string, boolean][]} | {t: "py", revision: number}} UndoStep  one step the toolbar's Undo takes back */
/**
 * @typedef {object} Times  when each stage happened (performance.now()), for timings()
 * @property {number} start
 * @property {number | null} firstFrame
 * @property {number | null} settled
 * @property {Record<string, number>} [marks]
 * @property {boolean} [spare]  the renderer was the one made ahead
 * @property {number} [iterations]  FA2 iterations run
 */
/** @typedef {import("./spare.js").Renderer} Renderer */
/** @typedef {import("./payload.js").GraphT} GraphT */
/** @typedef {CanvasView} ViewState  the view's state: every field, declared with its type in CanvasView's constructor */
/**
 * The view as its methods see it: its state (CanvasView's fields, each declared with its type in the constructor)
 * and the methods of its parts, each part a class of methods over that state (composed below).
 * @typedef {CanvasView & StyleMethods & ActionMethods & DeltaMethods & ReportMethods & ExportMethods & FilterMethods & LayoutMethods} View
 */

let instances = 0;

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

class CanvasView {
  /**
   * @param {Model} model
   * @param {HostElement} el
   */
  constructor(model, el) {
    const view = /** @type {View} */ (/** @type {unknown} */ (this)); // the parts' methods are composed onto the prototype below
    this.model = model;
    this.el = el;
    /** @type {number} the drawing's number (-1: destroyed) */
    this.instanceId = 0;
    /** @type {Renderer | null} */
    this.renderer = null;
    /** @type {Layout | null} the running force layout */
    this.layout = null;
    /** @type {Set<string>} */
    this.selected = new Set();
    /** @type {string | null} */
    this.selectedEdge = null;
    /** @type {Set<string>} nodes hidden with the toolbar */
    this.hidden = new Set();
    /** @type {UndoStep[]} */
    this.undo = [];
    this.revision = 0;
    this.syncAsked = -1;
    /** @type {Times} */
    this.times = { start: performance.now(), firstFrame: null, settled: null };
    /** @type {(() => void)[]} */
    this.disposers = [];
    this.generation = 0;
    // The rest of the state, declared (not set) here: build() and the parts set it.
    /** @type {GraphT} */ this.graph;
    /** @type {import("./payload.js").Table<import("./payload.js").NodeData>} */ this.nd;
    /** @type {import("./payload.js").Table<import("./payload.js").EdgeData>} */ this.ed;
    /** @type {import("./payload.js").Payload} */ this.payload;
    /** @type {unknown} the decoded graph_gz */ this.packed;
    /** @type {import("./payload.js").WireLabel[]} */ this.labels;
    /** @type {string[]} relationship types, by position */ this.types;
    /** @type {number} highlighted nodes */ this.hlCount;
    /** @type {number} highlighted relationships */ this.ehlCount;
    /** @type {import("./theme.js").Theme} */ this.theme;
    /** @type {import("./hooks.js").Hooks} */ this.hooks;
    /** @type {HostElement} */ this.root;
    /** @type {import("./ui.js").UI} */ this.ui;
    /** @type {HTMLElement | null} what has the keyboard in this canvas */ this.focused;
    /** @type {boolean} in sight (or near it) */ this.visible;
    /** @type {number} when last in sight (a clock of all views) */ this.seen;
    /** @type {boolean} the renderer was dropped to make room, the drawing kept */ this.suspended;
    /** @type {Promise<void>} */ this.readyPromise;
    /** @type {() => void} */ this.resolveReady;
    /** @type {Promise<void>} */ this.settledPromise;
    /** @type {() => void} */ this.resolveSettled;
    /** @type {boolean | undefined} promises made for a build still to come */ this.pendingPromises;
    /** @type {number | undefined} */ this.loadToken;
    /** @type {boolean} where a page showed the nodes (to_html): no layout runs */ this.asShown;
    /** @type {import("sigma/types").CameraState | null} kept while suspended */ this.camState;
    /** @type {number} sigma frames drawn */ this.frameNo;
    /** @type {import("./style.js").Scene | null} this frame's nodes, segments and caption boxes */ this.scene;
    /** @type {number[] | undefined} when WebGL contexts were lost */ this.losses;
    /** @type {boolean | undefined} the first frame waits for the box to have a size */ this.pendingFirstFrame;
    /** @type {() => void} */ this.firstFrameGo;
    /** @type {number | undefined} the build whose force layout started from pivot MDS */ this.unfoldedFor;
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this.revTimer;
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this.reportTimer;
    /** @type {string | undefined} the last "shown" report, as sent */ this.lastReport;
    // style.js
    /** @type {string} sigma's node program */ this.nodeType;
    /** @type {string} sigma's edge program */ this.edgeType;
    /** @type {string} the program of highlighted edges in big graphs */ this.bigEdgeHi;
    /** @type {number} */ this.baseSize;
    /** @type {number} */ this.edgeSize;
    /** @type {boolean} relationship types drawn on the edges */ this.edgeLabels;
    /** @type {number | null | undefined} a computed layout's room per node (px) */ this.sizeCap;
    /** @type {string[]} by label position */ this.labelColors;
    /** @type {Map<string, import("./style.js").Spot | null> | undefined} where each caption was drawn */ this.spots;
    /** @type {Map<string, {k: number, n: number}> | undefined} */ this.slots;
    /** @type {number | undefined} */ this.slotsFrame;
    // filter.js
    /** @type {import("./encode.js").Encodings | null} */ this.enc;
    /** @type {import("./filter.js").StyleSpec} */ this.styleSpec;
    /** @type {import("./filter.js").LayoutSpec} */ this.layoutSpec;
    /** @type {import("./filter.js").Filter} */ this.filt;
    /** @type {Set<string>} nodes the filter hides */ this.filtered;
    /** @type {import("./protocol.js").FilterOp | null} the payload's filter, applied after the build */ this.pendingFilter;
    // delta.js
    /** @type {Map<string, number> | undefined} a drilled group's disc radius */ this.discs;
    /** @type {Map<string, number> | undefined} */ this.discCount;
    /** @type {boolean | undefined} */ this.fitAfter;
    // export.js
    /** @type {{path: HTMLButtonElement, png: HTMLButtonElement, svg: HTMLButtonElement} | undefined} */ this.outButtons;
    // layouts/index.js
    /** @type {Promise<void> | null} */ this.layoutPromise;
    /** @type {(() => void) | undefined} */ this.resolveLayout;
    /** @type {number[] | null | undefined} */ this.layoutSpacing;
    /** @type {number | undefined} */ this.layoutToken;
    /** @type {string | null | undefined} */ this.layoutNote;

    /** @type {HostElement} */
    const root = document.createElement("div");
    root.className = "gc-root";
    root.setAttribute("data-gestalt-canvas", "");
    el.appendChild(root);
    this.root = root;
    this.ui = buildUI(root, {
      fit: () => view.fit(),
      hide: () => view.hideSelected(),
      pin: () => view.pinSelected(),
      undo: () => view.undoLast(),
      collapse: () => view.collapseSelected(),
      search: (q) => view.search(q),
      pick: (key) => view.pick(key),
    });
    // what has the keyboard in this canvas (the search box, say): given back after a move (adopted())
    root.addEventListener("focusin", (e) => (this.focused = /** @type {HTMLElement} */ (e.target)));
    root.addEventListener("focusout", () =>
      setTimeout(() => {
        if (this.root.isConnected && !this.root.contains(document.activeElement)) this.focused = null;
      }, 0)
    );
    this.hooks = makeHooks(view);
    root.gestaltCanvas = this.hooks;
    el.gestaltCanvas = this.hooks;
    view.addOutButtons(); // export.js: PNG, SVG, Path
    this.theme = readTheme(root);

    /** @type {(name: string, fn: (...args: any[]) => void) => void} */
    const listen = (name, fn) => {
      model.on(name, fn);
      this.disposers.push(() => model.off(name, fn));
    };
    listen("change:graph", () => view.load());
    listen("change:graph_gz", () => view.load());
    listen("change:selected", () => view.selectFromModel());
    listen("change:height", () => view.applyHeight());
    listen("change:settings", () => view.applySettings());
    listen("msg:custom", (msg) => view.onMessage(msg));
    listen("change:revision", () => {
      // a delta message may still be on its way: ask for a sync only if we stay behind
      clearTimeout(this.revTimer);
      this.revTimer = setTimeout(() => {
        const r = this.model.get("revision");
        if (typeof r === "number" && r > this.revision && this.renderer) view.askSync();
      }, 1500);
    });
    this.disposers.push(() => clearTimeout(this.revTimer));

    this.visible = typeof IntersectionObserver === "undefined"; // else told by the observer
    if (typeof IntersectionObserver !== "undefined") {
      const io = new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            this.visible = e.isIntersecting;
            if (this.visible) {
              this.seen = ++clock;
              view.resume();
            }
          }
        },
        { rootMargin: "200px" }
      );
      io.observe(root);
      this.disposers.push(() => io.disconnect());
    }
    const ro = new ResizeObserver(() => view.onResize());
    ro.observe(this.ui.sigmaBox);
    ro.observe(root);
    this.disposers.push(() => ro.disconnect());
    if (typeof MutationObserver !== "undefined" && document.body) {
      const mo = new MutationObserver(() => view.applyTheme());
      mo.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name", "class"] });
      this.disposers.push(() => mo.disconnect());
    }
    view.applyHeight();
    view.load();
  }

  // ---- building ---------------------------------------------------------------

  /** @this {View} */
  newPromises() {
    this.readyPromise = new Promise((r) => (this.resolveReady = r));
    this.settledPromise = new Promise((r) => (this.resolveSettled = r));
  }

  // The base graph arrives gzip-compressed in `graph_gz` (bytes; small in saved notebooks) or as
  // plain JSON in `graph`; decompressing is asynchronous, so hooks wait on promises made up front.
  /** @this {View} */
  async load() {
    const token = (this.loadToken = (this.loadToken || 0) + 1);
    if (!this.pendingPromises) {
      this.newPromises();
      this.pendingPromises = true;
    }
    let packed;
    const bytes = this.model.get("graph_gz");
    if (bytes && bytes.byteLength) {
      try {
        packed = await (taken(this.model, bytes) || inflateJSON(bytes));
      } catch (error) {
        this.ui.setStatus("The graph could not be read: " + ((error && /** @type {Error} */ (error).message) || error), "error");
        return;
      }
    }
    if (token !== this.loadToken || this.instanceId === -1) return; // a newer payload, or the view is gone
    this.packed = packed;
    this.build();
  }

  /** @this {View} */
  build() {
    this.teardown();
    const t0 = performance.now();
    this.times = { start: this.instanceId ? t0 : this.times.start, firstFrame: null, settled: null };
    if (!this.pendingPromises) this.newPromises();
    this.pendingPromises = false; // the next build makes new ones

    const p = normalizePayload(this.packed !== undefined ? this.packed : this.model.get("graph"));
    this.payload = p;
    this.labels = p.labels;
    this.types = p.types;
    // highlight counts up front, so the nodes and relationships are styled once, as they will stay (restyleAll below
    // runs only when an encoding or the counts of what was added say otherwise)
    this.hlCount = p.nodes.filter((n) => n && n.h).length;
    this.ehlCount = p.edges.filter((e) => e && e.h).length + (p.ec ? (p.ec.h === true ? p.ec.id.length : p.ec.h.size) : 0);
    const counted = [this.hlCount, this.ehlCount];
    this.revision = 0;
    this.syncAsked = -1;
    this.selected = new Set();
    this.selectedEdge = null;
    this.hidden = new Set();
    this.undo = [];
    this.theme = readTheme(this.root);
    this.updateLabelColors();
    this.readView(p.view); // encodings, layout and filter the Python side asked for (filter.js)
    this.enc = null;
    this.layoutPromise = null;

    const N = p.nodes.length, E = edgeCount(p);
    this.sizing(N, E);
    const graph = newGraph();
    this.graph = graph;
    this.nd = new Map(); // node key -> {c, lc, l, L, h, p, deg, fixed}
    this.ed = new Map(); // edge key -> {y, h, p}
    /** @type {Record<string, number>} */
    const m = (this.times.marks = { payload: t0 });
    addItems(graph, this, p.nodes, p.edges, this.styler(), undefined, p.ec);
    m.graph = performance.now();
    this.asShown = false;
    if (p.at) this.placeAsShown(p.at); // to_html: where the notebook's page showed them, and no layout runs
    else if (this.layoutName() !== "force") this.placeComputed(); // a computed layout needs no start positions
    else startPositions(graph);
    const enc = this.encode();
    this.countHighlights();
    if (this.pendingFilter) this.applyFilterOp(this.pendingFilter);
    else if (enc.color.of || enc.size.of || this.hlCount !== counted[0] || this.ehlCount !== counted[1]) this.restyleAll();
    m.positions = performance.now();

    this.ui.setNotes(p.notes.concat(this.layoutNote ? [this.layoutNote] : []));
    this.updateLegend();
    this.updateCount();
    this.ui.setStatus("", "info");
    this.ui.showInfo(null);
    this.updateButtons();

    this.instanceId = ++instances;
    this.camState = null;
    m.ui = performance.now();
    this.makeRenderer();
    m.sigma = performance.now();
    this.waitFirstFrame();

    const want = this.model.get("selected");
    if (Array.isArray(want) && want.length) this.setSelection(want, false);
    const rev = this.model.get("revision");
    if (typeof rev === "number" && rev > 0) this.askSync();
  }

  /**
   * @this {View}
   * @param {Record<string, unknown>} at
   */
  placeAsShown(at) {
    startPositions(this.graph); // nodes the page did not show (hidden there) start where a layout would
    const num = (/** @type {unknown} */ v) => typeof v === "number" && Number.isFinite(v);
    this.graph.updateEachNodeAttributes((k, a) => {
      const p = at[k];
      if (Array.isArray(p) && num(p[0]) && num(p[1])) {
        a.x = p[0];
        a.y = p[1];
      }
      return a;
    }, { attributes: ["x", "y"] });
    this.asShown = true;
  }

  /**
   * @this {View}
   * @returns {Renderer} the renderer made (or the spare, taken)
   */
  makeRenderer() {
    const settings = this.sigmaSettings();
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
    r.on("afterRender", () => this.drawLoops());
    r.on("afterRender", () => this.reportSoon()); // snapshot.js: tell the kernel what is shown
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
    if (this.layoutName() === "force" && this.unfoldedFor !== id && !this.asShown) {
      this.unfoldedFor = id;
      unfolded = startPositions(this.graph, { mds: true });
      if (unfolded && this.renderer) this.renderer.refresh();
    }
    if (this.layoutName() !== "force" || this.asShown) {
      // a computed layout (layouts/index.js), or the positions a page showed, are placed already: nothing moves
      this.times.settled = performance.now();
      this.keepInView();
      this.resolveSettled();
      this.layoutSettled();
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
        this.keepInView();
        this.resolveSettled();
        this.layoutSettled();
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
      if (event && Number.isFinite(event.x)) node = this.nearestNode(event.x, event.y) || node;
      const add = event && event.original && (event.original.shiftKey || event.original.metaKey || event.original.ctrlKey);
      if (add) {
        const next = new Set(this.selected);
        if (next.has(node)) next.delete(node);
        else next.add(node);
        this.setSelection([...next], true);
      } else this.setSelection([node], true);
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
      this.restyleEdges(/** @type {string[]} */ ([prev, edge].filter(Boolean)));
      this.showEdge(edge);
    };
    r.on("clickStage", ({ event }) => {
      // thin edges are easy to miss (sigma picks on a downsized buffer): look around the click
      if (r.getSetting("enableEdgeEvents") && event) {
        for (const [dx, dy] of [[0, 2], [2, 0], [0, -2], [-2, 0], [2, 2], [-2, -2], [2, -2], [-2, 2]]) {
          const e = internals(r).getEdgeAtPoint(event.x + dx, event.y + dy);
          if (e) return clickEdge(e);
        }
      }
      if (this.selected.size || this.selectedEdge) this.setSelection([], true);
    });
    r.on("clickEdge", ({ edge }) => clickEdge(edge));
    r.on("enterNode", ({ node, event }) => {
      const a = this.nd.get(node);
      const lines = [a.c];
      const labs = this.nodeLabels(a);
      if (labs.length) lines.push(labs.join(", "));
      this.ui.showTip(event.x, event.y, lines, this.tipAvoid(node));
    });
    r.on("leaveNode", () => this.ui.hideTip());
    r.on("enterEdge", ({ edge, event }) => {
      const a = this.ed.get(edge);
      const [s, t] = this.graph.extremities(edge);
      const type = a.y >= 0 && this.types[a.y] !== undefined ? String(this.types[a.y]) : "(no type)";
      this.ui.showTip(event.x, event.y, [type, clip(this.nd.get(s).c, 60) + " → " + clip(this.nd.get(t).c, 60)]);
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

  // ---- traits / environment --------------------------------------------------------

  /** @this {View} */
  applyHeight() {
    let hgt = Number(this.model.get("height"));
    if (!Number.isFinite(hgt) || hgt < 120) hgt = 480;
    this.ui.sigmaBox.style.height = Math.min(hgt, 4000) + "px";
    this.ui.panel.style.maxHeight = Math.min(hgt, 4000) + 60 + "px";
  }

  /** @this {View} */
  applySettings() {
    // settings.caption is applied by Python (it builds captions); nothing to redraw here.
    this.updateButtons();
  }

  /** @this {View} */
  applyTheme() {
    const next = readTheme(this.root);
    if (this.theme && next.bg === this.theme.bg && next.fg === this.theme.fg) return;
    this.theme = next;
    this.updateLabelColors();
    if (this.graph && this.enc) {
      this.encode(); // the sequential scale depends on the background
      this.updateLegend();
    }
    if (!this.renderer) return;
    const s = this.sigmaSettings();
    this.renderer.setSetting("labelColor", /** @type {{color: string}} */ (s.labelColor));
    this.renderer.setSetting("edgeLabelColor", /** @type {{color: string}} */ (s.edgeLabelColor));
    this.restyleAll();
  }

  /** @this {View} */
  onResize() {
    if (!this.root.isConnected) return; // taken out of the page (an output drawn again: see adopted())
    this.ui.setNarrow(this.root.clientWidth > 0 && this.root.clientWidth < 620);
    if (!this.renderer) return;
    if (this.layoutSpacing) this.fitSizes(this.layoutSpacing); // node sizes follow the room a computed layout leaves
    if (this.pendingFirstFrame) {
      this.firstFrameGo();
      return;
    }
    this.renderer.resize();
    this.renderer.refresh();
  }

  /**
   * @this {View}
   * @param {import("./protocol.js").PageMessage} msg
   */
  send(msg) {
    sendToKernel(this.model, msg);
  }

  /** @this {View} */
  teardown() {
    clearTimeout(this.reportTimer);
    if (this.layout) this.layout.stop();
    this.layout = null;
    this.dropRenderer();
    this.suspended = false;
    this.ui.hideTip();
  }

  /** @this {View} */
  destroy() {
    this.teardown();
    for (const d of this.disposers.splice(0)) d();
    this.instanceId = -1;
    if (this.root.parentNode) this.root.parentNode.removeChild(this.root);
    if (this.el.gestaltCanvas === this.hooks) delete this.el.gestaltCanvas;
  }
}

// the view's methods live in small modules: style.js (display attributes and
// sigma settings), actions.js (selection, panel, toolbar), delta.js (messages)
// snapshot.js (what is shown, for the kernel), export.js (PNG / SVG / Path buttons), filter.js and layouts/
for (const part of [StyleMethods, ActionMethods, DeltaMethods, ReportMethods, ExportMethods, FilterMethods, LayoutMethods]) {
  for (const name of Object.getOwnPropertyNames(part.prototype)) {
    if (name !== "constructor") Object.defineProperty(CanvasView.prototype, name, /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(part.prototype, name)));
  }
}

// Graphs read before their view existed (prefetch), by canvas key: {bytes, packed (a promise)}; a view takes its
// own out (taken), so each is read once; the few newest are kept for outputs still on their way.
/** @type {Map<string, {bytes: DataView | ArrayBuffer, packed: Promise<unknown>}>} */
const early = new Map();
const EARLY = 4;

// Start reading a canvas's graph as soon as it reaches the model (called by the loader's initialize, in bundle.py):
// the kernel still sends the rest of the output meanwhile.
/** @param {Model} model */
export function prefetch(model) {
  const key = model.get("_key");
  const bytes = model.get("graph_gz");
  if (!key || !bytes || !bytes.byteLength || (early.has(key) && /** @type {{bytes: unknown}} */ (early.get(key)).bytes === bytes)) return;
  const packed = inflateJSON(bytes);
  packed.catch(() => {}); // the view reads it again and says what went wrong
  early.delete(key);
  early.set(key, { bytes, packed });
  while (early.size > EARLY) early.delete(/** @type {string} */ (early.keys().next().value));
}

/**
 * @param {Model} model
 * @param {DataView | ArrayBuffer} bytes
 * @returns {Promise<unknown> | null}
 */
function taken(model, bytes) {
  const key = model.get("_key");
  const known = key ? early.get(key) : null;
  if (!known || known.bytes !== bytes) return null;
  early.delete(key);
  return known.packed;
}

/**
 * @param {DataView | ArrayBuffer} view  graph_gz's bytes
 * @returns {Promise<unknown>}
 */
async function inflateJSON(view) {
  const bytes = ArrayBuffer.isView(view) ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength) : new Uint8Array(view);
  const stream = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

// The views of each canvas (by its `_key`). When the kernel updates an output (update_display, to
// keep the saved notebook's picture the one on screen), the front end drops the old view's element
// from the page and renders the output again: the new view takes over the old one's drawing as it
// is (positions, camera, selection, panel), instead of starting a new layout.
/** @type {Map<string, Set<View>>} */
const byKey = new Map();

/**
 * @param {Model} model
 * @param {HostElement} el
 * @returns {View | null}
 */
function adopted(model, el) {
  const key = model.get("_key");
  const views = key ? byKey.get(key) : null;
  if (!views) return null;
  for (const view of views) {
    if (view.instanceId === -1 || view.root.isConnected) continue;
    view.generation++;
    el.appendChild(view.root);
    view.el = el;
    el.gestaltCanvas = view.hooks;
    // the new output joins the page after render() returns: give the keyboard back once it has
    const focused = view.focused;
    let frames = 0;
    const refocus = () => {
      if (view.instanceId === -1 || frames++ > 120) return;
      if (!view.root.isConnected) return requestAnimationFrame(refocus);
      if (view.renderer) view.onResize();
      if (focused && view.root.contains(focused) && focused.focus && document.activeElement !== focused) focused.focus({ preventScroll: true });
    };
    refocus();
    return view;
  }
  return null;
}

/**
 * anywidget's render: draws the canvas into `el`; returns what removes it.
 * @param {{model: Model, el: HostElement}} args
 */
export function render({ model, el }) {
  const view = adopted(model, el) || /** @type {View} */ (/** @type {unknown} */ (new CanvasView(model, el)));
  const key = model.get("_key");
  if (key) {
    if (!byKey.has(key)) byKey.set(key, new Set());
    /** @type {Set<View>} */ (byKey.get(key)).add(view);
  }
  const generation = view.generation;
  return () => {
    if (view.generation !== generation) return; // handed to a newer output of the same canvas
    view.destroy();
    const views = byKey.get(key);
    if (views && views.delete(view) && !views.size) byKey.delete(key);
  };
}

export default { render };
