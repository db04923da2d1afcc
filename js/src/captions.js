// Captions on small drawings: each goes right, below, left or above its node, wherever it crosses no relationship,
// no other node and no caption already drawn in this frame (shortened to fit, or left out); an overview's big discs
// take theirs inside. And the caption drawn on hover.
import { LIMITS } from "./style.js";
import { SpotGrid } from "./spotgrid.js";
import { aroundGroup, cutGroup, shortestGroup } from "./groupcaptions.js";
import { CAPTIONED } from "./openroom.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {import("./ui.js").Rect} Rect */
/** @typedef {import("sigma/settings").Settings} SigmaAll  sigma's settings, all of them (as its drawing functions get them) */
/** @typedef {{x: number, y: number, size: number, label?: string | null, key?: unknown, forceLabel?: boolean}} LabelData  a node as a caption is drawn for it (viewport px) */
/** @typedef {{label?: string | null, size: number, key?: unknown}} EdgeLabelData */
/** @typedef {{label: string, x: number, y: number, w: number, rc?: Rect}} Spot  where a caption was drawn (x, y: its top left) */
/**
 * @typedef {object} Scene  what this frame shows, for caption placement (viewport px)
 * @property {number} frame
 * @property {Map<string, {x: number, y: number, r: number}>} pos  drawn nodes
 * @property {[number, number, number, number, string, string][]} segs  relationships: x1, y1, x2, y2, source, target
 * @property {Rect[]} rects  captions placed so far
 * @property {number} width
 * @property {number} height
 * @property {number} inView  drawn nodes inside the canvas
 * @property {boolean} [cull]  a layered drawing: only what lies near the canvas is kept, looked up by cell (index)
 * @property {{grid: SpotGrid, keys: string[]}} [index]  its nodes (numbered) and relationships by cell, made when first asked
 * @property {Map<unknown, Spot | null>} [groups]  an overview's group captions (groupSpots)
 */

const OPENED_FIRST = CAPTIONED; // the groups a drill opened whose captions are placed first, biggest first (their room kept)
const CRAMPED = / \(\d+ of the biggest groups opened have no room for a caption: hover shows it\)$/;
/** @param {number | undefined} n */
export const cramped = (n) => (n ? ` (${n} of the biggest groups opened have no room for a caption: hover shows it)` : "");
const NEAR = 60; // px around the canvas whose nodes and relationships a zoomed-in layered drawing's captions heed

// A caption about 70% as long, ending in "…" (unchanged once 4 characters or fewer).
/** @param {string} label */
function cutText(label) {
  if (label.length <= 4) return label;
  const head = label.replace(/…$/, "");
  return head.slice(0, Math.max(3, Math.floor(head.length * 0.7))) + "…";
}

// The nodes and relationships a caption box might meet: those in its cells where the scene has an index, else all.
/**
 * @param {Scene} sc
 * @param {Rect} rc
 * @returns {{nodes: Iterable<[string, {x: number, y: number, r: number}]>, segs: Scene["segs"]}}
 */
function nearby(sc, rc) {
  if (!sc.cull) return { nodes: sc.pos, segs: sc.segs };
  const ix = sc.index || (sc.index = indexOf(sc));
  const n = ix.keys.length, found = ix.grid.near(rc, n + sc.segs.length, n);
  return {
    nodes: found.nodes.map((i) => /** @type {[string, {x: number, y: number, r: number}]} */ ([ix.keys[i], sc.pos.get(ix.keys[i])])),
    segs: found.segs.map((i) => sc.segs[i]),
  };
}

// A scene's nodes and relationships by cell of the canvas.
/**
 * @param {Scene} sc
 * @returns {{grid: SpotGrid, keys: string[]}}
 */
function indexOf(sc) {
  const grid = new SpotGrid(sc.width, sc.height, NEAR), keys = [...sc.pos.keys()];
  keys.forEach((k, i) => {
    const p = /** @type {{x: number, y: number, r: number}} */ (sc.pos.get(k));
    grid.addNode(i, p.x, p.y, p.r);
  });
  sc.segs.forEach((g, i) => grid.addSeg(i, g[0], g[1], g[2], g[3]));
  return { grid, keys };
}

