"""The canvas's messages between the page (``js/src``) and the kernel: one type per kind, each checked on arrival.

Everything the page sends is untrusted input (a notebook's page can be driven by anyone who can run
code in it): :func:`parse` turns it into a typed message or drops it, logged, so a comm handler never
raises. ``js/src/protocol.js`` declares the same kinds (``PAGE_SENDS``, ``PAGE_HANDLES``, ``OP_KINDS``) with JSDoc
types that ``tsc --checkJs`` checks, and ``tests/test_protocol.py`` checks both sides list the same
kinds, and the same fields for each step of a delta. ``docs/protocol.md`` describes the traits and the messages.

Page → kernel: ``click``, ``dblclick`` (a node), ``undo``, ``sync`` (resend deltas after a revision),
``ready`` (first frame drawn), ``shown`` (what the page shows: ``snapshot.Shown``), ``path`` (two nodes).
Kernel → page: ``delta`` (its ``ops``: one TypedDict per kind below, ``OPS``) and ``status``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args, get_origin, get_type_hints

from .snapshot import Shown
from .snapshot import parse as parse_shown

log = logging.getLogger(__name__)

#: Longest node id the page may name (an id longer than this is not one of ours).
MAX_ID = 10_000


class Click(TypedDict):
    kind: Literal["click"]
    id: str


class DoubleClick(TypedDict):
    kind: Literal["dblclick"]
    id: str


class Undo(TypedDict):
    kind: Literal["undo"]


class Collapse(TypedDict):
    """The toolbar's Collapse: fold the overview groups of these drawn nodes back into their super-nodes."""

    kind: Literal["collapse"]
    ids: list[str]


class Sync(TypedDict):
    kind: Literal["sync"]
    have: int


class Ready(TypedDict):
    kind: Literal["ready"]
    ms: int
    nodes: int


class Path(TypedDict):
    kind: Literal["path"]
    ids: list[str]


# -- kernel → page: the steps of a delta, one TypedDict per ``op`` (js/src/protocol.js: one typedef each) --


class AddOp(TypedDict, total=False):
    """New nodes and relationships (payload dicts), and the ``labels`` / ``types`` lists when they grew."""

    op: Required[Literal["add"]]
    nodes: Required[list[dict[str, Any]]]
    edges: Required[list[dict[str, Any]]]
    labels: list[dict[str, Any]]
    types: list[str]


class RemoveOp(TypedDict):
    """Nodes (with their relationships) and relationships gone, by page key."""

    op: Literal["remove"]
    ids: list[str]


class HighlightOp(TypedDict):
    """Emphasise these nodes / relationships (``only``: and no others)."""

    op: Literal["highlight"]
    ids: list[str]
    only: bool


class FitOp(TypedDict):
    """Fit the camera to every drawn node."""

    op: Literal["fit"]


class StyleOp(TypedDict, total=False):
    """Encodings (``encode.color_spec`` / ``size_spec``), a caption property, and the values and captions they need."""

    op: Required[Literal["style"]]
    color: dict[str, Any]
    size: dict[str, Any]
    caption: str
    values: dict[str, dict[str, Any]]  # {node key: {property: value}} the payload had left out
    captions: dict[str, str]  # {node key: caption}


class LayoutOp(TypedDict):
    """Lay the drawing out again (``options.Layout.spec``)."""

    op: Literal["layout"]
    name: str
    options: dict[str, Any]


class FilterOp(TypedDict, total=False):
    """Show only these labels and relationship types; hide these nodes (by page key)."""

    op: Required[Literal["filter"]]
    labels: list[str]
    types: list[str]
    hide: list[str]


Op = AddOp | RemoveOp | HighlightOp | FitOp | StyleOp | LayoutOp | FilterOp
#: Every kind of delta step, declared once (the page's APPLY table in js/src/delta.js has an entry for each).
OPS: tuple[type, ...] = (AddOp, RemoveOp, HighlightOp, FitOp, StyleOp, LayoutOp, FilterOp)
#: ``op`` of each, in the order of OPS.
OP_KINDS = tuple(get_args(get_type_hints(declared)["op"])[0] for declared in OPS)


def op_fields(declared: type) -> tuple[frozenset[str], frozenset[str]]:
    """A delta step's fields but ``op``: (always there, there when there is one), read from its type hints (with
    postponed annotations ``__required_keys__`` cannot see ``Required[...]``)."""
    hints = get_type_hints(declared, include_extras=True)
    total = getattr(declared, "__total__", True)
    required = {name for name, hint in hints.items() if get_origin(hint) is Required or (total and get_origin(hint) is not NotRequired)}
    return frozenset(required - {"op"}), frozenset(set(hints) - required - {"op"})


class Delta(TypedDict):
    """Kernel → page: ``ops`` applied in order, at ``revision`` (one more than the page's)."""

    kind: Literal["delta"]
    revision: int
    ops: list[Op]
    anchor: str | None
    undoable: bool


class Status(TypedDict):
    kind: Literal["status"]
    text: str
    level: str


PageMessage = Click | DoubleClick | Undo | Sync | Ready | Shown | Path


