// Display attributes (what sigma draws) and sigma settings (captions: captions.js and edgelabels.js).
import { NodeCircleProgram, NodePointProgram, createEdgeArrowProgram, EdgeLineProgram, EdgeRectangleProgram } from "sigma/rendering";
import { createNodeBorderProgram } from "@sigma/node-border";
import { clip } from "./ui.js";
import { clipGroup } from "./groupcaptions.js";
import { parseColor, toHex, mix } from "./theme.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {import("./payload.js").Attrs} Attrs */

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
  placedInView: 250, // captions placed on a zoomed-in layered drawing once this many nodes or fewer are in view
};


// label colours come from Python; re-serialise them so only a plain colour reaches WebGL/CSS
/**
 * @param {unknown} value
 * @param {string} fallback
 */
function colorOf(value, fallback) {
  const c = parseColor(value);
  return c ? toHex(c) : fallback;
}

export class Styles {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  /**
   * @param {number} N
   * @param {number} E
   */
  sizing(N, E) {
    this.view.nodeType = N > LIMITS.circleNodes ? "point" : "circle";
    this.view.edgeType = E > LIMITS.arrowEdges ? "fast" : "arrow";
    this.view.bigEdgeHi = "fast"; // highlighted edges of big graphs: colour only, no arrow program
    this.view.baseSize = N <= 20 ? 9 : N <= 200 ? 6 : N <= 2000 ? 3.2 : N <= 10000 ? 2.2 : 1.6;
    this.view.edgeSize = N <= 50 ? 2 : N <= 200 ? 1.5 : N <= 2000 ? 1 : 0.6;
    this.view.edgeLabels = E <= LIMITS.edgeLabels;
  }

  /**
   * @returns {import("./payload.js").Styler}
   */
  styler() {
    return { node: (k, a) => this.styleNode(k, a), edge: (k, a) => this.styleEdge(k, a) };
  }

  // Display attributes only (sigma copies all of them on every update); flags
  // are set only when true.
  /**
   * @param {string} key
   * @param {Attrs} a
   * @returns {Attrs}
   */
  styleNode(key, a) {
    const t = this.view.theme;
    const d = this.view.nd.get(key);
    // encodings (filter.js / encode.js): colour and size by data; else label colour, size by degree
    const enc = this.view.enc;
    a.color = (enc && enc.color.of && enc.color.of.get(key)) || (d.l >= 0 && this.view.labelColors[d.l]) || t.node;
    const f = enc && enc.size.of ? enc.size.of.get(key) : 0;
    a.size = f ? this.view.baseSize * 1.2 * f : this.view.baseSize * (1 + 0.28 * Math.log2(1 + (d.deg || 0)));
    if (this.view.sizeCap) a.size = Math.min(a.size, this.view.sizeCap); // a computed layout's room per node
    a.label = d.g ? clipGroup(d.c, 48) : clip(d.c, 48); // a group keeps its count
    const sel = this.view.selected.has(key);
    // when the query matched everything, a ring on every node says nothing: none then
    const hl = d.h && !(this.view.hlCount > 0 && this.view.hlCount >= this.view.nd.size);
    const strong = sel || hl;
    if (strong || d.fixed) {
      a.type = "ring";
      a.ringColor = sel ? t.select : hl ? t.ring : t.pin;
      a.ringSize = strong ? 0.24 : 0.14;
      a.gapColor = t.bg;
      // (a layered drawing's nodes grow with the zoom: their floor is smaller at full view, as big once zoomed)
      a.size = Math.max(a.size * (strong ? 1.45 : 1.15), (strong ? 7.5 : 4) / Math.sqrt(this.view.zoomGrow || 1));
      a.zIndex = 1;
    } else {
      delete a.type;
      delete a.ringColor;
      delete a.ringSize;
      delete a.gapColor;
      delete a.zIndex;
    }
    if (sel || d.g || (hl && this.view.hlCount <= LIMITS.forcedLabels)) a.forceLabel = true;
    else delete a.forceLabel;
    if (d.o && !sel) this.ghost(a);
    if (this.view.hidden.has(key) || (this.view.filtered && this.view.filtered.has(key)) || (this.view.absent && this.view.absent.has(key))) a.hidden = true;
    else delete a.hidden;
    return a;
  }

