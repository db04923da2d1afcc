// The time slider of a drawing with history (canvas/timeline.py sends its moments in `tl`): one moment shown at a
// time. Every node and relationship of every moment is in the graph, laid out once, so nothing moves; a step is a
// delta applied in place: what is not there at the new moment is hidden (view.absent), what was there at the moment
// shown before and went is a ghost for this step (faded), what appeared or changed is ringed, and changed properties
// are listed old → new in the panel. The moment shown is written on the canvas. Text only (textContent).
import { h } from "./ui.js";

/** @typedef {import("./view.js").CanvasView} View */
/** @typedef {import("./payload.js").TimelineSpec} TimelineSpec */
/** @typedef {{frame: number, ms: number}} StepTime  how long a step took, from the click to sigma's next frame drawn */

const CSS = `.gc-time{display:flex;align-items:center;gap:6px;padding:3px 8px;font-size:12px;border-bottom:1px solid var(--jp-border-color2,#e0e0e0);flex-wrap:wrap}
.gc-time button{font:inherit;padding:0 6px;min-width:26px}
.gc-time input[type=range]{flex:1 1 160px;min-width:100px}
.gc-time .gc-axis{color:var(--jp-ui-font-color2,#666)}
.gc-moment{position:absolute;left:8px;top:6px;z-index:2;pointer-events:none;font-size:15px;font-weight:600;padding:2px 6px;border-radius:3px;
background:color-mix(in srgb,var(--jp-layout-color0,#fff) 82%,transparent);color:var(--jp-ui-font-color0,#111)}`;
const PLAY_MS = 1200;

/**
 * @param {Record<string, unknown> | null} old
 * @param {Record<string, unknown> | null} now
 * @returns {import("./payload.js").Changes | null}  {name: [before, after]} for each property that differs
 */
function changedProps(old, now) {
  /** @type {import("./payload.js").Changes} */
  const out = {};
  let any = false;
  const a = old || {}, b = now || {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[k] === undefined ? null : a[k], y = b[k] === undefined ? null : b[k];
    if (JSON.stringify(x) !== JSON.stringify(y)) {
      out[k] = [x, y];
      any = true;
    }
  }
  return any ? out : null;
}

export class Timeline {
  /** @param {View} view  the view: the state this part reads and sets, and its other parts */
  constructor(view) {
    this.view = view;
    /** @type {TimelineSpec | null} */
    this.spec = null;
    this.at = -1; // the frame shown (-1: none yet)
    /** @type {{nodes: Set<string>, edges: Set<string>} | null} */
    this.present = null;
    /** @type {Map<string, number>} */
    this.index = new Map(); // node key -> its position in the payload's node list
    /** @type {Map<string, Record<string, unknown> | null>} */
    this.base = new Map(); // node key -> the drawing's own properties
    /** @type {HTMLElement | null} */
    this.bar = null;
    /** @type {HTMLElement | null} */
    this.label = null;
    /** @type {{valid: HTMLInputElement, known: HTMLInputElement | null, play: HTMLButtonElement, text: HTMLElement} | null} */
    this.controls = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.timer = undefined;
    /** @type {StepTime[]} */
    this.steps = [];
  }

  // A new drawing (view.build, before its renderer is made): its slider, showing the first moment, or none.
  /** @param {TimelineSpec | null} spec */
  start(spec) {
    this.stop();
    if (this.bar) this.bar.remove();
    if (this.label) this.label.remove();
    this.bar = this.label = this.controls = null;
    this.spec = spec && spec.f.length && spec.valid.length ? spec : null;
    this.at = -1;
    this.present = null;
    this.view.absent = undefined;
    if (!this.spec) return;
    this.index = new Map(this.view.payload.nodes.map((n, i) => [String(n.id), i]));
    this.base = new Map([...this.view.nd].map(([k, d]) => [k, d.p]));
    this.buildBar(this.spec);
    this.show(0, 0);
  }