class EdgeColumns(TypedDict, total=False):
    """Kernel → page, in the ``graph_gz`` trait (key ``ec``): the base drawing's relationships, one list per field,
    row i of each being relationship i (``payload.py`` makes them; ``js/src/payload.js`` reads them)."""

    id: Required[list[str]]
    s: Required[list[int]]  # its start, as a position in the payload's ``nodes``
    t: Required[list[int]]  # its end, likewise
    y: Required[list[int]]  # its type, as a position in ``types`` (-1: none)
    h: int | list[int]  # 1: every one is highlighted; else the rows that are (absent: none)
    p: list[list[Any]]  # [row, properties for the panel] for those that have more than their type
    w: list[list[int]]  # [row, count] for an overview's super-edges: drawn as wide as their count


#: The fields of ``EdgeColumns`` (``EDGE_COLUMNS`` in js/src/protocol.js lists the same).
EDGE_COLUMNS = tuple(EdgeColumns.__annotations__)


def _id(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"a node id is text, not {type(value).__name__}")
    text = str(value)
    if not text or len(text) > MAX_ID:
        raise ValueError("a node id is empty or too long")
    return text


def _whole(value: Any, low: int = 0, high: int = 10**12) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or not low <= value <= high:
        raise ValueError(f"expected a whole number from {low} to {high}, not {value!r}")
    return int(value)


#: Most nodes one Collapse may name (a selection past this is not one a person made).
MAX_COLLAPSE = 100_000


def _collapse(content: dict[str, Any]) -> Collapse:
    ids = content.get("ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= MAX_COLLAPSE:
        raise ValueError("a collapse names 1 or more drawn nodes")
    return Collapse(kind="collapse", ids=[_id(item) for item in ids])


def _path(content: dict[str, Any]) -> Path:
    ids = content.get("ids")
    if not isinstance(ids, list) or len(ids) != 2:
        raise ValueError("a path names two nodes")
    return Path(kind="path", ids=[_id(item) for item in ids])


#: kind → its parser (raises ValueError or TypeError on a malformed message).
PARSERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "click": lambda c: Click(kind="click", id=_id(c.get("id"))),
    "dblclick": lambda c: DoubleClick(kind="dblclick", id=_id(c.get("id"))),
    "undo": lambda c: Undo(kind="undo"),
    "collapse": _collapse,
    "sync": lambda c: Sync(kind="sync", have=_whole(c.get("have", 0))),
    "ready": lambda c: Ready(kind="ready", ms=_whole(c.get("ms", 0)), nodes=_whole(c.get("nodes", 0))),
    "shown": parse_shown,
    "path": _path,
}
PAGE_KINDS = tuple(PARSERS)
KERNEL_KINDS = ("delta", "status")


def parse(content: Any) -> tuple[str, Any] | None:
    """``(kind, message)`` for a well-formed page message; None (and a log line) for anything else."""
    kind = content.get("kind") if isinstance(content, dict) else None
    parser = PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        log.warning("dropped a canvas message of unknown kind %r", kind if isinstance(kind, str) else type(content).__name__)
        return None
    try:
        return kind, parser(content)
    except (ValueError, TypeError, KeyError) as exc:
        log.warning("dropped a malformed %r message from the page: %s", kind, exc)
        return None


def _selection(value: Any, drawn: Any) -> list[str]:
    """``selected`` from the page: keys of drawn nodes (one no longer drawn, e.g. removed meanwhile, is left out)."""
    if not isinstance(value, list) or len(value) > MAX_COLLAPSE:
        raise ValueError(f"a selection is a list of at most {MAX_COLLAPSE:,} node keys")
    return [key for key in map(_id, value) if key in drawn]


#: The traits the page writes (js/src: ``selected``; ``height`` may come from a page resizing the canvas), each
#: with its check; every other trait (``graph_gz``, ``revision``, ``settings`` …) is the kernel's alone.
PAGE_TRAITS: dict[str, Callable[[Any, Any], Any]] = {
    "selected": _selection,
    "height": lambda value, _drawn: _whole(value, 1, 100_000),
}


def page_state(sync_data: Any, drawn: Any) -> dict[str, Any]:
    """What a page's state update may set, checked (``drawn``: the drawn nodes' keys); the rest dropped with one log line."""
    if not isinstance(sync_data, dict):
        log.warning("dropped a canvas state update that is not a map (%s)", type(sync_data).__name__)
        return {}
    kept, dropped = {}, []
    for name, value in sync_data.items():
        check = PAGE_TRAITS.get(name) if isinstance(name, str) else None
        try:
            if check is None:
                raise ValueError("the kernel's own, not the page's to write")
            kept[name] = check(value, drawn)
        except (ValueError, TypeError) as exc:
            dropped.append(f"{str(name)[:40]!r} ({exc})")
    if dropped:
        log.warning("dropped from a canvas state update from the page: %s", "; ".join(dropped)[:500])
    return kept


class Handlers(dict):
    """kind → handler, filled by decorating methods: ``@HANDLERS("click")``; every page kind must have one."""

    def __call__(self, kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        if kind not in PARSERS:
            raise ValueError(f"{kind!r} is not a page message kind ({', '.join(PAGE_KINDS)})")

        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            self[kind] = function
            return function

        return register