// does segment g = [x1, y1, x2, y2] cross rectangle rc = [x0, y0, x1, y1]?
/**
 * @param {[number, number, number, number, ...unknown[]]} g
 * @param {Rect} rc
 */
function segRect(g, rc) {
  const [ax, ay, bx, by] = g;
  if (Math.max(ax, bx) < rc[0] || Math.min(ax, bx) > rc[2] || Math.max(ay, by) < rc[1] || Math.min(ay, by) > rc[3]) return false;
  // Liang-Barsky clip
  let t0 = 0, t1 = 1;
  const dx = bx - ax, dy = by - ay;
  const p = [-dx, dx, -dy, dy], q = [ax - rc[0], rc[2] - ax, ay - rc[1], rc[3] - ay];
  for (let i = 0; i < 4; i++) {
    if (p[i] === 0) {
      if (q[i] < 0) return false;
    } else {
      const r = q[i] / p[i];
      if (p[i] < 0) t0 = Math.max(t0, r);
      else t1 = Math.min(t1, r);
      if (t0 > t1) return false;
    }
  }
  return true;
}

export class Captions {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  // Label to the right of the node, or to its left where it would leave the canvas.
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {number} w
   * @returns {number}
   * @private
   */
  labelX(ctx, d, w) {
    const right = d.x + d.size + 3;
    const cw = ctx.canvas.width / (window.devicePixelRatio || 1);
    return right + w > cw - 2 && d.x - d.size - 3 - w >= 2 ? d.x - d.size - 3 - w : right;
  }

  // ---- caption placement (small graphs) ------------------------------------------
  // Each caption goes right, below, left or above its node, wherever it crosses
  // no relationship, no other node and no caption already drawn in this frame;
  // if every side is taken it is shortened to fit, or left out (hover and the
  // panel still show it). Relationship types then skip spots taken by captions.
  /**
   * @returns {boolean}
   */
  placing() {
    if (this.view.zoomGrow > 1 && this.view.renderer) {
      // a layered drawing held below its nodes' own size: as many as are in view (fewer as you zoom in)
      const sc = this.frameScene();
      return sc.inView <= LIMITS.placedInView && sc.segs.length <= LIMITS.placedEdges;
    }
    return this.view.graph.order <= LIMITS.placedLabels && this.plainEdges() <= LIMITS.placedEdges;
  }

  // the relationships a caption should not cross: an overview's lines (super-edges, members' lines to groups) aside
  /**
   * @returns {number}
   * @private
   */
  plainEdges() {
    const at = this.view.graph.size + ":" + this.view.ed.size;
    if (this.view.plain && this.view.plain.at === at) return this.view.plain.n;
    let n = 0;
    if (this.view.graph.size > LIMITS.placedEdges) this.view.graph.forEachEdge((k) => void (!(this.view.ed.get(k) || {}).w && n++));
    else n = this.view.graph.size;
    this.view.plain = { at, n };
    return n;
  }

  /**
   * @returns {Scene}
   */
  frameScene() {
    const r = /** @type {import("./spare.js").Renderer} */ (this.view.renderer); // asked for only while drawing
    if (this.view.scene && this.view.scene.frame === this.view.frameNo) return this.view.scene;
    const { width, height } = r.getDimensions();
    /** @type {Scene["pos"]} */
    const pos = new Map();
    let inView = 0;
    this.view.graph.forEachNode((k) => {
      const d = r.getNodeDisplayData(k);
      if (!d || d.hidden) return;
      const p = r.framedGraphToViewport(d);
      pos.set(k, { x: p.x, y: p.y, r: r.scaleSize(d.size) });
      if (p.x >= 0 && p.y >= 0 && p.x <= width && p.y <= height) inView++;
    });
    // a layered drawing: only what lies near the canvas can meet a caption in it, and with too many nodes in view
    // no caption is placed (placing): no relationship is looked at
    const m = NEAR, cull = this.view.zoomGrow > 1;
    /** @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1 */
    const near = (x0, y0, x1, y1) => !cull || (Math.max(x0, x1) >= -m && Math.min(x0, x1) <= width + m && Math.max(y0, y1) >= -m && Math.min(y0, y1) <= height + m);
    /** @type {Scene["segs"]} */
    const segs = [];
    if (!cull || inView <= LIMITS.placedInView) {
      this.view.graph.forEachEdge((e, a, s, t) => {
        const p = pos.get(s), q = pos.get(t);
        // an overview's lines (super-edges, members' hairlines to groups) may lie under a caption
        if (p && q && s !== t && !a.hidden && !(this.view.ed.get(e) || {}).w && near(p.x, p.y, q.x, q.y)) segs.push([p.x, p.y, q.x, q.y, s, t]);
      });
    }
    if (cull) for (const [k, p] of pos) if (!near(p.x, p.y, p.x, p.y)) pos.delete(k);
    /** @type {Scene} */
    const scene = { frame: this.view.frameNo, pos, segs, rects: [], width, height, inView, cull };
    this.view.scene = scene;
    this.view.spots = new Map(); // the captions of this frame only (a caption not drawn now has no spot)
    return scene;
  }

