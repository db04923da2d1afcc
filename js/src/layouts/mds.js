// Pivot MDS (Brandes & Pich 2006): start positions that unfold large sparse
// graphs at once (a lattice comes out as a lattice). Graph distances from k
// pivots, double-centred, the top two eigenvectors of CᵀC by power iteration.

// CSR adjacency (undirected: each neighbour once, no self-loop) over `keys`: {off, adj, idx}. One pass over the
// relationships leaving each key, then each node's list cut to distinct neighbours (parallel relationships, and a
// pair joined both ways, repeat them).
/** @typedef {import("../payload.js").GraphT} GraphT */
/** @typedef {{off: Int32Array, adj: Int32Array, idx: Map<string, number>}} CSR  adjacency in compressed rows (csr) */

/**
 * @param {GraphT} graph
 * @param {string[]} keys
 * @returns {CSR}
 */
export function csr(graph, keys) {
  const n = keys.length;
  const idx = new Map();
  for (let i = 0; i < n; i++) idx.set(keys[i], i);
  /** @type {number[]} */
  const ends = [];
  const count = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    graph.forEachOutEdge(keys[i], (e, a, s, t) => {
      const j = idx.get(t);
      if (j === undefined || j === i) return;
      ends.push(i, j);
      count[i]++;
      count[j]++;
    });
  }
  const at = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) at[i + 1] = at[i] + count[i];
  const all = new Int32Array(at[n]);
  const fill = at.slice(0, n);
  for (let k = 0; k < ends.length; k += 2) {
    const i = ends[k], j = ends[k + 1];
    all[fill[i]++] = j;
    all[fill[j]++] = i;
  }
  const off = new Int32Array(n + 1);
  const adj = new Int32Array(at[n]);
  const mark = new Int32Array(n).fill(-1);
  let m = 0;
  for (let i = 0; i < n; i++) {
    for (let e = at[i]; e < at[i + 1]; e++) {
      const j = all[e];
      if (mark[j] === i) continue;
      mark[j] = i;
      adj[m++] = j;
    }
    off[i + 1] = m;
  }
  return { off, adj: adj.subarray(0, m), idx };
}

let queue = new Int32Array(0);

/**
 * @param {{off: Int32Array, adj: Int32Array}} g
 * @param {number} n
 * @param {number} start
 * @param {Int32Array} dist
 */
export function bfs(g, n, start, dist) {
  dist.fill(-1);
  if (queue.length < n) queue = new Int32Array(n);
  let head = 0, tail = 0;
  queue[tail++] = start;
  dist[start] = 0;
  while (head < tail) {
    const u = queue[head++];
    for (let e = g.off[u]; e < g.off[u + 1]; e++) {
      const v = g.adj[e];
      if (dist[v] < 0) {
        dist[v] = dist[u] + 1;
        queue[tail++] = v;
      }
    }
  }
  return dist;
}

// k columns of squared graph distances from max-min pivots (unreached: n), double-centred.
/**
 * @param {{off: Int32Array, adj: Int32Array}} g
 * @param {number} n
 * @param {number} k
 * @returns {Float64Array[]}
 */
function centredDistances(g, n, k) {
  /** @type {Float64Array[]} */
  const D = []; // k columns of squared distances
  const minD = new Float64Array(n).fill(Infinity);
  let p = 0;
  const d = new Int32Array(n);
  for (let c = 0; c < k; c++) {
    bfs(g, n, p, d);
    const col = new Float64Array(n);
    let far = 0;
    for (let i = 0; i < n; i++) {
      const v = d[i] < 0 ? n : d[i];
      col[i] = v * v;
      if (v < minD[i]) minD[i] = v;
      if (minD[i] > minD[far]) far = i;
    }
    D.push(col);
    p = far; // max-min: the next pivot is the node farthest from all pivots so far
  }
  // double centring of the n x k matrix
  const colMean = D.map((col) => col.reduce((a, b) => a + b, 0) / n);
  const rowMean = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < k; c++) s += D[c][i];
    rowMean[i] = s / k;
  }
  const grand = colMean.reduce((a, b) => a + b, 0) / k;
  for (let c = 0; c < k; c++) for (let i = 0; i < n; i++) D[c][i] = -0.5 * (D[c][i] - rowMean[i] - colMean[c] + grand);
  return D;
}

// The top two eigenvectors of CᵀC (C: the n × k centred columns), by power iteration.
/**
 * @param {Float64Array[]} D
 * @param {number} n
 * @param {number} k
 * @returns {Float64Array[]}
 */
function topTwo(D, n, k) {
  // B = CᵀC (k x k)
  const B = Array.from({ length: k }, () => new Float64Array(k));
  for (let a = 0; a < k; a++)
    for (let b = a; b < k; b++) {
      let s = 0;
      const ca = D[a], cb = D[b];
      for (let i = 0; i < n; i++) s += ca[i] * cb[i];
      B[a][b] = B[b][a] = s;
    }
  const vecs = [];
  for (let e = 0; e < 2; e++) {
    let v = Float64Array.from({ length: k }, (_, i) => Math.sin(i * 1.7 + e * 2.3) + 0.1);
    for (let it = 0, moved = 1; it < 200 && moved > 1e-9; it++) {
      const w = new Float64Array(k);
      for (let a = 0; a < k; a++) {
        let s = 0;
        for (let b = 0; b < k; b++) s += B[a][b] * v[b];
        w[a] = s;
      }
      for (const u of vecs) {
        let dot = 0;
        for (let a = 0; a < k; a++) dot += w[a] * u[a];
        for (let a = 0; a < k; a++) w[a] -= dot * u[a];
      }
      let norm = 0;
      for (let a = 0; a < k; a++) norm += w[a] * w[a];
      norm = Math.sqrt(norm) || 1;
      moved = 0;
      for (let a = 0; a < k; a++) {
        w[a] /= norm;
        moved += (w[a] - v[a]) * (w[a] - v[a]);
      }
      v = w;
    }
    vecs.push(v);
  }
  return vecs;
}

// Positions [x, y] per index of `keys` (one connected component), typical edge length ~1.
/**
 * @param {GraphT} graph
 * @param {string[]} keys
 * @returns {[number, number][]}
 */
export function pivotMDS(graph, keys, pivots = 30) {
  const n = keys.length;
  const g = csr(graph, keys);
  const k = Math.min(pivots, n);
  const D = centredDistances(g, n, k);
  const vecs = topTwo(D, n, k);
  /** @type {[number, number][]} */
  const pos = new Array(n);
  for (let i = 0; i < n; i++) {
    let x = 0, y = 0;
    for (let c = 0; c < k; c++) {
      x += D[c][i] * vecs[0][c];
      y += D[c][i] * vecs[1][c];
    }
    pos[i] = [x, y];
  }
  // scale: median edge length 1; a little deterministic jitter separates nodes MDS put on one spot
  const lens = [];
  for (let i = 0; i < n && lens.length < 4000; i++)
    for (let e = g.off[i]; e < g.off[i + 1]; e++) lens.push(Math.hypot(pos[i][0] - pos[g.adj[e]][0], pos[i][1] - pos[g.adj[e]][1]));
  lens.sort((a, b) => a - b);
  const unit = lens.length ? lens[lens.length >> 1] || lens[lens.length - 1] || 1 : 1;
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.3;
  return pos.map(([x, y]) => [x / unit + rnd(), y / unit + rnd()]);
}
