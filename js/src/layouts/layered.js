// Layered (Sugiyama-style) layout: cycles broken by reversing DFS back edges,
// longest-path layers (sources on top, every other relationship points down),
// long edges routed through dummy slots, median ordering sweeps, then x placed at
// the neighbours' mean without overlaps; the drawing takes the canvas's aspect.

/** @typedef {import("../payload.js").GraphT} GraphT */
/** @typedef {[number, number]} Pair  an edge as [from, to] indices */

/**
 * @param {GraphT} graph
 * @param {string[]} keys
 */
function adjacency(graph, keys) {
  /** @type {Map<string, number>} */
  const idx = new Map();
  keys.forEach((k, i) => idx.set(k, i));
  const out = keys.map(() => /** @type {number[]} */ ([]));
  /** @type {Pair[]} */
  const edges = [];
  graph.forEachEdge((e, a, s, t) => {
    const i = idx.get(s), j = idx.get(t);
    if (i === undefined || j === undefined || i === j) return;
    out[i].push(edges.length);
    edges.push([i, j]);
  });
  return { out, edges };
}

// Marks back edges of a DFS (sources first) as reversed; returns the flags.
/**
 * @param {number} n
 * @param {number[][]} out
 * @param {Pair[]} edges
 */
function breakCycles(n, out, edges) {
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const reversed = new Uint8Array(edges.length);
  const indeg = new Int32Array(n);
  for (const [, j] of edges) indeg[j]++;
  const roots = [];
  for (let i = 0; i < n; i++) if (!indeg[i]) roots.push(i);
  for (let i = 0; i < n; i++) if (indeg[i]) roots.push(i);
  for (const r of roots) {
    if (state[r]) continue;
    /** @type {[number, number][]} */
    const stack = [[r, 0]];
    state[r] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [u, k] = top;
      if (k < out[u].length) {
        top[1]++;
        const e = out[u][k];
        const v = edges[e][1];
        if (state[v] === 1) reversed[e] = 1;
        else if (!state[v]) {
          state[v] = 1;
          stack.push([v, 0]);
        }
      } else {
        state[u] = 2;
        stack.pop();
      }
    }
  }
  return reversed;
}

/**
 * @param {number[]} desired
 * @param {number[]} gaps
 * @returns {number[]}
 */
function place(desired, gaps) {
  const n = desired.length;
  if (!n) return [];
  const a = desired.slice(), b = desired.slice();
  for (let i = 1; i < n; i++) a[i] = Math.max(a[i], a[i - 1] + gaps[i]);
  for (let i = n - 2; i >= 0; i--) b[i] = Math.min(b[i], b[i + 1] - gaps[i + 1]);
  const m = a.map((x, i) => (x + b[i]) / 2);
  for (let i = 1; i < n; i++) m[i] = Math.max(m[i], m[i - 1] + gaps[i]);
  return m;
}

// Long edges get a dummy slot on every layer they cross, so orderings and x
// placement keep room for them. Returns rows (lists of slots), the slot count,
// and for each slot its neighbours one layer up and down.
/**
 * @param {number} n
 * @param {Pair[]} down
 * @param {Int32Array} layer
 * @param {number[]} queue
 */
function withDummies(n, down, layer, queue) {
  const up = Array.from({ length: n }, () => /** @type {number[]} */ ([])), dn = Array.from({ length: n }, () => /** @type {number[]} */ ([]));
  const lay = Array.from(layer);
  let slots = n;
  const byTop = Array.from({ length: n }, () => /** @type {number[]} */ ([]));
  for (const [i, j] of down) byTop[i].push(j);
  for (const i of queue)
    for (const j of byTop[i]) {
      let a = i;
      for (let l = layer[i] + 1; l < layer[j]; l++) {
        const d = slots++;
        up.push([a]);
        dn.push([]);
        lay.push(l);
        dn[a].push(d);
        a = d;
      }
      dn[a].push(j);
      up[j].push(a);
    }
  const L = n ? Math.max(...layer) + 1 : 0;
  const rows = Array.from({ length: L }, () => /** @type {number[]} */ ([]));
  for (const u of queue) rows[layer[u]].push(u);
  for (let d = n; d < slots; d++) rows[lay[d]].push(d);
  return { rows, slots, up, dn };
}

// Barycentre sweeps down and up; slots with no neighbours on that side keep their place.
/**
 * @param {number[][]} rows
 * @param {number} slots
 * @param {number[][]} up
 * @param {number[][]} dn
 */
function order(rows, slots, up, dn) {
  const x = new Float64Array(slots);
  const setIndex = (/** @type {number[]} */ row) => row.forEach((u, i) => (x[u] = i));
  rows.forEach(setIndex);
  const sweep = (/** @type {number[]} */ row, /** @type {number[][]} */ nb) => {
    /** @type {Map<number, number>} */
    const key = new Map();
    for (const u of row) {
      const list = nb[u];
      if (!list.length) key.set(u, x[u]);
      else {
        const s = list.map((v) => x[v]).sort((a, b) => a - b);
        const m = s.length >> 1; // median, the mean of the two middle ones when even
        key.set(u, s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2);
      }
    }
    row.sort((a, b) => /** @type {number} */ (key.get(a)) - /** @type {number} */ (key.get(b)) || x[a] - x[b]);
    setIndex(row);
  };
  for (let it = 0; it < 12; it++) {
    for (let l = 1; l < rows.length; l++) sweep(rows[l], up);
    for (let l = rows.length - 2; l >= 0; l--) sweep(rows[l], dn);
  }
}

