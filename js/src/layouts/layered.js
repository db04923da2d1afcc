// Layered (Sugiyama-style) layout: cycles broken by reversing DFS back edges,
// longest-path layers (sources on top, every other relationship points down),
// barycentre ordering sweeps, then x placed at the neighbours' mean without overlaps.

function adjacency(graph, keys) {
  const idx = new Map();
  keys.forEach((k, i) => idx.set(k, i));
  const out = keys.map(() => []);
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

function place(desired, gap) {
  const n = desired.length;
  if (!n) return [];
  const a = desired.slice(), b = desired.slice();
  for (let i = 1; i < n; i++) a[i] = Math.max(a[i], a[i - 1] + gap);
  for (let i = n - 2; i >= 0; i--) b[i] = Math.min(b[i], b[i + 1] - gap);
  const m = a.map((x, i) => (x + b[i]) / 2);
  for (let i = 1; i < n; i++) m[i] = Math.max(m[i], m[i - 1] + gap);
  return m;
}

// keys: nodes to lay out. Returns {pos: [[x, y]] by index of keys, reversed, layers}
export function layered(graph, keys, { gap = 10, aspect = 1.4 } = {}) {
  const n = keys.length;
  const { out, edges } = adjacency(graph, keys);
  const rev = breakCycles(n, out, edges);
  const down = edges.map(([i, j], e) => (rev[e] ? [j, i] : [i, j]));
  // longest-path layering in topological order
  const succ = Array.from({ length: n }, () => []), pred = Array.from({ length: n }, () => []);
  const indeg = new Int32Array(n);
  for (const [i, j] of down) {
    succ[i].push(j);
    pred[j].push(i);
    indeg[j]++;
  }
  const layer = new Int32Array(n);
  const queue = [];
  for (let i = 0; i < n; i++) if (!indeg[i]) queue.push(i);
  for (let h = 0; h < queue.length; h++) {
    const u = queue[h];
    for (const v of succ[u]) {
      if (layer[u] + 1 > layer[v]) layer[v] = layer[u] + 1;
      if (--indeg[v] === 0) queue.push(v);
    }
  }
  // a source sits just above its highest child (shorter edges); no edge turns upward
  for (let h = queue.length - 1; h >= 0; h--) {
    const u = queue[h];
    if (pred[u].length || !succ[u].length) continue;
    let m = Infinity;
    for (const v of succ[u]) m = Math.min(m, layer[v]);
    layer[u] = m - 1;
  }
  const L = n ? Math.max(...layer) + 1 : 0;
  const rows = Array.from({ length: L }, () => []);
  for (const u of queue) rows[layer[u]].push(u); // topological (BFS-like) first order
  const x = new Float64Array(n);
  const setIndex = () => rows.forEach((row) => row.forEach((u, i) => (x[u] = i - (row.length - 1) / 2)));
  setIndex();
  const sweep = (row, nb) => {
    const bc = new Map();
    for (const u of row) {
      const list = nb[u];
      bc.set(u, list.length ? list.reduce((s, v) => s + x[v], 0) / list.length : x[u]);
    }
    row.sort((a, b) => bc.get(a) - bc.get(b));
  };
  for (let it = 0; it < 6; it++) {
    for (let l = 1; l < L; l++) sweep(rows[l], pred);
    setIndex();
    for (let l = L - 2; l >= 0; l--) sweep(rows[l], succ);
    setIndex();
  }
  // x: widest row evenly spaced; others pulled to their neighbours' mean, kept in order and apart
  for (let it = 0; it < 4; it++) {
    const order = it % 2 ? [...rows.keys()].reverse() : [...rows.keys()];
    for (const l of order) {
      const row = rows[l];
      const desired = row.map((u) => {
        const nb = pred[u].concat(succ[u]);
        return nb.length ? nb.reduce((s, v) => s + x[v], 0) / nb.length : x[u];
      });
      const placed = place(desired, 1);
      row.forEach((u, i) => (x[u] = placed[i]));
    }
  }
  let x0 = Infinity, x1 = -Infinity;
  for (let i = 0; i < n; i++) (x0 = Math.min(x0, x[i])), (x1 = Math.max(x1, x[i]));
  const width = Math.max(1, x1 - x0);
  // layer distance: at least 1.5 gaps, more when the drawing would be much wider than the canvas
  const dy = Math.min(2 + L / 4, Math.max(1.5, width / Math.max(1, L - 1) / Math.max(0.3, aspect)));
  const pos = new Array(n);
  for (let i = 0; i < n; i++) pos[i] = [(x[i] - (x0 + x1) / 2) * gap, -layer[i] * dy * gap];
  let reversed = 0;
  for (const r of rev) reversed += r;
  return { pos, reversed, layers: L };
}
