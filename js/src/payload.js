// Payload (see docs/protocol.md) -> graphology graph, built with one bulk import.
import Graph from "graphology";

/** @typedef {import("graphology").default} GraphT  the drawn graph (display attributes only: x, y, color, size, label, …) */
/** @typedef {import("graphology-types").Attributes} Attrs  a node's or relationship's display attributes (what sigma draws) */
/** @typedef {Record<string, [unknown, unknown]>} Changes  changed properties: {name: [before, after]} (the panel lists them old → new) */
/** @typedef {{id: string | number, c?: string, l?: number, L?: string[], h?: number | boolean, p?: Record<string, unknown> | null, g?: number | boolean, k?: number, o?: number, d?: Changes}} WireNode  a node as the kernel sends it (o: a ghost, drawn faded) */
/** @typedef {{id?: string | number | null, s: string | number, t: string | number, y?: number, h?: number | boolean, p?: Record<string, unknown> | null, w?: number, o?: number, d?: Changes}} WireEdge  a relationship as the kernel sends it */
/** @typedef {{n: number[], e: string[], p?: Record<string, Record<string, unknown>>}} Frame  one moment of a time slider: nodes present (positions in `nodes`), relationships present (ids), properties that differ then */
/** @typedef {{valid: string[], known: string[], f: Frame[]}} TimelineSpec  a time slider's moments (canvas/timeline.py) */
/** @typedef {{name: string, color?: string}} WireLabel  one label of the payload's `labels` */
/** @typedef {{style?: Record<string, any>, layout?: {name?: string, options?: Record<string, unknown>}, filter?: import("./protocol.js").FilterOp | null}} ViewSpec  the view the Python side asked for (filter.js) */
/** @typedef {{id: string[], s: number[], t: number[], y: number[], h: true | Set<number>, p: Map<number, Record<string, unknown>>, w: Map<number, number>}} Columns  EdgeColumns, checked (edgeColumns) */
/**
 * @typedef {object} Payload  the base graph, normalized (normalizePayload)
 * @property {WireNode[]} nodes
 * @property {WireEdge[]} edges
 * @property {Columns | null} ec  the base payload's relationships in columns, or null
 * @property {WireLabel[]} labels
 * @property {string[]} types  relationship types, by position
 * @property {string} title
 * @property {string[]} notes
 * @property {{nodes?: number, edges?: number}} counts
 * @property {ViewSpec} view
 * @property {Record<string, unknown> | null} at  {key: [x, y]}: where a page showed them (to_html)
 * @property {TimelineSpec | null} tl  a time slider's moments (timeline.js), or null
 */
/**
 * @typedef {object} NodeData  what the page keeps of a node beside the graph (view.nd)
 * @property {string} c  caption
 * @property {string} lc  caption, lower case (search)
 * @property {number} l  its label, as a position in `labels` (-1: none)
 * @property {string[] | null} L  all its labels
 * @property {number} h  1: highlighted
 * @property {Record<string, unknown> | null} p  properties for the panel
 * @property {number} g  1: an overview's super-node
 * @property {number} o  1: a ghost (drawn faded: removed, or gone at this moment)
 * @property {Changes | null} d  properties changed: listed old → new in the panel
 * @property {number} k  an overview group's colour slot when colour is by group (-1: grey; a drilled member: its group's)
 * @property {number} [deg]  degree
 * @property {boolean} [fixed]  pinned
 */
/** @typedef {{y: number, h: number, p: Record<string, unknown> | null, w: number, o: number, d: Changes | null}} EdgeData  what the page keeps of a relationship (view.ed): type position, highlighted, properties, super-edge count, ghost, changes */
/**
 * A Map read with get() only for keys it holds (every drawn node and relationship has its entry: addItems and removeIds keep
 * them in step with the graph), so get() gives the value; has() answers for any other key.
 * @template V
 * @typedef {{get(key: string): V} & Map<string, V>} Table
 */
/** @typedef {{nd: Table<NodeData>, ed: Table<EdgeData>}} Store */
/** @typedef {{node: (key: string, a: Attrs) => Attrs, edge: (key: string, a: Attrs) => Attrs}} Styler */

const str = (/** @type {unknown} */ v, fallback = "") => (v === undefined || v === null ? fallback : String(v));

/**
 * @param {any} p  the decoded JSON (checked field by field here)
 * @returns {Payload}
 */
export function normalizePayload(p) {
  p = p && typeof p === "object" ? p : {};
  return {
    nodes: Array.isArray(p.nodes) ? p.nodes : [],
    edges: Array.isArray(p.edges) ? p.edges : [],
    ec: edgeColumns(p.ec), // the base payload's relationships in columns (EdgeColumns in protocol.py), or null
    labels: Array.isArray(p.labels) ? p.labels : [],
    types: Array.isArray(p.types) ? p.types : [],
    title: str(p.title),
    notes: Array.isArray(p.notes) ? p.notes.map((/** @type {unknown} */ n) => str(n)) : [],
    counts: p.counts && typeof p.counts === "object" ? p.counts : {},
    view: p.view && typeof p.view === "object" ? p.view : {}, // style / layout / filter (filter.js)
    at: p.at && typeof p.at === "object" ? p.at : null, // {key: [x, y]}: where a page showed them (to_html)
    tl: p.tl && typeof p.tl === "object" && Array.isArray(p.tl.f) && Array.isArray(p.tl.valid) ? p.tl : null, // a time slider (timeline.js)
  };
}

