"""The adapter's JSON shape for engine values, named in one place.

langchain-gestaltdb normalises every node, relationship, path and temporal value it returns with its own
``_serialization.normalize``, and exports no public name for it. gestalt-nb makes records that must be exactly
what the adapter's ``query_read_only`` would return, so it uses the same function, imported here only: if the
adapter moves it, this is the one line to change (and ``tests/test_result_rows.py`` fails first).

One difference, on purpose: the adapter refuses a non-finite float (``NaN``, ``inf``, ``-inf``: "Non-finite
floats are not JSON-compatible"), which GestaltDB stores and pandas data is full of. ``normalize`` here keeps
such a float as the float it is (a record reads ``nan``, a table ``NaN``); every other value is the adapter's
JSON exactly, and its other errors are raised as before. The views that write JSON say ``NaN`` / ``Infinity``.
"""

from __future__ import annotations

import math
from typing import Any

from ..engine.adapter import normalize as _adapter_normalize

__all__ = ["normalize"]


class _NonFinite(str):
    """A non-finite float on its way through the adapter's ``normalize`` (a ``str`` passes it unchanged)."""

    __slots__ = ("number",)


def normalize(value: Any, *, _depth: int = 0) -> Any:
    """The adapter's ``normalize``, with non-finite floats kept as floats (see the module docstring)."""
    try:
        return _adapter_normalize(value, _depth=_depth)
    except ValueError as exc:
        if "Non-finite" not in str(exc):
            raise
    return _restore(_adapter_normalize(_mark(value, _depth), _depth=_depth))


def _mark(value: Any, depth: int) -> Any:
    """``value`` with every non-finite float replaced by a ``_NonFinite`` (entities as the adapter reads them)."""
    from gestaltdb.graphdb import Edge, Node
    from gestaltdb.query_engine.cypher.ast import PathValue

    if depth > 66:  # the adapter raises its own depth error on what is left
        return value
    if type(value) is float:
        if math.isfinite(value):
            return value
        marker = _NonFinite(repr(value))
        marker.number = value
        return marker
    if isinstance(value, (Node, Edge)):
        value = value.to_dict()
    elif isinstance(value, PathValue):
        value = {"nodes": value.nodes, "edges": value.edges}
    if isinstance(value, dict):
        return {key: _mark(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_mark(item, depth + 1) for item in value]
    return value


def _restore(value: Any) -> Any:
    if type(value) is _NonFinite:
        return value.number
    if type(value) is dict:
        return {key: _restore(item) for key, item in value.items()}
    if type(value) is list:
        return [_restore(item) for item in value]
    return value
