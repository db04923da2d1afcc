"""``GraphCanvas``: the one interactive graph drawing (anywidget + sigma.js/WebGL), two-way and incremental.

The first display sends the whole (capped) subgraph once, gzip-compressed, as the ``graph_gz`` trait. Afterwards
``add`` / ``remove`` / ``highlight`` / ``fit`` send deltas as custom messages, numbered by
``revision``; a view that missed some (opened later, or reloaded) asks for them again. What the
person does comes back as ``selected`` (a synced trait) and click / double-click messages; a
double-click expands that node from the database when the canvas has an ``expander``. Nodes are
keyed on the page by their id as loaded (see :mod:`gestalt_nb.canvas.payload`): ``selected`` holds
those keys, callbacks get the ids as loaded (the integer ``0``), and ``add``/``remove``/``highlight``
take stored ids, ids as loaded or keys alike.
The bundle itself is not in this model's state (see :mod:`gestalt_nb.canvas.bundle`).
"""

from __future__ import annotations

import gzip
import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import anywidget
import traitlets

from ..checks import checked_methods
from ..errors import GestaltError
from ..graph.ids import as_loaded, stored
from ..graph.subgraph import Subgraph, building
from . import bundle
from .alone import show_alone
from .cypher import DrawingQuery, drawing_query
from .drill import collapse as collapse_group
from .drill import collapse_selected
from .drill import drill as drill_group
from .encode import ViewMethods
from .path import draw_path
from .payload import Vocabulary, as_rows, compact_json, mark, payload
from .protocol import AddOp, Click, Collapse, DoubleClick, FitOp, Handlers, HighlightOp, Op, Path, Ready, RemoveOp, Sync, Undo, page_state
from .protocol import parse as parse_message
from .snapshot import Shown
from .snapshot import svg_of as snapshot_svg
from .standalone import write as write_page
from .timeline import Frames
from .timeline import pack as pack_timeline

log = logging.getLogger(__name__)

#: Deltas kept for views that reconnect; beyond this the log is folded into a new base graph.
LOG_LIMIT = 200
#: page message kind → the GraphCanvas method that handles it (every kind of protocol.PAGE_KINDS has one)
HANDLERS = Handlers()

NodeCallback = Callable[[str], Any]
SelectCallback = Callable[[list[str]], Any]
Expander = Callable[["GraphCanvas", str], Any]


def _callable(callback: Any, what: str) -> None:
    if not callable(callback):
        raise TypeError(f"{what} takes a function, not {type(callback).__name__}.")