  // how bad a caption rectangle [x0, y0, x1, y1] of node `key` is (`overMembers`: a super-node's
  // caption may cover a drilled group's member dots, which are many and small, but no other disc)
  /**
   * @param {Scene} sc
   * @param {unknown} key
   * @param {Rect} rc
   * @param {number} [crossing]
   * @param {boolean} [overMembers]
   * @returns {number}
   * @private
   */
  spotCost(sc, key, rc, crossing = 10, overMembers = false) {
    let cost = 0;
    // with an index (a zoomed-in layered drawing, many spots tried) counting stops where the spot is out anyway
    const out = sc.cull ? 30 : Infinity;
    if (rc[0] < 1 || rc[1] < 1 || rc[2] > sc.width - 1 || rc[3] > sc.height - 1) cost += 60;
    for (const q of sc.rects) if (rc[0] < q[2] && rc[2] > q[0] && rc[1] < q[3] && rc[3] > q[1]) cost += 30;
    if (cost >= out) return cost;
    const near = nearby(sc, rc);
    for (const [k, p] of near.nodes) {
      if (k === key || (overMembers && !(this.view.nd.get(k) || {}).g)) continue;
      const cx = Math.max(rc[0], Math.min(p.x, rc[2])), cy = Math.max(rc[1], Math.min(p.y, rc[3]));
      if ((cx - p.x) ** 2 + (cy - p.y) ** 2 < (p.r + 1) ** 2 && (cost += 30) >= out) return cost;
    }
    if (crossing) for (const g of near.segs) if (segRect(g, rc)) cost += crossing;
    return cost;
  }

  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {string} text
   * @param {number} h
   * @param {boolean} [group]
   * @returns {Spot | null}
   * @private
   */
  placeLabel(ctx, d, text, h, group = false) {
    const sc = this.frameScene();
    const gap = 3;
    // below / above are centred on the node but kept inside the canvas
    const mid = (/** @type {number} */ w) => Math.max(2, Math.min(d.x - w / 2, sc.width - w - 2));
    const spots = (/** @type {number} */ w) => [
      [d.x + d.size + gap, d.y - h / 2, 0], // right
      [mid(w), d.y + d.size + 2, 1], // below
      [d.x - d.size - gap - w, d.y - h / 2, 2], // left
      [mid(w), d.y - d.size - 2 - h, 3], // above
    ].concat(group ? aroundGroup(d, w, h, gap) : []).sort((a, b) => a[2] - b[2]);
    let label = text;
    for (let round = 0; round < 8; round++) {
      const w = ctx.measureText(label).width;
      /** @type {{cost: number, x: number, y: number, rc: Rect, w: number} | null} */
      let found = null;
      for (const [x, y, pref] of spots(w)) {
        /** @type {Rect} */
        const rc = [x - 1, y, x + w + 1, y + h];
        // an overview's super-node: its caption may lie across the bands around it (they are few and wide)
        // a layered drawing's lines run everywhere once zoomed in: crossing them only makes a spot less good there
        const cost = this.spotCost(sc, d.key, rc, group ? 0 : this.view.zoomGrow > 1 ? 1 : 10, group) + pref;
        if (!found || cost < found.cost) found = { cost, x, y, rc, w };
        if (group && cost < 30) break; // a group's spots cost their preference, or 30 and more: the first free one is best
      }
      const best = /** @type {{cost: number, x: number, y: number, rc: Rect, w: number}} */ (found); // spots were tried
      // crossing a relationship is tolerable, covering a node or a caption is not
      // (a layered drawing's caption is shortened once at most: zoomed in further it finds room whole)
      const shorter = group ? cutGroup(label) : round && this.view.zoomGrow > 1 ? label : cutText(label);
      if (best.cost < 30 || shorter === label) {
        if (best.cost >= 30) return null;
        sc.rects.push(best.rc);
        return { label, x: best.x, y: best.y, w: best.w, rc: best.rc };
      }
      label = shorter;
    }
    return null;
  }

