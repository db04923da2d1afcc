// ForceAtlas2 in a web worker that settles and stops (with a main-thread fallback), its components drawn packed.
import iterate from "graphology-layout-forceatlas2/iterate.js";
import fa2WorkerFunction from "graphology-layout-forceatlas2/webworker.js";
import { fa2Settings, toMatrices, PPN } from "./layout.js";
import { components, sampleEdges, principalTurn, packComponents } from "./pack.js";

/** @typedef {import("./payload.js").GraphT} GraphT */
const f32 = Math.fround;

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
    const E = this.edgeSample || (this.edgeSample = sampleEdges(this.graph, this.idxOf()));
    const out = packComponents(m, this.comps, E, this.wide(), () => Math.max(0.2, Math.min(5, this.aspect() || 1.4)), this.offsets);
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
