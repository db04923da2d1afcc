"""The canvas's JavaScript, carried once per kernel (and so once per saved notebook).

anywidget keeps ``_esm`` in every widget model's state, so a 500 KB bundle in each canvas would be
saved once per output. Instead each canvas's ``_esm`` is a tiny loader (``LOADER``), and the bundle
rides in one shared model (``CanvasBundle``) that the loader reads through anywidget's host API,
imports from a Blob URL and caches per page by its source hash. In marimo each canvas carries the
bundle itself (``model_traits``). The loader's ``initialize`` starts reading a canvas's graph (``prefetch`` in
``js/src/index.js``) as soon as it reaches the model, before the output that shows it arrives.
"""

from __future__ import annotations

import hashlib
import sys
from functools import lru_cache
from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).with_name("static")
BUNDLE = STATIC / "canvas.js"
HASH_FILE = STATIC / "canvas.hash"

LOADER = r"""
const CACHE = (globalThis.__gestaltCanvas = globalThis.__gestaltCanvas || {});
function modelId(ref) { return String(ref).replace(/^(anywidget:|IPY_MODEL_)/, ""); }
async function load(model, host) {
  const hash = model.get("_bundle_hash");
  if (!CACHE[hash]) {
    CACHE[hash] = (async () => {
      const ref = model.get("_bundle");
      const bundle = host && host.getModel ? await host.getModel(ref) : await model.widget_manager.get_model(modelId(ref));
      const url = URL.createObjectURL(new Blob([bundle.get("code")], { type: "text/javascript" }));
      try { return await import(url); } finally { URL.revokeObjectURL(url); }
    })();
    CACHE[hash].catch(() => { delete CACHE[hash]; });
  }
  return CACHE[hash];
}
export default {
  initialize({ model }) {
    // the graph reaches the model before the output that shows it: start reading it then (the view takes it)
    const early = () => { if (model.get("graph_gz")) load(model).then((mod) => mod.prefetch && mod.prefetch(model)).catch(() => {}); };
    model.on("change:graph_gz", early);
    early();
  },
  async render({ model, el, host }) {
    el.textContent = "Loading the graph canvas…";
    let mod;
    try { mod = await load(model, host); }
    catch (error) { el.textContent = "The graph canvas could not load: " + ((error && error.message) || error); return; }
    el.textContent = "";
    return mod.render({ model, el });
  },
};
"""


@lru_cache(maxsize=1)
def code() -> str:
    return BUNDLE.read_text(encoding="utf-8")


def bundle_hash() -> str:
    return HASH_FILE.read_text(encoding="utf-8").strip()


def source_hash(js_dir: Path) -> str:
    """The hash the build writes into the bundle: every file under ``js/src`` plus the build inputs."""
    paths = sorted(
        [path.relative_to(js_dir).as_posix() for path in (js_dir / "src").rglob("*") if path.is_file()]
        + ["package.json", "package-lock.json", "build.mjs"]
    )
    digest = hashlib.sha256()
    for relative in paths:
        digest.update(relative.encode("utf-8") + b"\0" + (js_dir / relative).read_bytes() + b"\0")
    return digest.hexdigest()


class CanvasBundle(anywidget.AnyWidget):
    """Holds the bundle's code; never displayed itself."""

    _esm = "export default {};"
    code = traitlets.Unicode("").tag(sync=True)


_shared: CanvasBundle | None = None


def in_marimo() -> bool:
    """Whether this runs inside a marimo notebook or app (marimo is imported there already)."""
    marimo = sys.modules.get("marimo")
    try:
        return bool(marimo is not None and marimo.running_in_notebook())
    except Exception:  # an older or partial marimo: treat as not marimo
        return False


def model_traits() -> dict[str, str]:
    """The bundle traits of a new canvas: the loader and the shared model, or (in marimo) the bundle itself.

    marimo runs every browser session of an app (a second tab, a reload) in its own session of one
    process, and a model made in one session is unknown to the others' pages: a shared model kept per
    process would leave every later session at "Loading the graph canvas…". marimo saves no widget
    state into notebooks, so there each canvas carries the bundle as its own ``_esm``.
    """
    if in_marimo():
        return {"_esm": code(), "_bundle": "", "_bundle_hash": bundle_hash()}
    return {"_bundle": f"anywidget:{shared().model_id}", "_bundle_hash": bundle_hash()}


def shared() -> CanvasBundle:
    """The kernel's one bundle model (made again if it was closed)."""
    global _shared
    if _shared is None or _shared.comm is None:
        _shared = CanvasBundle(code=code())
    return _shared
