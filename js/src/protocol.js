// The canvas's messages between this page and the kernel (gestalt_nb/canvas/protocol.py mirrors this file:
// one TypedDict per kind there, one typedef per kind here; tests/test_protocol.py checks the kinds agree,
// and `npx tsc -p js` checks this file). The page treats every message from the kernel as data: it reads
// only the fields below, and graph text only ever reaches the page as text.

/** @typedef {{kind: "click", id: string}} Click  a node was clicked */
/** @typedef {{kind: "dblclick", id: string}} DoubleClick  a node was double-clicked (expand / drill) */
/** @typedef {{kind: "undo"}} Undo  the toolbar's Undo on a kernel delta */
/** @typedef {{kind: "collapse", ids: string[]}} Collapse  the toolbar's Collapse: fold these nodes' overview groups back */
/** @typedef {{kind: "sync", have: number}} Sync  resend every delta after revision `have` */
/** @typedef {{kind: "ready", ms: number, nodes: number}} Ready  the first frame is drawn */
/** @typedef {{kind: "shown", width: number, height: number, revision: number, ids: string[], xy: number[], r: number[], ci: number[], colors: string[], hidden: string[], dpr: number, rooms?: number[]}} ShownReport  what the page shows */
/** @typedef {{kind: "path", ids: [string, string]}} PathAsk  the Path button: the shortest path between two nodes */
/** @typedef {Click | DoubleClick | Undo | Collapse | Sync | Ready | ShownReport | PathAsk} PageMessage */

// Kernel → page: the steps of a delta, one typedef per `op` (protocol.py declares the same: one TypedDict per kind,
// OP_KINDS; tests/test_protocol.py checks both name the same kinds and fields). delta.js applies them through a
// table keyed by `op`.
/** @typedef {{by: string, name?: string, as?: string, colours?: Record<string, string>}} ColorSpec  colour by "label", "community" or a property (`as`: "ramp" / "categories"; `colours`: categories given their own colour, "#rrggbb") */
/** @typedef {{by: string, name?: string, title?: string, area?: boolean}} SizeSpec  size by a metric or a numeric property */
/** @typedef {{op: "add", nodes: import("./payload.js").WireNode[], edges: import("./payload.js").WireEdge[], labels?: import("./payload.js").WireLabel[], types?: string[]}} AddOp  new nodes and relationships (and the labels / types lists, when they grew) */
/** @typedef {{op: "remove", ids: string[]}} RemoveOp  nodes (with their relationships) and relationships gone */
/** @typedef {{op: "highlight", ids: string[], only: boolean}} HighlightOp  emphasise these (`only`: and no others) */
/** @typedef {{op: "fit"}} FitOp  fit the camera to every drawn node */
/** @typedef {{op: "style", color?: ColorSpec, size?: SizeSpec, caption?: string, values?: Record<string, Record<string, unknown>>, captions?: Record<string, string>}} StyleOp  encodings (and the property values / captions they need) */
/** @typedef {{op: "layout", name: string, options: Record<string, unknown>}} LayoutOp  lay the drawing out again */
/** @typedef {{op: "filter", labels?: string[], types?: string[], hide?: string[]}} FilterOp  show only these labels / types, hide these nodes */
/** @typedef {AddOp | RemoveOp | HighlightOp | FitOp | StyleOp | LayoutOp | FilterOp} Op  one step of a delta */
/** Kinds of delta step this page applies. */
export const OP_KINDS = /** @type {const} */ (["add", "remove", "highlight", "fit", "style", "layout", "filter"]);
/** @typedef {{kind: "delta", revision: number, ops: Op[], anchor: string | null, undoable: boolean}} Delta */
/** @typedef {{kind: "status", text: string, level: string}} Status */
/** @typedef {Delta | Status} KernelMessage */

/** @typedef {{id: string[], s: number[], t: number[], y: number[], h?: 1 | number[], p?: [number, object][], w?: [number, number][]}} EdgeColumns  the base graph's relationships in columns (`ec` in graph_gz; EdgeColumns in protocol.py) */

/** The fields of EdgeColumns (protocol.py's EDGE_COLUMNS lists the same). */
export const EDGE_COLUMNS = /** @type {const} */ (["id", "s", "t", "y", "h", "p", "w"]);

/** Kinds this page sends to the kernel. */
export const PAGE_SENDS = /** @type {const} */ (["click", "dblclick", "undo", "collapse", "sync", "ready", "shown", "path"]);
/** Kinds this page handles from the kernel. */
export const PAGE_HANDLES = /** @type {const} */ (["delta", "status"]);

/**
 * Send one message to the kernel through the widget's model (a closed comm drops it silently).
 * @param {{send: (message: PageMessage) => void}} model
 * @param {PageMessage} message
 */
export function sendToKernel(model, message) {
  try {
    model.send(message);
  } catch (e) {
    /* comm closed */
  }
}

/**
 * The kernel's message, if it is one this page handles; anything else is null (and ignored).
 * @param {unknown} message
 * @returns {KernelMessage | null}
 */
export function kernelMessage(message) {
  if (!message || typeof message !== "object") return null;
  const kind = /** @type {{kind?: unknown}} */ (message).kind;
  return typeof kind === "string" && /** @type {readonly string[]} */ (PAGE_HANDLES).includes(kind) ? /** @type {KernelMessage} */ (message) : null;
}
