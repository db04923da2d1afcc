// The view: its state (state.js), how it builds a drawing from a payload, and how it follows the model and the page.
// The rest is done by its parts, each an object it holds in a field and each holding the view (their state and one
// another's): view.rendering (renderer.js), .styles (style.js), .captions (captions.js), .edgeText (edgelabels.js),
// .actions (actions.js), .deltas (delta.js), .drill (drill.js), .report (snapshot.js), .exporter (export.js),
// .filters (filter.js), .layouts (layouts/index.js) and .timeline (timeline.js).
import { normalizePayload, newGraph, addItems, edgeCount } from "./payload.js";
import { startPositions } from "./layout.js";
import { buildUI } from "./ui.js";
import { readTheme } from "./theme.js";
import { makeHooks } from "./hooks.js";
import { sendToKernel } from "./protocol.js";
import { taken, inflateJSON } from "./read.js";
import { nextSeen, Rendering } from "./renderer.js";
import { ViewState } from "./state.js";
import { Styles } from "./style.js";
import { Captions } from "./captions.js";
import { EdgeText } from "./edgelabels.js";
import { Actions } from "./actions.js";
import { Deltas } from "./delta.js";
import { Drill } from "./drill.js";
import { Rooms } from "./rooms.js";
import { Report } from "./snapshot.js";
import { Exporter } from "./export.js";
import { Filters } from "./filter.js";
import { Layouts } from "./layouts/index.js";
import { Timeline } from "./timeline.js";

/** @typedef {import("./state.js").Model} Model */
/** @typedef {import("./state.js").HostElement} HostElement */
/** @typedef {import("./state.js").ViewFields} ViewFields */

let instances = 0;

export class CanvasView extends ViewState {
  /**
   * @param {Model} model
   * @param {HostElement} el
   */
  constructor(model, el) {
    super();
    this.model = model;
    this.el = el;
    this.instanceId = 0;
    /** @type {ViewFields["renderer"]} */
    this.renderer = null;
    /** @type {ViewFields["layout"]} */
    this.layout = null;
    /** @type {ViewFields["selected"]} */
    this.selected = new Set();
    /** @type {ViewFields["selectedEdge"]} */
    this.selectedEdge = null;
    /** @type {ViewFields["hidden"]} */
    this.hidden = new Set();
    /** @type {ViewFields["undo"]} */
    this.undo = [];
    this.revision = 0;
    this.syncAsked = -1;
    /** @type {ViewFields["times"]} */
    this.times = { start: performance.now(), firstFrame: null, settled: null };
    /** @type {ViewFields["disposers"]} */
    this.disposers = [];
    this.generation = 0;
    // the parts: each reads and sets the view's state, and calls the others through these fields
    this.rendering = new Rendering(this);
    this.styles = new Styles(this);
    this.captions = new Captions(this);
    this.edgeText = new EdgeText(this);
    this.actions = new Actions(this);
    this.deltas = new Deltas(this);
    this.drill = new Drill(this);
    this.rooms = new Rooms(this);
    this.report = new Report(this);
    this.exporter = new Exporter(this);
    this.filters = new Filters(this);
    this.layouts = new Layouts(this);
    this.timeline = new Timeline(this);
    /** @type {HostElement} */
    const root = document.createElement("div");
    root.className = "gc-root";
    root.setAttribute("data-gestalt-canvas", "");
    el.appendChild(root);
    this.root = root;
    this.ui = buildUI(root, buttons(this.actions));
    this.hooks = makeHooks(this);
    root.gestaltCanvas = this.hooks;
    el.gestaltCanvas = this.hooks;
    this.exporter.addOutButtons(); // export.js: PNG, SVG, Path
    this.theme = readTheme(root);

    listenToModel(this);
    watchPage(this);
    this.applyHeight();
    this.load();
  }

  newPromises() {
    this.readyPromise = new Promise((r) => (this.resolveReady = r));
    this.settledPromise = new Promise((r) => (this.resolveSettled = r));
  }