  // A ghost (removed in a diff, gone at a slider's moment): faded towards the background, smaller, under the others,
  // no ring and no caption unless hovered. (An opaque mix: sigma blends colours as not premultiplied, so a real alpha
  // would wash out on a light background and vanish on a dark one; the static picture uses real opacity.)
  /**
   * @param {Attrs} a
   * @private
   */
  ghost(a) {
    a.color = this.faded(a.color);
    a.size *= 0.8;
    for (const name of ["type", "ringColor", "ringSize", "gapColor", "forceLabel"]) delete a[name];
    a.zIndex = 0;
  }

  /**
   * @param {string} color
   * @returns {string}
   */
  faded(color) {
    const c = parseColor(color), bg = parseColor(this.view.theme.bg);
    return c && bg ? toHex(mix(c, bg, 0.3)) : color;
  }

  // A relationship's category when the nodes are coloured by categories of a property it has too (a diff's
  // `change`): coloured and filtered by it like the nodes; null for any other.
  /**
   * @param {import("./payload.js").EdgeData} d
   * @returns {string | null}
   */
  edgeCategory(d) {
    const c = this.view.enc && this.view.enc.color;
    if (!c || !c.prop || !c.colours || !d.p || !Object.prototype.hasOwnProperty.call(d.p, c.prop)) return null;
    const v = d.p[c.prop];
    return v === null || v === undefined ? null : typeof v === "object" ? JSON.stringify(v) : String(v);
  }

  /**
   * @param {string} key
   * @param {Attrs} a
   * @returns {Attrs}
   */
  styleEdge(key, a) {
    const t = this.view.theme;
    const d = this.view.ed.get(key);
    const sel = this.view.selectedEdge === key;
    // everything matched (every node and relationship highlighted): emphasise nothing
    const hl = d.h && !(this.view.hlCount > 0 && this.view.hlCount >= this.view.nd.size && this.view.ehlCount >= this.view.ed.size);
    const cat = this.edgeCategory(d);
    const catColor = cat !== null && this.view.enc && this.view.enc.color.colours ? this.view.enc.color.colours.get(cat) || t.edge : null;
    a.color = sel ? t.select : catColor || (hl ? t.edgeHi : t.edge);
    if (sel || hl) {
      a.size = Math.max(2.2, this.view.edgeSize * 2.5);
      if (this.view.edgeType !== "arrow") a.type = this.view.bigEdgeHi;
    } else {
      a.size = this.view.edgeSize;
      delete a.type;
    }
    // a layered drawing's lines grow with the zoom as its nodes do (zoomSettings): their own width once zoomed that far
    if (this.view.zoomGrow > 1) a.size /= sel || hl ? Math.sqrt(this.view.zoomGrow) : this.view.zoomGrow;
    if (d.w) this.styleSuperEdge(key, d.w, a, Boolean(sel || hl));
    else delete a.zIndex;
    // an overview's super-edge stands for relationships both ways and of mixed types: a band, no arrow
    // head and no type drawn on it (its count and types are in its tooltip and the panel)
    if (d.w && this.view.edgeType === "arrow") a.type = "band";
    if (this.view.edgeLabels) {
      const type = d.y >= 0 && !d.w ? this.view.types[d.y] : null;
      a.label = type !== undefined && type !== null ? clip(type, 40) : null;
      if (sel || hl) a.forceLabel = true;
      else delete a.forceLabel;
    }
    if (d.o && !sel) a.color = this.faded(a.color);
    if ((this.view.filt && this.view.filters.typeHidden(d)) || (this.view.absent && this.view.absent.has(key))) a.hidden = true;
    else delete a.hidden;
    return a;
  }