// x of each slot: pulled toward its neighbours' mean, kept in order; a real
// node takes one unit, a dummy (an edge passing) less.
/**
 * @param {number[][]} rows
 * @param {number} slots
 * @param {number[][]} up
 * @param {number[][]} dn
 * @param {number} n
 */
function spread(rows, slots, up, dn, n) {
  const x = new Float64Array(slots);
  const w = (/** @type {number} */ u) => (u < n ? 1 : 0.4);
  for (const row of rows) {
    let at = 0;
    row.forEach((u, i) => (x[u] = at += i ? (w(row[i - 1]) + w(u)) / 2 : 0));
  }
  for (let it = 0; it < 8; it++) {
    const seq = it % 2 ? [...rows.keys()].reverse() : [...rows.keys()];
    for (const l of seq) {
      const row = rows[l];
      const desired = row.map((u) => {
        const nb = up[u].concat(dn[u]);
        return nb.length ? nb.reduce((s, v) => s + x[v], 0) / nb.length : x[u];
      });
      const gaps = row.map((u, i) => (i ? (w(row[i - 1]) + w(u)) / 2 : 0));
      place(desired, gaps).forEach((v, i) => (x[row[i]] = v));
    }
  }
  return x;
}

// Layers by longest path (sources just above their highest child), in topological order.
/**
 * @param {number} n
 * @param {Pair[]} down
 */
function layering(n, down) {
  const succ = Array.from({ length: n }, () => /** @type {number[]} */ ([])), pred = Array.from({ length: n }, () => /** @type {number[]} */ ([]));
  const indeg = new Int32Array(n);
  for (const [i, j] of down) {
    succ[i].push(j);
    pred[j].push(i);
    indeg[j]++;
  }
  const layer = new Int32Array(n);
  /** @type {number[]} */
  const queue = [];
  for (let i = 0; i < n; i++) if (!indeg[i]) queue.push(i);
  for (let h = 0; h < queue.length; h++) {
    const u = queue[h];
    for (const v of succ[u]) {
      if (layer[u] + 1 > layer[v]) layer[v] = layer[u] + 1;
      if (--indeg[v] === 0) queue.push(v);
    }
  }
  for (let h = queue.length - 1; h >= 0; h--) {
    const u = queue[h];
    if (pred[u].length || !succ[u].length) continue;
    let m = Infinity;
    for (const v of succ[u]) m = Math.min(m, layer[v]);
    layer[u] = m - 1;
  }
  return { layer, queue };
}

// keys: nodes to lay out. Returns {pos: [[x, y]] by index of keys, reversed, layers, across, spacing}.
// The drawing takes the canvas's aspect: each axis is scaled on its own, and a
// DAG much deeper than wide runs its layers left to right (`across` true) when
// that leaves nodes more room. spacing: [x, y] distance of neighbouring slots,
// as a fraction of the drawing's width / height (the canvas sizes nodes by it).
/**
 * @param {GraphT} graph
 * @param {string[]} keys
 * @param {{gap?: number, aspect?: number}} [options]
 */
export function layered(graph, keys, { gap = 10, aspect = 1.4 } = {}) {
  const n = keys.length;
  const { out, edges } = adjacency(graph, keys);
  const rev = breakCycles(n, out, edges);
  const down = edges.map(([i, j], e) => /** @type {Pair} */ (rev[e] ? [j, i] : [i, j]));
  const { layer, queue } = layering(n, down);
  const { rows, slots, up, dn } = withDummies(n, down, layer, queue);
  order(rows, slots, up, dn);
  const x = spread(rows, slots, up, dn, n);
  let x0 = Infinity, x1 = -Infinity;
  for (let i = 0; i < slots; i++) (x0 = Math.min(x0, x[i])), (x1 = Math.max(x1, x[i]));
  let W = Math.max(1, x1 - x0), D = Math.max(1, rows.length - 1);
  const A = Math.max(0.3, Math.min(4, aspect));
  // room per slot at full view (canvas height 1): layers down vs layers across
  const across = n > 2 && Math.min(A / D, 1 / W) > 1.3 * Math.min(A / W, 1 / D);
  const [wide, deep] = across ? [1, A] : [A, 1]; // canvas extent across the layers, along them
  // a DAG much wider than deep wraps each layer into k sub-rows (every edge still goes down a layer)
  const k = Math.max(1, Math.min(12, Math.round(Math.sqrt((W * deep) / (wide * (D + 1))))));
  const sub = new Int32Array(n);
  if (k > 1) {
    for (const row of rows) {
      let r = 0;
      for (const u of row) if (u < n) sub[u] = r++ % k;
    }
    W /= k;
    D = rows.length * k - 1;
  }
  const ux = gap, uy = (gap * W * deep) / (D * wide); // across-layer unit, sub-row distance
  /** @type {number[][]} */
  const pos = new Array(n);
  for (let i = 0; i < n; i++) {
    const a = ((x[i] - (x0 + x1) / 2) / k) * ux, b = -(layer[i] * k + sub[i]) * uy;
    pos[i] = across ? [-b, a] : [a, b];
  }
  let reversed = 0;
  for (const r of rev) reversed += r;
  return { pos, reversed, layers: rows.length, across, spacing: across ? [1 / D, 1 / W] : [1 / W, 1 / D] };
}
