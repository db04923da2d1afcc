"""The adapter's read with its check kept and its conversion left to the rows a view shows.

``GestaltDBGraph.query_read_only`` validates the parsed query (``validate_read_only``) and then calls
``self.query``, which runs it and turns every engine value into JSON (``normalize``). ``EngineReads``
is the adapter's own class over the same database with only ``query`` changed: it hands back the
engine's records as they are (``EngineRecords``), so every read still passes the adapter's own
``query_read_only`` check first, and ``graph.rows.Rows`` converts what is read. Should an adapter
version no longer route its read through ``self.query``, the JSON it returns is used as it is.
"""

from __future__ import annotations

from typing import Any

from langchain_gestaltdb import GestaltDBGraph

from ..graph.rows import Rows


class EngineRecords(list):
    """The engine's records, unconverted (what ``EngineReads.query`` returns)."""


class EngineReads(GestaltDBGraph):
    """The adapter over a borrowed database whose ``query`` returns ``EngineRecords``."""

    def query(self, query: str, params: dict[str, Any] | None = None, *, read_snapshot: bool | None = None) -> list[dict[str, Any]]:
        return EngineRecords(self.graph.query(query, parameters=params, read_snapshot=read_snapshot).records)


def reader(adapter: Any) -> Any:
    """``adapter`` reading engine records (``EngineReads`` over its database), when it is the adapter's own class.

    A subclass that changes ``query`` or ``query_read_only`` is used as it is (its JSON then is the rows).
    """
    if isinstance(adapter, EngineReads) or type(adapter) is not GestaltDBGraph:
        return adapter
    return EngineReads(adapter.graph)


def rows(records: list[Any], limit: int, *, write: bool = False) -> Rows:
    """The first ``limit`` records as ``Rows``: read from the engine's values, or the adapter's JSON as given."""
    kept = records[:limit]
    return Rows.from_engine(kept, same_state=not write) if isinstance(records, EngineRecords) else Rows.from_json(kept)
