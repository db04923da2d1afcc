// Python -> JS messages: deltas (add / remove / highlight / fit), sync, status.
import { addItems } from "./payload.js";
import { kernelMessage } from "./protocol.js";
import { layoutNew, placeNear, SPACING } from "./layout.js";
import { MEMBER_SIZE } from "./encode.js";

// a drilled group's members: spacing, as a share of a typical relationship's length
const DISC_GAP = 0.07;
const GOLDEN = Math.PI * (3 - Math.sqrt(5));
const PUSH_MAX = 0.09; // the most a drill moves another node, as a share of the canvas's longer side
const GLIDE_MS = 350; // how long pushed nodes take to glide aside (and back)

export const deltaMethods = {
  onMessage(raw) {
    const msg = kernelMessage(raw); // protocol.js: only the kinds this page handles
    if (!msg) return;
    if (msg.kind === "status") {
      this.ui.setStatus(String(msg.text ?? ""), msg.level);
      return;
    }
    if (msg.kind !== "delta") return;
    if (!this.graph) return; // the base graph is still being read: build() asks for a sync afterwards
    const r = Number(msg.revision);
    if (!Number.isInteger(r) || r <= this.revision) return;
    if (r > this.revision + 1) {
      this.askSync();
      return;
    }
    this.applyDelta(msg);
    this.revision = r;
    this.syncAsked = -1;
    if (msg.undoable) {
      this.undo.push({ t: "py", revision: r });
      this.updateButtons();
    }
  },

  askSync() {
    if (this.syncAsked === this.revision) return;
    this.syncAsked = this.revision;
    this.send({ kind: "sync", have: this.revision });
  },

  applyDelta(msg) {
    if (this.layout && this.layout.running) this.layout.settleNow();
    const allBefore = this.hlCount > 0 && this.hlCount >= this.nd.size; // every node matched: no rings
    const ops = Array.isArray(msg.ops) ? msg.ops : [];
    let added = [];
    let relegend = false;
    for (const op of ops) {
      if (!op || typeof op !== "object") continue;
      if (op.op === "add") {
        if (Array.isArray(op.labels)) {
          this.labels = op.labels;
          this.updateLabelColors();
          relegend = true;
        }
        if (Array.isArray(op.types)) this.types = op.types;
        added = added.concat(this.addNodes(op, msg.anchor));
        relegend = true;
      } else if (op.op === "remove") {
        this.removeIds(Array.isArray(op.ids) ? op.ids.map(String) : []);
        relegend = true;
      } else if (op.op === "highlight") {
        this.highlight(Array.isArray(op.ids) ? op.ids.map(String) : [], !!op.only);
      } else if (op.op === "fit") {
        this.fitAfter = true;
      } else this.applyViewOp(op); // style / layout / filter (filter.js)
    }
    if (this.ui.root.querySelector(".gc-status").textContent.startsWith("expanding")) this.ui.setStatus("", "info");
    if (relegend) {
      this.countHighlights();
      if (allBefore !== (this.hlCount > 0 && this.hlCount >= this.nd.size)) this.restyleAll(); // rings on / off
      // encodings are of the drawn graph: compute them again, then the legend and count
      this.encode();
      const f = this.filt;
      if (this.enc.color.of || this.enc.size.of || f.labels.size || f.types.size || f.cats.size || f.nodes.size) this.refresh();
      else {
        this.updateLegend();
        this.updateCount();
      }
      if (added.length && this.layoutName() !== "force") this.setLayout(this.layoutSpec);
    }
    // the panel shows the degree and properties as they are now
    const last = [...this.selected].pop();
    if (last !== undefined && this.graph.hasNode(last)) this.showNode(last);
    // style / filter / layout ops repaint through graph events (no full re-index)
    const viewOnly = ops.length && ops.every((op) => op && ["style", "filter", "layout"].includes(op.op));
    if (this.renderer && !viewOnly) this.renderer.refresh();
    if (this.fitAfter) {
      this.fitAfter = false;
      this.fit();
    } else if (!viewOnly) this.keepInView(); // style and filter ops move nothing (a layout op fits itself)
  },

  addNodes(op, anchor) {
    const g = this.graph;
    const before = g.order;
    const nodes = Array.isArray(op.nodes) ? op.nodes : [];
    const edges = Array.isArray(op.edges) ? op.edges : [];
    // where to put each new node
    const nbr = new Map();
    for (const e of edges) {
      if (!e) continue;
      const s = String(e.s), t = String(e.t);
      if (g.hasNode(s) && !g.hasNode(t) && !nbr.has(t)) nbr.set(t, s);
      if (g.hasNode(t) && !g.hasNode(s) && !nbr.has(s)) nbr.set(s, t);
    }
    const centre = this.graphCentre();
    const step = this.typicalEdgeLength();
    const anchorKey = anchor !== null && anchor !== undefined && g.hasNode(String(anchor)) ? String(anchor) : null;
    const around = new Map();
    const place = (key) => {
      const near = anchorKey || nbr.get(key) || null;
      const c = near ? g.getNodeAttributes(near) : centre;
      const k = around.get(near) || 0;
      around.set(near, k + 1);
      return placeNear(c, k, nodes.length, near ? step : step * 2);
    };
    this.hlCount = (this.hlCount || 0) + nodes.filter((n) => n && n.h).length;
    const res = addItems(g, this, nodes, edges, this.styler(), place);
    if (this.restoreDrilled(res.nodes)) return res.nodes; // a super-node folded back: to its own spot
    if (anchorKey && this.nd.has(anchorKey) && this.nd.get(anchorKey).g && res.nodes.length) {
      this.placeWithin(res.nodes, anchorKey, step); // a super-node opens into its members, in place
      return res.nodes;
    }
    // new nodes linked to nothing drawn would be pushed far out by the local layout (nothing pulls
    // them back), so they go in a tidy row just below the drawing instead; the rest are laid out
    if (before === 0 && res.nodes.length > 1 && this.renderer) {
      // an empty drawing (a live view's first rows): no old node to keep, so lay it all out and pack it
      if (this.layout) this.layout.stop();
      this.startLayout();
      return res.nodes;
    }
    const loose = res.nodes.filter((key) => g.degree(key) === 0);
    const linked = res.nodes.filter((key) => g.degree(key) > 0);
    layoutNew(g, linked);
    if (loose.length) this.placeLoose(loose, step);
    return res.nodes;
  },

  // A drilled group opens where its super-node was: its members fill a disc around that spot (the
  // most connected innermost; a sunflower, even at any count), ringing its "N more" at the centre; the
  // next slice (drilling "N more") rings the members already there. The disc is sized in screen pixels
  // for the dots it holds; every other node is pushed out of it along its ray from the centre (a smooth
  // push fading with distance, at most PUSH_MAX of the canvas, the disc smaller where that is not
  // enough), and glides there. The drawing's frame is held (no rescale while a group is open), and
  // what moved is kept so that the group's collapse puts everything back (restoreDrilled).
  placeWithin(keys, anchor, step) {
    const g = this.graph, r = this.renderer;
    const c = g.getNodeAttributes(anchor);
    const isGroup = (k) => this.nd.has(k) && !!this.nd.get(k).g;
    const isMore = (k) => isGroup(k) && /^[\d,.]+[kM]? more$/.test(String(this.nd.get(k).c || "")); // the rest, at the centre
    const groupSize = (k) => Number((this.nd.get(k).p || {}).nodes) || 1;
    // sub-groups (biggest first), then members (most connected first), ring by ring from the centre
    const members = keys.filter((k) => isGroup(k) && !isMore(k)).sort((a, b) => groupSize(b) - groupSize(a))
      .concat(keys.filter((k) => !isGroup(k)).sort((a, b) => g.degree(b) - g.degree(a)));
    const centred = keys.filter(isMore);
    if (!this.discs) (this.discs = new Map()), (this.discCount = new Map());
    if (!this.drilled) (this.drilled = new Map()), (this.drillRoot = new Map());
    const root = this.drillRoot.get(anchor) || anchor;
    const dims = r ? r.getDimensions() : null;
    if (!r || !dims.width || !dims.height || !r.getNodeDisplayData(anchor)) return this.placeDisc(members, centred, anchor, c, step);
    if (!this.drilled.has(root)) {
      if (!this.drilled.size && !r.getCustomBBox()) r.setCustomBBox(r.getBBox()); // hold the frame: no rescale
      this.drilled.set(root, { home: { x: c.x, y: c.y }, moves: new Map() });
    }
    const open = this.drilled.get(root);
    // the slices of one group ("N more" drilled again) ring each other: none pushes the ones before it
    if (!this.rings) this.rings = new Map();
    const ring = this.rings.get(anchor) || new Set();
    for (const k of keys) ring.add(k);
    if (!this.homes) this.homes = new Map();
    this.homes.set(anchor, { x: c.x, y: c.y }); // an "N more" undone comes back here
    const vp = (p) => r.graphToViewport(p);
    const at = vp(c);
    const px = (k) => r.scaleSize(r.getNodeDisplayData(k).size);
    // the disc, in screen pixels: a member dot's pitch, the rest's disc at the centre, rings outwards
    const dot = r.scaleSize(this.baseSize * 1.2 * MEMBER_SIZE);
    const pitch = 2 * dot + 4;
    const known = this.discs.get(anchor); // a later slice: ring the members drawn so far
    const unit = Math.hypot(vp({ x: c.x + 1, y: c.y }).x - at.x, vp({ x: c.x + 1, y: c.y }).y - at.y) || 1; // px per graph unit
    // a sub-group's disc as encode.js will draw it (area = nodes, on the overview's fixed scale)
    const room = members.map((k) => {
      const hi = this.areaScale ? this.areaScale.hi : 0;
      if (!isGroup(k) || !hi) return pitch * pitch;
      const f = Math.max(0.3, 3 * Math.sqrt(groupSize(k) / hi));
      return (2 * r.scaleSize(this.baseSize * 1.2 * f) + 4) ** 2;
    });
    const total = room.reduce((a, b) => a + b, 0);
    let inner = known !== undefined ? known * unit + pitch / 2 : centred.length ? px(anchor) * 0.6 + pitch / 2 : 0;
    let outer = Math.max(px(anchor), Math.sqrt(inner * inner + (1.15 * total) / Math.PI));
    // the centre kept inside the canvas with its disc when it can be
    const pad = 6;
    const cx = dims.width > 2 * (outer + pad) ? Math.min(Math.max(at.x, outer + pad), dims.width - outer - pad) : at.x;
    const cy = dims.height > 2 * (outer + pad) ? Math.min(Math.max(at.y, outer + pad), dims.height - outer - pad) : at.y;
    const cap = PUSH_MAX * Math.max(dims.width, dims.height);
    const others = [];
    g.forEachNode((k) => {
      if (k === anchor || ring.has(k) || this.isHiddenNode(k) || !r.getNodeDisplayData(k)) return; // not its own members
      const p = vp(g.getNodeAttributes(k));
      others.push({ k, x: p.x, y: p.y, rad: px(k), d: Math.hypot(p.x - cx, p.y - cy) });
    });
    // the push each other node needs to clear the disc; where the cap cannot give it, the disc shrinks
    let moves = [];
    for (let round = 0; round < 6; round++) {
      const need = others.map((o) => Math.max(0, outer + o.rad + pad - o.d));
      const most = Math.min(cap, Math.max(0, ...need));
      const fade = 2.5 * most + 1;
      moves = others.map((o, i) => {
        const push = Math.min(cap, Math.max(need[i], most * Math.max(0, 1 - Math.max(0, o.d - outer - o.rad) / fade)));
        const ux = o.d > 1e-6 ? (o.x - cx) / o.d : Math.cos(i), uy = o.d > 1e-6 ? (o.y - cy) / o.d : Math.sin(i);
        let x = o.x + ux * push, y = o.y + uy * push;
        // not off the canvas
        x = Math.min(Math.max(x, o.rad + 2), Math.max(o.rad + 2, dims.width - o.rad - 2));
        y = Math.min(Math.max(y, o.rad + 2), Math.max(o.rad + 2, dims.height - o.rad - 2));
        return { o, x, y };
      });
      const short = Math.max(0, ...moves.map((m) => outer + m.o.rad + pad - Math.hypot(m.x - cx, m.y - cy)));
      if (short <= 0.5 || outer <= inner + pitch) break;
      outer = Math.max(inner + pitch, outer - short);
    }
    if (known === undefined && centred.length) inner = Math.min(inner, outer * 0.6);
    const home = r.viewportToGraph({ x: cx, y: cy });
    const targets = new Map();
    let before = 0; // the room taken by the items inside this one's ring
    members.forEach((k, i) => {
      const rho = Math.sqrt(inner * inner + (outer * outer - inner * inner) * ((before + room[i] / 2) / total));
      before += room[i];
      const angle = i * GOLDEN;
      targets.set(k, r.viewportToGraph({ x: cx + rho * Math.cos(angle), y: cy + rho * Math.sin(angle) }));
    });
    for (const k of centred) {
      targets.set(k, home);
      this.discs.set(k, outer / unit);
      this.discCount.set(k, (this.discCount.get(anchor) || 0) + members.length);
      this.rings.set(k, ring);
    }
    for (const k of keys) if (isGroup(k)) this.drillRoot.set(k, root); // its "N more" and sub-groups fold back with it
    open.disc = { x: home.x, y: home.y, r: outer / unit }; // the last disc opened in it (tests: hooks.openDiscs)
    for (const m of moves) {
      if (Math.hypot(m.x - m.o.x, m.y - m.o.y) < 0.01) continue;
      const from = g.getNodeAttributes(m.o.k), to = r.viewportToGraph({ x: m.x, y: m.y });
      targets.set(m.o.k, to);
      const was = open.moves.get(m.o.k) || [0, 0];
      open.moves.set(m.o.k, [was[0] + to.x - from.x, was[1] + to.y - from.y]);
    }
    for (const k of keys) g.mergeNodeAttributes(k, { x: c.x, y: c.y }); // they come out of the super-node
    this.glide(targets);
  },

  // the old placement in graph units (no renderer to measure with): a disc in the room around the spot
  placeDisc(members, centred, anchor, c, step) {
    const g = this.graph;
    let r0 = this.discs.get(anchor), r1;
    if (r0 === undefined) {
      let nearest = Infinity;
      const fresh = new Set([...members, ...centred]);
      g.forEachNode((k, a) => {
        if (k !== anchor && !fresh.has(k)) nearest = Math.min(nearest, Math.hypot(a.x - c.x, a.y - c.y));
      });
      const packed = Math.max(step, 1e-6) * DISC_GAP * Math.sqrt(members.length / Math.PI);
      r1 = Math.max(Number.isFinite(nearest) ? nearest * 0.45 : 0, packed) * 1.1;
      r0 = r1 * 0.15;
    } else r1 = Math.sqrt(r0 * r0 * (1 + members.length / Math.max(this.discCount.get(anchor) || 1, 1)));
    members.forEach((k, i) => {
      const rho = Math.sqrt(r0 * r0 + (r1 * r1 - r0 * r0) * ((i + 0.5) / members.length));
      g.mergeNodeAttributes(k, { x: Math.fround(c.x + rho * Math.cos(i * GOLDEN)), y: Math.fround(c.y + rho * Math.sin(i * GOLDEN)) });
    });
    for (const k of centred) {
      g.mergeNodeAttributes(k, { x: c.x, y: c.y });
      this.discs.set(k, r1);
      this.discCount.set(k, (this.discCount.get(anchor) || 0) + members.length);
    }
  },

  // A super-node coming back (Collapse, Undo): to its own spot, and what its drill pushed aside back to
  // where it was; once no group is open the drawing's frame follows the nodes again.
  restoreDrilled(keys) {
    if (!this.drilled || !this.drilled.size) return false;
    const g = this.graph;
    const back = keys.filter((k) => this.drilled.has(k));
    const slices = keys.filter((k) => !this.drilled.has(k) && this.homes.has(k));
    for (const k of slices) g.mergeNodeAttributes(k, this.homes.get(k));
    if (!back.length) return slices.length > 0;
    const targets = new Map();
    for (const k of back) {
      const open = this.drilled.get(k);
      this.drilled.delete(k);
      g.mergeNodeAttributes(k, open.home);
      for (const [m, [dx, dy]] of open.moves) {
        if (!g.hasNode(m)) continue;
        const from = targets.get(m) || g.getNodeAttributes(m);
        targets.set(m, { x: from.x - dx, y: from.y - dy });
      }
    }
    this.glide(targets, () => {
      if (!this.drilled.size && this.renderer) this.renderer.setCustomBBox(null);
    });
    return true;
  },

  // Nodes glide to `targets` (key -> {x, y}) in GLIDE_MS; `then` runs at the end.
  glide(targets, then) {
    const g = this.graph;
    const start = new Map();
    for (const [k, p] of targets) if (g.hasNode(k)) start.set(k, { ...g.getNodeAttributes(k), to: p });
    const done = () => {
      for (const [k, s] of start) if (g.hasNode(k)) g.mergeNodeAttributes(k, { x: s.to.x, y: s.to.y });

      if (then) then();
    };
    if (!this.renderer || !start.size || typeof requestAnimationFrame !== "function") return done();
    const t0 = performance.now(), graph = g;
    const frame = () => {
      if (this.graph !== graph) return;
      const t = Math.min(1, (performance.now() - t0) / GLIDE_MS);
      if (t >= 1) return done();
      const e = t * t * (3 - 2 * t);
      for (const [k, s] of start) if (g.hasNode(k)) g.mergeNodeAttributes(k, { x: s.x + (s.to.x - s.x) * e, y: s.y + (s.to.y - s.y) * e });
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  },

  placeLoose(keys, step) {
    const g = this.graph;
    const set = new Set(keys);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity;
    g.forEachNode((k, a) => {
      if (set.has(k)) return;
      x0 = Math.min(x0, a.x); x1 = Math.max(x1, a.x); y0 = Math.min(y0, a.y);
    });
    if (!Number.isFinite(x0)) { x0 = 0; x1 = 0; y0 = 0; }
    const gap = Math.max(step, 1e-6);
    const perRow = Math.max(1, Math.floor((x1 - x0) / gap) + 1);
    keys.forEach((key, i) => {
      const col = i % perRow, row = Math.floor(i / perRow);
      g.mergeNodeAttributes(key, { x: Math.fround(x0 + col * gap), y: Math.fround(y0 - gap * (1 + row)) });
    });
  },

  graphCentre() {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    this.graph.forEachNode((k, a) => {
      if (a.x < x0) x0 = a.x;
      if (a.x > x1) x1 = a.x;
      if (a.y < y0) y0 = a.y;
      if (a.y > y1) y1 = a.y;
    });
    if (!Number.isFinite(x0)) return { x: 0, y: 0 };
    return { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
  },

  typicalEdgeLength() {
    const g = this.graph;
    const lens = [];
    let i = 0;
    g.forEachEdge((k, a, s, t, sa, ta) => {
      if (i++ > 400) return;
      const d = Math.hypot(sa.x - ta.x, sa.y - ta.y);
      if (d > 0) lens.push(d);
    });
    if (!lens.length) return SPACING * 3;
    lens.sort((a, b) => a - b);
    return lens[lens.length >> 1];
  },

  removeIds(ids) {
    const g = this.graph;
    const nodes = [];
    for (const k of ids) {
      if (g.hasNode(k)) nodes.push(k);
      else if (g.hasEdge(k)) g.dropEdge(k);
    }
    const touched = new Set();
    if (nodes.length) this.ui.hideTip(); // the hovered node may be one of them (a drilled super-node)
    for (const k of ids) if (this.ed.has(k) && !g.hasEdge(k)) this.ed.delete(k);
    for (const k of nodes) {
      g.forEachNeighbor(k, (m) => touched.add(m));
      g.forEachEdge(k, (e) => this.ed.delete(e));
      g.dropNode(k);
      this.nd.delete(k);
      if (this.discs) {
        this.discs.delete(k);
        this.discCount.delete(k);
      }
      if (this.drillRoot) this.drillRoot.delete(k);
      if (this.rings) this.rings.delete(k);
      this.hidden.delete(k);
    }
    for (const k of nodes) touched.delete(k);
    // degrees changed for neighbours
    for (const k of touched) {
      if (g.hasNode(k)) {
        this.nd.get(k).deg = g.degree(k);
        g.updateNodeAttributes(k, (a) => this.styleNode(k, a));
      }
    }
    const sel = [...this.selected].filter((k) => g.hasNode(k));
    if (sel.length !== this.selected.size) this.setSelection(sel, true);
    if (this.selectedEdge && !g.hasEdge(this.selectedEdge)) {
      this.selectedEdge = null;
      this.ui.showInfo(null);
    }
  },

  highlight(ids, only) {
    const g = this.graph;
    const want = new Set(ids);
    const nodes = [], edges = [];
    if (only) {
      for (const [k, d] of this.nd) if (d.h !== (want.has(k) ? 1 : 0)) nodes.push([k, want.has(k) ? 1 : 0]);
      for (const [k, d] of this.ed) if (d.h !== (want.has(k) ? 1 : 0)) edges.push([k, want.has(k) ? 1 : 0]);
    } else {
      for (const k of want) {
        if (this.nd.has(k)) nodes.push([k, 1]);
        else if (this.ed.has(k)) edges.push([k, 1]);
      }
    }
    for (const [k, h] of nodes) this.nd.get(k).h = h;
    for (const [k, h] of edges) this.ed.get(k).h = h;
    const allBefore = this.hlCount >= this.nd.size && this.ehlCount >= this.ed.size;
    this.countHighlights();
    const allNow = this.hlCount >= this.nd.size && this.ehlCount >= this.ed.size;
    if (nodes.length > 200 || edges.length > 200 || allBefore !== allNow) this.restyleAll();
    else {
      this.restyleNodes(nodes.map((x) => x[0]));
      this.restyleEdges(edges.map((x) => x[0]));
    }
  },

  // Refit only when a drawn node ended up outside the canvas.
  keepInView() {
    if (!this.renderer) return;
    if (this.hooks.nodesInView() < this.hooks.nodesDrawn()) this.fit();
  },
};
