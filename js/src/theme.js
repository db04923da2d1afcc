// Colours for the WebGL/canvas drawing, derived from JupyterLab's CSS variables
// (with light fallbacks). DOM parts use the CSS variables directly (see ui.js).

/** @type {CanvasRenderingContext2D | null} */
let probe = null;

/** @typedef {[number, number, number, number]} RGBA  r, g, b (0-255) and alpha (0-1) */

// Any CSS colour string -> [r, g, b, a] (0-255, alpha 0-1), or null.
/**
 * @param {unknown} value
 * @returns {RGBA | null}
 */
export function parseColor(value) {
  if (!value) return null;
  if (!probe) probe = document.createElement("canvas").getContext("2d");
  if (!probe) return null;
  probe.fillStyle = "#010203";
  probe.fillStyle = String(value).trim();
  const v = String(probe.fillStyle);
  if (v === "#010203" && String(value).trim().toLowerCase() !== "#010203") return null;
  if (v[0] === "#") {
    return [parseInt(v.slice(1, 3), 16), parseInt(v.slice(3, 5), 16), parseInt(v.slice(5, 7), 16), 1];
  }
  const m = v.match(/rgba?\(([^)]+)\)/);
  if (!m) return null;
  const p = m[1].split(",").map((s) => parseFloat(s));
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}

const hex2 = (/** @type {number} */ n) => Math.max(0, Math.min(255, Math.round(n))).toString(16).padStart(2, "0");
export const toHex = (/** @type {number[]} */ c) => "#" + hex2(c[0]) + hex2(c[1]) + hex2(c[2]);

// a over b with weight t of a (0..1)
/**
 * @param {number[]} a
 * @param {number[]} b
 * @param {number} t
 * @returns {RGBA}
 */
export function mix(a, b, t) {
  return [a[0] * t + b[0] * (1 - t), a[1] * t + b[1] * (1 - t), a[2] * t + b[2] * (1 - t), 1];
}

/** @param {number[]} c */
export function luminance(c) {
  const f = (/** @type {number} */ x) => {
    x /= 255;
    return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}

/**
 * @param {number[]} a
 * @param {number[]} b
 */
function contrast(a, b) {
  const la = luminance(a), lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** @typedef {ReturnType<typeof readTheme>} Theme  the drawing's colours and font */

/** @param {Element} el */
export function readTheme(el) {
  const cs = getComputedStyle(el);
  const v = (/** @type {string} */ name) => (cs.getPropertyValue(name) || "").trim();
  let bg = parseColor(v("--jp-layout-color0")) || [255, 255, 255, 1];
  if (bg[3] < 1) bg = mix(bg, [255, 255, 255, 1], bg[3]);
  const dark = luminance(bg) < 0.35;
  let fg = parseColor(v("--jp-ui-font-color0")) || (dark ? [238, 238, 238, 1] : [20, 20, 20, 1]);
  if (fg[3] < 1) fg = mix(fg, bg, fg[3]);
  // the label colour must contrast with the background whatever the variables say
  if (contrast(fg, bg) < 4.5) fg = dark ? [238, 238, 238, 1] : [20, 20, 20, 1];
  const font =
    v("--jp-ui-font-family") ||
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  return {
    dark,
    bg: toHex(bg),
    fg: toHex(fg),
    muted: toHex(mix(fg, bg, 0.62)),
    edge: toHex(mix(fg, bg, dark ? 0.42 : 0.34)),
    edgeHi: toHex(mix(fg, bg, 0.85)),
    node: toHex(mix(fg, bg, dark ? 0.6 : 0.5)),
    ring: toHex(fg),
    pin: toHex(mix(fg, bg, 0.5)),
    select: dark ? "#ff9a3c" : "#d9480f",
    font,
  };
}
