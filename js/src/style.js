// Display attributes (what sigma draws) and sigma settings / canvas drawing.
import { NodeCircleProgram, NodePointProgram, createEdgeArrowProgram, EdgeLineProgram } from "sigma/rendering";
import { createNodeBorderProgram } from "@sigma/node-border";
import { clip } from "./ui.js";
import { parseColor, toHex } from "./theme.js";

// bigger arrow heads than sigma's default, so direction reads at small sizes
const ArrowProgram = createEdgeArrowProgram({ lengthToThicknessRatio: 4, widenessToThicknessRatio: 3.5 });

const RingProgram = createNodeBorderProgram({
  borders: [
    { size: { attribute: "ringSize", defaultValue: 0.2 }, color: { attribute: "ringColor" } },
    { size: { value: 0.08 }, color: { attribute: "gapColor" } },
    { size: { fill: true }, color: { attribute: "color" } },
  ],
});

export const LIMITS = {
  circleNodes: 3000, // above: point sprites
  arrowEdges: 6000, // above: 1px lines (no arrow heads)
  edgeEvents: 6000, // edge hover/click only up to this many edges
  edgeLabels: 150, // relationship types drawn on the edges up to this many edges
  forcedLabels: 60, // highlighted nodes whose captions are always drawn
};

// label colours come from Python; re-serialise them so only a plain colour reaches WebGL/CSS
function colorOf(value, fallback) {
  const c = parseColor(value);
  return c ? toHex(c) : fallback;
}

export const styleMethods = {
  sizing(N, E) {
    this.nodeType = N > LIMITS.circleNodes ? "point" : "circle";
    this.edgeType = E > LIMITS.arrowEdges ? "fast" : "arrow";
    this.bigEdgeHi = "fast"; // highlighted edges of big graphs: colour only, no arrow program
    this.baseSize = N <= 20 ? 9 : N <= 200 ? 6 : N <= 2000 ? 3.2 : N <= 10000 ? 2.2 : 1.6;
    this.edgeSize = N <= 50 ? 2 : N <= 200 ? 1.5 : N <= 2000 ? 1 : 0.6;
    this.edgeLabels = E <= LIMITS.edgeLabels;
  },

  styler() {
    return { node: (k, a) => this.styleNode(k, a), edge: (k, a) => this.styleEdge(k, a) };
  },

  // Display attributes only (sigma copies all of them on every update); flags
  // are set only when true.
  styleNode(key, a) {
    const t = this.theme;
    const d = this.nd.get(key);
    a.color = (d.l >= 0 && this.labelColors[d.l]) || t.node;
    a.size = this.baseSize * (1 + 0.28 * Math.log2(1 + (d.deg || 0)));
    a.label = clip(d.c, 48);
    const sel = this.selected.has(key);
    const strong = sel || d.h;
    if (strong || d.fixed) {
      a.type = "ring";
      a.ringColor = sel ? t.select : d.h ? t.ring : t.pin;
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
    if (sel || (d.h && this.hlCount <= LIMITS.forcedLabels)) a.forceLabel = true;
    else delete a.forceLabel;
    if (this.hidden.has(key)) a.hidden = true;
    else delete a.hidden;
    return a;
  },

  styleEdge(key, a) {
    const t = this.theme;
    const d = this.ed.get(key);
    const sel = this.selectedEdge === key;
    a.color = sel ? t.select : d.h ? t.edgeHi : t.edge;
    if (sel || d.h) {
      a.size = Math.max(2.2, this.edgeSize * 2.5);
      if (this.edgeType !== "arrow") a.type = this.bigEdgeHi;
    } else {
      a.size = this.edgeSize;
      delete a.type;
    }
    if (this.edgeLabels) {
      const type = d.y >= 0 ? this.types[d.y] : null;
      a.label = type !== undefined && type !== null ? clip(type, 40) : null;
      if (sel || d.h) a.forceLabel = true;
      else delete a.forceLabel;
    }
    return a;
  },

  restyleAll() {
    this.hlCount = 0;
    for (const d of this.nd.values()) if (d.h) this.hlCount++;
    this.graph.updateEachNodeAttributes((k, a) => this.styleNode(k, a));
    // the hint must name "type": without hints sigma 3 repaints edges in place
    // and throws for edges not indexed yet ("can't be repaint")
    this.graph.updateEachEdgeAttributes((k, a) => this.styleEdge(k, a), {
      attributes: ["color", "size", "type", "label", "forceLabel"],
    });
  },

  restyleNodes(keys) {
    for (const k of keys) if (this.graph.hasNode(k)) this.graph.updateNodeAttributes(k, (a) => this.styleNode(k, a));
  },

  restyleEdges(keys) {
    for (const k of keys) if (this.graph.hasEdge(k)) this.graph.updateEdgeAttributes(k, (a) => this.styleEdge(k, a));
  },

  sigmaSettings() {
    const t = this.theme;
    const N = this.graph.order, E = this.graph.size;
    const font = t.font;
    return {
      allowInvalidContainer: true,
      defaultNodeType: this.nodeType,
      defaultEdgeType: this.edgeType,
      // only the programs this graph needs (each costs a shader compile)
      nodeProgramClasses: this.nodeType === "point" ? { point: NodePointProgram, ring: RingProgram } : { circle: NodeCircleProgram, ring: RingProgram },
      edgeProgramClasses: this.edgeType === "arrow" ? { arrow: ArrowProgram } : { fast: EdgeLineProgram },
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
    };
  },

  // Label to the right of the node, or to its left where it would leave the canvas.
  labelX(ctx, d, w) {
    const right = d.x + d.size + 3;
    const cw = ctx.canvas.width / (window.devicePixelRatio || 1);
    return right + w > cw - 2 && d.x - d.size - 3 - w >= 2 ? d.x - d.size - 3 - w : right;
  },

  drawLabel(ctx, d, s) {
    if (!d.label) return;
    const t = this.theme;
    // captions of highlighted / selected nodes (forced labels) in bold
    ctx.font = `${d.forceLabel ? "600" : s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
    const x = this.labelX(ctx, d, ctx.measureText(d.label).width), y = d.y + s.labelSize / 3;
    ctx.lineJoin = "round";
    ctx.lineWidth = 3;
    ctx.strokeStyle = t.bg;
    ctx.strokeText(d.label, x, y);
    ctx.fillStyle = t.fg;
    ctx.fillText(d.label, x, y);
  },

  drawHover(ctx, d, s) {
    const t = this.theme;
    ctx.font = `${s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
    const label = d.label || "";
    const w = ctx.measureText(label).width;
    const pad = 3;
    const r = d.size + pad;
    ctx.fillStyle = t.bg;
    ctx.strokeStyle = t.muted;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.arc(d.x, d.y, r, 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
    if (label) {
      const bh = s.labelSize + 2 * pad;
      const x = this.labelX(ctx, d, w);
      ctx.fillRect(x - 2, d.y - bh / 2, w + 2 * pad + 2, bh);
      ctx.strokeRect(x - 2, d.y - bh / 2, w + 2 * pad + 2, bh);
      ctx.fillStyle = t.fg;
      ctx.fillText(label, x + pad / 2, d.y + s.labelSize / 3);
    }
  },

  updateLabelColors() {
    this.labelColors = this.labels.map((lab) => (lab ? colorOf(lab.color, this.theme.node) : this.theme.node));
  },
};