@checked_methods
class GraphCanvas(ViewMethods, anywidget.AnyWidget):
    _esm = bundle.LOADER
    _bundle = traitlets.Unicode("").tag(sync=True)
    _bundle_hash = traitlets.Unicode("").tag(sync=True)
    #: This canvas's own key: a page view whose output was redrawn (``update_display``) hands its
    #: drawing to the new view of the same canvas instead of laying it out again (js/src/index.js).
    _key = traitlets.Unicode("").tag(sync=True)
    #: The base graph as gzip-compressed JSON (a binary buffer: ~6x smaller on the wire and in saved
    #: notebooks than the JSON, which nbformat would also indent); ``graph`` is the same payload, decoded.
    #: Level 1: at 10k nodes 4.8 ms instead of level 3's 8.6 ms, while the first frame waits, for 6% more bytes.
    graph_gz = traitlets.Bytes(b"").tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)
    selected = traitlets.List(traitlets.Unicode()).tag(sync=True)
    height = traitlets.Int(560).tag(sync=True)
    settings = traitlets.Dict().tag(sync=True)
    _timeline: Frames | None = None

    def __init__(
        self,
        subgraph: Subgraph | None = None,
        *,
        caption_property: str = "name",
        height: int = 560,
        max_nodes: int = 1000,
        max_edges: int = 3000,
        counts: dict[str, int] | None = None,
        expander: Expander | None = None,
        color: str | None = None,
        size: str | None = None,
        layout: Any = None,
    ) -> None:
        traits = bundle.model_traits()  # the shared bundle model, or in marimo the bundle itself
        super().__init__(**traits, _key=uuid.uuid4().hex, height=height)
        self._bundle_model = bundle.shared() if traits["_bundle"] else None
        self.caption_property = caption_property
        self.max_nodes, self.max_edges = max_nodes, max_edges
        self._click: list[NodeCallback] = []
        self._double_click: list[NodeCallback] = []
        self._select: list[SelectCallback] = []
        self._shown: list[Callable[["GraphCanvas"], Any]] = []
        self._log: list[dict[str, Any]] = []
        self._undo: list[tuple[list[str], Callable[[], Any] | None]] = []
        self._expander = expander
        self.ready_info: dict[str, Any] | None = None
        #: What the page last showed (positions, sizes, colours; see ``snapshot.py``), None until a page drew it.
        self.shown: Shown | None = None
        self.status: dict[str, str] = {}
        self.on_msg(self._message)
        self.observe(self._selection_moved, names="selected")
        self.subgraph = subgraph or Subgraph()
        self._view_defaults(color, size, layout)  # encode.py: style / layout / filter
        self.reset(subgraph or Subgraph(), counts=counts)

    # -- the whole graph (a full redraw) ---------------------------------------------
    def reset(self, subgraph: Subgraph, *, counts: dict[str, int] | None = None) -> None:
        """Draw ``subgraph`` from scratch (views rebuild); deltas start again from revision 0."""
        self.subgraph = subgraph.copy()  # ours to grow
        self.vocabulary = Vocabulary()
        self._log, self._undo = [], []
        self._counts = counts
        graph = {**payload(self.subgraph, self.vocabulary, self.caption_property, counts=counts), "view": self.view_state}
        if self._timeline is not None:
            graph["tl"] = pack_timeline(self._timeline, self.subgraph, self.vocabulary, self.caption_property)
        packed = gzip.compress(compact_json(graph), compresslevel=1, mtime=0)
        with self.hold_sync():
            self.settings = {**self._expander_settings(self._expander), "caption": self.caption_property}
            self.graph_gz = packed
            self.revision = 0

    @property
    def graph(self) -> dict[str, Any]:
        """The base payload, decoded from ``graph_gz`` when read (the kernel keeps only the packed copy), with
        a dict per relationship in ``edges`` (the page gets them in columns: ``protocol.EdgeColumns``)."""
        return as_rows(json.loads(gzip.decompress(self.graph_gz)))

    @property
    def timeline(self) -> Frames | None:
        """The moments this drawing's slider steps through (``canvas.timeline.Frames``), or None: no slider."""
        return self._timeline

    @timeline.setter
    def timeline(self, frames: Frames | None) -> None:
        self._timeline = frames
        self.reset(self.subgraph, counts=self._counts)

    @property
    def expander(self) -> Expander | None:
        """Called as ``expander(canvas, node_id)`` on a double-click; None: the drawing cannot expand."""
        return self._expander

    @expander.setter
    def expander(self, value: Expander | None) -> None:
        if value is not None:
            _callable(value, "expander")
        self._expander = value
        self.settings = {**self.settings, **self._expander_settings(value)}

    @staticmethod
    def _expander_settings(expander: Expander | None) -> dict[str, bool]:
        """What the page's toolbar offers: double-click expansion, and Collapse on an overview's canvas."""
        return {"expandable": expander is not None, "collapsible": bool(getattr(expander, "collapses", False))}

    # -- deltas ------------------------------------------------------------------------
    def add(self, subgraph: Subgraph, *, anchor: str | int | None = None, undoable: bool = False, on_undo: Callable[[], Any] | None = None) -> dict[str, int]:
        """Draw the nodes and relationships of ``subgraph`` that are not drawn yet (one delta).

        New nodes are placed next to ``anchor`` (or a drawn neighbour) and only they are laid out.
        The drawing caps hold: what would go past ``max_nodes``/``max_edges`` is left out and said.
        Returns how many nodes and relationships were added.
        """
        part = Subgraph()
        part.merge(subgraph)
        part.complete_endpoints(None)
        room_nodes = max(self.max_nodes - len(self.subgraph.nodes), 0)
        new_nodes = [node for node_id, node in part.nodes.items() if node_id not in self.subgraph.nodes]
        dropped_nodes = new_nodes[room_nodes:]
        new_nodes = new_nodes[:room_nodes]
        for node in new_nodes:
            self.subgraph.add_node(node, highlight=node.id in part.highlight_nodes)
            if node.id in part.groups:  # an overview's super-node
                self.subgraph.groups[node.id] = part.groups[node.id]
        room_edges = max(self.max_edges - len(self.subgraph.edges), 0)
        fresh = [edge for edge_id, edge in part.edges.items() if edge_id not in self.subgraph.edges]
        drawable = [edge for edge in fresh if edge.source in self.subgraph.nodes and edge.target in self.subgraph.nodes]
        new_edges = drawable[:room_edges]
        dropped_edges = len(fresh) - len(new_edges)  # past the cap, or an endpoint the node cap left out
        for edge in new_edges:
            self.subgraph.add_edge(edge, highlight=edge.id in part.highlight_edges)
        self.subgraph.faded |= part.faded
        self.subgraph.changed.update(part.changed)
        for note in part.notes:
            if note not in self.subgraph.notes:
                self.subgraph.notes.append(note)
        if dropped_nodes or dropped_edges:
            self.say(
                f"Drawing caps reached ({self.max_nodes:,} nodes / {self.max_edges:,} relationships): "
                f"{len(dropped_nodes):,} nodes and {dropped_edges:,} relationships were not drawn.",
                "warning",
            )
        self.subgraph.asked = self.vocabulary.asked = self.subgraph.asked | part.asked
        labels_before, types_before = len(self.vocabulary.labels), len(self.vocabulary.types)
        with building():
            op = AddOp(
                op="add",
                nodes=[mark(self.vocabulary.node(node, self.caption_property, node.id in self.subgraph.highlight_nodes, self.subgraph.groups.get(node.id)), node.id, part) for node in new_nodes],
                edges=[mark(self.vocabulary.edge(edge, edge.id in self.subgraph.highlight_edges, self.subgraph.groups), edge.id, part) for edge in new_edges],
            )
        if len(self.vocabulary.labels) != labels_before:
            op["labels"] = self.vocabulary.legend()
        if len(self.vocabulary.types) != types_before:
            op["types"] = list(self.vocabulary.types)
        if new_nodes or new_edges:
            added = [node.id for node in new_nodes] + [edge.id for edge in new_edges]
            if undoable:
                self._undo.append((added, on_undo))
            self._delta([op], anchor=anchor, undoable=undoable)
        return {"nodes": len(new_nodes), "edges": len(new_edges)}

    def remove(self, ids: Iterable[str]) -> int:
        """Remove nodes (with their relationships) and relationships by id; returns how many went."""
        ids = [self._stored(item) for item in ids]
        gone = set()
        for item in ids:
            if item in self.subgraph.nodes:
                del self.subgraph.nodes[item]
                gone.add(item)
        for edge_id, edge in list(self.subgraph.edges.items()):
            if edge_id in ids or edge.source in gone or edge.target in gone:
                del self.subgraph.edges[edge_id]
                gone.add(edge_id)
        self.subgraph.highlight_nodes -= gone
        self.subgraph.highlight_edges -= gone
        if gone:
            removed = [item for item in ids if item in gone] + sorted(gone - set(ids))
            self._delta([RemoveOp(op="remove", ids=[self._page(item) for item in removed])])
        keys = {self._page(item) for item in gone}
        if self.selected and keys & set(self.selected):
            self.selected = [item for item in self.selected if item not in keys]
        return len(gone)

    def highlight(self, ids: Iterable[str], *, only: bool = True) -> None:
        """Emphasise these nodes/relationships (``only``: and no others)."""
        ids = [self._stored(item) for item in ids]
        if only:
            self.subgraph.highlight_nodes, self.subgraph.highlight_edges = set(), set()
        self.subgraph.highlight_nodes |= {item for item in ids if item in self.subgraph.nodes}
        self.subgraph.highlight_edges |= {item for item in ids if item in self.subgraph.edges}
        self._delta([HighlightOp(op="highlight", ids=[self._page(item) for item in ids], only=only)])

    def fit(self) -> None:
        """Fit the camera to every drawn node."""
        self._delta([FitOp(op="fit")])

    def undo(self) -> bool:
        """Take back the newest undoable delta (an expansion); False when there is none."""
        if not self._undo:
            return False
        added, on_undo = self._undo.pop()
        self.remove(added)
        if on_undo is not None:
            on_undo()
        return True

    def say(self, text: str, level: str = "info") -> None:
        """A one-line status on the canvas (text only)."""
        self.status = {"text": text, "level": level}
        self.send({"kind": "status", "text": text, "level": level})

    def _delta(self, ops: list[Op], *, anchor: str | None = None, undoable: bool = False) -> None:
        if len(self._log) >= LOG_LIMIT:
            self.reset(self.subgraph, counts=self._counts)  # fold: one full redraw instead of an endless log
            return
        anchor = self._page(anchor) if anchor is not None else None
        message = {"kind": "delta", "revision": self.revision + 1, "ops": ops, "anchor": anchor, "undoable": undoable}
        self._log.append(message)
        self.revision += 1
        self.send(message)

    # -- events from the page ----------------------------------------------------------
    def on_click(self, callback: NodeCallback) -> None:
        """Call ``callback(node_id)`` when the person clicks a node (the id as loaded: ``0`` for an integer id)."""
        _callable(callback, "on_click")
        self._click.append(callback)

    def on_double_click(self, callback: NodeCallback) -> None:
        """Call ``callback(node_id)`` on a double-click (after the expander, if any)."""
        _callable(callback, "on_double_click")
        self._double_click.append(callback)

    def on_select(self, callback: SelectCallback) -> None:
        """Call ``callback(selected_ids)`` whenever the selection changes (page or Python), ids as loaded."""
        _callable(callback, "on_select")
        self._select.append(callback)

    def _ipython_display_(self) -> None:
        """Shown on its own as a view is: its picture, then the live canvas (``alone.py``; never "model not found")."""
        show_alone(self)

    def on_shown(self, callback: Callable[["GraphCanvas"], Any]) -> None:
        """Call ``callback(canvas)`` when the page reports a new picture (``canvas.shown`` changed)."""
        _callable(callback, "on_shown")
        self._shown.append(callback)

    def expand(self, node_id: str | int) -> Any:
        """What a double-click does: expand ``node_id`` through the expander (see ``expand.py``)."""
        if self.expander is None:
            self.say("This drawing is not connected to a database, so it cannot expand nodes.", "warning")
            return None
        return self.expander(self, node_id)

    # -- ids: stored (``subgraph``), on the page (keys), as loaded (callbacks) ----------------
    def _stored(self, item: Any) -> Any:
        """The drawing's own key (a node's id as loaded, a relationship's id) from an id as loaded (``0``), a stored
        id (``"__lc_int__:0"``) or a key on the page."""
        for candidate in (item, as_loaded(item), stored(item)):
            if candidate in self.subgraph.nodes or candidate in self.subgraph.edges:
                return candidate
        return self.vocabulary.node_id(str(item))

    def _page(self, item: str) -> str:
        return self.vocabulary.keys.get(item, item)

    def node_ids(self, keys: Iterable[str]) -> list[str]:
        """The stored ids of nodes by their keys on the page (e.g. of ``selected``)."""
        return [self.vocabulary.node_id(key) for key in keys]

    @traitlets.validate("selected")
    def _selected_as_keys(self, proposal: dict[str, Any]) -> list[str]:
        return [self._page(self._stored(item)) for item in proposal["value"]]

    def _selection_moved(self, change: dict[str, Any]) -> None:
        loaded = [as_loaded(node_id) for node_id in self.node_ids(change["new"])]
        for callback in self._select:
            self._call(callback, list(loaded))

    def set_state(self, sync_data: Any) -> None:
        """A state update from the page: only what the page may write, checked (``protocol.page_state``), is set."""
        kept = page_state(sync_data, self.vocabulary.ids)
        if kept:
            super().set_state(kept)

    def _message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A message from the page: checked (``protocol.parse``; a bad one is logged and dropped), then handled."""
        parsed = parse_message(content)
        if parsed is not None:
            kind, message = parsed
            self._call(HANDLERS[kind], self, message)

    @HANDLERS("click")
    def _clicked(self, message: Click) -> None:
        node_id = self.vocabulary.node_id(message["id"])
        for callback in self._click:
            self._call(callback, as_loaded(node_id))

    @HANDLERS("dblclick")
    def _double_clicked(self, message: DoubleClick) -> None:
        node_id = self.vocabulary.node_id(message["id"])
        self._call(self.expand, node_id)
        for callback in self._double_click:
            self._call(callback, as_loaded(node_id))

    @HANDLERS("undo")
    def _undo_asked(self, _message: Undo) -> None:
        if not self.undo():
            self.say("Nothing to undo.")

    @HANDLERS("collapse")
    def _collapse_asked(self, message: Collapse) -> None:
        self._call(collapse_selected, self, [self.vocabulary.node_id(key) for key in message["ids"]])

    @HANDLERS("sync")
    def _sync_asked(self, message: Sync) -> None:
        for delta in self._log:
            if delta["revision"] > message["have"]:
                self.send(delta)

    @HANDLERS("ready")
    def _ready(self, message: Ready) -> None:
        self.ready_info = dict(message)

    @HANDLERS("path")
    def _path_asked(self, message: Path) -> None:
        self._call(self.path, *message["ids"])

    # -- what comes out: pictures, pages, Cypher, paths (see snapshot.py, standalone.py, cypher.py, path.py) --
    @HANDLERS("shown")
    def _record_shown(self, shown: Shown) -> None:
        before, self.shown = self.shown, shown
        if before is None or (before.nodes, before.hidden, before.width, before.height) != (shown.nodes, shown.hidden, shown.width, shown.height):
            for callback in list(self._shown):
                self._call(callback, self)

    def snapshot(self, format: str = "svg") -> str:
        """An SVG of what the page last showed: one ``<circle>`` per visible node, placed as on screen.

        The page reports after it settles and after each change; a cell cannot wait for the page while
        it runs, so right after a change in the same cell the picture may be the one before it.
        """
        if format != "svg":
            raise GestaltError(f"snapshot makes 'svg' only, not {format!r}; the canvas's PNG button saves a PNG.")
        return snapshot_svg(self)

    def to_cypher(self) -> DrawingQuery:
        """A read-only query whose result is exactly what is drawn (less what the page hides and ``filter`` hid); see ``cypher.py``."""
        return drawing_query(self.subgraph, (set(self.shown.hidden) if self.shown else set()) | self.filtered())

    def to_html(self, path: str | None = None) -> str:
        """One self-contained offline HTML page with this canvas (no kernel); written to ``path`` if given."""
        return write_page(self, path)

    def path(self, a: Any, b: Any, **options: Any) -> Any:
        """Draw and highlight the shortest path from ``a`` to ``b`` (``connection.shortest_path``); returns it."""
        return draw_path(self, a, b, **options)

    def drill(self, group: Any) -> dict[str, int] | None:
        """Open an overview's super-node (group number or node id) in place into its members, as a double-click does."""
        return drill_group(self, group)

    def collapse(self, group: Any) -> int:
        """Fold a drilled overview group's members back into its super-node; returns how many nodes went."""
        return collapse_group(self, group)

    def _call(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run a callback or a page message's handler; an error is shown on the canvas and logged in one line (its
        traceback at DEBUG level), never lost and never a traceback in the notebook."""
        try:
            callback(*args)
        except Exception as exc:
            text = str(exc) if isinstance(exc, GestaltError) else f"{type(exc).__name__}: {exc}"
            log.warning("canvas: %s failed: %s", getattr(callback, "__name__", "a callback"), text.splitlines()[0][:300] if text else "")
            log.debug("canvas callback traceback", exc_info=True)
            self.say(text, "error")

    def close(self) -> None:
        self._click, self._double_click, self._select, self._shown, self._log, self._undo = [], [], [], [], [], []
        self._expander = None
        super().close()
