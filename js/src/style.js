// Display attributes (what sigma draws) and sigma settings / canvas drawing.
import { NodeCircleProgram, NodePointProgram, createEdgeArrowProgram, EdgeLineProgram, EdgeRectangleProgram } from "sigma/rendering";
import { createNodeBorderProgram } from "@sigma/node-border";
import { clip } from "./ui.js";
import { parseColor, toHex } from "./theme.js";
import { internals } from "./spare.js";

/** @typedef {import("./index.js").View} View */
/** @typedef {import("./payload.js").Attrs} Attrs */
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
 * @property {Map<unknown, Spot | null>} [groups]  an overview's group captions (groupSpots)
 */

// bigger arrow heads than sigma's default, so direction reads at small sizes
const ArrowProgram = createEdgeArrowProgram({ lengthToThicknessRatio: 4, widenessToThicknessRatio: 3.5 });

const RingProgram = createNodeBorderProgram({
  borders: [
    { size: { attribute: "ringSize", defaultValue: 0.2 }, color: { attribute: "ringColor" } },
    { size: { value: 0.08 }, color: { attribute: "gapColor" } },
    { size: { fill: true }, color: { attribute: "color" } },
  ],
});

// Every program a canvas can ask for: a renderer made for a canvas gets those its graph needs (each costs a shader
// compile), the renderer made ahead (spare.js) all of them.
export const PROGRAMS = {
  nodes: { point: NodePointProgram, circle: NodeCircleProgram, ring: RingProgram },
  edges: { arrow: ArrowProgram, band: EdgeRectangleProgram, fast: EdgeLineProgram },
};
/** @type {<T>(all: Record<string, T>, names: string[]) => Record<string, T>} */
const pick = (all, names) => Object.fromEntries(names.map((name) => [name, all[name]]));

export const LIMITS = {
  circleNodes: 3000, // above: point sprites
  arrowEdges: 6000, // above: 1px lines (no arrow heads)
  edgeEvents: 6000, // edge hover/click only up to this many edges
  edgeLabels: 150, // relationship types drawn on the edges up to this many edges
  forcedLabels: 60, // highlighted nodes whose captions are always drawn
  placedLabels: 400, // captions placed around their node (free side, no overlap) up to this many nodes
  placedEdges: 1500, // ... and this many edges
};

// A caption about 70% as long, ending in "…" (unchanged once 4 characters or fewer).
/** @param {string} label */
function cutText(label) {
  if (label.length <= 4) return label;
  const head = label.replace(/…$/, "");
  return head.slice(0, Math.max(3, Math.floor(head.length * 0.7))) + "…";
}

