// Pictures out: the toolbar's PNG and SVG buttons download what is on screen, and its Path button
// asks the kernel for the shortest path between the two selected nodes. Graph text reaches the SVG
// only through textContent (the serializer escapes it); nothing from data becomes markup.
import { h } from "./ui.js";
import { sceneOf } from "./snapshot.js";
import { internals } from "./spare.js";
import { FILL as ROOM_FILL, EDGE as ROOM_EDGE, RIM as ROOM_RIM } from "./rooms.js";

/** @typedef {import("./view.js").CanvasView} View */

const SVG_NS = "http://www.w3.org/2000/svg";
const SVG_CAPTIONS = 400; // captions written into the SVG up to this many nodes

/**
 * @param {Blob} blob
 * @param {string} name
 */
function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// Characters XML 1.0 forbids (C0 controls but tab / newline / return, U+FFFE/FFFF, lone surrogates): a
// serializer writes them raw and the file does not open. Shown instead: a control's picture (NUL as
// U+2400), else U+FFFD.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const xmlText = (/** @type {unknown} */ text) =>
  String(text).replace(NOT_XML, (ch) => (ch.charCodeAt(0) < 0x20 ? String.fromCharCode(0x2400 + ch.charCodeAt(0)) : "\uFFFD"));

/**
 * @param {string} name
 * @param {Record<string, unknown>} [attrs]
 */
function el(name, attrs) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

// An <svg> element of a scene (sceneOf(view, true)): one <circle> per visible node, placed as on screen.
/**
 * @param {import("./snapshot.js").SceneReport & {edges: number[][], captions: string[]}} scene
 * @param {string} [font]
 */
export function svgOfScene(scene, font) {
  const { width, height } = scene;
  const svg = el("svg", { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}`, "font-family": font || "sans-serif", "font-size": 12 });
  svg.appendChild(el("rect", { width: "100%", height: "100%", fill: scene.bg }));
  const rooms = scene.rooms || [];
  for (let i = 0; i + 3 < rooms.length; i += 4) { // an overview's opened groups' rooms (rooms.js), under everything
    const colour = scene.colors[rooms[i + 3]];
    svg.appendChild(el("circle", { cx: rooms[i], cy: rooms[i + 1], r: rooms[i + 2], fill: colour, "fill-opacity": ROOM_FILL, stroke: colour, "stroke-opacity": ROOM_EDGE, "stroke-width": ROOM_RIM }));
  }
  const edges = el("g", { "stroke-linecap": "round" });
  for (const [s, t, c, w] of scene.edges) {
    const [x1, y1, x2, y2] = [scene.xy[2 * s], scene.xy[2 * s + 1], scene.xy[2 * t], scene.xy[2 * t + 1]];
    edges.appendChild(el("line", { x1, y1, x2, y2, stroke: scene.colors[c], "stroke-width": w }));
  }
  const nodes = el("g", {});
  const texts = el("g", { fill: scene.fg });
  scene.ids.forEach((id, i) => {
    const x = scene.xy[2 * i], y = scene.xy[2 * i + 1], r = scene.r[i];
    const c = el("circle", { cx: x, cy: y, r, fill: scene.colors[scene.ci[i]] });
    c.setAttribute("data-id", xmlText(id)); // setAttribute: the serializer escapes the value
    nodes.appendChild(c);
    if (scene.ids.length <= SVG_CAPTIONS && scene.captions[i]) {
      const t = el("text", { x: x + r + 3, y: y + 4 });
      t.textContent = xmlText(scene.captions[i]);
      texts.appendChild(t);
    }
  });
  svg.append(edges, nodes, texts);
  return svg;
}

export class Exporter {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  // toolbar buttons after the existing ones (before the node count)
  addOutButtons() {
    const bar = /** @type {HTMLElement} */ (this.view.ui.root.querySelector(".gc-bar"));
    const before = bar.querySelector(".gc-count");
    /** @type {(text: string, action: string, title: string, fn: () => void) => HTMLButtonElement} */
    const make = (text, action, title, fn) => {
      const b = h("button", null, text);
      b.type = "button";
      b.title = title;
      b.setAttribute("data-gestalt-action", action);
      b.addEventListener("click", fn);
      bar.insertBefore(b, before);
      return b;
    };
    this.view.outButtons = {
      path: make("Path", "path", "Draw the shortest path between the two selected nodes (click one, shift-click another)", () => this.askPath()),
      png: make("PNG", "save-png", "Save what is on screen as a PNG picture", () => this.savePNG()),
      svg: make("SVG", "save-svg", "Save what is on screen as an SVG picture", () => this.saveSVG()),
    };
    this.view.hooks.scene = () => sceneOf(this.view, true);
    this.view.hooks.lastReport = () => (this.view.lastReport ? JSON.parse(this.view.lastReport) : null);
    this.updateOutButtons();
  }

  updateOutButtons() {
    if (!this.view.outButtons) return;
    const s = this.view.model.get("settings") || {};
    this.view.outButtons.path.disabled = !(s.expandable && this.view.selected && this.view.selected.size === 2);
  }

  /** @private */
  askPath() {
    const ids = [...this.view.selected];
    if (ids.length !== 2) return this.view.ui.setStatus("Select two nodes (click one, shift-click another) to draw the path between them.", "warning");
    this.view.ui.setStatus("finding the shortest path…", "info");
    this.view.send({ kind: "path", ids: /** @type {[string, string]} */ (ids) });
  }

  // The drawing's layers (WebGL and 2D, in page order) onto one canvas of the drawing's size × devicePixelRatio.
  /**
   * @returns {HTMLCanvasElement | null}
   * @private
   */
  pngCanvas() {
    const r = this.view.renderer;
    if (!r) return null;
    internals(r).render(); // synchronously: WebGL buffers are readable until this task ends
    const layers = [...this.view.ui.sigmaBox.querySelectorAll("canvas")];
    const { width, height } = r.getDimensions();
    const ratio = window.devicePixelRatio || 1;
    const out = document.createElement("canvas");
    out.width = Math.round(width * ratio);
    out.height = Math.round(height * ratio);
    const ctx = /** @type {CanvasRenderingContext2D} */ (out.getContext("2d"));
    ctx.fillStyle = this.view.theme.bg;
    ctx.fillRect(0, 0, out.width, out.height);
    for (const layer of layers) if (layer.width && layer.height) ctx.drawImage(layer, 0, 0, out.width, out.height);
    return out;
  }

  /** @private */
  savePNG() {
    const out = this.pngCanvas();
    if (!out) return this.view.ui.setStatus("Nothing is drawn yet.", "warning");
    out.toBlob((blob) => blob && download(blob, "graph.png"), "image/png");
  }

  /** @private */
  saveSVG() {
    const scene = sceneOf(this.view, true);
    if (!scene) return this.view.ui.setStatus("Nothing is drawn yet.", "warning");
    const text = new XMLSerializer().serializeToString(svgOfScene(/** @type {import("./snapshot.js").SceneReport & {edges: number[][], captions: string[]}} */ (scene), this.view.theme.font));
    download(new Blob([text], { type: "image/svg+xml" }), "graph.svg");
  }
}