  // The base graph arrives gzip-compressed in `graph_gz` (bytes; small in saved notebooks) or as
  // plain JSON in `graph`; decompressing is asynchronous, so hooks wait on promises made up front.
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
    this.forget(); // nothing selected, hidden or undoable: a new drawing
    this.theme = readTheme(this.root);
    this.styles.updateLabelColors();
    this.filters.readView(p.view); // encodings, layout and filter the Python side asked for (filter.js)
    this.enc = null;
    this.layoutPromise = null;

    const N = p.nodes.length, E = edgeCount(p);
    this.styles.sizing(N, E);
    const graph = newGraph();
    this.graph = graph;
    this.nd = new Map(); // node key -> {c, lc, l, L, h, p, deg, fixed}
    this.ed = new Map(); // edge key -> {y, h, p}
    /** @type {Record<string, number>} */
    const m = (this.times.marks = { payload: t0 });
    addItems(graph, this, p.nodes, p.edges, this.styles.styler(), undefined, p.ec);
    m.graph = performance.now();
    this.asShown = false;
    if (p.at) this.placeAsShown(p.at); // to_html: where the notebook's page showed them, and no layout runs
    else if (this.layouts.layoutName() !== "force") this.layouts.placeComputed(); // a computed layout needs no start positions
    else {
      this.layouts.fitSizes(null); // no room per node kept from a computed layout drawn before
      startPositions(graph);
    }
    const enc = this.filters.encode();
    this.styles.countHighlights();
    if (this.pendingFilter) this.filters.applyFilterOp(this.pendingFilter);
    else if (enc.color.of || enc.size.of || this.hlCount !== counted[0] || this.ehlCount !== counted[1]) this.styles.restyleAll();
    this.timeline.start(p.tl); // a drawing with history: its slider shows the first moment (timeline.js)
    m.positions = performance.now();

    this.showState();
    this.instanceId = ++instances;
    this.camState = null;
    m.ui = performance.now();
    this.rendering.makeRenderer();
    m.sigma = performance.now();
    this.rendering.waitFirstFrame();

    const want = this.model.get("selected");
    if (Array.isArray(want) && want.length) this.actions.setSelection(want, false);
    const rev = this.model.get("revision");
    if (typeof rev === "number" && rev > 0) this.deltas.askSync();
  }
  // The interaction state of a drawing, as a new one starts it.
  forget() {
    this.revision = 0;
    this.syncAsked = -1;
    this.selected = new Set();
    this.selectedEdge = null;
    this.hidden = new Set();
    this.undo = [];
  }

  // The notes, legend, count, status line, panel and buttons, as the state now says.
  showState() {
    this.ui.setNotes(this.payload.notes.concat(this.layoutNote ? [this.layoutNote] : []));
    this.filters.updateLegend();
    this.actions.updateCount();
    this.ui.setStatus("", "info");
    this.ui.showInfo(null);
    this.actions.updateButtons();
  }


  /**
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

  applyHeight() {
    let hgt = Number(this.model.get("height"));
    if (!Number.isFinite(hgt) || hgt < 120) hgt = 480;
    this.ui.sigmaBox.style.height = Math.min(hgt, 4000) + "px";
    this.ui.panel.style.maxHeight = Math.min(hgt, 4000) + 60 + "px";
  }

  applySettings() {
    // settings.caption is applied by Python (it builds captions); nothing to redraw here.
    this.actions.updateButtons();
  }

  applyTheme() {
    const next = readTheme(this.root);
    if (this.theme && next.bg === this.theme.bg && next.fg === this.theme.fg) return;
    this.theme = next;
    this.styles.updateLabelColors();
    if (this.graph && this.enc) {
      this.filters.encode(); // the sequential scale depends on the background
      this.filters.updateLegend();
    }
    if (!this.renderer) return;
    const s = this.styles.sigmaSettings();
    this.renderer.setSetting("labelColor", /** @type {{color: string}} */ (s.labelColor));
    this.renderer.setSetting("edgeLabelColor", /** @type {{color: string}} */ (s.edgeLabelColor));
    this.styles.restyleAll();
  }

  onResize() {
    if (!this.root.isConnected) return; // taken out of the page (an output drawn again: see adopted())
    this.ui.setNarrow(this.root.clientWidth > 0 && this.root.clientWidth < 620);
    if (!this.renderer) return;
    if (this.layoutSpacing) this.layouts.fitSizes(this.layoutSpacing); // node sizes follow the room a computed layout leaves
    if (this.pendingFirstFrame) {
      this.firstFrameGo();
      return;
    }
    this.renderer.resize();
    this.renderer.refresh();
  }

  /**
   * @param {import("./protocol.js").PageMessage} msg
   */
  send(msg) {
    sendToKernel(this.model, msg);
  }

  teardown() {
    clearTimeout(this.reportTimer);
    this.timeline.stop();
    if (this.layout) this.layout.stop();
    this.layout = null;
    this.rendering.dropRenderer();
    this.suspended = false;
    this.ui.hideTip();
  }

  destroy() {
    this.teardown();
    for (const d of this.disposers.splice(0)) d();
    this.instanceId = -1;
    if (this.root.parentNode) this.root.parentNode.removeChild(this.root);
    if (this.el.gestaltCanvas === this.hooks) delete this.el.gestaltCanvas;
  }
}