  // An overview's super-edge: width and shade in five visible steps of its count's log between the
  // weakest and strongest drawn (0.6 px faint .. 7 px dark), the stronger drawn over the weaker; inside an opened
  // group thinner. A drilled member's line to a group (its own "N more" or a neighbour) is a faint hairline under them.
  /**
   * @param {string} key
   * @param {number} w  the relationships it stands for
   * @param {Attrs} a
   * @param {boolean} strong  selected or highlighted (styled as such already)
   * @private
   */
  styleSuperEdge(key, w, a, strong) {
    if (this.memberLink(key)) {
      if (!strong) (a.size = 0.5), (a.color = this.faintEdge());
      a.zIndex = 0;
      return;
    }
    const [lo, hi] = this.weightRange();
    const [s, e] = this.view.graph.hasEdge(key) ? this.view.graph.extremities(key) : ["", ""];
    // a link between two groups inside an opened group: in the same steps, at most 40% as wide and dark (an opened
    // level of tens of groups stays readable among the links of the level around it)
    const within = !!this.view.drillRoot && this.view.drillRoot.has(s) && this.view.drillRoot.has(e) ? 0.4 : 1;
    const t = within * (hi > lo ? Math.round((4 * (Math.log(w) - lo)) / (hi - lo)) / 4 : 1);
    if (!strong) {
      a.size = 0.6 + 6.4 * t;
      const fg = parseColor(this.view.theme.fg), bg = parseColor(this.view.theme.bg);
      if (fg && bg) a.color = toHex(mix(fg, bg, 0.16 + 0.6 * t));
    }
    a.zIndex = 1 + Math.round(4 * t);
  }

  // a line between a drilled member and a group, or from a group a drill opened to a group around its disc (not yet
  // in the graph when first styled: restyled once it is): hairlines under the links between groups of one level
  /**
   * @param {string} key
   * @returns {boolean}
   * @private
   */
  memberLink(key) {
    if (!this.view.graph.hasEdge(key)) return false;
    const [s, t] = this.view.graph.extremities(key);
    const ends = [this.view.nd.has(s) ? this.view.nd.get(s) : null, this.view.nd.has(t) ? this.view.nd.get(t) : null];
    const opened = this.view.drillRoot;
    return !(ends[0] && ends[0].g) || !(ends[1] && ends[1].g) || (!!opened && opened.has(s) !== opened.has(t));
  }

  /**
   * @returns {string}
   * @private
   */
  faintEdge() {
    const fg = parseColor(this.view.theme.fg), bg = parseColor(this.view.theme.bg);
    return fg && bg ? toHex(mix(fg, bg, 0.14)) : this.view.theme.edge;
  }

  // log of the smallest and largest count of a super-edge between two groups (kept until the edges change)
  /**
   * @returns {[number, number]}
   * @private
   */
  weightRange() {
    const at = this.view.graph.size + ":" + this.view.ed.size + ":" + this.view.graph.order;
    if (this.view.wRange && this.view.wRange.at === at) return this.view.wRange.v;
    let lo = Infinity, hi = -Infinity;
    this.view.graph.forEachEdge((k) => {
      const d = this.view.ed.has(k) ? this.view.ed.get(k) : null;
      if (!d || !d.w || this.memberLink(k)) return;
      lo = Math.min(lo, d.w);
      hi = Math.max(hi, d.w);
    });
    /** @type {[number, number]} */
    const v = Number.isFinite(lo) ? [Math.log(lo), Math.log(hi)] : [0, 0];
    this.view.wRange = { at, v };
    return v;
  }

  restyleAll() {
    this.countHighlights();
    this.view.graph.updateEachNodeAttributes((k, a) => this.styleNode(k, a));
    // the hint must name "type": without hints sigma 3 repaints edges in place
    // and throws for edges not indexed yet ("can't be repaint")
    this.view.graph.updateEachEdgeAttributes((k, a) => this.styleEdge(k, a), {
      attributes: ["color", "size", "type", "label", "forceLabel", "hidden", "zIndex"],
    });
  }

