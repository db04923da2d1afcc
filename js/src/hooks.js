// Test hooks exposed as element.gestaltCanvas (see docs/protocol.md).

import { internals } from "./spare.js";
import { LAYER as ROOMS } from "./rooms.js";

/** @typedef {import("./view.js").CanvasView} View */
/**
 * @typedef {object} Hooks  element.gestaltCanvas: what browser tests may ask the page (docs/protocol.md)
 * @property {Promise<void>} ready  the first frame is drawn
 * @property {Promise<void>} settled  the first layout has stopped
 * @property {() => number} nodesDrawn
 * @property {() => number} edgesDrawn
 * @property {() => number} nodesInView
 * @property {(id: string) => {x: number, y: number} | null} screenPosition
 * @property {(id: string) => {x: number, y: number} | null} graphPosition
 * @property {() => number} revision
 * @property {() => string[]} selected
 * @property {() => import("./state.js").Times} timings
 * @property {() => number} sigmaInstanceId
 * @property {() => Element | null} canvas
 * @property {() => boolean} layoutRunning
 * @property {() => boolean} suspended
 * @property {(x: number, y: number) => object} debug
 * @property {() => void} refreshTheme
 * @property {() => Record<string, unknown>} labelSpots  where each caption was drawn in the last frame
 * @property {(id: string) => object | null} nodeAttributes
 * @property {(id: unknown) => object | null} nodeStyle
 * @property {() => Record<string, {x: number, y: number} | null>} positions
 * @property {() => string} layoutName
 * @property {() => {nodes: object, edges: object, order: string[]}} elements
 * @property {() => Promise<void> | null} whenSettled
 * @property {() => import("sigma/types").CameraState | null} cameraState
 * @property {() => Record<string, {x: number, y: number, r: number}>} openDiscs  an overview's open groups: the last disc opened in each, on screen
 * @property {() => unknown} timeline  a time slider's moment shown, ghosts and step times (timeline.js); null without one
 * @property {() => unknown} [scene]  added by export.js
 * @property {() => unknown} [lastReport]  added by export.js
 */

/**
 * @param {View} view
 * @returns {Hooks}
 */
export function makeHooks(view) {
  // Graph updates reach sigma's caches before the scheduled frame processes
  // them; render now so that hooks see what the next frame shows.
  const flush = () => {
    if (view.suspended) view.rendering.resume(); // asked about it: draw it again
    const r = view.renderer;
    if (r && internals(r).needToProcess) internals(r).render();
  };
  const screen = (/** @type {string} */ id) => {
    flush();
    const r = view.renderer;
    if (!r || !view.graph.hasNode(id)) return null;
    const d = r.getNodeDisplayData(id);
    if (!d) return null;
    const p = r.framedGraphToViewport({ x: d.x, y: d.y });
    return { x: p.x, y: p.y };
  };
  return {
    get ready() {
      if (view.suspended) view.rendering.resume();
      return view.readyPromise;
    },
    get settled() {
      return view.settledPromise;
    },
    ...countHooks(view, flush),
    ...roomHooks(view, flush),
    screenPosition: screen,
    /** @param {string} id */
    graphPosition(id) {
      if (!view.graph.hasNode(id)) return null;
      const a = view.graph.getNodeAttributes(id);
      return { x: a.x, y: a.y };
    },
    revision: () => view.revision,
    selected: () => [...view.selected],
    timings: () => ({ ...view.times }),
    sigmaInstanceId: () => view.instanceId,
    ...debugHooks(view, flush),
    ...drawingHooks(view, flush, screen),
  };
}

// Extras for tests and debugging: sigma's own view of the drawing.
/**
 * @param {View} view
 * @param {() => void} flush
 */
function debugHooks(view, flush) {
  return {
    canvas: () => view.ui.sigmaBox.querySelector("canvas.sigma-nodes") || view.ui.sigmaBox.querySelector("canvas"),
    layoutRunning: () => !!(view.layout && view.layout.running),
    suspended: () => !!view.suspended,
    debug: (/** @type {number} */ x, /** @type {number} */ y) => ({
      edgeAt: view.renderer && x !== undefined ? internals(view.renderer).getEdgeAtPoint(x, y) : null,
      nodeAt: view.renderer && x !== undefined ? internals(view.renderer).getNodeAtPosition({ x, y }) : null,
      dims: view.renderer && view.renderer.getDimensions(),
      pr: view.renderer && internals(view.renderer).pixelRatio,
      hoveredNode: view.renderer && internals(view.renderer).hoveredNode,
      hoveredEdge: view.renderer && internals(view.renderer).hoveredEdge,
      edgeEvents: view.renderer && view.renderer.getSetting("enableEdgeEvents"),
      padding: view.renderer && view.renderer.getSetting("stagePadding"),
      live: view.renderer ? 1 : 0,
    }),
    refreshTheme: () => view.applyTheme(),
    // where each caption was drawn in the last frame: {id: {label, x, y, w} | null (left out)}
    labelSpots() {
      flush();
      return Object.fromEntries(view.spots || []);
    },
    /** @param {string} id */
    nodeAttributes(id) {
      if (!view.graph.hasNode(id)) return null;
      const a = view.graph.getNodeAttributes(id);
      const d = /** @type {import("./payload.js").NodeData} */ (view.nd.get(id));
      return { h: d.h, type: a.type || view.nodeType, hidden: !!a.hidden, size: a.size, color: a.color, label: a.label, fixed: !!d.fixed };
    },
  };
}

