// An overview's group opened in place (a drill) and folded back (Collapse, Undo), keeping the map.
import { MEMBER_SIZE } from "./encode.js";
import { MORE, clipGroup, shortestGroup } from "./groupcaptions.js";
import { CAPTIONED, captionWidth, roomOf, roomyDisc } from "./openroom.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {{x: number, y: number}} Point */
/** @typedef {{home: Point, moves: Map<string, [number, number]>, disc?: {x: number, y: number, r: number}}} Open  a group open on the canvas: its super-node's spot, what its drills pushed (graph units), its last disc */
/** @typedef {{k: string, x: number, y: number, rad: number, d: number}} Other  another node, on screen: its distance from the disc's centre */
/** @typedef {{o: Other, x: number, y: number}} Move  where another node is pushed to, on screen */

// a drilled group's members: spacing, as a share of a typical relationship's length (no renderer to measure with)
const DISC_GAP = 0.07;
const GOLDEN = Math.PI * (3 - Math.sqrt(5));
const PUSH_MAX = 0.09; // the most a drill moves another node, as a share of the canvas's longer side
const GLIDE_MS = 350; // how long pushed nodes take to glide aside (and back)
const PAD = 6; // px between the disc and what it pushes aside
const CAPTION_LINE = 16; // px: a caption's height (captions.js: labelSize + 2) and a little

