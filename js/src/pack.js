// Components laid out by FA2 together are drawn packed: each one is turned so its long axis lies along the canvas's
// long side, then the components are shelf-packed (largest first) with the row width that fills the canvas's
// aspect ratio best, one typical edge length apart. FA2's repulsion would otherwise fling them to the corners and
// leave each one cramped. (Layout.pack in force.js; the components, and a sample of edges, are found here too.)
import { csr } from "./layouts/mds.js";
import { SPACING, PPN } from "./layout.js";

/** @typedef {import("./payload.js").GraphT} GraphT */
/** @typedef {{c: number, x0: number, y1: number, w: number, h: number, mx: number, my: number, cos: number, sin: number}} Box  a component's box, turned */

// Connected components as lists of indices into `nodes`, largest first.
/**
 * @param {GraphT} graph
 * @param {string[]} nodes
 * @returns {number[][]}
 */
export function components(graph, nodes) {
  const { off, adj } = csr(graph, nodes);
  const comp = new Int32Array(nodes.length).fill(-1);
  /** @type {number[][]} */
  const out = [];
  for (let r = 0; r < nodes.length; r++) {
    if (comp[r] >= 0) continue;
    const id = out.length;
    const list = [r];
    comp[r] = id;
    for (let k = 0; k < list.length; k++) {
      for (let e = off[list[k]]; e < off[list[k] + 1]; e++) {
        const j = adj[e];
        if (comp[j] < 0) {
          comp[j] = id;
          list.push(j);
        }
      }
    }
    out.push(list);
  }
  out.sort((a, b) => b.length - a.length);
  return out;
}

// Up to 2,000 edges as pairs of matrix offsets (for the typical edge length).
/**
 * @param {GraphT} graph
 * @param {Map<string, number>} idx
 * @returns {number[]}
 */
export function sampleEdges(graph, idx) {
  /** @type {number[]} */
  const out = [];
  const step = Math.max(1, Math.floor(graph.size / 2000));
  let k = 0;
  graph.forEachEdge((e, a, s, t) => {
    if (k++ % step || s === t) return;
    const i = idx.get(s), j = idx.get(t);
    if (i !== undefined && j !== undefined) out.push(i, j);
  });
  return out;
}

// The turn (radians) that lays the principal axis of the points `list` (indices
// into the layout matrix m) along the canvas's long side, and their centre;
// a is null for fewer than 3 points or a layout not clearly elongated (a round one would spin).
/**
 * @param {Float32Array} m
 * @param {number[]} list
 * @param {boolean} wide
 * @returns {{a: number | null, mx: number, my: number}}
 */
export function principalTurn(m, list, wide) {
  let mx = 0, my = 0;
  for (const i of list) {
    mx += m[i * PPN];
    my += m[i * PPN + 1];
  }
  mx /= list.length || 1;
  my /= list.length || 1;
  if (list.length < 3) return { a: null, mx, my };
  let cxx = 0, cyy = 0, cxy = 0;
  for (const i of list) {
    const x = m[i * PPN] - mx, y = m[i * PPN + 1] - my;
    cxx += x * x;
    cyy += y * y;
    cxy += x * y;
  }
  const tr = cxx + cyy, det = cxx * cyy - cxy * cxy;
  const disc = Math.sqrt(Math.max(0, (tr * tr) / 4 - det));
  if (tr / 2 + disc < 1.3 * (tr / 2 - disc)) return { a: null, mx, my };
  const a = 0.5 * Math.atan2(2 * cxy, cxx - cyy);
  return { a: wide ? a : a - Math.PI / 2, mx, my };
}

// Where each component goes: [dx, dy, cos, sin, cx, cy] per component (display placement of the FA2 positions `m`).
/**
 * @param {Float32Array} m
 * @param {number[][]} comps  node indices per component, largest first
 * @param {number[]} E  sampled edges, as pairs of matrix offsets
 * @param {boolean} wideCanvas
 * @param {() => number} aspectOf  the canvas's width / height
 * @param {number[][] | null} prev  the last placement (a turn close to it is kept: no flicker while FA2 moves)
 * @returns {number[][]}
 */
