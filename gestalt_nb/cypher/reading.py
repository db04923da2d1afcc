"""The adapter's read with its check kept and its conversion left to the rows a view shows.

``GestaltDBGraph.query_read_only`` validates the parsed query (``validate_read_only``) and then calls
``self.query``, which runs it and turns every engine value into JSON (``normalize``). ``EngineReads``
is the adapter's own class over the same database with only ``query`` changed: it hands back the
engine's records as they are (``EngineRecords``), so every read still passes the adapter's own
``query_read_only`` check first, and ``graph.rows.Rows`` converts what is read. Should an adapter
version no longer route its read through ``self.query``, the JSON it returns is used as it is.

Reads run in one LMDB snapshot pinned here (``snapshot``, ``read_only``), over the snapshot's own ``GraphDB``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from langchain_gestaltdb import GestaltDBGraph

from ..engine.store import snapshot_db
from ..graph.adapter import normalize
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


@contextmanager
def snapshot(adapter: Any) -> Iterator[Any]:
    """The adapter over one LMDB read snapshot of its database, or None when its store keeps none.

    The adapter's class (``EngineReads`` stays ``EngineReads``; any other class reads as ``GestaltDBGraph``) over the
    snapshot's own ``GraphDB``, to be read with ``read_snapshot=False``: the same pinned snapshot the engine's default
    read takes, without the read-only facade the engine puts in front of it, which every storage call of the query
    then passes through (~13% of a 20,000-row read; the read was validated read-only before it runs either way).
    """
    db = adapter.graph
    if not getattr(db.store, "supports_read_snapshots", False):
        yield None
        return
    with db.current_read_view(capture_provenance=False) as view:
        yield (type(adapter) if isinstance(adapter, EngineReads) else GestaltDBGraph)(snapshot_db(view))


def read_only(adapter: Any, text: str, params: dict[str, Any] | None, allowed_procedures: Collection[str] = ()) -> list[Any]:
    """``adapter.query_read_only`` in one snapshot (``snapshot``); an adapter subclass of someone else's reads as it is."""
    if not (isinstance(adapter, EngineReads) or type(adapter) is GestaltDBGraph):
        return adapter.query_read_only(text, params, allowed_procedures=allowed_procedures)
    with snapshot(adapter) as pinned:
        if pinned is None:
            return adapter.query_read_only(text, params, allowed_procedures=allowed_procedures)
        return pinned.query_read_only(text, params, allowed_procedures=allowed_procedures, read_snapshot=False)


def as_json(records: list[Any]) -> list[Any]:
    """Records as the adapter's JSON (``graph.adapter.normalize``: a non-finite float kept as the float it is, which
    the adapter refuses); JSON from an adapter subclass is given back as it is."""
    return [normalize(record) for record in records] if isinstance(records, EngineRecords) else records


def rows(records: list[Any], limit: int, *, write: bool = False) -> Rows:
    """The first ``limit`` records as ``Rows``: read from the engine's values, or the adapter's JSON as given."""
    kept = records[:limit]
    return Rows.from_engine(kept, same_state=not write) if isinstance(records, EngineRecords) else Rows.from_json(kept)
