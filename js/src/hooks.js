// Test hooks exposed as element.gestaltCanvas (see docs/protocol.md).

import { internals } from "./spare.js";

/** @typedef {import("./index.js").View} View */
/** @typedef {ReturnType<typeof makeHooks> & {scene?: () => unknown, lastReport?: () => unknown}} Hooks  element.gestaltCanvas (scene, lastReport: added by export.js) */

/** @param {View} view */
export function makeHooks(view) {
  // Graph updates reach sigma's caches before the scheduled frame processes
  // them; render now so that hooks see what the next frame shows.
  const flush = () => {
    if (view.suspended) view.resume(); // asked about it: draw it again
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
      if (view.suspended) view.resume();
      return view.readyPromise;
    },
    get settled() {
      return view.settledPromise;
    },
    nodesDrawn() {
      let n = 0;
      view.graph.forEachNode((k) => {
        if (!view.isHiddenNode(k)) n++;
      });
      return n;
    },
    edgesDrawn() {
      let n = 0;
      view.graph.forEachEdge((k, a, s, t) => {
        if (!view.isHiddenNode(s) && !view.isHiddenNode(t) && !view.hidden.has(k) && !a.hidden) n++;
      });
      return n;
    },
    nodesInView() {
      flush();
      const r = view.renderer;
      if (!r) return 0;
      const { width, height } = r.getDimensions();
      if (!width || !height) return 0;
      let n = 0;
      view.graph.forEachNode((k) => {
        if (view.isHiddenNode(k)) return;
        const d = r.getNodeDisplayData(k);
        if (!d) return;
        const p = r.framedGraphToViewport({ x: d.x, y: d.y });
        if (p.x >= 0 && p.y >= 0 && p.x <= width && p.y <= height) n++;
      });
      return n;
    },
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
    // extras for tests/debugging
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
    // encodings, layouts and filters (issue 20)
    nodeStyle: (/** @type {unknown} */ id) => {
      flush();
      return view.nodeStyle(String(id));
    },
    positions() {
      flush();
      /** @type {Record<string, {x: number, y: number} | null>} */
      const out = {};
      view.graph.forEachNode((k) => {
        if (!view.isHiddenNode(k)) out[k] = screen(k);
      });
      return out;
    },
    layoutName: () => view.layoutName(),
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
  };
}