// An overview group's caption ("Person ×12,408") shortened in its name only: the count is what the
// caption is for ("Pers… ×12,408", then "×12,408" alone, then unchanged).
/** @param {string} label */
function cutGroup(label) {
  const count = /\s?×[\d,]+$/.exec(label);
  if (!count) return cutText(label);
  const head = label.slice(0, count.index).replace(/…$/, "");
  if (!head) return label;
  if (head.length <= 1) return count[0].trimStart();
  return head.slice(0, Math.max(1, Math.floor(head.length * 0.7))) + "…" + count[0];
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

// label colours come from Python; re-serialise them so only a plain colour reaches WebGL/CSS
/**
 * @param {unknown} value
 * @param {string} fallback
 */
function colorOf(value, fallback) {
  const c = parseColor(value);
  return c ? toHex(c) : fallback;
}

export class StyleMethods {
  /**
   * @this {View}
   * @param {number} N
   * @param {number} E
   */
  sizing(N, E) {
    /** @type {import("./index.js").ViewState["nodeType"]} */
    this.nodeType = N > LIMITS.circleNodes ? "point" : "circle";
    /** @type {import("./index.js").ViewState["edgeType"]} */
    this.edgeType = E > LIMITS.arrowEdges ? "fast" : "arrow";
    /** @type {import("./index.js").ViewState["bigEdgeHi"]} */
    this.bigEdgeHi = "fast"; // highlighted edges of big graphs: colour only, no arrow program
    /** @type {import("./index.js").ViewState["baseSize"]} */
    this.baseSize = N <= 20 ? 9 : N <= 200 ? 6 : N <= 2000 ? 3.2 : N <= 10000 ? 2.2 : 1.6;
    /** @type {import("./index.js").ViewState["edgeSize"]} */
    this.edgeSize = N <= 50 ? 2 : N <= 200 ? 1.5 : N <= 2000 ? 1 : 0.6;
    /** @type {import("./index.js").ViewState["edgeLabels"]} */
    this.edgeLabels = E <= LIMITS.edgeLabels;
  }

  /**
   * @this {View}
   * @returns {import("./payload.js").Styler}
   */
  styler() {
    return { node: (k, a) => this.styleNode(k, a), edge: (k, a) => this.styleEdge(k, a) };
  }

  // Display attributes only (sigma copies all of them on every update); flags
  // are set only when true.
  /**
   * @this {View}
   * @param {string} key
   * @param {Attrs} a
   * @returns {Attrs}
   */
  styleNode(key, a) {
    const t = this.theme;
    const d = this.nd.get(key);
    // encodings (filter.js / encode.js): colour and size by data; else label colour, size by degree
    const enc = this.enc;
    a.color = (enc && enc.color.of && enc.color.of.get(key)) || (d.l >= 0 && this.labelColors[d.l]) || t.node;
    const f = enc && enc.size.of ? enc.size.of.get(key) : 0;
    a.size = f ? this.baseSize * 1.2 * f : this.baseSize * (1 + 0.28 * Math.log2(1 + (d.deg || 0)));
    if (this.sizeCap) a.size = Math.min(a.size, this.sizeCap); // a computed layout's room per node
    a.label = clip(d.c, 48);
    const sel = this.selected.has(key);
    // when the query matched everything, a ring on every node says nothing: none then
    const hl = d.h && !(this.hlCount > 0 && this.hlCount >= this.nd.size);
    const strong = sel || hl;
    if (strong || d.fixed) {
      a.type = "ring";
      a.ringColor = sel ? t.select : hl ? t.ring : t.pin;
      a.ringSize = strong ? 0.24 : 0.14;
      a.gapColor = t.bg;
      a.size = Math.max(a.size * (strong ? 1.45 : 1.15), strong ? 7.5 : 4);
      a.zIndex = 1;
    } else {
      delete a.type;
      delete a.ringColor;
      delete a.ringSize;
      delete a.gapColor;
      delete a.zIndex;
    }
    if (sel || d.g || (hl && this.hlCount <= LIMITS.forcedLabels)) a.forceLabel = true;
    else delete a.forceLabel;
    if (this.hidden.has(key) || (this.filtered && this.filtered.has(key))) a.hidden = true;
    else delete a.hidden;
    return a;
  }

  /**
   * @this {View}
   * @param {string} key
   * @param {Attrs} a
   * @returns {Attrs}
   */
  styleEdge(key, a) {
    const t = this.theme;
    const d = this.ed.get(key);
    const sel = this.selectedEdge === key;
    // everything matched (every node and relationship highlighted): emphasise nothing
    const hl = d.h && !(this.hlCount > 0 && this.hlCount >= this.nd.size && this.ehlCount >= this.ed.size);
    a.color = sel ? t.select : hl ? t.edgeHi : t.edge;
    if (sel || hl) {
      a.size = Math.max(2.2, this.edgeSize * 2.5);
      if (this.edgeType !== "arrow") a.type = this.bigEdgeHi;
    } else {
      a.size = d.w ? this.edgeSize * Math.min(1 + 0.9 * Math.log10(d.w), 6) : this.edgeSize;
      delete a.type;
    }
    // an overview's super-edge stands for relationships both ways and of mixed types: a band, no arrow
    // head and no type drawn on it (its count and types are in its tooltip and the panel)
    if (d.w && this.edgeType === "arrow") a.type = "band";
    if (this.edgeLabels) {
      const type = d.y >= 0 && !d.w ? this.types[d.y] : null;
      a.label = type !== undefined && type !== null ? clip(type, 40) : null;
      if (sel || hl) a.forceLabel = true;
      else delete a.forceLabel;
    }
    if (this.filt && this.typeHidden(d)) a.hidden = true;
    else delete a.hidden;
    return a;
  }

  /** @this {View} */
  restyleAll() {
    this.countHighlights();
    this.graph.updateEachNodeAttributes((k, a) => this.styleNode(k, a));
    // the hint must name "type": without hints sigma 3 repaints edges in place
    // and throws for edges not indexed yet ("can't be repaint")
    this.graph.updateEachEdgeAttributes((k, a) => this.styleEdge(k, a), {
      attributes: ["color", "size", "type", "label", "forceLabel", "hidden"],
    });
  }

  /** @this {View} */
  countHighlights() {
    /** @type {import("./index.js").ViewState["hlCount"]} */
    this.hlCount = 0;
    /** @type {import("./index.js").ViewState["ehlCount"]} */
    this.ehlCount = 0;
    for (const d of this.nd.values()) if (d.h) this.hlCount++;
    for (const d of this.ed.values()) if (d.h) this.ehlCount++;
  }

  /**
   * @this {View}
   * @param {Iterable<string>} keys
   */
  restyleNodes(keys) {
    for (const k of keys) if (this.graph.hasNode(k)) this.graph.updateNodeAttributes(k, (a) => this.styleNode(k, a));
  }

  /**
   * @this {View}
   * @param {Iterable<string>} keys
   */
  restyleEdges(keys) {
    for (const k of keys) if (this.graph.hasEdge(k)) this.graph.updateEdgeAttributes(k, (a) => this.styleEdge(k, a));
  }

  /**
   * @this {View}
   * @returns {import("./spare.js").SigmaSettings}
   */
  sigmaSettings() {
    const t = this.theme;
    const N = this.graph.order, E = this.graph.size;
    const font = t.font;
    return {
      allowInvalidContainer: true,
      defaultNodeType: this.nodeType,
      defaultEdgeType: this.edgeType,
      // only the programs this graph needs (each costs a shader compile)
      nodeProgramClasses: pick(PROGRAMS.nodes, [this.nodeType, "ring"]),
      edgeProgramClasses: pick(PROGRAMS.edges, this.edgeType === "arrow" ? ["arrow", "band"] : ["fast"]),
      renderEdgeLabels: this.edgeLabels,
      enableEdgeEvents: E <= LIMITS.edgeEvents,
      hideEdgesOnMove: E > 30000,
      hideLabelsOnMove: N > 5000,
      labelFont: font,
      labelSize: 12,
      labelWeight: "normal",
      labelColor: { color: t.fg },
      edgeLabelFont: font,
      edgeLabelSize: 11,
      edgeLabelColor: { color: t.muted },
      labelDensity: N <= 300 ? 1 : 0.6,
      labelGridCellSize: N <= 300 ? 60 : 100,
      labelRenderedSizeThreshold: N <= 300 ? 0 : this.baseSize * 1.45,
      stagePadding: 24,
      zIndex: N <= 5000,
      minCameraRatio: 0.01,
      maxCameraRatio: 20,
      defaultDrawNodeLabel: (ctx, d, s) => this.drawLabel(ctx, d, s),
      defaultDrawNodeHover: (ctx, d, s) => this.drawHover(ctx, d, s),
      defaultDrawEdgeLabel: (ctx, e, sd, td, s) => this.drawEdgeLabel(ctx, e, sd, td, s),
    };
  }

  // Label to the right of the node, or to its left where it would leave the canvas.
  /**
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {number} w
   * @returns {number}
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
   * @this {View}
   * @returns {boolean}
   */
  placing() {
    return this.graph.order <= LIMITS.placedLabels && this.graph.size <= LIMITS.placedEdges;
  }

  /**
   * @this {View}
   * @returns {Scene}
   */
  frameScene() {
    const r = /** @type {import("./spare.js").Renderer} */ (this.renderer); // asked for only while drawing
    if (this.scene && this.scene.frame === this.frameNo) return this.scene;
    /** @type {Scene["pos"]} */
    const pos = new Map();
    this.graph.forEachNode((k) => {
      const d = r.getNodeDisplayData(k);
      if (!d || d.hidden) return;
      const p = r.framedGraphToViewport(d);
      pos.set(k, { x: p.x, y: p.y, r: r.scaleSize(d.size) });
    });
    /** @type {Scene["segs"]} */
    const segs = [];
    this.graph.forEachEdge((e, a, s, t) => {
      const p = pos.get(s), q = pos.get(t);
      if (p && q && s !== t && !a.hidden) segs.push([p.x, p.y, q.x, q.y, s, t]);
    });
    const { width, height } = r.getDimensions();
    /** @type {Scene} */
    const scene = { frame: this.frameNo, pos, segs, rects: [], width, height };
    /** @type {import("./index.js").ViewState["scene"]} */
    this.scene = scene;
    return scene;
  }

  // how bad a caption rectangle [x0, y0, x1, y1] of node `key` is (`overMembers`: a super-node's
  // caption may cover a drilled group's member dots, which are many and small, but no other disc)
  /**
   * @this {View}
   * @param {Scene} sc
   * @param {unknown} key
   * @param {Rect} rc
   * @param {number} [crossing]
   * @param {boolean} [overMembers]
   * @returns {number}
   */
  spotCost(sc, key, rc, crossing = 10, overMembers = false) {
    let cost = 0;
    if (rc[0] < 1 || rc[1] < 1 || rc[2] > sc.width - 1 || rc[3] > sc.height - 1) cost += 60;
    for (const q of sc.rects) if (rc[0] < q[2] && rc[2] > q[0] && rc[1] < q[3] && rc[3] > q[1]) cost += 30;
    for (const [k, p] of sc.pos) {
      if (k === key || (overMembers && !(this.nd.get(k) || {}).g)) continue;
      const cx = Math.max(rc[0], Math.min(p.x, rc[2])), cy = Math.max(rc[1], Math.min(p.y, rc[3]));
      if ((cx - p.x) ** 2 + (cy - p.y) ** 2 < (p.r + 1) ** 2) cost += 30;
    }
    for (const g of sc.segs) if (segRect(g, rc)) cost += crossing;
    return cost;
  }

  /**
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {string} text
   * @param {number} h
   * @param {boolean} [group]
   * @returns {Spot | null}
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
    ];
    let label = text;
    for (let round = 0; round < 8; round++) {
      const w = ctx.measureText(label).width;
      /** @type {{cost: number, x: number, y: number, rc: Rect, w: number} | null} */
      let found = null;
      for (const [x, y, pref] of spots(w)) {
        /** @type {Rect} */
        const rc = [x - 1, y, x + w + 1, y + h];
        // an overview's super-node: its caption may lie across the bands around it (they are few and wide)
        const cost = this.spotCost(sc, d.key, rc, group ? 0 : 10, group) + pref;
        if (!found || cost < found.cost) found = { cost, x, y, rc, w };
      }
      const best = /** @type {{cost: number, x: number, y: number, rc: Rect, w: number}} */ (found); // four spots tried
      // crossing a relationship is tolerable, covering a node or a caption is not
      const shorter = group ? cutGroup(label) : cutText(label);
      if (best.cost < 30 || shorter === label) {
        if (best.cost >= 30) return null;
        sc.rects.push(best.rc);
        return { label, x: best.x, y: best.y, w: best.w };
      }
      label = shorter;
    }
    return null;
  }

  // A group's caption that fits across the middle of its disc (its name shortened to fit, its count
  // whole), or null.
  /**
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   * @returns {(Spot & {rc: Rect}) | null}
   */
  fitInside(ctx, d, s) {
    const room = d.size * 1.7;
    let label = /** @type {string} */ (d.label); // a group's caption: never empty
    for (let round = 0; round < 10; round++) {
      const w = ctx.measureText(label).width;
      if (w <= room) {
        const x = d.x - w / 2, y = d.y + s.labelSize / 3 - s.labelSize + 1; // y: the top, as placeLabel's
        return { label, x, y, w, rc: [x - 1, d.y - s.labelSize / 2, x + w + 1, d.y + s.labelSize / 2] };
      }
      const shorter = cutGroup(label);
      if (shorter === label) return null;
      label = shorter;
    }
    return null;
  }

  // Where a caption goes: an overview's big disc takes it inside, where nothing else can take the spot;
  // any other caption beside its node (placeLabel).
  /**
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   * @param {boolean} group
   * @returns {Spot | null}
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
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {SigmaAll} s
   * @returns {Map<unknown, Spot | null>}
   */
  groupSpots(ctx, s) {
    const sc = this.frameScene();
    if (sc.groups) return sc.groups;
    const groups = (sc.groups = new Map());
    /** @type {LabelData[]} */
    const list = [];
    for (const [key, p] of sc.pos) {
      if (!(this.nd.get(key) || {}).g) continue;
      const label = /** @type {import("sigma/types").NodeDisplayData} */ (/** @type {import("./spare.js").Renderer} */ (this.renderer).getNodeDisplayData(key)).label;
      if (label) list.push({ key, label, x: p.x, y: p.y, size: p.r });
    }
    list.sort((a, b) => b.size - a.size);
    ctx.font = `600 ${s.labelSize}px ${s.labelFont}`; // a group's caption is always drawn (forceLabel): bold
    for (const g of list) groups.set(g.key, this.placeCaption(ctx, g, s, true));
    return groups;
  }

  /**
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   */
  drawLabel(ctx, d, s) {
    if (!d.label) return;
    const t = this.theme;
    // captions of highlighted / selected nodes (forced labels) in bold
    const font = `${d.forceLabel ? "600" : s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
    let x, y, label = d.label;
    ctx.font = font;
    if (this.renderer && this.placing()) {
      const groups = this.groupSpots(ctx, s);
      ctx.font = font;
      const spot = groups.has(d.key) ? groups.get(d.key) : this.placeCaption(ctx, d, s, false);
      if (!this.spots) this.spots = new Map();
      this.spots.set(d.key, spot);
      if (!spot) return;
      label = spot.label;
      x = spot.x;
      y = spot.y + s.labelSize - 1;
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

  // sigma's straight edge label, on whichever side of the edge is free of captions
  /**
   * @this {View}
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
    const sc = this.placing() && this.renderer ? this.frameScene() : null;
    /** @type {number | null} */
    let off = offsets[0];
    if (sc) {
      off = null;
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
      if (off === null) return;
    }
    ctx.save();
    ctx.translate(cx, cy);
    ctx.rotate(angle);
    ctx.fillText(label, -w / 2, off);
    ctx.restore();
  }

  // {k, n}: this relationship is the k-th of n between its two nodes (recomputed once per frame)
  /**
   * @this {View}
   * @param {unknown} key
   * @returns {{k: number, n: number} | undefined}
   */
  pairSlot(key) {
    if (!this.slots || this.slotsFrame !== this.frameNo) {
      /** @type {number} */
      this.slotsFrame = this.frameNo;
      /** @type {Map<string, string[]>} */
      const groups = new Map();
      this.graph.forEachEdge((k, a, s, t) => {
        if (s === t) return;
        const id = s < t ? s + "\u0000" + t : t + "\u0000" + s;
        if (!groups.has(id)) groups.set(id, []);
        /** @type {string[]} */ (groups.get(id)).push(k);
      });
      /** @type {Map<string, {k: number, n: number}>} */
      const slots = new Map();
      /** @type {import("./index.js").ViewState["slots"]} */
      this.slots = slots;
      for (const list of groups.values()) list.sort().forEach((k, i) => slots.set(k, { k: i, n: list.length }));
    }
    return this.slots.get(/** @type {string} */ (key));
  }

  // Self-loops (sigma draws none): a small ring at the node's upper right, with
  // its type, drawn after each frame on the edge-label layer. Small graphs only.
  /** @this {View} */
  drawLoops() {
    const r = this.renderer;
    if (!r || !this.placing()) return;
    /** @type {string[]} */
    const loops = [];
    this.graph.forEachEdge((e, a, src, t) => src === t && loops.push(e));
    if (!loops.length) return;
    const ctx = internals(r).canvasContexts && internals(r).canvasContexts.edgeLabels;
    if (!ctx) return;
    const s = r.getSettings();
    const byNode = new Map();
    for (const e of loops) {
      if (!this.graph.hasEdge(e)) continue;
      const ea = r.getEdgeDisplayData(e);
      const n = this.graph.source(e);
      const nd = r.getNodeDisplayData(n);
      if (!ea || !nd || ea.hidden || nd.hidden) continue;
      const k = byNode.get(n) || 0;
      byNode.set(n, k + 1);
      const p = r.framedGraphToViewport(nd);
      const size = r.scaleSize(nd.size);
      const rr = Math.max(7, size * 0.75) * (1 + 0.35 * k);
      const cx = p.x + (size * 0.55 + rr * 0.55), cy = p.y - (size * 0.55 + rr * 0.55);
      ctx.save();
      ctx.strokeStyle = ea.color || this.theme.edge;
      ctx.lineWidth = Math.max(1, r.scaleSize(ea.size || 1));
      ctx.beginPath();
      ctx.arc(cx, cy, rr, 0, Math.PI * 2);
      ctx.stroke();
      if (this.edgeLabels && ea.label) {
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

  /**
   * @this {View}
   * @param {CanvasRenderingContext2D} ctx
   * @param {LabelData} d
   * @param {SigmaAll} s
   */
  drawHover(ctx, d, s) {
    const t = this.theme;
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
    const spot = this.spots && this.spots.get(d.key);
    let x, top;
    const bh = s.labelSize + 2 * pad;
    if (spot) {
      const side = spot.x >= d.x + d.size ? 0 : spot.x + spot.w <= d.x - d.size ? 2 : 1;
      const W = this.renderer ? this.renderer.getDimensions().width : 1e9;
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

  /** @this {View} */
  updateLabelColors() {
    /** @type {string[]} */
    this.labelColors = this.labels.map((lab) => (lab ? colorOf(lab.color, this.theme.node) : this.theme.node));
  }
}
