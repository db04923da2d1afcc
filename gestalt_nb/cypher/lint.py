"""Checks for the editor: a ``%%gcypher`` cell's problems and names, answered over a comm, never run.

The JupyterLab extension (js/labextension) sends the cell's text on a comm (target
``gestalt_nb.editor``, opened by ``%load_ext gestalt_nb`` in a kernel) shortly after typing stops.
The answer is what running the cell would say, placed on the text:

* ``lint``: the error the cell would show (the same first line: "Cypher syntax error at line L,
  column C: ...") at that line and column, or else the ``--explain`` slow-shape warnings, each on
  the part of the query it names. A query the engine accepts, without slow shapes, gives ``[]``.
* ``hover``: a label's or relationship type's count and properties from the connection's cached
  schema sample (plain text).
* ``format``: the cell with its query formatted (:mod:`.format`).

Nothing is executed: the query is parsed and planned (``prepare`` and ``explain``, the functions
the cell itself calls) and the schema sample is read. Offsets in answers are UTF-16 code units of
the cell's text, as the browser counts them.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, Callable

from ..errors import GestaltError
from ..options import settings
from .text import MAGIC_LINE, mask

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

TARGET = "gestalt_nb.editor"
#: Counts shown on hover stop above this many (the schema view's bound).
COUNT_BOUND = 10_000
_LOCATED = re.compile(r"^(?P<kind>Cypher (?:syntax )?error) at line (?P<line>\d+), column (?P<column>\d+): ")
_ALIAS = re.compile(r"(?:^|\s)--alias(?:=|\s+)(?P<alias>[^\s'\"]+)")
_UNTYPED_HOP = re.compile(r"\)\s*(?P<hop><?-(?:\[[^\]:]*\])?->?)\s*\(")
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)
_NODE_START = re.compile(r"^\((?P<var>[A-Za-z_]\w*)?(?::(?P<label>[A-Za-z_]\w*))?")


@dataclass(frozen=True)
class Mark:
    """One underline: ``start``..``end`` in the query text, ``severity`` "error" or "warning"."""

    start: int
    end: int
    severity: str
    message: str


@dataclass(frozen=True)
class CellQuery:
    """Where the query is in a cell: its text, its offset in the cell, and the option text."""

    query: str
    offset: int
    options: str

    @property
    def alias(self) -> str | None:
        found = _ALIAS.search(self.options)
        return found.group("alias") if found else None


def cell_query(source: str, split_line: Callable[[str], tuple[str, str]]) -> CellQuery | None:
    """The query part of a ``%%gcypher`` cell (from its second line) or ``%gcypher`` line; None otherwise.

    ``split_line`` is the magic's own splitter of ``%gcypher [options] QUERY`` (passed in: the
    magics sit above this module).
    """
    first, newline, rest = source.partition("\n")
    found = MAGIC_LINE.match(first)
    if found is None:
        return None
    if found.group(1) == "%%":
        return CellQuery(rest, len(first) + len(newline), first[found.end():])
    line = first[found.end():]
    options, query = split_line(line.lstrip())
    return CellQuery(query, len(first) - len(query), options)


def _end_of_token(text: str, start: int) -> int:
    found = re.compile(r"\w+|\S").match(text, start)
    return found.end() if found else start + 1


def _error_mark(query: str, error: GestaltError) -> Mark:
    """The cell's own error as a mark: its first line as the message, at its line and column."""
    message = str(error).split("\n", 1)[0]
    found = _LOCATED.match(message)
    start = 0
    if found is not None:
        lines = query.split("\n")
        line = min(int(found.group("line")), len(lines))
        start = sum(len(text) + 1 for text in lines[: line - 1]) + int(found.group("column")) - 1
    stripped = len(query.rstrip())
    if start >= stripped:  # the parser stopped at the end: mark the last thing written
        start = max(stripped - 1, 0)
    start = min(start, len(query))
    return Mark(start, min(_end_of_token(query, start), max(len(query), start + 1)), "error", message)


def _warning_places(masked: str, kind: str, reason: str) -> list[tuple[int, int]]:
    """Where a slow-shape warning points in the (masked) query text."""
    if kind.startswith("untyped"):
        return [found.span("hop") for found in _UNTYPED_HOP.finditer(masked)]
    if kind.startswith("ORDER BY"):
        found = _ORDER_BY.search(masked)
        return [found.span()] if found else []
    node = _NODE_START.match(reason)
    if node is None or not node.group(0)[1:]:
        return []
    pattern = re.escape("(") + r"\s*" + re.escape(node.group("var") or "")
    if node.group("label"):
        pattern += r"\s*:\s*" + re.escape(node.group("label"))
    found = re.search(pattern, masked)
    return [(found.start(), _end_of_token(masked, found.end() - 1))] if found else []


def _warning_marks(query: str, warnings: list[Any]) -> list[Mark]:
    masked = mask(query).text
    marks: dict[tuple[int, int], Mark] = {}
    for warning in warnings:
        places = _warning_places(masked, warning.kind, warning.reason) or [(0, _end_of_token(query, 0))]
        for start, end in places:
            marks.setdefault((start, end), Mark(start, end, "warning", f"gestalt-nb: slow shape — {warning.line()}"))
    return sorted(marks.values(), key=lambda mark: (mark.start, mark.end))