  // A group's caption that fits, whole, across the middle of its disc, or null (it goes beside the disc: a caption
  // shortened inside would lose what names the group, "re…", or its count).
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   * @returns {(Spot & {rc: Rect}) | null}
   * @private
   */
  fitInside(ctx, d, s) {
    const label = /** @type {string} */ (d.label); // a group's caption: never empty
    const w = ctx.measureText(label).width;
    if (w > d.size * 1.7) return null;
    const x = d.x - w / 2, y = d.y + s.labelSize / 3 - s.labelSize + 1; // y: the top, as placeLabel's
    return { label, x, y, w, rc: [x - 1, d.y - s.labelSize / 2, x + w + 1, d.y + s.labelSize / 2] };
  }

  // Where a caption goes: an overview's big disc takes it inside (whole), where nothing else can take the spot;
  // any other caption beside its node (placeLabel).
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   * @param {boolean} group
   * @returns {Spot | null}
   * @private
   */
  placeCaption(ctx, d, s, group) {
    const inside = group && d.size >= 22 ? this.fitInside(ctx, d, s) : null;
    if (!inside) return this.placeLabel(ctx, d, /** @type {string} */ (d.label), s.labelSize + 2, group); // drawLabel: only a caption
    this.frameScene().rects.push(inside.rc);
    return inside;
  }

  // An overview's group captions, placed once a frame before any other, biggest group first: sigma draws
  // captions in its label grid's order, so a small group's caption could otherwise take the spot beside
  // a big one and leave the big one shortened ("Person ×3…") or out. {key: spot | null}.
  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {SigmaAll} s
   * @returns {Map<unknown, Spot | null>}
   * @private
   */
  groupSpots(ctx, s) {
    const sc = this.frameScene();
    if (sc.groups) return sc.groups;
    const groups = (sc.groups = new Map());
    /** @type {LabelData[]} */
    const list = [];
    for (const [key, p] of sc.pos) {
      if (!(this.view.nd.get(key) || {}).g) continue;
      const label = /** @type {import("sigma/types").NodeDisplayData} */ (/** @type {import("./spare.js").Renderer} */ (this.view.renderer).getNodeDisplayData(key)).label;
      if (label) list.push({ key, label, x: p.x, y: p.y, size: p.r });
    }
    // biggest first by members (an opened level's sub-groups among the overview's groups), then by disc
    const members = (/** @type {LabelData} */ g) => Number(((this.view.nd.get(/** @type {string} */ (g.key)) || {}).p || {}).nodes) || 0;
    list.sort((a, b) => members(b) - members(a) || b.size - a.size);
    // what the last drill opened is what the person is looking at: its biggest groups are captioned before the rest
    const opened = this.view.lastOpened ? list.filter((g) => /** @type {Set<unknown>} */ (this.view.lastOpened).has(g.key)).slice(0, OPENED_FIRST) : [];
    if (opened.length) list.splice(0, list.length, ...opened, ...list.filter((g) => !opened.includes(g)));
    ctx.font = `600 ${s.labelSize}px ${s.labelFont}`; // a group's caption is always drawn (forceLabel): bold
    // first every group gets room for its caption at its shortest ("Ada Berg… ×3.2k"), biggest first, so that a big
    // group's whole caption cannot take the only room a smaller one had; then each, biggest first, grows back to as
    // much of its caption as still finds room (its own spot among those tried: it keeps at least that)
    const h = s.labelSize + 2;
    for (const g of list) {
      const inside = g.size >= 22 ? this.fitInside(ctx, g, s) : null; // whole, or beside the disc
      if (inside) sc.rects.push(inside.rc);
      groups.set(g.key, inside || this.placeLabel(ctx, g, shortestGroup(/** @type {string} */ (g.label)), h, true));
    }
    for (const g of list) {
      const spot = groups.get(g.key);
      if (!spot || !spot.rc || spot.label === g.label) continue;
      sc.rects.splice(sc.rects.indexOf(spot.rc), 1);
      const grown = this.placeLabel(ctx, g, /** @type {string} */ (g.label), h, true);
      if (!grown) sc.rects.push(spot.rc);
      groups.set(g.key, grown || spot);
    }
    if (opened.length) this.sayCramped(opened.filter((g) => !groups.get(g.key)).length);
    return groups;
  }