  /**
   * @param {TimelineSpec} spec
   * @private
   */
  buildBar(spec) {
    const bar = h("div", "gc-time");
    bar.setAttribute("data-gestalt-timeline", "");
    const style = h("style");
    style.textContent = CSS;
    const button = (/** @type {string} */ text, /** @type {string} */ title, /** @type {() => void} */ go) => {
      const b = /** @type {HTMLButtonElement} */ (h("button", null, text));
      b.title = title;
      b.setAttribute("aria-label", title);
      b.setAttribute("data-gestalt-time", title.split(" ")[0].toLowerCase());
      b.addEventListener("click", (e) => (e.preventDefault(), go()));
      return b;
    };
    const slider = (/** @type {string} */ axis, /** @type {number} */ n) => {
      const input = /** @type {HTMLInputElement} */ (h("input"));
      input.type = "range";
      input.min = "0";
      input.max = String(n - 1);
      input.step = "1";
      input.value = "0";
      input.setAttribute("aria-label", axis + " time");
      input.setAttribute("data-gestalt-slider", axis);
      input.addEventListener("input", () => this.fromSliders());
      input.addEventListener("keydown", (e) => e.stopPropagation()); // arrows step the slider, not the notebook's cells
      return input;
    };
    const back = button("◀", "Back one moment", () => this.step(-1));
    const play = button("▶ play", "Play the moments in turn", () => this.togglePlay());
    const next = button("▶|", "Next moment", () => this.step(1));
    const valid = slider("valid", spec.valid.length);
    const known = spec.known.length > 1 ? slider("recorded", spec.known.length) : null;
    const text = h("span", "gc-axis");
    bar.append(style, back, play, next, h("span", "gc-axis", "valid"), valid);
    if (known) bar.append(h("span", "gc-axis", "recorded"), known);
    bar.append(text);
    const ui = this.view.ui;
    ui.stage.insertBefore(bar, ui.sigmaBox);
    const label = h("div", "gc-moment");
    label.setAttribute("data-gestalt-moment", "");
    ui.sigmaBox.appendChild(label);
    this.bar = bar;
    this.label = label;
    this.controls = { valid, known, play, text };
  }

  /** @private */
  fromSliders() {
    const c = this.controls;
    if (!c) return;
    this.show(Number(c.valid.value), c.known ? Number(c.known.value) : 0);
  }

  // One moment on, or back (valid time; recorded time moves with its own slider).
  /** @param {number} by */
  step(by) {
    if (!this.spec) return;
    const nk = Math.max(this.spec.known.length, 1);
    const vi = Math.floor(Math.max(this.at, 0) / nk), ki = Math.max(this.at, 0) % nk;
    const n = this.spec.valid.length;
    this.show((((vi + by) % n) + n) % n, ki);
  }

  togglePlay() {
    if (this.timer !== undefined) return this.stop();
    if (!this.controls) return;
    this.controls.play.textContent = "❚❚ pause";
    this.timer = setInterval(() => this.step(1), PLAY_MS);
  }