// The columns of `ec` checked once: equal-length arrays (else none of them is read).
/**
 * @param {any} c
 * @returns {Columns | null}
 */
function edgeColumns(c) {
  if (!c || typeof c !== "object") return null;
  const { id, s, t, y } = c;
  if (![id, s, t, y].every(Array.isArray) || !(s.length === id.length && t.length === id.length && y.length === id.length)) return null;
  const pairs = (/** @type {unknown} */ v) => new Map(Array.isArray(v) ? v.filter((x) => Array.isArray(x) && Number.isInteger(x[0])) : []);
  return { id, s, t, y, h: c.h === 1 ? true : new Set(Array.isArray(c.h) ? c.h : []), p: pairs(c.p), w: pairs(c.w) };
}

// How many relationships a normalized payload carries (columns and dicts).
export const edgeCount = (/** @type {Payload} */ p) => p.edges.length + (p.ec ? p.ec.id.length : 0);

// The relationship at row i of columns `c` in the payload's dict shape (`keys`: the node list's keys).
/**
 * @param {Columns} c
 * @param {number} i
 * @param {(string | undefined)[]} keys
 * @returns {WireEdge & {h: boolean} | null}
 */
function edgeAt(c, i, keys) {
  if (keys[c.s[i]] === undefined || keys[c.t[i]] === undefined) return null; // not a position in the node list
  return { id: c.id[i], s: /** @type {string} */ (keys[c.s[i]]), t: /** @type {string} */ (keys[c.t[i]]), y: c.y[i], h: c.h === true || c.h.has(i), p: c.p.get(i), w: c.w.get(i) };
}

/** @returns {GraphT} */
export function newGraph() {
  return new Graph({ multi: true, type: "directed", allowSelfLoops: true });
}

// Data attributes of a node (display attributes are added by the styler).
/**
 * @param {WireNode} n
 * @returns {NodeData}
 */
function nodeData(n) {
  const c = str(n.c, str(n.id));
  return {
    c,
    lc: c.toLowerCase(),
    l: typeof n.l === "number" && Number.isInteger(n.l) ? n.l : -1,
    L: Array.isArray(n.L) ? n.L.map((x) => str(x)) : null,
    h: n.h ? 1 : 0,
    p: n.p && typeof n.p === "object" ? n.p : null,
    g: n.g ? 1 : 0, // an overview's super-node
    o: n.o ? 1 : 0,
    d: changes(n.d),
    k: typeof n.k === "number" && Number.isInteger(n.k) ? n.k : -1, // its colour slot (colour by group)
  };
}

/**
 * @param {WireEdge} e
 * @returns {EdgeData}
 */
function edgeData(e) {
  return {
    y: typeof e.y === "number" && Number.isInteger(e.y) ? e.y : -1,
    h: e.h ? 1 : 0,
    p: e.p && typeof e.p === "object" ? e.p : null,
    // an overview's super-edge: how many relationships it stands for (its width, log scale)
    w: typeof e.w === "number" && Number.isFinite(e.w) && e.w >= 1 ? e.w : 0,
    o: e.o ? 1 : 0,
    d: changes(e.d),
  };
}

/**
 * @param {unknown} d
 * @returns {Changes | null}
 */
function changes(d) {
  return d && typeof d === "object" ? /** @type {Changes} */ (d) : null;
}

let edgeSeq = 0;

// Adds nodes/edges (payload shape; `columns`: more relationships in columns, see edgeColumns) to `graph` in one import. Data (caption,
// labels, properties...) goes to store.nd / store.ed (Maps by key); the graph
// only holds what sigma draws (it copies every attribute on each update), set
// by `style`. `place(id, data)` may return {x, y} (else positions are set later).
// Returns the lists of added node and edge keys.
/**
 * @param {GraphT} graph
 * @param {Store} store
 * @param {WireNode[]} nodes
 * @param {WireEdge[]} edges
 * @param {Styler} style
 * @param {(key: string, data: NodeData) => {x: number, y: number} | null} [place]
 * @param {Columns | null} [columns]
 * @returns {{nodes: string[], edges: string[]}}
 */
export function addItems(graph, store, nodes, edges, style, place, columns) {
  // the entries graphology imports keep one shape (no `delete`: an object that loses a property turns slow)
  /** @type {{key: string, attributes: Attrs}[]} */
  const nodeEntries = [];
  /** @type {NodeData[]} */
  const nodeDatas = [];
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
  /** @type {{key: string, source: string, target: string, attributes: Attrs}[]} */
  const edgeEntries = [];
  /** @type {Map<string, number>} */
  const deg = new Map();
  const keys = columns ? nodes.map((n) => (n && n.id !== undefined && n.id !== null ? String(n.id) : undefined)) : null;
  const count = columns ? columns.id.length : 0;
  for (let i = -count; i < edges.length; i++) {
    const e = i < 0 ? edgeAt(/** @type {Columns} */ (columns), i + count, /** @type {(string | undefined)[]} */ (keys)) : edges[i]; // the columns' relationships, then the others
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
    /** @type {[string, number][]} */
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