def lint_query(connection: Connection | None, query: str) -> list[Mark]:
    """What running ``query`` would report, as marks on it: the error, else the slow-shape warnings.

    Without a connection only the parser's errors are known (no warnings: they need the data).
    """
    if not query.strip():
        return []
    # Deferred: the editor's comm is registered at %load_ext, and these import the engine's parser.
    from .explain import explain  # deferred: keeps %load_ext light
    from .prepare import prepare  # deferred: keeps %load_ext light

    try:
        if connection is None:
            prepare(query, settings.row_limit)
            return []
        found = explain(connection, query)
    except GestaltError as exc:
        return [_error_mark(query, exc)]
    return _warning_marks(query, found.warnings)


def _utf16(text: str, offset: int) -> int:
    return len(text[:offset].encode("utf-16-le")) // 2


def lint_cell(connection: Connection | None, source: str, split_line: Callable[[str], tuple[str, str]]) -> list[dict[str, Any]]:
    """The marks of a cell's query, with offsets (UTF-16) into the whole cell; [] for other cells."""
    found = cell_query(source, split_line)
    if found is None:
        return []
    marks = []
    for mark in lint_query(connection, found.query):
        item = asdict(mark)
        item["start"] = _utf16(source, found.offset + mark.start)
        item["end"] = _utf16(source, found.offset + mark.end)
        marks.append(item)
    return marks


def _bounded_count(keys: Any, noun: str) -> str:
    count = sum(1 for _ in islice(keys, COUNT_BOUND + 1))
    if count > COUNT_BOUND:
        return f"more than {COUNT_BOUND:,} {noun}s"
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def hover(connection: Connection, name: str, kind: str) -> str | None:
    """One line about label (``kind`` "label") or relationship type ``name``: its count and properties.

    Properties come from the connection's cached schema sample (the adapter samples it once, lazily),
    counts from the label/type index (bounded). None when the name is not in the sample.
    """
    sample = connection.graph.get_structured_schema
    rels = sample.get("relationships", [])
    if kind == "label" and (name in sample.get("node_props", {}) or any(name in (r["start"], r["end"]) for r in rels)):
        count = _bounded_count(connection.db.iter_node_ids_by_label(name), "node")
        entries = sample.get("node_props", {}).get(name, ())
    elif kind == "type" and (name in sample.get("rel_props", {}) or any(r["type"] == name for r in rels)):
        count = _bounded_count(connection.db.iter_edge_ids_by_type(name), "relationship")
        entries = sample.get("rel_props", {}).get(name, ())
    else:
        return None
    props = sorted({entry["property"] for entry in entries})
    what = "label" if kind == "label" else "relationship type"
    listed = ", ".join(props) if props else "none in the sample"
    return f":{name} ({what}) — {count}; properties: {listed} (from the schema sample)"


# -- the comm ---------------------------------------------------------------------------------
#: Cells longer than this are not checked (the editor sends the whole cell on each pause).
MAX_SOURCE = 200_000


def answer(request: Any, resolve: Callable[[str | None], Connection | None],
           split_line: Callable[[str], tuple[str, str]]) -> dict[str, Any]:
    """The reply to one editor request ``{id, op, source, ...}``; never raises, never runs the query."""
    from .format import format_cell  # deferred: keeps %load_ext light

    if not isinstance(request, dict):
        return {"error": "a request is a JSON object"}
    reply: dict[str, Any] = {"id": request.get("id")}
    source, op = request.get("source"), request.get("op")
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        return {**reply, "error": "no cell text, or too long to check"}
    try:
        found = cell_query(source, split_line)
        connection = resolve(found.alias) if found is not None else None
        if op == "lint":
            reply["marks"] = lint_cell(connection, source, split_line)
        elif op == "hover":
            name, kind = request.get("name"), request.get("kind")
            ok = connection is not None and isinstance(name, str) and kind in ("label", "type")
            reply["text"] = hover(connection, name, kind) if ok else None
        elif op == "format":
            reply["source"] = format_cell(source)
        else:
            reply["error"] = f"unknown op {op!r}"
    except Exception as exc:  # the editor must never see a traceback; the cell, when run, reports properly
        reply["error"] = f"{type(exc).__name__}: {exc}"[:500]
    return reply


def register_comm(shell: Any, resolve: Callable[[str | None], Connection | None],
                  split_line: Callable[[str], tuple[str, str]]) -> bool:
    """Register the editor's comm target in ``shell``'s kernel (False without a kernel)."""
    manager = getattr(getattr(shell, "kernel", None), "comm_manager", None)
    if manager is None:
        return False

    def opened(comm: Any, message: Any) -> None:
        def reply(msg: Any) -> None:
            comm.send(answer(msg.get("content", {}).get("data"), resolve, split_line))

        comm.on_msg(reply)

    manager.register_target(TARGET, opened)
    return True