export function packComponents(m, comps, E, wideCanvas, aspectOf, prev) {
  const C = comps.length;
  // typical edge length (sampled) sets the gap and the size of a lone node's cell
  /** @type {number[]} */
  const lens = [];
  for (let k = 0; k < E.length; k += 2) {
    const a = E[k], b = E[k + 1];
    lens.push(Math.hypot(m[a] - m[b], m[a + 1] - m[b + 1]));
  }
  lens.sort((x, y) => x - y);
  const unit = lens.length ? Math.max(lens[lens.length >> 1], 1e-6) : SPACING;
  const boxes = turnedBoxes(m, comps, unit, wideCanvas, prev);
  return shelves(boxes, unit, aspectOf());
}

/**
 * @param {Float32Array} m
 * @param {number[][]} comps
 * @param {number} unit
 * @param {boolean} wideCanvas
 * @param {number[][] | null} prev
 * @returns {Box[]}
 */
function turnedBoxes(m, comps, unit, wideCanvas, prev) {
  const C = comps.length;
  /** @type {Box[]} */
  const boxes = new Array(C);
  for (let c = 0; c < C; c++) {
    const list = comps[c];
    const { a, mx, my } = principalTurn(m, list, wideCanvas);
    let cos = 1, sin = 0;
    if (a !== null) {
      // keep the previous turn when it is close (no flicker while FA2 moves)
      const last = prev && prev[c];
      cos = Math.cos(-a);
      sin = Math.sin(-a);
      if (last && Math.abs(last[2] * cos + last[3] * sin) > 0.995) {
        cos = last[2];
        sin = last[3];
      }
    }
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const i of list) {
      const x = m[i * PPN] - mx, y = m[i * PPN + 1] - my;
      const rx = x * cos - y * sin, ry = x * sin + y * cos;
      if (rx < x0) x0 = rx;
      if (rx > x1) x1 = rx;
      if (ry < y0) y0 = ry;
      if (ry > y1) y1 = ry;
    }
    boxes[c] = { c, x0, y1, w: x1 - x0 + unit, h: y1 - y0 + unit, mx, my, cos, sin };
  }
  return boxes;
}

/**
 * @param {Box[]} boxes  largest component first
 * @param {number} unit
 * @param {number} aspect
 * @returns {number[][]}
 */
function shelves(boxes, unit, aspect) {
  const C = boxes.length;
  // comps are sorted by size; try row widths and keep the packing that fits the canvas best
  let area = 0, widest = 0;
  for (const b of boxes) {
    area += b.w * b.h;
    widest = Math.max(widest, b.w);
  }
  const tries = new Set([Math.sqrt(area * aspect)]);
  let acc = 0;
  for (let c = 0; c < Math.min(C, 40); c++) {
    acc += boxes[c].w;
    tries.add(acc);
  }
  for (let k = 1; k <= 24; k++) tries.add(Math.sqrt(area * aspect) * (0.5 + k / 16));
  /** @type {{score: number, spots: number[][], W: number, H: number} | null} */
  let best = null;
  for (const rw of tries) {
    const rowWidth = Math.max(rw, widest) * 1.0001;
    let cx = 0, cy = 0, rowH = 0, W = 0;
    const spots = new Array(C);
    for (const b of boxes) {
      if (cx > 0 && cx + b.w > rowWidth) {
        cy += rowH;
        cx = 0;
        rowH = 0;
      }
      spots[b.c] = [cx, cy];
      cx += b.w;
      W = Math.max(W, cx);
      rowH = Math.max(rowH, b.h);
    }
    const H = cy + rowH;
    const score = Math.max(W / aspect, H);
    if (!best || score < best.score - 1e-9) best = { score, spots, W, H };
  }
  const packed = /** @type {{score: number, spots: number[][], W: number, H: number}} */ (best);
  /** @type {number[][]} */
  const out = new Array(C);
  for (const b of boxes) {
    const [sx, sy] = packed.spots[b.c];
    // graph y points up and rows go down: the component's top (y1) sits half a unit under its cell's top
    const ox = sx - b.x0 + unit / 2 - packed.W / 2;
    const oy = packed.H / 2 - sy - unit / 2 - b.y1;
    out[b.c] = [ox, oy, b.cos, b.sin, b.mx, b.my];
  }
  return out;
}
