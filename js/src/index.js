// gestalt-nb graph canvas: render({model, el}) for anywidget (see docs/protocol.md).
import { CanvasView } from "./view.js";

export { prefetch } from "./read.js";

/** @typedef {import("./state.js").Model} Model */
/** @typedef {import("./state.js").HostElement} HostElement */
/** @typedef {CanvasView} View */

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
  const view = adopted(model, el) || new CanvasView(model, el);
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
