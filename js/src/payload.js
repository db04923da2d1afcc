// Payload (see docs/protocol.md) -> graphology graph, built with one bulk import.
import Graph from "graphology";

const str = (v, fallback = "") => (v === undefined || v === null ? fallback : String(v));

export function normalizePayload(p) {
  p = p && typeof p === "object" ? p : {};
  return {
    nodes: Array.isArray(p.nodes) ? p.nodes : [],
    edges: Array.isArray(p.edges) ? p.edges : [],
    ec: edgeColumns(p.ec), // the base payload's relationships in columns (EdgeColumns in protocol.py), or null
    labels: Array.isArray(p.labels) ? p.labels : [],
    types: Array.isArray(p.types) ? p.types : [],
    title: str(p.title),
    notes: Array.isArray(p.notes) ? p.notes.map((n) => str(n)) : [],
    counts: p.counts && typeof p.counts === "object" ? p.counts : {},
    view: p.view && typeof p.view === "object" ? p.view : {}, // style / layout / filter (filter.js)
    at: p.at && typeof p.at === "object" ? p.at : null, // {key: [x, y]}: where a page showed them (to_html)
  };
}

// The columns of `ec` checked once: equal-length arrays (else none of them is read).
function edgeColumns(c) {
  if (!c || typeof c !== "object") return null;
  const { id, s, t, y } = c;
  if (![id, s, t, y].every(Array.isArray) || !(s.length === id.length && t.length === id.length && y.length === id.length)) return null;
  const pairs = (v) => new Map(Array.isArray(v) ? v.filter((x) => Array.isArray(x) && Number.isInteger(x[0])) : []);
  return { id, s, t, y, h: c.h === 1 ? true : new Set(Array.isArray(c.h) ? c.h : []), p: pairs(c.p), w: pairs(c.w) };
}

// How many relationships a normalized payload carries (columns and dicts).
export const edgeCount = (p) => p.edges.length + (p.ec ? p.ec.id.length : 0);

// The relationship at row i of columns `c` in the payload's dict shape (`keys`: the node list's keys).
function edgeAt(c, i, keys) {
  if (keys[c.s[i]] === undefined || keys[c.t[i]] === undefined) return null; // not a position in the node list
  return { id: c.id[i], s: keys[c.s[i]], t: keys[c.t[i]], y: c.y[i], h: c.h === true || c.h.has(i), p: c.p.get(i), w: c.w.get(i) };
}

export function newGraph() {
  return new Graph({ multi: true, type: "directed", allowSelfLoops: true });
}

// Data attributes of a node (display attributes are added by the styler).
function nodeData(n) {
  const c = str(n.c, str(n.id));
  return {
    c,
    lc: c.toLowerCase(),
    l: Number.isInteger(n.l) ? n.l : -1,
    L: Array.isArray(n.L) ? n.L.map((x) => str(x)) : null,
    h: n.h ? 1 : 0,
    p: n.p && typeof n.p === "object" ? n.p : null,
    g: n.g ? 1 : 0, // an overview's super-node
  };
}

function edgeData(e) {
  return {
    y: Number.isInteger(e.y) ? e.y : -1,
    h: e.h ? 1 : 0,
    p: e.p && typeof e.p === "object" ? e.p : null,
    // an overview's super-edge: how many relationships it stands for (its width, log scale)
    w: Number.isFinite(e.w) && e.w >= 1 ? e.w : 0,
  };
}

let edgeSeq = 0;

// Adds nodes/edges (payload shape; `columns`: more relationships in columns, see edgeColumns) to `graph` in one import. Data (caption,
// labels, properties...) goes to store.nd / store.ed (Maps by key); the graph
// only holds what sigma draws (it copies every attribute on each update), set
// by `style`. `place(id, data)` may return {x, y} (else positions are set later).
// Returns the lists of added node and edge keys.
export function addItems(graph, store, nodes, edges, style, place, columns) {
  // the entries graphology imports keep one shape (no `delete`: an object that loses a property turns slow)
  const nodeEntries = [], nodeDatas = [];
  const seen = new Set();
  for (const n of nodes) {
    if (!n || n.id === undefined || n.id === null) continue;
    const key = String(n.id);
    if (seen.has(key) || graph.hasNode(key)) continue;
    seen.add(key);
    const d = nodeData(n);
    store.nd.set(key, d);
    nodeEntries.push({ key, attributes: {} });
    nodeDatas.push(d);
  }
  const edgeEntries = [];
  const deg = new Map();
  const keys = columns ? nodes.map((n) => (n && n.id !== undefined && n.id !== null ? String(n.id) : undefined)) : null;
  const count = columns ? columns.id.length : 0;
  for (let i = -count; i < edges.length; i++) {
    const e = i < 0 ? edgeAt(columns, i + count, keys) : edges[i]; // the columns' relationships, then the others
    if (!e) continue;
    const s = str(e.s), t = str(e.t);
    if (!(seen.has(s) || graph.hasNode(s)) || !(seen.has(t) || graph.hasNode(t))) continue;
    let key = e.id === undefined || e.id === null ? "__e" + edgeSeq++ : String(e.id);
    if (graph.hasEdge(key)) continue;
    store.ed.set(key, edgeData(e));
    edgeEntries.push({ key, source: s, target: t, attributes: {} });
    deg.set(s, (deg.get(s) || 0) + 1);
    deg.set(t, (deg.get(t) || 0) + 1);
  }
  for (let i = 0; i < nodeEntries.length; i++) {
    const entry = nodeEntries[i], a = entry.attributes, d = nodeDatas[i];
    d.deg = deg.get(entry.key) || 0;
    const pos = place ? place(entry.key, d) : null;
    a.x = pos ? pos.x : 0;
    a.y = pos ? pos.y : 0;
    style.node(entry.key, a);
  }
  for (const entry of edgeEntries) style.edge(entry.key, entry.attributes);
  graph.import({ nodes: nodeEntries, edges: edgeEntries });
  if (edgeEntries.length) {
    // degrees of pre-existing endpoints changed: keep their size in step
    const touched = [];
    for (const [k, d] of deg) {
      if (!seen.has(k)) touched.push([k, d]);
    }
    for (const [k, d] of touched) {
      const nd = store.nd.get(k);
      if (nd) nd.deg = (nd.deg || 0) + d;
      graph.updateNodeAttributes(k, (a) => style.node(k, a));
    }
  }
  return { nodes: nodeEntries.map((e) => e.key), edges: edgeEntries.map((e) => e.key) };
}
