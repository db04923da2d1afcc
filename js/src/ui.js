// DOM around the drawing: toolbar, notes banner, legend, side panel, tooltip.
// Every string from graph data goes in through textContent only.

const FOLD_NOTES = 3; // from this many notes, the banner shows a line of each until clicked

const CSS = `
.gc-root{position:relative;box-sizing:border-box;width:100%;font-family:var(--jp-ui-font-family,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);font-size:12px;line-height:1.35;color:var(--jp-ui-font-color1,#222);background:var(--jp-layout-color0,#fff);border:1px solid var(--jp-border-color2,#e0e0e0);border-radius:3px;text-align:left}
.gc-root *{box-sizing:border-box}
.gc-bar{display:flex;flex-wrap:wrap;align-items:center;gap:4px;padding:4px 6px;border-bottom:1px solid var(--jp-border-color2,#e0e0e0);background:var(--jp-layout-color1,#fff)}
.gc-bar button{font:inherit;color:var(--jp-ui-font-color1,#222);background:var(--jp-layout-color2,#eee);border:1px solid var(--jp-border-color1,#bdbdbd);border-radius:2px;padding:1px 8px;cursor:pointer;height:22px}
.gc-bar button:disabled{opacity:.45;cursor:default}
.gc-bar button:not(:disabled):hover{background:var(--jp-layout-color3,#ddd)}
.gc-search{position:relative}
.gc-search input{font:inherit;width:170px;height:22px;padding:1px 6px;color:var(--jp-ui-font-color0,#111);background:var(--jp-input-background,var(--jp-layout-color0,#fff));border:1px solid var(--jp-border-color1,#bdbdbd);border-radius:2px}
.gc-results{position:absolute;z-index:20;top:24px;left:0;min-width:240px;max-width:420px;max-height:260px;overflow:auto;margin:0;padding:2px 0;list-style:none;background:var(--jp-layout-color1,#fff);border:1px solid var(--jp-border-color1,#bdbdbd);box-shadow:0 2px 6px rgba(0,0,0,.25)}
.gc-results li{padding:3px 8px;cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;unicode-bidi:isolate}
.gc-results li:hover,.gc-results li.gc-on{background:var(--jp-layout-color2,#eee)}
.gc-results .gc-empty{cursor:default;color:var(--jp-ui-font-color2,#777)}
.gc-count{margin-left:auto;color:var(--jp-ui-font-color1,#333);white-space:nowrap}
.gc-status{flex-basis:100%;min-height:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:var(--jp-ui-font-color2,#666)}
.gc-status:empty{display:none}
.gc-status.gc-warning{color:var(--jp-warn-color0,#b35900)}
.gc-status.gc-error{color:var(--jp-error-color0,#c62828)}
.gc-main{display:flex;flex-wrap:wrap;align-items:stretch}
.gc-stage{flex:1 1 420px;min-width:0;display:flex;flex-direction:column;position:relative}
.gc-notes{padding:3px 8px;background:var(--jp-warn-color3,#fff3e0);background:color-mix(in srgb,var(--jp-warn-color1,#f57c00) 16%,var(--jp-layout-color1,#fff));color:var(--jp-ui-font-color0,#111);border-bottom:1px solid var(--jp-border-color2,#e0e0e0);font-size:12px}
.gc-notes:empty{display:none}
.gc-notes div{overflow-wrap:anywhere;unicode-bidi:isolate}
.gc-notes.gc-fold{cursor:pointer}
.gc-notes.gc-fold:not(.gc-open) div{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.gc-notes.gc-fold::before{content:"▾ whole";float:right;margin-left:10px;color:var(--jp-ui-font-color2,#666)}
.gc-notes.gc-fold.gc-open::before{content:"▴ a line each"}
.gc-sigma{position:relative;width:100%;flex:none;overflow:hidden;background:var(--jp-layout-color0,#fff)}
.gc-legend{display:flex;flex-wrap:wrap;gap:2px 12px;padding:3px 8px;border-top:1px solid var(--jp-border-color2,#e0e0e0);color:var(--jp-ui-font-color1,#333)}
.gc-legend:empty{display:none}
.gc-legend span.gc-item{display:inline-flex;align-items:center;gap:4px;max-width:220px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;unicode-bidi:isolate}
.gc-swatch{display:inline-block;flex:none;width:10px;height:10px;border-radius:50%;border:1px solid rgba(128,128,128,.5)}
.gc-swatch.gc-line{width:14px;height:3px;border-radius:1px;border:none}
.gc-legend .gc-toggle{cursor:pointer;user-select:none}
.gc-legend .gc-off{opacity:.45;text-decoration:line-through}
.gc-legend .gc-head{font-weight:600;white-space:nowrap}
.gc-legend .gc-n,.gc-legend .gc-muted{color:var(--jp-ui-font-color2,#777)}
.gc-ramp{display:inline-block;width:64px;height:9px;border-radius:2px}
.gc-range input{width:64px;height:12px;margin:0 2px;vertical-align:middle}
.gc-legend .gc-hidden{color:var(--jp-warn-color0,#b35900)}
.gc-panel{flex:0 0 240px;max-width:100%;min-width:0;border-left:1px solid var(--jp-border-color2,#e0e0e0);padding:6px 8px;overflow-x:hidden;overflow-y:auto;background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222)}
.gc-panel .gc-hint{color:var(--jp-ui-font-color2,#777)}
.gc-panel .gc-title{margin:0 0 4px;font-size:13px;font-weight:600;color:var(--jp-ui-font-color0,#111);overflow-wrap:anywhere;unicode-bidi:isolate;max-height:6.8em;overflow:hidden}
.gc-panel .gc-kv{margin:0;padding:0;display:grid;grid-template-columns:fit-content(110px) minmax(0,1fr);gap:2px 8px;width:auto;float:none}
.gc-panel .gc-key{display:block;float:none;width:auto;margin:0;padding:0;font-weight:normal;color:var(--jp-ui-font-color2,#666);white-space:nowrap;overflow:hidden;text-overflow:ellipsis;unicode-bidi:isolate;min-width:0}
.gc-panel .gc-val{display:block;float:none;width:auto;margin:0;padding:0;color:var(--jp-ui-font-color0,#111);overflow-wrap:anywhere;white-space:pre-wrap;unicode-bidi:isolate;min-width:0}
.gc-tip{position:absolute;z-index:10;pointer-events:none;max-width:320px;padding:3px 6px;border-radius:3px;background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color0,#111);border:1px solid var(--jp-border-color1,#bdbdbd);box-shadow:0 1px 4px rgba(0,0,0,.25);font-size:12px;overflow:hidden;overflow-wrap:anywhere;unicode-bidi:isolate}
.gc-tip[hidden]{display:none}
.gc-tip div{max-height:4.2em;overflow:hidden}
.gc-narrow .gc-panel{flex-basis:100%;border-left:none;border-top:1px solid var(--jp-border-color2,#e0e0e0);max-height:220px}
`;

