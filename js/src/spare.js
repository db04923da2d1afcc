// A renderer made ahead of need. Making a sigma renderer costs the same fixed time whatever the graph: three WebGL
// contexts, their buffers and the shader programs (40-70 ms in headless Chromium, the largest part of a small
// graph's first frame). So while the page is idle after a drawing, one renderer is made off-screen, empty, with
// every program a canvas can ask for; the next canvas takes it, with its own settings and graph, instead of making
// one while the person waits. The first drawing of a page still makes its own.
import Sigma from "sigma";
import { newGraph } from "./payload.js";
import { PROGRAMS } from "./style.js";

/** @typedef {Sigma & {spareBox?: HTMLElement}} Renderer  a sigma renderer (the spare: with the element holding its layers) */
/** @typedef {Partial<import("sigma/settings").Settings>} SigmaSettings */

/**
 * @typedef {object} SigmaInternals  the private parts of a sigma 3.0.3 renderer the canvas reaches, all through internals()
 * @property {Record<string, WebGLRenderingContext | null>} webGLContexts
 * @property {Set<string>} pickingLayers
 * @property {Record<string, unknown>} edgePrograms
 * @property {Record<string, CanvasRenderingContext2D>} canvasContexts
 * @property {boolean} needToProcess
 * @property {() => void} render  draws now (synchronously)
 * @property {number} pixelRatio
 * @property {string | null} hoveredNode
 * @property {string | null} hoveredEdge
 * @property {(x: number, y: number) => string | null} getEdgeAtPoint
 * @property {(position: {x: number, y: number}) => string | null} getNodeAtPosition
 */
/** @param {Renderer} renderer */
export const internals = (renderer) => /** @type {SigmaInternals} */ (/** @type {unknown} */ (renderer));

/** @type {Renderer | null} */
let spare = null; // the renderer; its element (holding its layers) is its spareBox
let asked = false;

// Frees a renderer's WebGL contexts now: Chromium keeps a few per page and reclaims the others late.
/** @param {Renderer} renderer */
export function killRenderer(renderer) {
  const gls = Object.values(internals(renderer).webGLContexts || {});
  renderer.kill();
  for (const gl of gls) {
    const ext = gl && gl.getExtension && gl.getExtension("WEBGL_lose_context");
    if (ext) ext.loseContext();
  }
  if (renderer.spareBox) renderer.spareBox.remove();
}

export function hasSpare() {
  return spare !== null;
}

export function dropSpare() {
  const made = spare;
  spare = null;
  if (made) killRenderer(made);
}

// Makes the spare when the page next has nothing to do, `width` × `height` (the size the next canvas is likely to
// have, so taking it needs no resize), if `room()` still says there is room for one more renderer then.
/**
 * @param {number} width
 * @param {number} height
 * @param {() => boolean} room
 */
export function spareSoon(width, height, room) {
  if (spare || asked || !width || !height) return;
  asked = true;
  const make = () => {
    asked = false;
    if (spare || !room() || document.hidden || !document.body) return;
    const box = document.createElement("div");
    box.setAttribute("aria-hidden", "true");
    box.setAttribute("data-gestalt-spare", ""); // for tests: the page's renderer made ahead
    box.style.cssText = `position:fixed;left:-${width + 1000}px;top:0;width:${width}px;height:${height}px;pointer-events:none;visibility:hidden`;
    document.body.appendChild(box);
    try {
      /** @type {Renderer} */
      const renderer = new Sigma(newGraph(), box, {
        allowInvalidContainer: true,
        nodeProgramClasses: PROGRAMS.nodes,
        edgeProgramClasses: PROGRAMS.edges,
        defaultNodeType: "circle",
        defaultEdgeType: "arrow",
        enableEdgeEvents: true, // the edges' picking layer; taken away from a canvas without edge events (takeSpare)
      });
      renderer.spareBox = box;
      spare = renderer;
    } catch (error) {
      box.remove(); // no WebGL now: each canvas makes its own renderer, and says so if it cannot
    }
  };
  if (typeof requestIdleCallback === "function") requestIdleCallback(make, { timeout: 2000 });
  else setTimeout(make, 200);
}

// The spare renderer drawing `graph` in `container` with `settings`, or null when there is none fit to use (then the
// caller makes one). It keeps all its programs (those the graph does not use draw nothing); without edge events it
// drops the edges' picking pass.
/**
 * @param {import("./payload.js").GraphT} graph
 * @param {HTMLElement} container
 * @param {SigmaSettings} settings
 * @returns {Renderer | null}
 */
export function takeSpare(graph, container, settings) {
  const renderer = spare;
  spare = null;
  if (!renderer) return null;
  if (Object.values(internals(renderer).webGLContexts || {}).some((gl) => !gl || gl.isContextLost())) {
    killRenderer(renderer);
    return null;
  }
  const box = /** @type {HTMLElement} */ (renderer.spareBox);
  box.style.cssText = "position:absolute;left:0;top:0;width:100%;height:100%";
  box.removeAttribute("aria-hidden");
  box.removeAttribute("data-gestalt-spare");
  container.appendChild(box);
  // every program stays: in sigma 3.0.3 a renderer that unregisters a node program draws no node after it
  renderer.setSettings({ ...settings, nodeProgramClasses: PROGRAMS.nodes, edgeProgramClasses: PROGRAMS.edges });
  if (!settings.enableEdgeEvents) {
    internals(renderer).pickingLayers.delete("edges");
    for (const program of Object.values(internals(renderer).edgePrograms)) withoutPicking(program);
  }
  renderer.setGraph(graph);
  return renderer;
}

// A program (or a compound program's parts) that no longer draws into the picking layer. Its picking shaders stay
// until the renderer's context is lost (killRenderer).
/** @param {any} program  a sigma program: its picking pass is not part of sigma's declared types */
function withoutPicking(program) {
  if (Array.isArray(program.programs)) program.programs.forEach(withoutPicking);
  else program.pickProgram = null;
}
