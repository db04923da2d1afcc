// Start positions (BFS order per component on a phyllotaxis spiral, components
// packed), ForceAtlas2 in a web worker that settles and stops, and a local
// layout for nodes added by a delta (old nodes fixed).
import fa2WorkerFunction from "graphology-layout-forceatlas2/webworker.js";
import iterate from "graphology-layout-forceatlas2/iterate.js";
import { csr, pivotMDS } from "./layouts/mds.js";

/** @typedef {import("./payload.js").GraphT} GraphT */
/** @typedef {import("./payload.js").Attrs} Attrs */
/** @typedef {{x: number, y: number}} Point */

const GOLDEN = Math.PI * (3 - Math.sqrt(5));
const PPN = 10; // FA2 node matrix stride
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

// Writes x/y of every node of `graph` (float32-exact values, so FA2's Float32
// matrices round-trip them unchanged). With `mds`, components of MDS_MIN nodes or
// more start from pivot MDS (returns false, writing nothing, when there is none).
/**
 * @param {GraphT} graph
 * @param {{mds?: boolean}} [options]
 * @returns {boolean}
 */
export function startPositions(graph, { mds = false } = {}) {
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

// Connected components as lists of indices into `nodes`, largest first.
/**
 * @param {GraphT} graph
 * @param {string[]} nodes
 * @returns {number[][]}
 */
function components(graph, nodes) {
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
function sampleEdges(graph, idx) {
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

/**
 * @param {GraphT} graph
 * @param {string[]} nodes
 * @param {(key: string, a: Attrs) => boolean} fixed
 */
function toMatrices(graph, nodes, fixed) {
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

// Worker source: graphology's FA2 worker body, driven for `budget` ms (at least
// `iterations` iterations) per message, answering with the new positions and
// the mean displacement per iteration.
const WORKER_SOURCE =
  "var __h,__o;(function(){var self={addEventListener:function(t,h){__h=h},postMessage:function(m){__o=m}};(" +
  fa2WorkerFunction.toString() +
  ").call(this)})();" +
  "self.onmessage=function(e){var d=e.data,a=new Float32Array(d.nodes),n=a.length/10,px=new Float32Array(n),py=new Float32Array(n),i,k;" +
  "for(i=0;i<n;i++){px[i]=a[i*10];py[i]=a[i*10+1]}" +
  "var t0=performance.now();for(k=0;k<d.iterations||performance.now()-t0<d.budget;k++){__h({data:{settings:d.settings,nodes:a.buffer,edges:k===0?d.edges:undefined}});a=new Float32Array(__o.nodes);if(k>=500)break}" +
  "var s=0,c=0,x0=1/0,x1=-1/0,y0=1/0,y1=-1/0;for(i=0;i<n;i++){var x=a[i*10],y=a[i*10+1];if(x<x0)x0=x;if(x>x1)x1=x;if(y<y0)y0=y;if(y>y1)y1=y;" +
  "if(!a[i*10+9]){s+=Math.sqrt((x-px[i])*(x-px[i])+(y-py[i])*(y-py[i]));c++}}" +
  "self.postMessage({nodes:a.buffer,ms:performance.now()-t0,disp:c?s/c/Math.max(k,1):0,iterations:k,extent:Math.max(x1-x0,y1-y0,1e-9)},[a.buffer])};";

function createWorker() {
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
  try {
    return new Worker(url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

// Runs FA2 on the whole graph until it settles. onUpdate() is called after
// positions were written into the graph; onSettled() once at the end.
// The turn (radians) that lays the principal axis of the points `list` (indices
// into the layout matrix m) along the canvas's long side, and their centre;
// a is null for fewer than 3 points or a layout not clearly elongated (a round one would spin).
/**
 * @param {Float32Array} m
 * @param {number[]} list
 * @param {boolean} wide
 * @returns {{a: number | null, mx: number, my: number}}
 */
function principalTurn(m, list, wide) {
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

/**
 * @typedef {object} LayoutOptions
 * @property {() => void} [onUpdate]  after positions were written into the graph
 * @property {() => void} [onSettled]  once, at the end
 * @property {(key: string) => boolean} [isFixed]  a pinned node
 * @property {() => number} [minGap]  least ms between two redraws
 * @property {() => boolean} [wide]  the canvas is wider than tall
 * @property {() => number} [aspect]  the canvas's width / height
 * @property {number} [threshold]  mean displacement (share of the extent) under which an iteration is calm
 */
/** @typedef {{nodes: ArrayBuffer, ms: number, disp: number, iterations: number, extent: number}} WorkerReply */

export class Layout {
  /**
   * @param {GraphT} graph
   * @param {LayoutOptions} options
   */
  constructor(graph, { onUpdate, onSettled, isFixed, minGap, wide, aspect, threshold = 0.001 }) {
    this.wide = wide || (() => true);
    this.aspect = aspect || (() => 1.4);
    this.minGap = minGap || (() => 0);
    this.graph = graph;
    this.isFixed = isFixed || (() => false);
    this.onUpdate = onUpdate;
    this.onSettled = onSettled;
    this.threshold = threshold;
    this.nodes = graph.nodes();
    this.order = this.nodes.length;
    this.settings = fa2Settings(this.order);
    this.running = false;
    this.done = false;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Map<number, boolean>} matrix offset -> pinned, for the next message */
    this.pendingFixed = new Map();
    this.budget = 40; // ms of FA2 per worker message
    this.iterationsDone = 0;
    // time cap: small graphs settle by displacement well before it; big ones
    // stop here (the worker takes a core of a shared machine meanwhile)
    this.cap = this.order <= 2000 ? 10000 : Math.min(20000, 4000 + this.order * 0.5);
    // every redraw costs CPU that software WebGL takes from the worker: redraw
    // the moving layout at most every 100 ms (small) .. 1.5 s (50k nodes)
    this.applyEvery = Math.min(1500, Math.max(100, this.order / 10));
    this.lastApply = 0;
    this.calm = 0;
    this.t0 = 0;
    this.batchStart = 0;
    /** @type {Float32Array | null} the node matrix while it is here (not in the worker) */
    this.matrix = null;
    /** @type {number | undefined} ms a redraw blocks the main thread (smoothed) */
    this.blockMs = undefined;
    this.appliedLast = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {number[] | undefined} */
    this.edgeSample = undefined;
    /** @type {Map<string, number> | undefined} node -> matrix offset */
    this.idx = undefined;
    this.comps = components(graph, this.nodes);
    this.compOf = new Int32Array(this.order);
    this.comps.forEach((list, c) => {
      for (const i of list) this.compOf[i] = c;
    });
    /** @type {number[][] | null} */
    this.offsets = null; // per component: [dx, dy, cos, sin, cx, cy] (display placement of the FA2 positions)
    this.frozen = false; // a pinned node freezes the placement (its drawn position must not jump)
  }

  start() {
    if (this.running || this.done) return;
    if (this.order < 2) {
      this.finish();
      return;
    }
    if (this.graph.size === 0) {
      // nothing to pull together: lone nodes go on a grid of the canvas's shape
      this.apply(toMatrices(this.graph, this.nodes, this.isFixed).nodes);
      this.finish();
      return;
    }
    this.running = true;
    this.t0 = performance.now();
    const m = toMatrices(this.graph, this.nodes, this.isFixed);
    this.matrix = m.nodes;
    try {
      this.worker = createWorker();
      this.worker.onmessage = (e) => this.onMessage(e.data);
      this.worker.onerror = () => this.fallback(m.edges);
      this.post(m.edges);
    } catch (err) {
      this.fallback(m.edges);
    }
  }

  /** @param {Float32Array | null} edges */
  post(edges) {
    const nodes = /** @type {Float32Array} */ (this.matrix);
    for (const [j, f] of this.pendingFixed) nodes[j + 9] = f ? 1 : 0;
    this.pendingFixed.clear();
    this.batchStart = performance.now();
    /** @type {{settings: object, nodes: ArrayBufferLike, iterations: number, budget: number, edges?: ArrayBufferLike}} */
    const msg = { settings: this.settings, nodes: nodes.buffer, iterations: 1, budget: this.budget };
    /** @type {Transferable[]} */
    const transfer = [/** @type {ArrayBuffer} */ (nodes.buffer)];
    if (edges) {
      msg.edges = edges.buffer;
      transfer.push(/** @type {ArrayBuffer} */ (edges.buffer));
    }
    this.matrix = null;
    /** @type {Worker} */ (this.worker).postMessage(msg, transfer);
  }

  /** @param {WorkerReply} d */
  onMessage(d) {
    if (!this.running) return;
    this.iterationsDone += d.iterations;
    const matrix = new Float32Array(d.nodes);
    const now = performance.now();
    const ratio = d.disp / d.extent;
    this.calm = ratio < this.threshold ? this.calm + 1 : 0;
    const settled = this.calm >= 3 || now - this.t0 > this.cap;
    if (settled) {
      this.apply(matrix);
      this.finish();
      return;
    }
    let copy = null;
    // a redraw blocks the main thread (software WebGL) and delays the next
    // batch: measure that and keep redraws to ~1/5 of the time
    const block = now - this.batchStart - (d.ms || 0);
    if (this.appliedLast) this.blockMs = this.blockMs ? this.blockMs * 0.5 + block * 0.5 : block;
    this.appliedLast = false;
    if (now - this.lastApply >= Math.max(this.applyEvery, this.minGap(), 4 * (this.blockMs || 0))) {
      copy = matrix.slice();
      this.appliedLast = true;
    }
    this.align(matrix);
    this.matrix = matrix;
    this.post(null);
    if (copy) {
      this.lastApply = now;
      this.apply(copy);
    }
  }

  // Keeps the layout's principal axis along the canvas's long side (FA2 is
  // rotation-free, so this costs nothing but uses the space). Not with pins.
  /** @param {Float32Array} m */
  align(m) {
    const n = m.length / PPN;
    if (n < 3 || this.comps.length > 1) return; // several components: pack() turns each one
    for (let i = 0; i < n; i++) if (m[i * PPN + 9]) return;
    const { a } = principalTurn(m, Array.from({ length: n }, (_, i) => i), this.wide());
    if (a === null || Math.abs(a) < 0.01) return;
    const c = Math.cos(-a), s = Math.sin(-a);
    for (let i = 0; i < n; i++) {
      const j = i * PPN;
      const x = m[j], y = m[j + 1];
      m[j] = x * c - y * s;
      m[j + 1] = x * s + y * c;
    }
  }

  /** @param {Float32Array | null} edges */
  fallback(edges) {
    // No worker: bounded main-thread iterations, a slice per frame.
    if (this.worker) this.worker.terminate();
    this.worker = null;
    if (!this.matrix) {
      const m = toMatrices(this.graph, this.nodes, this.isFixed);
      this.matrix = m.nodes;
      edges = m.edges;
    }
    const nodes = this.matrix;
    const cap = Math.min(this.cap, 6000);
    const step = () => {
      if (!this.running) return;
      const t = performance.now();
      const n = nodes.length / PPN;
      const px = new Float32Array(n), py = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        px[i] = nodes[i * PPN];
        py[i] = nodes[i * PPN + 1];
      }
      let k = 0;
      while (performance.now() - t < 25) {
        iterate(this.settings, nodes, /** @type {Float32Array} */ (edges));
        k++;
      }
      this.iterationsDone += k;
      this.align(nodes);
      let s = 0, x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (let i = 0; i < n; i++) {
        const x = nodes[i * PPN], y = nodes[i * PPN + 1];
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        s += Math.hypot(x - px[i], y - py[i]);
      }
      const ratio = s / n / k / Math.max(x1 - x0, y1 - y0, 1e-9);
      this.calm = ratio < this.threshold ? this.calm + 1 : 0;
      const now = performance.now();
      if (this.calm >= 3 || now - this.t0 > cap) {
        this.apply(nodes);
        this.finish();
        return;
      }
      if (now - this.lastApply > 1000) {
        this.lastApply = now;
        this.apply(nodes);
      }
      this.timer = setTimeout(step, 0);
    };
    this.timer = setTimeout(step, 0);
  }

  /** @param {Float32Array} matrix */
  apply(matrix) {
    // positions go back by node order (nodes captured at start)
    const idx = this.idxOf();
    const place = this.comps.length > 1 ? this.pack(matrix) : null;
    this.graph.updateEachNodeAttributes(
      (n, a) => {
        const j = idx.get(n);
        if (j === undefined || this.isFixed(n)) return a;
        if (place) {
          const o = place[this.compOf[j / PPN]];
          const x = matrix[j] - o[4], y = matrix[j + 1] - o[5];
          a.x = f32(o[0] + x * o[2] - y * o[3]);
          a.y = f32(o[1] + x * o[3] + y * o[2]);
        } else {
          a.x = matrix[j];
          a.y = matrix[j + 1];
        }
        return a;
      },
      { attributes: ["x", "y"] }
    );
    if (this.onUpdate) this.onUpdate();
  }

  // Components are laid out by FA2 together but drawn packed: each one is turned
  // so its long axis lies along the canvas's long side, then the components are
  // shelf-packed (largest first) with the row width that fills the canvas's
  // aspect ratio best, one typical edge length apart. FA2's repulsion would
  // otherwise fling them to the corners and leave each one cramped.
  /**
   * @param {Float32Array} m
   * @returns {number[][]}
   */
  pack(m) {
    if (this.frozen && this.offsets) return this.offsets;
    const comps = this.comps;
    const C = comps.length;
    // typical edge length (sampled) sets the gap and the size of a lone node's cell
    /** @type {number[]} */
    const lens = [];
    const E = this.edgeSample || (this.edgeSample = sampleEdges(this.graph, this.idxOf()));
    for (let k = 0; k < E.length; k += 2) {
      const a = E[k], b = E[k + 1];
      lens.push(Math.hypot(m[a] - m[b], m[a + 1] - m[b + 1]));
    }
    lens.sort((x, y) => x - y);
    const unit = lens.length ? Math.max(lens[lens.length >> 1], 1e-6) : SPACING;
    const wideCanvas = this.wide();
    /** @type {{c: number, x0: number, y1: number, w: number, h: number, mx: number, my: number, cos: number, sin: number}[]} */
    const boxes = new Array(C);
    for (let c = 0; c < C; c++) {
      const list = comps[c];
      const { a, mx, my } = principalTurn(m, list, wideCanvas);
      let cos = 1, sin = 0;
      if (a !== null) {
        // keep the previous turn when it is close (no flicker while FA2 moves)
        const prev = this.offsets && this.offsets[c];
        cos = Math.cos(-a);
        sin = Math.sin(-a);
        if (prev && Math.abs(prev[2] * cos + prev[3] * sin) > 0.995) {
          cos = prev[2];
          sin = prev[3];
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
    // comps are sorted by size; try row widths and keep the packing that fits the canvas best
    const aspect = Math.max(0.2, Math.min(5, this.aspect() || 1.4));
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
    this.offsets = out;
    return out;
  }

  /** @returns {Map<string, number>} */
  idxOf() {
    if (!this.idx) {
      this.idx = new Map();
      for (let i = 0; i < this.nodes.length; i++) this.idx.set(this.nodes[i], i * PPN);
    }
    return this.idx;
  }

  /**
   * @param {string} node
   * @param {boolean} fixed
   */
  setFixed(node, fixed) {
    if (fixed) this.frozen = true;
    const i = this.nodes.indexOf(node);
    if (i >= 0) {
      this.pendingFixed.set(i * PPN, fixed);
      if (this.matrix) this.matrix[i * PPN + 9] = fixed ? 1 : 0;
      this.calm = 0;
    }
  }

  finish() {
    this.running = false;
    if (this.done) return;
    this.done = true;
    this.stop();
    if (this.onSettled) this.onSettled();
  }

  stop() {
    this.running = false;
    if (this.worker) this.worker.terminate();
    this.worker = null;
    clearTimeout(this.timer);
  }

  // Stops and reports settled (used when a delta arrives mid-layout).
  settleNow() {
    if (!this.done) this.finish();
  }
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