/**
 * An element with a class and text (text only ever through textContent).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [cls]
 * @param {unknown} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

/**
 * @param {unknown} s
 * @param {number} n
 * @returns {string}
 */
export function clip(s, n) {
  const text = String(s);
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

/**
 * @typedef {object} UIActions  what the toolbar, search and results call on the view
 * @property {() => void} fit
 * @property {() => void} hide
 * @property {() => void} pin
 * @property {() => void} undo
 * @property {() => void} collapse
 * @property {(query: string) => void} search
 * @property {(key: string) => void} pick
 */
/** @typedef {{key: string, caption: string, extra: string}} SearchResult */
/** @typedef {{title: string, rows: [string, string][]}} Info  the side panel's content */
/** @typedef {[number, number, number, number]} Rect  x0, y0, x1, y1 (px) */
/** @typedef {ReturnType<typeof buildUI>} UI */

// The search box: captions matched as the person types (on.search), the results chosen with the arrow keys and Enter.
/** @param {UIActions} on */
function searchBox(on) {
  const box = h("div", "gc-search");
  const input = h("input");
  input.type = "search";
  input.placeholder = "Search captions…";
  input.setAttribute("aria-label", "Search nodes by caption");
  const results = h("ul", "gc-results");
  results.hidden = true;
  box.append(input, results);
  const state = { active: -1 }; // the result the arrow keys are on
  searchKeys(input, results, state, on);
  /** @type {(list: SearchResult[], query: string) => void} */
  const setResults = (list, query) => showResults(results, state, list, query, on);
  return { box, input, results, setResults };
}

/**
 * @param {HTMLInputElement} input
 * @param {HTMLUListElement} results
 * @param {{active: number}} state
 * @param {UIActions} on
 */
function searchKeys(input, results, state, on) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const items = () => [...results.querySelectorAll("li[data-k]")];
  const mark = (/** @type {number} */ i) => {
    const list = items();
    list.forEach((li, k) => li.classList.toggle("gc-on", k === i));
    state.active = i;
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => on.search(input.value), 120);
  });
  input.addEventListener("keydown", (e) => {
    const list = items();
    if (e.key === "ArrowDown" && list.length) {
      mark(Math.min(state.active + 1, list.length - 1));
      e.preventDefault();
    } else if (e.key === "ArrowUp" && list.length) {
      mark(Math.max(state.active - 1, 0));
      e.preventDefault();
    } else if (e.key === "Enter") {
      const li = list[state.active >= 0 ? state.active : 0];
      if (li) /** @type {HTMLElement} */ (li).click();
      e.preventDefault();
    } else if (e.key === "Escape") {
      results.hidden = true;
    }
    e.stopPropagation();
  });
  // hidden once focus has gone elsewhere (not when the canvas only moved to a redrawn output: see index.js)
  input.addEventListener("blur", () => setTimeout(() => document.activeElement !== input && (results.hidden = true), 150));
}

