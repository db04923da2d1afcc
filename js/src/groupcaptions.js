// An overview group's caption: how it is shortened (its identifying head and its count never the part cut) and the
// spots around its disc it may take (all next to that disc). Used by captions.js.

// A count in 2-3 figures: 47,972 -> "48k", 3,185 -> "3.2k", 1,204,330 -> "1.2M".
/** @param {number} n */
function compactCount(n) {
  if (n < 1000) return String(n);
  const [d, u] = n < 1e6 ? [1e3, "k"] : [1e6, "M"];
  const v = n / d;
  return (v < 10 ? String(Math.round(v * 10) / 10) : String(Math.round(v))) + u;
}

// An overview group's caption ("Person ×47,972") shortened where room is short, its identifying head (the name
// before " ×", up to its first ", ") and its count never cut: first the count is written short ("Person ×48k"),
// then whole trailing parts of a list of members go ("Ada Berg, Cy Fox ×3k" -> "Ada Berg… ×3k"); then unchanged
// (where even that has no room the caption is left out; hover and the panel show it).
// A drilled group's "N more" (the members not drawn yet, as one node): its caption's shape.
export const MORE = /^([\d,.]+[kM]?) more$/;

/** @param {string} label */
export function cutGroup(label) {
  const count = /\s?×([\d,.]+[kM]?)$/.exec(label);
  const head = count ? label.slice(0, count.index) : label, tail = count ? " ×" + count[1] : "";
  if (count && !head) return label;
  if (count && count[1].includes(",")) return head + " ×" + compactCount(Number(count[1].replace(/,/g, "")));
  const more = MORE.exec(label);
  if (more && more[1].includes(",")) return compactCount(Number(more[1].replace(/,/g, ""))) + " more";
  if (more) return label;
  const list = head.replace(/…$/, "").split(", ");
  return list.length > 1 ? list.slice(0, -1).join(", ") + "…" + tail : label;
}

// The shortest a group's caption is ever written ("Ada Berg, Cy Fox ×3,185" -> "Ada Berg… ×3.2k").
/** @param {string} label */
export function shortestGroup(label) {
  for (let shorter = cutGroup(label); shorter !== label; shorter = cutGroup(label)) label = shorter;
  return label;
}

// More spots for an overview's group (long captions, long neighbours): beside its disc from level with its centre to
// level with its rim, below and above from centred to flush with its rim, then a line further off: all next to its
// own disc. [x, y, preference]: lower is better, always under 30 (a covered disc's cost).
/**
 * @param {{x: number, y: number, size: number}} d  the disc (viewport px)
 * @param {number} w  the caption's width
 * @param {number} h  its height
 * @param {number} gap
 * @returns {number[][]}
 */
export function aroundGroup(d, w, h, gap) {
  const r = d.size, out = [];
  for (const far of [0, h + 2]) {
    for (const t of far ? [0.5, -0.5, 0] : [0.5, -0.5, 1, -1, 0]) {
      const y = d.y - h / 2 + t * (h / 2 + r), pref = 3 * Math.abs(t) + (far ? 6 : 0);
      out.push([d.x + r + gap + far, y, pref], [d.x - r - gap - far - w, y, pref + 2]);
    }
    for (const f of [0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 1, -1, 0]) {
      const x = d.x - w / 2 + f * (w / 2 + r), pref = 1 + 3 * Math.abs(f) + (far ? 6 : 0);
      out.push([x, d.y + r + 2 + far, pref], [x, d.y - r - 2 - h - far, pref + 2]);
    }
  }
  return out;
}

// A group's caption held to `n` characters as a node's is (style.js), its head's end cut before its count:
// "test 100% · test.test_import.data.package2.submodule1 ×2" -> "test 100% · test.test_import.data.packa… ×2".
/** @param {string} label @param {number} n */
export function clipGroup(label, n) {
  for (let shorter = cutGroup(label); label.length > n && shorter !== label; shorter = cutGroup(label)) label = shorter;
  const count = /\s×[\d,.]+[kM]?$/.exec(label);
  if (label.length <= n || !count) return label.length <= n ? label : label.slice(0, n - 1) + "…";
  return label.slice(0, Math.max(1, n - count[0].length - 1)).replace(/…$/, "") + "…" + count[0];
}