// Encodings, layouts and filters (issue 20), and every element as the page holds it.
/**
 * @param {View} view
 * @param {() => void} flush
 * @param {(id: string) => {x: number, y: number} | null} screen
 */
function drawingHooks(view, flush, screen) {
  return {
    nodeStyle: (/** @type {unknown} */ id) => {
      flush();
      return view.filters.nodeStyle(String(id));
    },
    positions() {
      flush();
      /** @type {Record<string, {x: number, y: number} | null>} */
      const out = {};
      view.graph.forEachNode((k) => {
        if (!view.filters.isHiddenNode(k)) out[k] = screen(k);
      });
      return out;
    },
    layoutName: () => view.layouts.layoutName(),
    // every node and relationship as the page holds them: data, what sigma draws, ends (less positions)
    elements() {
      /** @type {Record<string, object>} */
      const nodes = {};
      /** @type {Record<string, object>} */
      const edges = {};
      view.graph.forEachNode((k, a) => (nodes[k] = { d: { ...view.nd.get(k) }, a: { ...a, x: undefined, y: undefined } }));
      view.graph.forEachEdge((k, a, s, t) => (edges[k] = { s, t, d: { ...view.ed.get(k) }, a: { ...a } }));
      return { nodes, edges, order: view.graph.edges() };
    },
    whenSettled: () => view.layoutPromise || view.settledPromise,
    cameraState: () => (view.renderer ? view.renderer.getCamera().getState() : null),
    // an overview's open groups: {super-node id: the last disc opened in it, on screen {x, y, r}}
    openDiscs() {
      flush();
      const r = view.renderer;
      /** @type {Record<string, {x: number, y: number, r: number}>} */
      const out = {};
      if (!r || !view.drilled) return out;
      for (const [k, open] of view.drilled) {
        if (!open.disc) continue;
        const c = r.graphToViewport(open.disc), e = r.graphToViewport({ x: open.disc.x + open.disc.r, y: open.disc.y });
        out[k] = { x: c.x, y: c.y, r: Math.hypot(e.x - c.x, e.y - c.y) };
      }
      return out;
    },
    timeline: () => view.timeline.state(),
  };
}

// How many nodes and relationships are drawn, and how many of the nodes are in view.
/**
 * @param {View} view
 * @param {() => void} flush
 */
function countHooks(view, flush) {
  return {
    nodesDrawn() {
      let n = 0;
      if (!view.graph) return 0; // the base graph is still being read
      view.graph.forEachNode((k) => {
        if (!view.filters.isHiddenNode(k)) n++;
      });
      return n;
    },
    edgesDrawn() {
      let n = 0;
      if (!view.graph) return 0;
      view.graph.forEachEdge((k) => {
        if (view.filters.isDrawnEdge(k)) n++;
      });
      return n;
    },
    nodesInView() {
      flush();
      const r = view.renderer;
      if (!r || !view.graph) return 0;
      const { width, height } = r.getDimensions();
      if (!width || !height) return 0;
      let n = 0;
      view.graph.forEachNode((k) => {
        if (view.filters.isHiddenNode(k)) return;
        const d = r.getNodeDisplayData(k);
        if (!d) return;
        const p = r.framedGraphToViewport({ x: d.x, y: d.y });
        if (p.x >= 0 && p.y >= 0 && p.x <= width && p.y <= height) n++;
      });
      return n;
    },
  };
}

// An overview's opened groups' rooms (rooms.js): as drawn, and the ink on their layer.
/**
 * @param {View} view
 * @param {() => void} flush
 */
function roomHooks(view, flush) {
  return {
    // the opened groups' rooms as drawn (rooms.js): [{key, x, y, r, colour}] on screen, biggest first
    rooms() {
      flush();
      return view.renderer ? view.rooms.onScreen(view.renderer) : [];
    },
    // what the rooms' layer holds: the opacity (0-255) at (x, y) px, or without them how many pixels are not clear
    /** @param {number} [x] @param {number} [y] */
    roomInk(x, y) {
      flush();
      const ctx = view.renderer ? internals(view.renderer).canvasContexts[ROOMS] : undefined;
      if (!ctx) return 0;
      const ratio = ctx.canvas.width / (view.renderer ? view.renderer.getDimensions().width || 1 : 1);
      if (x !== undefined && y !== undefined) return ctx.getImageData(Math.round(x * ratio), Math.round(Number(y) * ratio), 1, 1).data[3];
      const data = ctx.getImageData(0, 0, ctx.canvas.width, ctx.canvas.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]) n++;
      return n;
    },
  };
}