export class Drill {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
  }

  // A drilled group opens where its super-node was: its members fill a disc around that spot (the most connected
  // innermost; a sunflower, even at any count), ringing its "N more" at the centre; the next slice (drilling
  // "N more") rings the members already there. The disc is sized in screen pixels for the dots it holds; every
  // other node is pushed out of it along its ray from the centre (a smooth push fading with distance, at most
  // PUSH_MAX of the canvas, the disc smaller where that is not enough), and glides there. The drawing's frame is
  // held (no rescale while a group is open), and what moved is kept so that the group's collapse puts
  // everything back (restoreDrilled).
  /**
   * @param {string[]} keys
   * @param {string} anchor
   * @param {number} step
   */
  placeWithin(keys, anchor, step) {
    const g = this.view.graph, r = this.view.renderer;
    const c = /** @type {Point} */ (g.getNodeAttributes(anchor));
    const isMore = (/** @type {string} */ k) => this.isGroup(k) && MORE.test(String(this.view.nd.get(k).c || "")); // the rest, at the centre
    // members (most connected first) ring by ring from the centre; sub-groups smallest first, so that the biggest
    // take the outer ring, their captions (placed first: captions.js groupSpots) facing out of the disc
    const members = keys.filter((k) => this.isGroup(k) && !isMore(k)).sort((a, b) => this.groupSize(a) - this.groupSize(b))
      .concat(keys.filter((k) => !this.isGroup(k)).sort((a, b) => g.degree(b) - g.degree(a)));
    const centred = keys.filter(isMore);
    this.view.lastOpened = new Set(keys);
    const dims = r ? r.getDimensions() : null;
    if (!r || !dims || !dims.width || !dims.height || !r.getNodeDisplayData(anchor)) return this.placeDisc(members, centred, anchor, c, step);
    const drilled = this.view.drilled || (this.view.drilled = new Map());
    const roots = this.view.drillRoot || (this.view.drillRoot = new Map());
    const root = roots.get(anchor) || anchor;
    if (!drilled.has(root)) {
      if (!drilled.size && !r.getCustomBBox()) r.setCustomBBox(r.getBBox()); // hold the frame: no rescale
      drilled.set(root, { home: { x: c.x, y: c.y }, moves: new Map() });
    }
    const open = /** @type {Open} */ (drilled.get(root));
    // the slices of one group ("N more" drilled again) ring each other: none pushes the ones before it
    const rings = this.view.rings || (this.view.rings = new Map());
    const ring = rings.get(anchor) || new Set();
    for (const k of keys) ring.add(k);
    (this.view.homes || (this.view.homes = new Map())).set(anchor, { x: c.x, y: c.y }); // an "N more" undone comes back here
    const disc = this.discFor(anchor, c, members, centred.length > 0);
    const [cx, cy, moves] = this.pushAside(anchor, ring, disc, dims);
    const targets = this.ringTargets(members, disc, cx, cy);
    const home = r.viewportToGraph({ x: cx, y: cy });
    const discs = this.view.discs || (this.view.discs = new Map()), counts = this.view.discCount || (this.view.discCount = new Map());
    for (const k of centred) {
      targets.set(k, home);
      discs.set(k, disc.outer / disc.unit);
      counts.set(k, (counts.get(anchor) || 0) + members.length);
      rings.set(k, ring);
    }
    for (const k of keys) if (this.isGroup(k)) roots.set(k, root); // its "N more" and sub-groups fold back with it
    const slot = this.view.nd.get(anchor).k; // coloured by group: its members take its colour (encode.js)
    for (const k of keys) if (!this.isGroup(k) && this.view.nd.has(k)) this.view.nd.get(k).k = slot;
    open.disc = { x: home.x, y: home.y, r: disc.outer / disc.unit }; // the last disc opened in it (tests: hooks.openDiscs)
    this.view.rooms.opened(anchor, open.disc, keys, /** @type {{color?: string}} */ (r.getNodeDisplayData(anchor)).color);
    for (const m of moves) {
      if (Math.hypot(m.x - m.o.x, m.y - m.o.y) < 0.01) continue;
      const from = /** @type {Point} */ (g.getNodeAttributes(m.o.k)), to = r.viewportToGraph({ x: m.x, y: m.y });
      targets.set(m.o.k, to);
      const was = open.moves.get(m.o.k) || [0, 0];
      open.moves.set(m.o.k, [was[0] + to.x - from.x, was[1] + to.y - from.y]);
    }
    for (const k of keys) g.mergeNodeAttributes(k, { x: c.x, y: c.y }); // they come out of the super-node
    this.glide(targets);
  }

  /**
   * @param {string} k
   * @private
   */
  isGroup(k) {
    return this.view.nd.has(k) && !!this.view.nd.get(k).g;
  }

  /**
   * @param {string} k
   * @private
   */
  groupSize(k) {
    return Number((this.view.nd.get(k).p || {}).nodes) || 1;
  }

  // The disc, in screen pixels: each item's room (a member dot's pitch, a sub-group's disc as encode.js draws it
  // on the overview's fixed area scale), the inner radius (the rest's disc, or the rings drawn so far), the outer.
  /**
   * @param {string} anchor
   * @param {Point} c
   * @param {string[]} members
   * @param {boolean} centred  an "N more" sits at the centre
   * @private
   */
  discFor(anchor, c, members, centred) {
    const r = /** @type {import("./spare.js").Renderer} */ (this.view.renderer);
    const vp = (/** @type {Point} */ p) => r.graphToViewport(p);
    const at = vp(c), east = vp({ x: c.x + 1, y: c.y });
    const dot = r.scaleSize(this.view.baseSize * 1.2 * MEMBER_SIZE);
    const pitch = 2 * dot + 4;
    const known = this.view.discs ? this.view.discs.get(anchor) : undefined; // a later slice: ring the members drawn so far
    const unit = Math.hypot(east.x - at.x, east.y - at.y) || 1; // px per graph unit
    const hi = this.view.areaScale ? this.view.areaScale.hi : 0;
    // the biggest groups opened keep room for their captions, whole, beside them (openroom.js); the others a line each
    const captioned = new Set(members.filter((k) => this.isGroup(k)).sort((a, b) => this.groupSize(b) - this.groupSize(a)).slice(0, CAPTIONED));
    const items = members.map((k) => {
      if (!this.isGroup(k) || !hi) return { rad: dot, w: 0 };
      const rad = r.scaleSize(this.view.baseSize * 1.2 * Math.max(0.3, 3 * Math.sqrt(this.groupSize(k) / hi)));
      if (!captioned.has(k)) return { rad, w: 0 };
      const label = clipGroup(String(this.view.nd.get(k).c || ""), 48), font = this.view.theme.font;
      return { rad, w: captionWidth(label, font), short: captionWidth(shortestGroup(label), font) };
    });
    const room = items.map((it) => (it.w ? roomOf(it, pitch) : it.rad === dot ? pitch * pitch : (2 * it.rad + 4 + CAPTION_LINE) ** 2));
    const total = room.reduce((a, b) => a + b, 0);
    const size = r.scaleSize(/** @type {{size: number}} */ (r.getNodeDisplayData(anchor)).size);
    const inner = known !== undefined ? known * unit + pitch / 2 : centred ? size * 0.6 + pitch / 2 : 0;
    const outer = Math.max(size, Math.sqrt(inner * inner + (1.15 * total) / Math.PI));
    return { at, unit, pitch, room, total, inner, outer, fresh: known === undefined && centred, items, left: 0 };
  }

  // The push each other node needs to clear the disc, capped at PUSH_MAX of the canvas; where the cap cannot
  // give it, the disc shrinks. Returns the disc's centre on screen (kept inside the canvas when it can be) and the moves.
  /**
   * @param {string} anchor
   * @param {Set<string>} ring  the group's own items
   * @param {ReturnType<Drill["discFor"]>} disc  (its outer and inner radius may shrink)
   * @param {{width: number, height: number}} dims
   * @returns {[number, number, Move[]]}
   * @private
   */
  pushAside(anchor, ring, disc, dims) {
    const r = /** @type {import("./spare.js").Renderer} */ (this.view.renderer);
    let outer = disc.outer;
    const cx = dims.width > 2 * (outer + PAD) ? Math.min(Math.max(disc.at.x, outer + PAD), dims.width - outer - PAD) : disc.at.x;
    const cy = dims.height > 2 * (outer + PAD) ? Math.min(Math.max(disc.at.y, outer + PAD), dims.height - outer - PAD) : disc.at.y;
    const cap = PUSH_MAX * Math.max(dims.width, dims.height);
    /** @type {Other[]} */
    const others = [];
    this.view.graph.forEachNode((k, a) => {
      if (k === anchor || ring.has(k) || this.view.filters.isHiddenNode(k) || !r.getNodeDisplayData(k)) return; // not its own members
      const p = r.graphToViewport(/** @type {Point} */ (a));
      others.push({ k, x: p.x, y: p.y, rad: r.scaleSize(/** @type {{size: number}} */ (r.getNodeDisplayData(k)).size), d: Math.hypot(p.x - cx, p.y - cy) });
    });
    /** @type {Move[]} */
    let moves = [];
    for (let round = 0; round < 6; round++) {
      const need = others.map((o) => Math.max(0, outer + o.rad + PAD - o.d));
      const most = Math.min(cap, Math.max(0, ...need));
      const fade = 2.5 * most + 1;
      moves = others.map((o, i) => {
        const push = Math.min(cap, Math.max(need[i], most * Math.max(0, 1 - Math.max(0, o.d - outer - o.rad) / fade)));
        const ux = o.d > 1e-6 ? (o.x - cx) / o.d : Math.cos(i), uy = o.d > 1e-6 ? (o.y - cy) / o.d : Math.sin(i);
        const x = Math.min(Math.max(o.x + ux * push, o.rad + 2), Math.max(o.rad + 2, dims.width - o.rad - 2)); // not off the canvas
        const y = Math.min(Math.max(o.y + uy * push, o.rad + 2), Math.max(o.rad + 2, dims.height - o.rad - 2));
        return { o, x, y };
      });
      const short = Math.max(0, ...moves.map((m) => outer + m.o.rad + PAD - Math.hypot(m.x - cx, m.y - cy)));
      if (short <= 0.5 || outer <= disc.inner + disc.pitch) break;
      outer = Math.max(disc.inner + disc.pitch, outer - short);
    }
    disc.outer = outer;
    if (disc.fresh) disc.inner = Math.min(disc.inner, outer * 0.6);
    return [cx, cy, moves];
  }

  // Each item's spot in graph units: the biggest groups with room for their captions, the rest evenly around them
  // (openroom.js); `disc.left` counts the groups whose captions found no room.
  /**
   * @param {string[]} members
   * @param {ReturnType<Drill["discFor"]>} disc
   * @param {number} cx
   * @param {number} cy
   * @returns {Map<string, Point>}
   * @private
   */
  ringTargets(members, disc, cx, cy) {
    const r = /** @type {import("./spare.js").Renderer} */ (this.view.renderer);
    /** @type {Map<string, Point>} */
    const targets = new Map();
    const { spots, left } = roomyDisc(disc.items, cx, cy, disc.inner, disc.outer);
    disc.left = left.length;
    members.forEach((k, i) => targets.set(k, r.viewportToGraph({ x: spots[i][0], y: spots[i][1] })));
    return targets;
  }

  // the placement in graph units (no renderer to measure with): a disc in the room around the spot
  /**
   * @param {string[]} members
   * @param {string[]} centred
   * @param {string} anchor
   * @param {Point} c
   * @param {number} step
   * @private
   */
  placeDisc(members, centred, anchor, c, step) {
    const g = this.view.graph;
    const discs = this.view.discs || (this.view.discs = new Map()), counts = this.view.discCount || (this.view.discCount = new Map());
    let r0 = discs.get(anchor), r1;
    if (r0 === undefined) {
      let nearest = Infinity;
      const fresh = new Set([...members, ...centred]);
      g.forEachNode((k, a) => {
        if (k !== anchor && !fresh.has(k)) nearest = Math.min(nearest, Math.hypot(a.x - c.x, a.y - c.y));
      });
      const packed = Math.max(step, 1e-6) * DISC_GAP * Math.sqrt(members.length / Math.PI);
      r1 = Math.max(Number.isFinite(nearest) ? nearest * 0.45 : 0, packed) * 1.1;
      r0 = r1 * 0.15;
    } else r1 = Math.sqrt(r0 * r0 * (1 + members.length / Math.max(counts.get(anchor) || 1, 1)));
    const inner = r0;
    members.forEach((k, i) => {
      const rho = Math.sqrt(inner * inner + (r1 * r1 - inner * inner) * ((i + 0.5) / members.length));
      g.mergeNodeAttributes(k, { x: Math.fround(c.x + rho * Math.cos(i * GOLDEN)), y: Math.fround(c.y + rho * Math.sin(i * GOLDEN)) });
    });
    for (const k of centred) {
      g.mergeNodeAttributes(k, { x: c.x, y: c.y });
      discs.set(k, r1);
      counts.set(k, (counts.get(anchor) || 0) + members.length);
    }
  }

  // A super-node coming back (Collapse, Undo): to its own spot, and what its drill pushed aside back to
  // where it was; once no group is open the drawing's frame follows the nodes again.
  /**
   * @param {string[]} keys
   * @returns {boolean}  whether anything came back to a kept spot
   */
  restoreDrilled(keys) {
    const drilled = this.view.drilled;
    if (!drilled || !drilled.size) return false;
    const g = this.view.graph, homes = this.view.homes || new Map();
    const back = keys.filter((k) => drilled.has(k));
    const slices = keys.filter((k) => !drilled.has(k) && homes.has(k));
    for (const k of slices) g.mergeNodeAttributes(k, homes.get(k));
    if (!back.length) return slices.length > 0;
    /** @type {Map<string, Point>} */
    const targets = new Map();
    for (const k of back) {
      const open = /** @type {Open} */ (drilled.get(k));
      drilled.delete(k);
      g.mergeNodeAttributes(k, open.home);
      for (const [m, [dx, dy]] of open.moves) {
        if (!g.hasNode(m)) continue;
        const from = targets.get(m) || /** @type {Point} */ (g.getNodeAttributes(m));
        targets.set(m, { x: from.x - dx, y: from.y - dy });
      }
    }
    this.glide(targets, () => {
      if (!drilled.size && this.view.renderer) this.view.renderer.setCustomBBox(null);
    });
    return true;
  }

  // Nodes glide to `targets` (key -> {x, y}) in GLIDE_MS; `then` runs at the end.
  /**
   * @param {Map<string, Point>} targets
   * @param {() => void} [then]
   * @private
   */
  glide(targets, then) {
    const g = this.view.graph;
    /** @type {Map<string, Point & {to: Point}>} */
    const start = new Map();
    for (const [k, p] of targets) if (g.hasNode(k)) start.set(k, { .../** @type {Point} */ (g.getNodeAttributes(k)), to: p });
    const done = () => {
      for (const [k, s] of start) if (g.hasNode(k)) g.mergeNodeAttributes(k, { x: s.to.x, y: s.to.y });
      if (then) then();
    };
    if (!this.view.renderer || !start.size || typeof requestAnimationFrame !== "function") return done();
    const t0 = performance.now(), graph = g;
    const frame = () => {
      if (this.view.graph !== graph) return;
      const t = Math.min(1, (performance.now() - t0) / GLIDE_MS);
      if (t >= 1) return done();
      const e = t * t * (3 - 2 * t);
      for (const [k, s] of start) if (g.hasNode(k)) g.mergeNodeAttributes(k, { x: s.x + (s.to.x - s.x) * e, y: s.y + (s.to.y - s.y) * e });
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }
}
