// An opened group's room: a faint disc in the group's colour behind what a drill opened (drill.js), so the groups
// and members that came out of one super-node read as one place at full view, at every level (a room opened inside
// a room), under the relationships. A room goes when nothing it opened is drawn any more (Collapse, Undo, a new
// drawing); a later slice of the same group ("N more" drilled) widens its room.
import { MORE } from "./groupcaptions.js";
import { internals } from "./spare.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {import("./spare.js").Renderer} Renderer */
/** @typedef {{x: number, y: number, r: number, keys: Set<string>, colour: string}} Room  its disc in graph units */

export const LAYER = "gestaltRooms"; // its layer, under sigma's "edges"
export const FILL = 0.1; // the room's fill, as an opacity of its group's colour
export const EDGE = 0.6; // its rim's
export const RIM = 1.5; // its rim's width (px)

export class Rooms {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
    /** @type {Map<string, Room>} by the super-node opened */
    this.open = new Map();
  }

  // A drill opened `keys` from `anchor` into the disc (graph units); an "N more" anchor widens the room it is in.
  /**
   * @param {string} anchor
   * @param {{x: number, y: number, r: number}} disc
   * @param {string[]} keys
   * @param {string | undefined} colour  the super-node's colour as drawn
   */
  opened(anchor, disc, keys, colour) {
    for (const room of this.open.values()) {
      if (!room.keys.has(anchor)) continue;
      if (!MORE.test(String((this.view.nd.get(anchor) || {}).c || ""))) break; // a sub-group: a room inside
      for (const k of keys) room.keys.add(k);
      room.r = Math.max(room.r, Math.hypot(disc.x - room.x, disc.y - room.y) + disc.r);
      return;
    }
    this.open.set(anchor, { ...disc, keys: new Set(keys), colour: colour || this.view.theme.muted });
  }

  /** @param {string} key @returns {boolean} whether anything the room opened from `key` is still drawn */
  alive(key) {
    const room = this.open.get(key), g = this.view.graph;
    if (!room || !g) return false;
    for (const k of room.keys) if (g.hasNode(k) || (k !== key && this.open.has(k) && this.alive(k))) return true;
    return false;
  }

  // The rooms on screen, biggest first (drawn in that order; hooks.rooms), each {key, x, y, r} in px.
  /** @param {Renderer} r */
  onScreen(r) {
    for (const key of [...this.open.keys()]) if (!this.alive(key)) this.open.delete(key);
    return [...this.open].map(([key, room]) => {
      const c = r.graphToViewport(room), e = r.graphToViewport({ x: room.x + room.r, y: room.y });
      return { key, x: c.x, y: c.y, r: Math.hypot(e.x - c.x, e.y - c.y), colour: room.colour };
    }).sort((a, b) => b.r - a.r);
  }

  // After each frame: the rooms on their own layer under the relationships (made the first time one is open).
  /** @param {Renderer} r */
  draw(r) {
    const contexts = internals(r).canvasContexts;
    if (!this.open.size && !contexts[LAYER]) return;
    if (!contexts[LAYER]) {
      const canvas = r.createCanvas(LAYER, { beforeLayer: "edges" }); // (createCanvasContext's type has no beforeLayer)
      contexts[LAYER] = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
      r.resize(true); // sigma sizes its canvas layers (and their pixel ratio) when it resizes
    }
    const ctx = contexts[LAYER], { width, height } = r.getDimensions();
    ctx.clearRect(0, 0, width, height);
    for (const room of this.onScreen(r)) {
      ctx.beginPath();
      ctx.arc(room.x, room.y, room.r, 0, 2 * Math.PI);
      ctx.fillStyle = room.colour;
      ctx.globalAlpha = FILL;
      ctx.fill();
      ctx.strokeStyle = room.colour;
      ctx.globalAlpha = EDGE;
      ctx.lineWidth = RIM;
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }
}