/**
 * @param {HTMLUListElement} results
 * @param {{active: number}} state
 * @param {SearchResult[]} list
 * @param {string} query
 * @param {UIActions} on
 */
function showResults(results, state, list, query, on) {
  state.active = -1;
  if (!query) {
    results.hidden = true;
    results.replaceChildren();
    return;
  }
  const lis = list.map((r, k) => {
    const li = h("li", null, clip(r.caption, 120) + (r.extra ? "  · " + clip(r.extra, 60) : ""));
    li.dataset.k = String(k);
    li.title = r.caption;
    li.addEventListener("mousedown", (e) => e.preventDefault());
    li.addEventListener("click", () => {
      results.hidden = true;
      on.pick(r.key);
    });
    return li;
  });
  if (!lis.length) lis.push(h("li", "gc-empty", "No match"));
  results.replaceChildren(...lis);
  results.hidden = false;
}

// The toolbar: search, Fit, Hide, Pin, Undo, Collapse, the count and the status line.
/**
 * @param {HTMLElement} search
 * @param {UIActions} on
 */
function toolbar(search, on) {
  const bar = h("div", "gc-bar");
  const btn = (/** @type {string} */ text, /** @type {string} */ title, /** @type {() => void} */ fn) => {
    const b = h("button", null, text);
    b.type = "button";
    b.title = title;
    b.addEventListener("click", fn);
    return b;
  };
  const fit = btn("Fit", "Fit the graph in view", () => on.fit());
  const hide = btn("Hide", "Hide the selected nodes", () => on.hide());
  const pin = btn("Pin", "Pin / unpin the selected nodes", () => on.pin());
  const undo = btn("Undo", "Undo the last change", () => on.undo());
  const collapse = btn("Collapse", "Fold the selected nodes' groups back into their super-nodes", () => on.collapse());
  collapse.setAttribute("data-gestalt-action", "collapse");
  collapse.hidden = true; // only on an overview's canvas (settings.collapsible)
  const count = h("span", "gc-count");
  const status = h("div", "gc-status");
  bar.append(search, fit, hide, pin, undo, collapse, count, status);
  return { bar, hide, pin, undo, collapse, count, status };
}

// The side panel: a node's or relationship's properties, or a hint.
/**
 * @param {HTMLElement} panel
 * @param {Info | null} info
 */
function fillPanel(panel, info) {
  if (!info) {
    panel.replaceChildren(h("div", "gc-hint", "Click a node or relationship to see its properties."));
    return;
  }
  // divs, not dl/dt/dd: JupyterLab styles an output's dt as float:left; width:20%
  const dl = h("div", "gc-kv");
  for (const [k, v] of info.rows) {
    const dt = h("div", "gc-key", clip(k, 80));
    dt.title = clip(k, 1000);
    dl.append(dt, h("div", "gc-val", clip(v, 3000)));
  }
  const title = h("div", "gc-title", clip(info.title, 200));
  title.title = clip(info.title, 1000);
  panel.replaceChildren(title, dl);
}

// The tooltip at (x, y) in the sigma box. avoid: rectangles (sigma box px) it must not cover, e.g. the hovered
// node and its caption; the first free spot around the pointer wins.
/**
 * @param {HTMLElement} tip
 * @param {HTMLElement} sigmaBox
 * @param {number} x
 * @param {number} y
 * @param {string[]} lines
 * @param {Rect[] | null} [avoid]
 */
