// Relationship types drawn on the edges (on whichever side is free of captions, a row each for parallel ones) and
// self-loops (sigma draws none): a small ring at the node's upper right.
import { internals } from "./spare.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {import("./captions.js").LabelData} LabelData */
/** @typedef {import("./captions.js").EdgeLabelData} EdgeLabelData */
/** @typedef {import("sigma/settings").Settings} SigmaAll */

// The first of `offsets` (across the label's line) where the label, `w` wide, covers no caption of this frame; null if none.
/**
 * @param {import("./captions.js").Scene} sc
 * @param {number[]} offsets
 * @param {number} cx  the label's centre (viewport px)
 * @param {number} cy
 * @param {number} angle
 * @param {number} w
 * @param {number} fs  the font size
 * @returns {number | null}
 */
function freeOffset(sc, offsets, cx, cy, angle, w, fs) {
  /** @type {number | null} */
  let off = null;
  const cos = Math.cos(angle), sin = Math.sin(angle);
  for (const o of offsets) {
    // the label's box, sampled: 5 points along its middle line, 2 rows
    let hit = false;
    for (let i = 0; i <= 4 && !hit; i++) {
      for (const yy of [o - fs * 0.75, o - fs * 0.1]) {
        const lx = -w / 2 + (w * i) / 4;
        const px = cx + lx * cos - yy * sin, py = cy + lx * sin + yy * cos;
        for (const q of sc.rects) if (px > q[0] - 2 && px < q[2] + 2 && py > q[1] - 2 && py < q[3] + 2) hit = true;
        if (hit) break;
      }
    }
    if (!hit) {
      off = o;
      break;
    }
  }
  return off;
}

export class EdgeText {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  // sigma's straight edge label, on whichever side of the edge is free of captions
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {EdgeLabelData} e
   * @param {LabelData} sd
   * @param {LabelData} td
   * @param {SigmaAll} s
   */
  drawEdgeLabel(ctx, e, sd, td, s) {
    let label = e.label;
    if (!label) return;
    ctx.fillStyle = /** @type {string} */ (s.edgeLabelColor.color); // sigmaSettings gives it a colour
    ctx.font = `${s.edgeLabelWeight} ${s.edgeLabelSize}px ${s.edgeLabelFont}`;
    let sx = sd.x, sy = sd.y, tx = td.x, ty = td.y;
    let dx = tx - sx, dy = ty - sy;
    let d = Math.hypot(dx, dy);
    if (d < sd.size + td.size) return;
    sx += (dx * sd.size) / d;
    sy += (dy * sd.size) / d;
    tx -= (dx * td.size) / d;
    ty -= (dy * td.size) / d;
    dx = tx - sx;
    dy = ty - sy;
    d = Math.hypot(dx, dy);
    let w = ctx.measureText(label).width;
    if (w > d - 8) {
      while (w > d - 8 && label.length > 1) {
        label = label.slice(0, -2) + "…";
        w = ctx.measureText(label).width;
      }
      if (label.length < 4) return;
    }
    // text reads left to right
    let angle = Math.atan2(dy, dx);
    if (angle > Math.PI / 2) angle -= Math.PI;
    else if (angle < -Math.PI / 2) angle += Math.PI;
    const cx = (sx + tx) / 2, cy = (sy + ty) / 2;
    const fs = s.edgeLabelSize;
    let offsets = [e.size / 2 + fs, -e.size / 2 - 3];
    // several relationships between the same two nodes (either direction): each label gets its own row
    const slot = this.pairSlot(e.key);
    if (slot && slot.n > 1) {
      const row = Math.floor(slot.k / 2) * (fs + 2);
      offsets = [slot.k % 2 ? -e.size / 2 - 3 - row : e.size / 2 + fs + row];
    }
    const sc = this.view.captions.placing() && this.view.renderer ? this.view.captions.frameScene() : null;
    const off = sc ? freeOffset(sc, offsets, cx, cy, angle, w, fs) : offsets[0];
    if (off === null) return;
    ctx.save();
    ctx.translate(cx, cy);
    ctx.rotate(angle);
    ctx.fillText(label, -w / 2, off);
    ctx.restore();
  }

  // {k, n}: this relationship is the k-th of n between its two nodes (recomputed once per frame)
  /**
   * @param {unknown} key
   * @returns {{k: number, n: number} | undefined}
   * @private
   */
  pairSlot(key) {
    if (!this.view.slots || this.view.slotsFrame !== this.view.frameNo) {
      /** @type {number} */
      this.view.slotsFrame = this.view.frameNo;
      /** @type {Map<string, string[]>} */
      const groups = new Map();
      this.view.graph.forEachEdge((k, a, s, t) => {
        if (s === t) return;
        const id = s < t ? s + "\u0000" + t : t + "\u0000" + s;
        if (!groups.has(id)) groups.set(id, []);
        /** @type {string[]} */ (groups.get(id)).push(k);
      });
      /** @type {Map<string, {k: number, n: number}>} */
      const slots = new Map();
      this.view.slots = slots;
      for (const list of groups.values()) list.sort().forEach((k, i) => slots.set(k, { k: i, n: list.length }));
    }
    return this.view.slots.get(/** @type {string} */ (key));
  }

  // Self-loops (sigma draws none): a small ring at the node's upper right, with
  // its type, drawn after each frame on the edge-label layer. Small graphs only.
  drawLoops() {
    const r = this.view.renderer;
    if (!r || !this.view.captions.placing()) return;
    /** @type {string[]} */
    const loops = [];
    this.view.graph.forEachEdge((e, a, src, t) => src === t && loops.push(e));
    if (!loops.length) return;
    const ctx = internals(r).canvasContexts && internals(r).canvasContexts.edgeLabels;
    if (!ctx) return;
    const s = r.getSettings();
    const byNode = new Map();
    for (const e of loops) {
      if (!this.view.graph.hasEdge(e)) continue;
      const ea = r.getEdgeDisplayData(e);
      const n = this.view.graph.source(e);
      const nd = r.getNodeDisplayData(n);
      if (!ea || !nd || ea.hidden || nd.hidden) continue;
      const k = byNode.get(n) || 0;
      byNode.set(n, k + 1);
      const p = r.framedGraphToViewport(nd);
      const size = r.scaleSize(nd.size);
      const rr = Math.max(7, size * 0.75) * (1 + 0.35 * k);
      const cx = p.x + (size * 0.55 + rr * 0.55), cy = p.y - (size * 0.55 + rr * 0.55);
      ctx.save();
      ctx.strokeStyle = ea.color || this.view.theme.edge;
      ctx.lineWidth = Math.max(1, r.scaleSize(ea.size || 1));
      ctx.beginPath();
      ctx.arc(cx, cy, rr, 0, Math.PI * 2);
      ctx.stroke();
      if (this.view.edgeLabels && ea.label) {
        ctx.fillStyle = /** @type {string} */ (s.edgeLabelColor.color);
        ctx.font = `${s.edgeLabelWeight} ${s.edgeLabelSize}px ${s.edgeLabelFont}`;
        const w = ctx.measureText(ea.label).width;
        const W = r.getDimensions().width;
        let x = cx + rr * 0.75;
        if (x + w > W - 2) x = Math.max(2, cx - rr * 0.75 - w);
        ctx.fillText(ea.label, x, Math.max(s.edgeLabelSize, cy - rr * 0.75 - 2));
      }
      ctx.restore();
    }
  }
}
