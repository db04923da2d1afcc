// Start positions (BFS order per component on a phyllotaxis spiral, components
// packed), FA2's settings and matrices (the worker that runs it: force.js), and a local
// layout for nodes added by a delta (old nodes fixed).
import iterate from "graphology-layout-forceatlas2/iterate.js";
import { csr, pivotMDS } from "./layouts/mds.js";

/** @typedef {import("./payload.js").GraphT} GraphT */
/** @typedef {import("./payload.js").Attrs} Attrs */
/** @typedef {{x: number, y: number}} Point */

const GOLDEN = Math.PI * (3 - Math.sqrt(5));
export const PPN = 10; // FA2 node matrix stride
const PPE = 3;
const f32 = Math.fround;

export const SPACING = 10;
// components of at least this many nodes start from pivot MDS
const MDS_MIN = 50;

/**
 * @param {number} i
 * @param {number} s
 * @returns {[number, number]}
 */
function spiral(i, s) {
  const r = s * Math.sqrt(i + 0.5);
  const a = i * GOLDEN;
  return [r * Math.cos(a), r * Math.sin(a)];
}

// The graph's components, each in BFS order from its most connected node (the lone nodes together, as one), largest
// first.
/**
 * @param {GraphT} graph
 * @returns {{comps: string[][], singles: string[]}}
 */
function bfsComponents(graph) {
  const keys = graph.nodes();
  const { off, adj } = csr(graph, keys);
  const deg = keys.map((k) => graph.degree(k));
  const order = keys.map((k, i) => i).sort((a, b) => deg[b] - deg[a]);
  const seen = new Uint8Array(keys.length);
  /** @type {string[][]} */
  const comps = [];
  /** @type {string[]} */
  const singles = [];
  for (const root of order) {
    if (seen[root]) continue;
    seen[root] = 1;
    const comp = [root];
    for (let i = 0; i < comp.length; i++) {
      for (let e = off[comp[i]]; e < off[comp[i] + 1]; e++) {
        const m = adj[e];
        if (!seen[m]) {
          seen[m] = 1;
          comp.push(m);
        }
      }
    }
    if (comp.length === 1) singles.push(keys[root]);
    else comps.push(comp.map((i) => keys[i]));
  }
  if (singles.length) comps.push(singles);
  comps.sort((a, b) => b.length - a.length);
  return { comps, singles };
}

// Writes x/y of every node of `graph` (float32-exact values, so FA2's Float32
// matrices round-trip them unchanged). With `mds`, components of MDS_MIN nodes or
// more start from pivot MDS (returns false, writing nothing, when there is none).
/**
 * @param {GraphT} graph
 * @param {{mds?: boolean}} [options]
 * @returns {boolean}
 */
export function startPositions(graph, { mds = false } = {}) {
  const { comps, singles } = bfsComponents(graph);
  if (mds && !comps.some((c) => c.length >= MDS_MIN && c !== singles)) return false;
  // each component in its own frame: pivot MDS for big ones (unfolds sparse structure at once,
  // which matters more than FA2 iterations), a BFS-ordered spiral for small ones
  const local = comps.map((c) => {
    const pts = mds && c.length >= MDS_MIN && c !== singles ? pivotMDS(graph, c).map(([x, y]) => [x * SPACING * 1.5, y * SPACING * 1.5]) : c.map((n, i) => spiral(i, SPACING));
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const [x, y] of pts) {
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    return { pts, x0, y0, w: x1 - x0 + 2 * SPACING, h: y1 - y0 + 2 * SPACING };
  });
  // shelf packing of the components' bounding boxes
  let area = 0;
  for (const b of local) area += b.w * b.h;
  const rowWidth = Math.max(local.length ? local[0].w : 0, Math.sqrt(area) * 1.15);
  let cx = 0, cy = 0, rowH = 0;
  /** @type {Map<string, [number, number]>} */
  const pos = new Map();
  comps.forEach((c, k) => {
    const b = local[k];
    if (cx > 0 && cx + b.w > rowWidth) {
      cx = 0;
      cy += rowH;
      rowH = 0;
    }
    for (let i = 0; i < c.length; i++) {
      const [x, y] = b.pts[i];
      pos.set(c[i], [f32(cx + SPACING + x - b.x0), f32(-(cy + SPACING + y - b.y0))]);
    }
    cx += b.w;
    rowH = Math.max(rowH, b.h);
  });
  graph.updateEachNodeAttributes(
    (n, a) => {
      const p = /** @type {[number, number]} */ (pos.get(n));
      a.x = p[0];
      a.y = p[1];
      return a;
    },
    { attributes: ["x", "y"] }
  );
  return true;
}