  countHighlights() {
    this.view.hlCount = 0;
    this.view.ehlCount = 0;
    for (const d of this.view.nd.values()) if (d.h) this.view.hlCount++;
    for (const d of this.view.ed.values()) if (d.h) this.view.ehlCount++;
  }

  /**
   * @param {Iterable<string>} keys
   */
  restyleNodes(keys) {
    for (const k of keys) if (this.view.graph.hasNode(k)) this.view.graph.updateNodeAttributes(k, (a) => this.styleNode(k, a));
  }

  /**
   * @param {Iterable<string>} keys
   */
  restyleEdges(keys) {
    for (const k of keys) if (this.view.graph.hasEdge(k)) this.view.graph.updateEdgeAttributes(k, (a) => this.styleEdge(k, a));
  }

  /**
   * @returns {import("./spare.js").SigmaSettings}
   */
  sigmaSettings() {
    const t = this.view.theme;
    const N = this.view.graph.order, E = this.view.graph.size;
    const font = t.font;
    return {
      allowInvalidContainer: true,
      defaultNodeType: this.view.nodeType,
      defaultEdgeType: this.view.edgeType,
      // only the programs this graph needs (each costs a shader compile)
      nodeProgramClasses: pick(PROGRAMS.nodes, [this.view.nodeType, "ring"]),
      edgeProgramClasses: pick(PROGRAMS.edges, this.view.edgeType === "arrow" ? ["arrow", "band"] : ["fast"]),
      renderEdgeLabels: this.view.edgeLabels,
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
      ...this.zoomSettings(),
      stagePadding: Math.max(this.view.timeline && this.view.timeline.spec ? 44 : 24, this.view.padding || 0), // room for the moment written at the top (timeline.js), and for the biggest disc (renderer.js)
      zIndex: N <= 5000,
      minCameraRatio: 0.01,
      maxCameraRatio: 20,
      defaultDrawNodeLabel: (ctx, d, s) => this.view.captions.drawLabel(ctx, d, s),
      defaultDrawNodeHover: (ctx, d, s) => this.view.captions.drawHover(ctx, d, s),
      defaultDrawEdgeLabel: (ctx, e, sd, td, s) => this.view.edgeText.drawEdgeLabel(ctx, e, sd, td, s),
    };
  }


  // How sizes and captions follow the zoom. Sigma's own way: every size grows with the square root of the zoom, and
  // captions go to nodes drawn big enough, a few per cell of its label grid. A layered drawing whose nodes are held
  // below their own size by the room between its slots (fitSizes: zoomGrow, how far below) zooms like a picture:
  // nodes and lines grow as the room does until the nodes reach their own size, then only with the zoom's fourth
  // root (the room goes to captions); its lines may be thinner than sigma's 1.7 px floor (1 px at full view, their own
  // width once zoomed that far); and every node is offered a caption, placed among the nodes in view where it finds
  // room (captions.js).
  /**
   * @returns {import("./spare.js").SigmaSettings}
   */
  zoomSettings() {
    const N = this.view.graph.order, grow = this.view.zoomGrow || 1;
    if (grow > 1) {
      return {
        zoomToSizeRatioFunction: (ratio) => (ratio * grow >= 1 ? ratio : Math.sqrt(Math.sqrt(ratio * grow)) / grow),
        minEdgeThickness: 1,
        labelDensity: 10, // candidates per 100 px of the full view: 10 times the zoom squared (all, once few are in view)
        labelGridCellSize: 100,
        labelRenderedSizeThreshold: 0,
      };
    }
    return {
      zoomToSizeRatioFunction: Math.sqrt,
      minEdgeThickness: 1.7,
      labelDensity: N <= 300 ? 1 : 0.6,
      labelGridCellSize: N <= 300 ? 60 : 100,
      labelRenderedSizeThreshold: N <= 300 ? 0 : this.view.baseSize * 1.45,
    };
  }

  updateLabelColors() {
    /** @type {string[]} */
    this.view.labelColors = this.view.labels.map((lab) => (lab ? colorOf(lab.color, this.view.theme.node) : this.view.theme.node));
  }
}
