// What the page shows, as plain numbers: for the kernel (canvas.snapshot("svg") and the saved
// notebook's picture) and for the SVG download. The page reports it after each frame that changed
// something, debounced (a layout that runs reports once it has stopped), and only when it differs
// from the last report. Positions are CSS px in the drawing's frame (as screenPosition), rounded.
import { parseColor, toHex } from "./theme.js";

/** @typedef {import("./view.js").CanvasView} View */

const REPORT_DELAY = 450; // ms after the last frame
const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;

/**
 * @param {unknown} value
 * @param {string} fallback
 */
function hexOf(value, fallback) {
  const c = parseColor(value);
  return c ? toHex(c) : fallback;
}

// {width, height, dpr, ids, xy, r, ci, colors, hidden, edges?} of what sigma drew in its last frame.
// With {edges: true}: also [sourceIndex, targetIndex, colourIndex, width] per drawn relationship and
// captions (for the SVG download; the kernel has both already).
/**
 * @typedef {object} SceneReport  what sigma drew in its last frame (the "shown" message's fields, and more for the SVG)
 * @property {number} width
 * @property {number} height
 * @property {number} dpr
 * @property {string[]} ids
 * @property {number[]} xy
 * @property {number[]} r
 * @property {number[]} ci
 * @property {string[]} colors
 * @property {string[]} hidden
 * @property {number} revision
 * @property {number[]} [rooms]  an overview's opened groups' rooms (rooms.js), four numbers each: x, y, r and a colour index
 * @property {number[][]} [edges]
 * @property {string[]} [captions]
 * @property {string} [bg]
 * @property {string} [fg]
 */

/**
 * @param {View} view
 * @param {boolean} withEdges
 * @returns {SceneReport | null}
 */
export function sceneOf(view, withEdges) {
  const r = view.renderer;
  if (!r || !view.graph) return null;
  const { width, height } = r.getDimensions();
  /** @type {string[]} */ const ids = [];
  /** @type {number[]} */ const xy = [];
  /** @type {number[]} */ const rad = [];
  /** @type {number[]} */ const ci = [];
  /** @type {string[]} */ const hidden = [];
  /** @type {string[]} */ const captions = [];
  /** @type {string[]} */ const colors = [];
  /** @type {Map<string, number>} */
  const slot = new Map();
  const colourIndex = (/** @type {unknown} */ value, /** @type {string} */ fallback) => {
    const hex = hexOf(value, fallback);
    let i = slot.get(hex);
    if (i === undefined) {
      i = colors.length;
      colors.push(hex);
      slot.set(hex, i);
    }
    return i;
  };
  /** @type {Map<string, number>} */
  const at = new Map();
  view.graph.forEachNode((k, a) => {
    const d = r.getNodeDisplayData(k);
    if (a.hidden || !d || d.hidden) {
      hidden.push(k);
      return;
    }
    const p = r.framedGraphToViewport(d);
    at.set(k, ids.length);
    ids.push(k);
    xy.push(round(p.x), round(p.y));
    rad.push(round(r.scaleSize(d.size)));
    ci.push(colourIndex(d.color, view.theme.node));
    if (withEdges) captions.push(String(d.label || ""));
  });
  /** @type {SceneReport} */
  const scene = { width, height, dpr: window.devicePixelRatio || 1, ids, xy, r: rad, ci, colors, hidden, revision: view.revision };
  const rooms = view.rooms.onScreen(r);
  if (rooms.length) scene.rooms = rooms.flatMap((room) => [round(room.x), round(room.y), round(room.r), colourIndex(room.colour, view.theme.muted)]);
  if (withEdges) {
    /** @type {number[][]} */
    const edges = [];
    view.graph.forEachEdge((e, a, s, t) => {
      const d = r.getEdgeDisplayData(e);
      if (!d || d.hidden || !at.has(s) || !at.has(t)) return;
      edges.push([/** @type {number} */ (at.get(s)), /** @type {number} */ (at.get(t)), colourIndex(d.color, view.theme.edge), round(Math.max(0.5, r.scaleSize(d.size || 1)))]);
    });
    scene.edges = edges;
    scene.captions = captions;
    scene.bg = view.theme.bg;
    scene.fg = view.theme.fg;
  }
  return scene;
}

export class Report {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  // called after every sigma frame: report what is shown once frames stop coming
  reportSoon() {
    clearTimeout(this.view.reportTimer);
    this.view.reportTimer = setTimeout(() => this.reportNow(), REPORT_DELAY);
  }

  /** @private */
  reportNow() {
    if (this.view.instanceId === -1 || !this.view.renderer || (this.view.layout && this.view.layout.running)) return;
    const scene = sceneOf(this.view, false);
    if (!scene || !scene.width || !scene.height) return;
    const text = JSON.stringify(scene);
    if (text === this.view.lastReport) return;
    this.view.lastReport = text;
    this.view.send({ kind: "shown", ...scene });
  }
}