/** @param {number} order */
export function fa2Settings(order) {
  return {
    linLogMode: false,
    outboundAttractionDistribution: false,
    adjustSizes: false,
    edgeWeightInfluence: 1,
    scalingRatio: 10,
    strongGravityMode: true,
    gravity: 0.05,
    slowDown: 1 + Math.log(Math.max(order, 1)),
    barnesHutOptimize: order > 1500,
    barnesHutTheta: 0.6,
  };
}

/**
 * @param {GraphT} graph
 * @param {string[]} nodes
 * @param {(key: string, a: Attrs) => boolean} fixed
 */
export function toMatrices(graph, nodes, fixed) {
  /** @type {Map<string, number>} */
  const index = new Map();
  const N = new Float32Array(nodes.length * PPN);
  nodes.forEach((n, i) => {
    const a = graph.getNodeAttributes(n);
    const j = i * PPN;
    index.set(n, j);
    N[j] = a.x;
    N[j + 1] = a.y;
    N[j + 6] = 1;
    N[j + 7] = 1;
    N[j + 8] = 1;
    N[j + 9] = fixed(n, a) ? 1 : 0;
  });
  /** @type {number[]} */
  const edges = [];
  graph.forEachEdge((e, a, s, t) => {
    if (s === t) return;
    const sj = index.get(s), tj = index.get(t);
    if (sj === undefined || tj === undefined) return;
    edges.push(sj, tj);
  });
  const E = new Float32Array((edges.length / 2) * PPE);
  for (let i = 0, j = 0; i < edges.length; i += 2, j += PPE) {
    E[j] = edges[i];
    E[j + 1] = edges[i + 1];
    E[j + 2] = 1;
    N[edges[i] + 6] += 1;
    N[edges[i + 1] + 6] += 1;
  }
  return { nodes: N, edges: E };
}


// Local layout of new nodes: FA2 on the new nodes plus their old neighbours and
// old nodes near them (all old ones fixed). Only new nodes get positions.
/**
 * @param {GraphT} graph
 * @param {string[]} newNodes
 * @param {{iterations?: number}} [options]
 */
export function layoutNew(graph, newNodes, { iterations = 120 } = {}) {
  if (!newNodes.length) return;
  const isNew = new Set(newNodes);
  const local = new Set(newNodes);
  for (const n of newNodes) graph.forEachNeighbor(n, (m) => local.add(m));
  // nearby old nodes (bounded) so new nodes do not land on top of others
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const n of local) {
    const a = graph.getNodeAttributes(n);
    x0 = Math.min(x0, a.x); x1 = Math.max(x1, a.x); y0 = Math.min(y0, a.y); y1 = Math.max(y1, a.y);
  }
  const pad = Math.max(x1 - x0, y1 - y0, SPACING * 4) * 0.5;
  let extra = 0;
  graph.forEachNode((n, a) => {
    if (extra > 400 || local.has(n)) return;
    if (a.x > x0 - pad && a.x < x1 + pad && a.y > y0 - pad && a.y < y1 + pad) {
      local.add(n);
      extra++;
    }
  });
  const list = [...local];
  const m = toMatrices(graph, list, (n) => !isNew.has(n));
  const settings = fa2Settings(graph.order);
  // bounded main-thread work for big additions
  settings.barnesHutOptimize = list.length > 500;
  if (list.length > 500) iterations = Math.max(20, Math.round(iterations * (500 / list.length)));
  settings.strongGravityMode = false;
  settings.gravity = 0;
  settings.slowDown = 2;
  for (let k = 0; k < iterations; k++) iterate(settings, m.nodes, m.edges);
  list.forEach((n, i) => {
    if (!isNew.has(n)) return;
    const x = m.nodes[i * PPN], y = m.nodes[i * PPN + 1];
    if (Number.isFinite(x) && Number.isFinite(y)) {
      graph.mergeNodeAttributes(n, { x: f32(x), y: f32(y) });
    }
  });
}

// Initial spot for a new node: near its anchor, or a placed neighbour, or the
// centre of the graph. `placed(id)` returns {x, y} of an old node or null.
/**
 * @param {Point} centre
 * @param {number} k
 * @param {number} count
 * @param {number} step
 * @returns {Point}
 */
export function placeNear(centre, k, count, step) {
  const [dx, dy] = spiral(k + 1, step / Math.max(1, Math.sqrt(count) * 0.6));
  return { x: f32(centre.x + dx), y: f32(centre.y + dy) };
}
