// Radial (rings by hop distance from a root), circular, grid and "positions"
// (x / y from node properties, y upward as on a map). Each returns [x, y] by index of `keys`.
import { csr, bfs } from "./mds.js";

/** @typedef {import("../payload.js").GraphT} GraphT */
/** @typedef {(number[] | undefined)[]} Positions  [x, y] by index of the keys (undefined: not placed) */

// Each node's angle: the root's children share the circle, each child's children its span, in proportion to the
// leaves below them.
/**
 * @param {number} n
 * @param {number} r  the root
 * @param {Int32Array} parent  in the BFS tree (-1: none)
 * @param {number[][]} children
 * @param {number[][]} byHop  nodes by hops from the root
 * @returns {Float64Array}
 */
function spans(n, r, parent, children, byHop) {
  const weight = new Float64Array(n);
  for (let h = byHop.length - 1; h >= 0; h--)
    for (const i of byHop[h] || []) {
      weight[i] = Math.max(1, weight[i]);
      if (parent[i] >= 0) weight[parent[i]] += weight[i];
    }
  const angle = new Float64Array(n);
  /** @type {[number, number][]} */
  const span = [];
  span[r] = [0, 2 * Math.PI];
  const stack = [r];
  while (stack.length) {
    const u = /** @type {number} */ (stack.pop());
    const [a0, a1] = span[u];
    angle[u] = (a0 + a1) / 2;
    let total = 0;
    for (const c of children[u]) total += weight[c];
    let a = a0;
    for (const c of children[u]) {
      const w = ((a1 - a0) * weight[c]) / (total || 1);
      span[c] = [a, a + w];
      a += w;
      stack.push(c);
    }
  }
  return angle;
}

/**
 * @param {GraphT} graph
 * @param {string[]} keys
 * @param {{gap?: number, root?: unknown}} [options]
 * @returns {{pos: Positions, root: string | null}}
 */
export function radial(graph, keys, { gap = 10, root } = {}) {
  const n = keys.length;
  const g = csr(graph, keys);
  let r = root !== undefined && root !== null && g.idx.has(String(root)) ? /** @type {number} */ (g.idx.get(String(root))) : -1;
  if (r < 0) {
    // the most connected node
    let best = -1;
    for (let i = 0; i < n; i++) if (g.off[i + 1] - g.off[i] > best) (best = g.off[i + 1] - g.off[i]), (r = i);
  }
  /** @type {Positions} */
  const pos = new Array(n);
  if (r < 0) return { pos, root: null };
  const dist = bfs(g, n, r, new Int32Array(n));
  let maxHop = 0;
  for (let i = 0; i < n; i++) maxHop = Math.max(maxHop, dist[i]);
  // nodes out of reach go on one more ring
  for (let i = 0; i < n; i++) if (dist[i] < 0) dist[i] = maxHop + 1;
  // BFS tree: parent = first neighbour one hop closer; leaves weigh the angular spans
  const parent = new Int32Array(n).fill(-1);
  const children = Array.from({ length: n }, () => /** @type {number[]} */ ([]));
  /** @type {number[][]} */
  const byHop = [];
  for (let i = 0; i < n; i++) (byHop[dist[i]] = byHop[dist[i]] || []).push(i);
  for (let i = 0; i < n; i++) {
    if (i === r) continue;
    for (let e = g.off[i]; e < g.off[i + 1]; e++) {
      if (dist[g.adj[e]] === dist[i] - 1) {
        parent[i] = g.adj[e];
        break;
      }
    }
    if (parent[i] >= 0) children[parent[i]].push(i);
  }
  const angle = spans(n, r, parent, children, byHop);
  // orphans (other components): spread evenly on the outer ring
  const orphans = byHop[maxHop + 1] || [];
  orphans.forEach((i, k) => (angle[i] = (2 * Math.PI * k) / orphans.length));
  // ring radii grow with the hop and leave room for every node of the ring
  const radius = [0];
  for (let h = 1; h < byHop.length; h++) radius[h] = Math.max(radius[h - 1] + 2 * gap, (((byHop[h] || []).length * gap * 1.3) / (2 * Math.PI)));
  for (let i = 0; i < n; i++) pos[i] = [radius[dist[i]] * Math.cos(angle[i]), radius[dist[i]] * Math.sin(angle[i])];
  return { pos, root: keys[r] };
}

/**
 * @param {GraphT} graph
 * @param {string[]} keys
 * @param {number[]} order  indices of keys, in the order they go round
 * @param {{gap?: number}} [options]
 * @returns {{pos: Positions}}
 */
export function circular(graph, keys, order, { gap = 10 } = {}) {
  const n = keys.length;
  const R = Math.max(gap * 2, (n * gap * 1.4) / (2 * Math.PI));
  const pos = new Array(n);
  order.forEach((i, k) => {
    const a = Math.PI / 2 - (2 * Math.PI * k) / n;
    pos[i] = [R * Math.cos(a), R * Math.sin(a)];
  });
  return { pos };
}

/**
 * @param {GraphT} graph
 * @param {string[]} keys
 * @param {number[]} order  indices of keys, row by row
 * @param {{gap?: number, aspect?: number}} [options]
 * @returns {{pos: Positions}}
 */
export function grid(graph, keys, order, { gap = 10, aspect = 1.4 } = {}) {
  const n = keys.length;
  const cols = Math.max(1, Math.ceil(Math.sqrt(n * Math.max(0.3, aspect))));
  const pos = new Array(n);
  order.forEach((i, k) => (pos[i] = [(k % cols) * gap * 2, -Math.floor(k / cols) * gap * 2]));
  return { pos };
}

const num = (/** @type {unknown} */ v) => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null);

// x grows to the right, y upward; nodes without both values go in a row under the map
/**
 * @param {string[]} keys
 * @param {(key: string) => Record<string, unknown> | null | undefined} data  a node's properties
 * @param {{gap?: number, x?: string, y?: string}} [options]
 * @returns {{pos: Positions, missing: number, none?: boolean}}
 */
export function positions(keys, data, { gap = 10, x = "x", y = "y" } = {}) {
  const n = keys.length;
  /** @type {number[]} */
  const xs = new Array(n);
  /** @type {number[]} */
  const ys = new Array(n);
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, have = 0;
  keys.forEach((k, i) => {
    const p = data(k) || {};
    const a = num(p[x]), b = num(p[y]);
    if (a === null || b === null) return;
    xs[i] = a;
    ys[i] = b;
    have++;
    x0 = Math.min(x0, a); x1 = Math.max(x1, a); y0 = Math.min(y0, b); y1 = Math.max(y1, b);
  });
  if (!have) return { pos: new Array(n), missing: n, none: true };
  const side = Math.max(x1 - x0, y1 - y0) || 1;
  const scale = (gap * 2 * Math.sqrt(have)) / side;
  /** @type {Positions} */
  const pos = new Array(n);
  let missing = 0;
  const W = Math.max((x1 - x0) * scale, gap * 2), left = -W / 2;
  const perRow = Math.max(1, Math.floor(W / (gap * 2)) + 1);
  const bottom = -((y1 - y0) * scale) / 2 - gap * 3;
  keys.forEach((k, i) => {
    if (xs[i] === undefined) {
      // rows as wide as the map, under it
      pos[i] = [left + (missing % perRow) * gap * 2, bottom - Math.floor(missing / perRow) * gap * 2];
      missing++;
    } else pos[i] = [(xs[i] - (x0 + x1) / 2) * scale, (ys[i] - (y0 + y1) / 2) * scale];
  });
  return { pos, missing };
}
