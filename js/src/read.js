// Reading a canvas's graph (graph_gz: gzip-compressed JSON), started early: as soon as it reaches the model.
/** @typedef {import("./state.js").Model} Model */

// Graphs read before their view existed (prefetch), by canvas key: {bytes, packed (a promise)}; a view takes its
// own out (taken), so each is read once; the few newest are kept for outputs still on their way.
/** @type {Map<string, {bytes: DataView | ArrayBuffer, packed: Promise<unknown>}>} */
const early = new Map();
const EARLY = 4;

// Start reading a canvas's graph as soon as it reaches the model (called by the loader's initialize, in bundle.py):
// the kernel still sends the rest of the output meanwhile.
/** @param {Model} model */
export function prefetch(model) {
  const key = model.get("_key");
  const bytes = model.get("graph_gz");
  if (!key || !bytes || !bytes.byteLength || (early.has(key) && /** @type {{bytes: unknown}} */ (early.get(key)).bytes === bytes)) return;
  const packed = inflateJSON(bytes);
  packed.catch(() => {}); // the view reads it again and says what went wrong
  early.delete(key);
  early.set(key, { bytes, packed });
  while (early.size > EARLY) early.delete(/** @type {string} */ (early.keys().next().value));
}

/**
 * @param {Model} model
 * @param {DataView | ArrayBuffer} bytes
 * @returns {Promise<unknown> | null}
 */
export function taken(model, bytes) {
  const key = model.get("_key");
  const known = key ? early.get(key) : null;
  if (!known || known.bytes !== bytes) return null;
  early.delete(key);
  return known.packed;
}

/**
 * @param {DataView | ArrayBuffer} view  graph_gz's bytes
 * @returns {Promise<unknown>}
 */
export async function inflateJSON(view) {
  const bytes = ArrayBuffer.isView(view) ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength) : new Uint8Array(view);
  const stream = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
