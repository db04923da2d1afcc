// A grid over the canvas for placing captions on a zoomed-in layered drawing: the nodes and relationships that lie in
// the cells a caption's box covers, so each spot tried is checked against those only, not against the whole drawing.

/** @typedef {[number, number, number, number]} Box  x0, y0, x1, y1 (viewport px) */

export class SpotGrid {
  /**
   * @param {number} width  the canvas (viewport px)
   * @param {number} height
   * @param {number} margin  how far beyond the canvas the grid reaches
   * @param {number} [cell]
   */
  constructor(width, height, margin, cell = 48) {
    this.m = margin;
    this.c = cell;
    this.cols = Math.max(1, Math.ceil((width + 2 * margin) / cell));
    this.rows = Math.max(1, Math.ceil((height + 2 * margin) / cell));
    /** @type {Map<number, number[]>} */
    this.nodes = new Map();
    /** @type {Map<number, number[]>} */
    this.segs = new Map();
    this.stamp = 0;
    /** @type {Int32Array} */
    this.seen = new Int32Array(0);
  }

  /**
   * @param {number} v  viewport px
   * @param {number} n  cells on that axis
   */
  at(v, n) {
    return Math.max(0, Math.min(n - 1, Math.floor((v + this.m) / this.c)));
  }

  /**
   * @param {Map<number, number[]>} table
   * @param {number} col
   * @param {number} row
   * @param {number} item
   */
  put(table, col, row, item) {
    const k = row * this.cols + col;
    const list = table.get(k);
    if (list) list.push(item);
    else table.set(k, [item]);
  }

  /**
   * A node, by its number, in every cell its disc (and a pixel around it) touches.
   * @param {number} i
   * @param {number} x
   * @param {number} y
   * @param {number} r
   */
  addNode(i, x, y, r) {
    const c0 = this.at(x - r - 1, this.cols), c1 = this.at(x + r + 1, this.cols);
    const r0 = this.at(y - r - 1, this.rows), r1 = this.at(y + r + 1, this.rows);
    for (let row = r0; row <= r1; row++) for (let col = c0; col <= c1; col++) this.put(this.nodes, col, row, i);
  }

  /**
   * A relationship, by its number, in every cell it passes through (row by row: the stretch of x it spans there).
   * @param {number} i
   * @param {number} ax
   * @param {number} ay
   * @param {number} bx
   * @param {number} by
   */
  addSeg(i, ax, ay, bx, by) {
    const { c, m } = this;
    const top = Math.min(ay, by), bottom = Math.max(ay, by);
    const xAt = (/** @type {number} */ y) => (by === ay ? ax : ax + ((bx - ax) * (y - ay)) / (by - ay));
    for (let row = this.at(top, this.rows), last = this.at(bottom, this.rows); row <= last; row++) {
      const y0 = Math.max(top, row * c - m), y1 = Math.min(bottom, (row + 1) * c - m);
      const xa = by === ay ? Math.min(ax, bx) : xAt(y0), xb = by === ay ? Math.max(ax, bx) : xAt(y1);
      for (let col = this.at(Math.min(xa, xb), this.cols), end = this.at(Math.max(xa, xb), this.cols); col <= end; col++) this.put(this.segs, col, row, i);
    }
  }

  /**
   * The nodes and relationships in the cells `box` covers, each once.
   * @param {Box} box
   * @param {number} count  how many items the numbers run to (nodes and relationships together)
   * @param {number} segBase  the number of the first relationship
   * @returns {{nodes: number[], segs: number[]}}
   */
  near(box, count, segBase) {
    if (this.seen.length < count) this.seen = new Int32Array(count);
    const stamp = ++this.stamp;
    /** @type {number[]} */
    const nodes = [];
    /** @type {number[]} */
    const segs = [];
    const c0 = this.at(box[0], this.cols), c1 = this.at(box[2], this.cols), r0 = this.at(box[1], this.rows), r1 = this.at(box[3], this.rows);
    for (let row = r0; row <= r1; row++) {
      for (let col = c0; col <= c1; col++) {
        const k = row * this.cols + col;
        for (const i of this.nodes.get(k) || []) if (this.seen[i] !== stamp) (this.seen[i] = stamp), nodes.push(i);
        for (const i of this.segs.get(k) || []) if (this.seen[segBase + i] !== stamp) (this.seen[segBase + i] = stamp), segs.push(i);
      }
    }
    return { nodes, segs };
  }
}
