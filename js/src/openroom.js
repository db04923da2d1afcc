// An opened level laid out with room for its captions: the biggest groups a drill opens (those captions.js captions
// first) each keep a box beside their disc, to its right, where their caption goes whole: inside the opened disc and
// clear of every other disc of that level. The rest fill the disc around the boxes (drill.js).

const GOLDEN = Math.PI * (3 - Math.sqrt(5));
export const CAPTIONED = 6; // the biggest groups of an opened level whose captions get room (and are placed first)
const GAP = 3; // captions.js placeLabel: px between a disc and its caption
const LINE = 14; // a caption's height (labelSize 12, and a pixel above and below)

/** @typedef {[number, number, number, number]} Box  x0, y0, x1, y1 (viewport px) */
/** @typedef {{rad: number, w: number, short?: number}} Item  a disc's radius; its caption's width (0: no room kept), and at its shortest */

/** @type {CanvasRenderingContext2D | null} */
let measurer = null;

// A group's caption's width as captions.js draws it (bold, 12 px).
/** @param {string} text @param {string} font */
export function captionWidth(text, font) {
  if (!measurer && typeof document !== "undefined") measurer = document.createElement("canvas").getContext("2d");
  if (!measurer) return text.length * 7.5;
  measurer.font = `600 12px ${font}`;
  return measurer.measureText(text).width;
}

// The room an item with its caption takes (px²), for sizing the disc.
/** @param {Item} item @param {number} pitch  room between discs */
export function roomOf(item, pitch) {
  if (!item.w) return pitch * pitch;
  const b = boxAt(0, 0, item.rad, item.w);
  return 1.35 * (b[2] - b[0] + 4) * (b[3] - b[1] + 6);
}

/** @param {number} x @param {number} y @param {number} rad @param {number} w @returns {Box} */
function boxAt(x, y, rad, w) {
  const half = Math.max(rad, LINE / 2) + 2;
  return [x - rad - 2, y - half, x + rad + GAP + w + 3, y + half];
}

/** @param {Box} a @param {Box} b */
const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/** @param {Box} b @param {number} cx @param {number} cy @param {number} r */
const inside = (b, cx, cy, r) => [[b[0], b[1]], [b[2], b[1]], [b[0], b[3]], [b[2], b[3]]].every(([x, y]) => Math.hypot(x - cx, y - cy) <= r);

// n points evenly over the ring inner..outer (a sunflower), innermost first.
/** @param {number} n @param {number} cx @param {number} cy @param {number} inner @param {number} outer @returns {number[][]} */
function sunflower(n, cx, cy, inner, outer) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const rho = Math.sqrt(inner * inner + (outer * outer - inner * inner) * ((i + 0.5) / n));
    out.push([cx + rho * Math.cos(i * GOLDEN), cy + rho * Math.sin(i * GOLDEN)]);
  }
  return out;
}

// Spots (px) for `items` in the disc around (cx, cy): those with a caption width first, in their order, each where its
// box lies inside the disc and clear of the boxes before it (outermost spots first: the small ones fill the middle);
// then the rest evenly over the disc, off the boxes. `left`: the items that wanted room and found none.
/**
 * @param {Item[]} items
 * @param {number} cx
 * @param {number} cy
 * @param {number} inner
 * @param {number} outer
 * @returns {{spots: number[][], left: number[]}}
 */
export function roomyDisc(items, cx, cy, inner, outer) {
  /** @type {number[][]} */
  const spots = new Array(items.length);
  /** @type {Box[]} */
  const boxes = [];
  /** @type {number[]} */
  const left = [], rest = [];
  const tries = sunflower(400, cx, cy, inner, outer - 1).reverse();
  const biggest = items.map((_, i) => i).sort((a, b) => items[b].rad - items[a].rad || a - b);
  for (const i of biggest) if (!items[i].w) rest.push(i);
  for (const i of biggest) {
    const item = items[i];
    if (!item.w) continue;
    let w = item.w, at;
    for (const width of [item.w, item.short || item.w]) {
      w = width; // the caption whole, else at its shortest ("Ada Berg… ×3.2k")
      at = tries.find(([x, y]) => {
        const b = boxAt(x, y, item.rad, w);
        return inside(b, cx, cy, outer - 1) && !boxes.some((o) => overlaps(o, b));
      });
      if (at) break;
    }
    if (!at) {
      left.push(i), rest.push(i);
      continue;
    }
    boxes.push(boxAt(at[0], at[1], item.rad, w));
    spots[i] = at;
  }
  rest.sort((a, b) => a - b); // in their own order: the smallest groups innermost
  const free = (/** @type {number[]} */ p, /** @type {number} */ rad) => !boxes.some((b) => overlaps(b, [p[0] - rad - 1, p[1] - rad - 1, p[0] + rad + 1, p[1] + rad + 1]));
  const rad = Math.max(0, ...rest.map((i) => items[i].rad));
  let points = sunflower(rest.length, cx, cy, inner, outer);
  for (let n = rest.length; n && n < 40 * rest.length; n = Math.ceil(n * 1.25) + 1) {
    points = sunflower(n, cx, cy, inner, outer).filter((p) => free(p, rad));
    if (points.length >= rest.length) break;
  }
  // the free points, spread over all of them (not the innermost only)
  rest.forEach((i, j) => (spots[i] = points[Math.floor((j * points.length) / Math.max(1, rest.length))] || [cx, cy]));
  return { spots, left };
}