function placeTip(tip, sigmaBox, x, y, lines, avoid) {
  tip.replaceChildren(...lines.map((t) => h("div", null, clip(t, 200))));
  tip.hidden = false;
  const w = sigmaBox.clientWidth, H = sigmaBox.clientHeight;
  const top = sigmaBox.offsetTop;
  const tw = tip.offsetWidth, th = tip.offsetHeight;
  const fit = (/** @type {number} */ l, /** @type {number} */ t) => [Math.max(0, Math.min(l, w - tw - 4)), Math.max(0, Math.min(t, H - th - 2))];
  let spots = [[x + 12, y + 12]];
  if (avoid && avoid.length) {
    const x0 = Math.min(...avoid.map((r) => r[0])), y0 = Math.min(...avoid.map((r) => r[1]));
    const x1 = Math.max(...avoid.map((r) => r[2])), y1 = Math.max(...avoid.map((r) => r[3]));
    spots = [[x + 12, y1 + 4], [x + 12, y0 - th - 4], [x1 + 6, y - th / 2], [x0 - tw - 6, y - th / 2], [x + 12, y + 12]];
  }
  /** @type {number[] | null} */
  let pick = null;
  for (const [l, t] of spots) {
    const [fl, ft] = fit(l, t);
    const clash = (avoid || []).some((r) => fl < r[2] && fl + tw > r[0] && ft < r[3] && ft + th > r[1]);
    if (!clash) {
      pick = [fl, ft];
      break;
    }
  }
  pick = pick || fit(spots[0][0], spots[0][1]);
  tip.style.left = pick[0] + "px";
  tip.style.top = top + pick[1] + "px";
}

// The notes banner over the drawing: from FOLD_NOTES notes on, a line of each (every note still begins in sight),
// whole after a click; a second click folds them again (selecting text in it keeps it as it is).
function notesBanner() {
  const el = h("div", "gc-notes");
  el.addEventListener("click", () => {
    const selected = typeof window !== "undefined" && window.getSelection ? String(window.getSelection()) : "";
    if (el.classList.contains("gc-fold") && !selected) el.classList.toggle("gc-open");
  });
  /** @param {string[]} list */
  const set = (list) => {
    const items = list.filter((t) => t).map((t) => h("div", null, clip(t, 2000)));
    el.replaceChildren(...items);
    el.classList.toggle("gc-fold", items.length >= FOLD_NOTES);
    el.classList.remove("gc-open");
    el.title = items.length >= FOLD_NOTES ? "Click to read the notes whole (or fold them again)" : "";
  };
  return { el, set };
}

/**
 * @param {HTMLElement} root
 * @param {UIActions} on
 */
export function buildUI(root, on) {
  const style = h("style");
  style.textContent = CSS;
  root.appendChild(style);
  const search = searchBox(on);
  const { bar, hide, pin, undo, collapse, count, status } = toolbar(search.box, on);
  const main = h("div", "gc-main");
  const stage = h("div", "gc-stage");
  const notes = notesBanner();
  const sigmaBox = h("div", "gc-sigma");
  const legend = h("div", "gc-legend");
  const tip = h("div", "gc-tip");
  tip.hidden = true;
  stage.append(notes.el, sigmaBox, legend, tip);
  const panel = h("div", "gc-panel");
  main.append(stage, panel);
  root.append(bar, main);

  const ui = {
    root, input: search.input, results: search.results, sigmaBox, stage, panel, tip, legend, // legend: filled by legend.js
    setNotes: notes.set,
    /** @param {string} text */
    setCount(text) {
      count.textContent = text;
    },
    /**
     * @param {string} text
     * @param {string} level  info / warning / error
     */
    setStatus(text, level) {
      status.textContent = clip(text || "", 400);
      status.className = "gc-status" + (level === "warning" || level === "error" ? " gc-" + level : "");
    },
    /** @param {{selection: boolean, undoable: boolean, collapsible: boolean}} state */
    setButtons({ selection, undoable, collapsible }) {
      hide.disabled = !selection;
      pin.disabled = !selection;
      undo.disabled = !undoable;
      collapse.hidden = !collapsible;
      collapse.disabled = !selection;
    },
    setResults: search.setResults,
    /** @param {Info | null} info */
    showInfo: (info) => fillPanel(panel, info),
    /** @type {(x: number, y: number, lines: string[], avoid?: Rect[] | null) => void} */
    showTip: (x, y, lines, avoid) => placeTip(tip, sigmaBox, x, y, lines, avoid),
    hideTip() {
      tip.hidden = true;
    },
    /** @param {boolean} narrow */
    setNarrow(narrow) {
      root.classList.toggle("gc-narrow", narrow);
    },
  };
  ui.showInfo(null);
  return ui;
}
