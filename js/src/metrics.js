// Metrics of the drawn graph: communities (Louvain) and PageRank.

// Louvain (local moving, then aggregation, a few levels) over the undirected graph,
// relationships between the same two nodes adding up. Deterministic (fixed node order).
// Returns Map node -> community index (0 = the largest).
/**
 * @param {number} n
 * @param {Int32Array} off
 * @param {Int32Array} adj
 * @param {Float64Array} w
 * @param {Float64Array} selfW
 */
function louvainLevel(n, off, adj, w, selfW) {
  const k = new Float64Array(n);
  let m2 = 0;
  for (let i = 0; i < n; i++) {
    for (let e = off[i]; e < off[i + 1]; e++) k[i] += w[e];
    k[i] += 2 * selfW[i];
    m2 += k[i];
  }
  const comm = Int32Array.from({ length: n }, (_, i) => i);
  const tot = Float64Array.from(k);
  if (!m2) return comm;
  const wc = new Float64Array(n);
  /** @type {number[]} */
  const seen = [];
  for (let pass = 0, moved = 1; pass < 20 && moved; pass++) {
    moved = 0;
    for (let i = 0; i < n; i++) {
      const own = comm[i];
      for (let e = off[i]; e < off[i + 1]; e++) {
        const c = comm[adj[e]];
        if (!wc[c]) seen.push(c);
        wc[c] += w[e];
      }
      tot[own] -= k[i];
      let best = own, gain = (wc[own] || 0) - (tot[own] * k[i]) / m2;
      for (const c of seen) {
        const g = wc[c] - (tot[c] * k[i]) / m2;
        if (g > gain + 1e-12 || (Math.abs(g - gain) <= 1e-12 && c < best)) (best = c), (gain = g);
      }
      tot[best] += k[i];
      if (best !== own) (comm[i] = best), moved++;
      for (const c of seen) wc[c] = 0;
      seen.length = 0;
    }
  }
  return comm;
}

/**
 * @param {import("./payload.js").GraphT} graph
 * @returns {Map<string, number>}
 */
export function communities(graph, levels = 8) {
  const nodes = graph.nodes();
  /** @type {Map<string, number>} */
  const idx = new Map();
  nodes.forEach((n, i) => idx.set(n, i));
  let member = Int32Array.from(nodes, (n, i) => i); // original node -> current super node
  let pairs = new Map(); // "a,b" (a < b) -> weight, over current super nodes
  let selfW = new Float64Array(nodes.length);
  graph.forEachEdge((e, a, s, t) => {
    const i = /** @type {number} */ (idx.get(s)), j = /** @type {number} */ (idx.get(t));
    if (i === j) selfW[i] += 1;
    else {
      const key = i < j ? i * 4294967296 + j : j * 4294967296 + i;
      pairs.set(key, (pairs.get(key) || 0) + 1);
    }
  });
  let n = nodes.length;
  for (let level = 0; level < levels; level++) {
    const lists = Array.from({ length: n }, () => /** @type {number[]} */ ([]));
    for (const [key, wt] of pairs) {
      const a = Math.floor(key / 4294967296), b = key % 4294967296;
      lists[a].push(b, wt);
      lists[b].push(a, wt);
    }
    const off = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) off[i + 1] = off[i] + lists[i].length / 2;
    const adj = new Int32Array(off[n]), w = new Float64Array(off[n]);
    lists.forEach((l, i) => {
      for (let q = 0; q < l.length; q += 2) (adj[off[i] + q / 2] = l[q]), (w[off[i] + q / 2] = l[q + 1]);
    });
    const comm = louvainLevel(n, off, adj, w, selfW);
    const renum = new Map();
    for (let i = 0; i < n; i++) if (!renum.has(comm[i])) renum.set(comm[i], renum.size);
    if (renum.size === n) break; // nothing merged: done
    member = member.map((c) => renum.get(comm[c]));
    const next = new Map(), nextSelf = new Float64Array(renum.size);
    for (let i = 0; i < n; i++) nextSelf[renum.get(comm[i])] += selfW[i];
    for (const [key, wt] of pairs) {
      const a = renum.get(comm[Math.floor(key / 4294967296)]), b = renum.get(comm[key % 4294967296]);
      if (a === b) nextSelf[a] += wt;
      else {
        const k2 = a < b ? a * 4294967296 + b : b * 4294967296 + a;
        next.set(k2, (next.get(k2) || 0) + wt);
      }
    }
    pairs = next;
    selfW = nextSelf;
    n = renum.size;
  }
  const size = new Map();
  for (const c of member) size.set(c, (size.get(c) || 0) + 1);
  const rank = new Map([...size.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([c], i) => [c, i]));
  const out = new Map();
  nodes.forEach((node, i) => out.set(node, rank.get(member[i])));
  return out;
}

// PageRank (damping 0.85, power iteration) over the directed graph.
/**
 * @param {import("./payload.js").GraphT} graph
 * @returns {Map<string, number>}
 */
export function pagerank(graph, { damping = 0.85, iterations = 60, tol = 1e-9 } = {}) {
  const nodes = graph.nodes();
  const N = nodes.length;
  const out = new Map();
  if (!N) return out;
  /** @type {Map<string, number>} */
  const idx = new Map();
  nodes.forEach((n, i) => idx.set(n, i));
  /** @type {number[]} */
  const src = [];
  /** @type {number[]} */
  const dst = [];
  const outdeg = new Float64Array(N);
  graph.forEachEdge((e, a, s, t) => {
    const i = /** @type {number} */ (idx.get(s));
    src.push(i);
    dst.push(/** @type {number} */ (idx.get(t)));
    outdeg[i]++;
  });
  let pr = new Float64Array(N).fill(1 / N);
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(N);
    let dangling = 0;
    for (let i = 0; i < N; i++) if (!outdeg[i]) dangling += pr[i];
    for (let k = 0; k < src.length; k++) next[dst[k]] += pr[src[k]] / outdeg[src[k]];
    let diff = 0;
    for (let i = 0; i < N; i++) {
      next[i] = (1 - damping) / N + damping * (next[i] + dangling / N);
      diff += Math.abs(next[i] - pr[i]);
    }
    pr = next;
    if (diff < tol) break;
  }
  nodes.forEach((n, i) => out.set(n, pr[i]));
  return out;
}
