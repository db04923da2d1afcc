// Metrics of the drawn graph: communities (label propagation) and PageRank.

// Deterministic asynchronous label propagation over the undirected graph.
// Returns Map node -> community index (0 = the largest).
export function communities(graph, rounds = 30) {
  const nodes = graph.nodes();
  const idx = new Map();
  nodes.forEach((n, i) => idx.set(n, i));
  const label = Int32Array.from(nodes, (n, i) => i);
  const nbrs = nodes.map((n) => {
    const out = [];
    graph.forEachNeighbor(n, (m) => out.push(idx.get(m)));
    return out;
  });
  // visit in a fixed pseudo-random order (a plain order lets one label sweep the graph)
  const order = nodes.map((n, i) => i);
  let seed = 12345;
  for (let i = order.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const count = new Int32Array(nodes.length);
  const seen = [];
  for (let r = 0; r < rounds; r++) {
    let changed = 0;
    for (const i of order) {
      const list = nbrs[i];
      if (!list.length) continue;
      for (const j of list) {
        if (!count[label[j]]++) seen.push(label[j]);
      }
      let best = label[i], bestN = count[label[i]];
      for (const l of seen) {
        const c = count[l];
        if (c > bestN || (c === bestN && l < best)) (best = l), (bestN = c);
      }
      for (const l of seen) count[l] = 0;
      seen.length = 0;
      if (best !== label[i]) {
        label[i] = best;
        changed++;
      }
    }
    if (changed <= nodes.length / 1000) break;
  }
  const size = new Map();
  for (const l of label) size.set(l, (size.get(l) || 0) + 1);
  const rank = new Map([...size.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([l], i) => [l, i]));
  const out = new Map();
  nodes.forEach((n, i) => out.set(n, rank.get(label[i])));
  return out;
}

// PageRank (damping 0.85, power iteration) over the directed graph.
export function pagerank(graph, { damping = 0.85, iterations = 60, tol = 1e-9 } = {}) {
  const nodes = graph.nodes();
  const N = nodes.length;
  const out = new Map();
  if (!N) return out;
  const idx = new Map();
  nodes.forEach((n, i) => idx.set(n, i));
  const src = [], dst = [];
  const outdeg = new Float64Array(N);
  graph.forEachEdge((e, a, s, t) => {
    src.push(idx.get(s));
    dst.push(idx.get(t));
    outdeg[idx.get(s)]++;
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