// What the toolbar's buttons, search box and search list do: the actions part's.
/**
 * @param {Actions} a
 * @returns {import("./ui.js").UIActions}
 */
function buttons(a) {
  return {
    fit: () => a.fit(),
    hide: () => a.hideSelected(),
    pin: () => a.pinSelected(),
    undo: () => a.undoLast(),
    collapse: () => a.collapseSelected(),
    search: (q) => a.search(q),
    pick: (key) => a.pick(key),
  };
}

// The model's changes and messages, each followed while the view lives (disposers undo them).
/** @param {CanvasView} view */
function listenToModel(view) {
  const model = view.model;
  /** @type {(name: string, fn: (...args: any[]) => void) => void} */
  const listen = (name, fn) => {
    model.on(name, fn);
    view.disposers.push(() => model.off(name, fn));
  };
  listen("change:graph", () => view.load());
  listen("change:graph_gz", () => view.load());
  listen("change:selected", () => view.actions.selectFromModel());
  listen("change:height", () => view.applyHeight());
  listen("change:settings", () => view.applySettings());
  listen("msg:custom", (msg) => view.deltas.onMessage(msg));
  listen("change:revision", () => {
    // a delta message may still be on its way: ask for a sync only if we stay behind, and again every few seconds
    // while we do (an answer lost on a busy machine is asked for again, never waited for forever)
    clearTimeout(view.revTimer);
    const check = (/** @type {boolean} */ again) => {
      const r = view.model.get("revision");
      if (typeof r !== "number" || r <= view.revision || view.instanceId === -1) return;
      if (view.renderer) view.deltas.askSync(again);
      view.revTimer = setTimeout(() => check(true), 3000);
    };
    view.revTimer = setTimeout(() => check(false), 1500);
  });
  view.disposers.push(() => clearTimeout(view.revTimer));
}

// The page around the view: in sight or not (renderers are suspended out of sight), resized, re-themed, focused.
/** @param {CanvasView} view */
function watchPage(view) {
  const root = view.root;
  // what has the keyboard in this canvas (the search box, say): given back after a move (adopted())
  root.addEventListener("focusin", (e) => (view.focused = /** @type {HTMLElement} */ (e.target)));
  root.addEventListener("focusout", () =>
    setTimeout(() => {
      if (root.isConnected && !root.contains(document.activeElement)) view.focused = null;
    }, 0)
  );
  view.visible = typeof IntersectionObserver === "undefined"; // else told by the observer
  if (typeof IntersectionObserver !== "undefined") {
    const io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          view.visible = e.isIntersecting;
          if (view.visible) {
            view.seen = nextSeen();
            view.rendering.resume();
          }
        }
      },
      { rootMargin: "200px" }
    );
    io.observe(root);
    view.disposers.push(() => io.disconnect());
  }
  const ro = new ResizeObserver(() => view.onResize());
  ro.observe(view.ui.sigmaBox);
  ro.observe(root);
  view.disposers.push(() => ro.disconnect());
  if (typeof MutationObserver !== "undefined" && document.body) {
    const mo = new MutationObserver(() => view.applyTheme());
    mo.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name", "class"] });
    view.disposers.push(() => mo.disconnect());
  }
}