  stop() {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.controls) this.controls.play.textContent = "▶ play";
  }

  // Show the moment valid[vi] as recorded by known[ki]: a delta from the moment shown.
  /**
   * @param {number} vi
   * @param {number} ki
   */
  show(vi, ki) {
    const spec = this.spec;
    if (!spec) return;
    const t0 = performance.now();
    const nk = Math.max(spec.known.length, 1);
    vi = Math.max(0, Math.min(spec.valid.length - 1, Math.trunc(vi) || 0));
    ki = Math.max(0, Math.min(nk - 1, Math.trunc(ki) || 0));
    const i = Math.min(vi * nk + ki, spec.f.length - 1);
    const frame = spec.f[i];
    const prev = this.at >= 0 ? spec.f[this.at] : null;
    const keys = this.view.payload.nodes;
    const now = {
      nodes: new Set(frame.n.map((n) => (keys[n] ? String(keys[n].id) : "")).filter((k) => this.view.nd.has(k))),
      edges: new Set(frame.e.map(String)),
    };
    const absent = new Set();
    const oldAbsent = this.view.absent || new Set();
    const touchedNodes = this.stepNodes(now.nodes, frame.p || {}, (prev && prev.p) || {}, absent, oldAbsent);
    const touchedEdges = this.stepEdges(now.edges, absent, oldAbsent);
    this.view.absent = absent;
    this.present = now;
    const since = prev && this.at !== i ? this.at : -1;
    this.at = i;
    const styles = this.view.styles;
    styles.countHighlights();
    styles.restyleNodes(touchedNodes);
    styles.restyleEdges(touchedEdges);
    this.writeMoment(vi, ki, since);
    this.view.actions.updateCount();
    this.view.filters.updateLegend(); // the legend counts this moment's nodes
    const last = [...this.view.selected].pop();
    if (last !== undefined && this.view.graph.hasNode(last)) this.view.actions.showNode(last);
    this.timeStep(i, t0);
  }

  /**
   * What each node is at the new moment: there (ringed when it appeared or changed), a ghost (it went since the
   * moment shown), or absent; returns the nodes whose look changed.
   * @param {Set<string>} here
   * @param {Record<string, Record<string, unknown>>} props  this moment's properties that differ from the drawing's
   * @param {Record<string, Record<string, unknown>>} before  the same, of the moment shown
   * @param {Set<string>} absent  filled
   * @param {Set<string>} oldAbsent
   * @returns {string[]}
   * @private
   */
  stepNodes(here, props, before, absent, oldAbsent) {
    const was = this.present;
    /** @type {string[]} */
    const touched = [];
    for (const [k, d] of this.view.nd) {
      const isHere = here.has(k), wasHere = was ? was.nodes.has(k) : isHere;
      const o = !isHere && wasHere && was ? 1 : 0;
      if (!isHere && !o) absent.add(k);
      const at = String(this.index.get(k));
      const p = props[at] || this.base.get(k) || null;
      const old = was && wasHere ? before[at] || this.base.get(k) || null : null;
      const dd = isHere && old && old !== p ? changedProps(old, p) : null;
      const hl = isHere && was && (!wasHere || dd) ? 1 : 0;
      if (d.o !== o || d.h !== hl || d.p !== p || d.d !== dd || absent.has(k) !== oldAbsent.has(k)) touched.push(k);
      d.o = o;
      d.h = hl;
      d.p = p;
      d.d = dd;
    }
    return touched;
  }

  /**
   * @param {Set<string>} here
   * @param {Set<string>} absent  filled
   * @param {Set<string>} oldAbsent
   * @returns {string[]}
   * @private
   */
  stepEdges(here, absent, oldAbsent) {
    const was = this.present;
    /** @type {string[]} */
    const touched = [];
    for (const [k, d] of this.view.ed) {
      const isHere = here.has(k), wasHere = was ? was.edges.has(k) : isHere;
      const o = !isHere && wasHere && was ? 1 : 0;
      if (!isHere && !o) absent.add(k);
      const hl = isHere && was && !wasHere ? 1 : 0;
      if (d.o !== o || d.h !== hl || absent.has(k) !== oldAbsent.has(k)) touched.push(k);
      d.o = o;
      d.h = hl;
    }
    return touched;
  }

  /**
   * @param {number} vi
   * @param {number} ki
   * @param {number} since  the frame shown before (-1: none, or the same)
   * @private
   */
  writeMoment(vi, ki, since) {
    const spec = /** @type {TimelineSpec} */ (this.spec), c = this.controls;
    const day = (/** @type {string} */ t) => String(t).replace(/T00:00:00(\.0+)?Z$/, "");
    const nk = Math.max(spec.known.length, 1);
    const moment = (/** @type {number} */ v, /** @type {number} */ k) => "valid " + day(spec.valid[v]) + (spec.known.length ? " · recorded " + day(spec.known[k]) : "");
    const n = this.present ? this.present.nodes.size : 0;
    if (this.label) this.label.textContent = moment(vi, ki);
    if (!c) return;
    c.valid.value = String(vi);
    if (c.known) c.known.value = String(ki);
    // what the marks mean, counted: a ring is new or changed since the moment shown before, a faded node gone since
    let marks = "";
    if (since >= 0) {
      const { ringed, ghosts } = this.marks(), num = (/** @type {number} */ x) => x.toLocaleString("en-US");
      marks = ` · since ${moment(Math.floor(since / nk), since % nk).replace(/^valid /, "")}: ${num(ringed.length)} new or changed (ringed), ${num(ghosts.length)} gone (faded)`;
    }
    c.text.textContent = `${vi + 1} of ${spec.valid.length} · ${n.toLocaleString("en-US")} nodes${marks}`;
  }

  // The nodes ringed (new or changed since the moment shown before) and the ghosts (gone since), by key.
  /** @private */
  marks() {
    const ringed = [], ghosts = [];
    for (const [k, d] of this.view.nd) {
      if (d.h) ringed.push(k);
      if (d.o) ghosts.push(k);
    }
    return { ringed, ghosts };
  }

  // How long the step took until sigma drew it (afterRender), kept for timings (hooks.timeline).
  /**
   * @param {number} frame
   * @param {number} t0
   * @private
   */
  timeStep(frame, t0) {
    const r = this.view.renderer;
    const done = () => {
      this.steps.push({ frame, ms: performance.now() - t0 });
      if (this.steps.length > 200) this.steps.shift();
    };
    if (!r) return;
    r.once("afterRender", done);
  }

  // What a test may ask (hooks.timeline): the moment shown, and how long each step took to draw.
  state() {
    const spec = this.spec;
    if (!spec) return null;
    const nk = Math.max(spec.known.length, 1);
    return {
      frame: this.at, valid: Math.floor(this.at / nk), known: this.at % nk, moment: this.label ? this.label.textContent : "",
      present: this.present ? [...this.present.nodes] : [], ...this.marks(), bar: this.controls ? this.controls.text.textContent : "",
      steps: this.steps.slice(), playing: this.timer !== undefined,
    };
  }
}