  // The status line says how many of the biggest groups a drill opened have no caption (no room even at their
  // shortest), not leaving them out in silence; kept for the drill's own status when it comes later (delta.js).
  /**
   * @param {number} n
   * @private
   */
  sayCramped(n) {
    this.view.roomNote = n;
    const el = this.view.ui.root.querySelector(".gc-status");
    if (!el) return;
    const text = String(el.textContent).replace(CRAMPED, "") + cramped(n);
    if (text !== el.textContent) el.textContent = text;
  }

  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   */
  drawLabel(ctx, d, s) {
    if (!d.label) return;
    const t = this.view.theme;
    // captions of highlighted / selected nodes (forced labels) in bold
    const font = `${d.forceLabel ? "600" : s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
    let x, y, label = d.label;
    ctx.font = font;
    if (this.view.zoomGrow > 1 && !d.forceLabel && this.view.renderer) {
      const { width, height } = this.view.renderer.getDimensions();
      if (d.x < 0 || d.y < 0 || d.x > width || d.y > height) return; // zoomed into a layered drawing: no caption without its node
    }
    if (this.view.renderer && this.placing()) {
      const groups = this.groupSpots(ctx, s);
      ctx.font = font;
      const spot = groups.has(d.key) ? /** @type {Spot | null} */ (groups.get(d.key)) : this.placeCaption(ctx, d, s, false);
      if (!this.view.spots) this.view.spots = new Map();
      this.view.spots.set(/** @type {string} */ (d.key), spot);
      if (!spot) return;
      label = spot.label;
      x = spot.x;
      y = spot.y + s.labelSize - 1;
    } else if (this.view.zoomGrow > 1 && !d.forceLabel) {
      return; // a layered drawing with more nodes in view than captions are placed among: they come as you zoom in
    } else {
      x = this.labelX(ctx, d, ctx.measureText(d.label).width);
      y = d.y + s.labelSize / 3;
    }
    ctx.lineJoin = "round";
    ctx.lineWidth = 3;
    ctx.strokeStyle = t.bg;
    ctx.strokeText(label, x, y);
    ctx.fillStyle = t.fg;
    ctx.fillText(label, x, y);
  }

  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   */
  drawHover(ctx, d, s) {
    const t = this.view.theme;
    ctx.font = `${d.forceLabel ? "600" : s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
    const label = d.label || "";
    const pad = 3;
    const r = d.size + pad;
    ctx.fillStyle = t.bg;
    ctx.strokeStyle = t.muted;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.arc(d.x, d.y, r, 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
    if (!label) return;
    // the full caption, where the drawn caption is (or to the right)
    const w = ctx.measureText(label).width;
    const spot = this.view.spots && this.view.spots.get(/** @type {string} */ (d.key));
    let x, top;
    const bh = s.labelSize + 2 * pad;
    if (spot) {
      const side = spot.x >= d.x + d.size ? 0 : spot.x + spot.w <= d.x - d.size ? 2 : 1;
      const W = this.view.renderer ? this.view.renderer.getDimensions().width : 1e9;
      x = side === 2 ? d.x - d.size - pad - w : side === 0 ? spot.x : Math.max(pad + 1, Math.min(d.x - w / 2, W - w - pad - 1));
      top = side === 1 ? spot.y - 2 : d.y - bh / 2;
      if (side === 1 && spot.y < d.y) top = spot.y - pad;
    } else {
      x = this.labelX(ctx, d, w);
      top = d.y - bh / 2;
    }
    ctx.fillStyle = t.bg;
    ctx.fillRect(x - pad, top, w + 2 * pad, bh);
    ctx.strokeRect(x - pad, top, w + 2 * pad, bh);
    ctx.fillStyle = t.fg;
    ctx.fillText(label, x, top + pad + s.labelSize - 2);
  }
}
