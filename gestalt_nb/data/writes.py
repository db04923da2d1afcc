"""Writing a load: one backend transaction, each step ONE bulk call, with a progress bar; all or nothing.

New nodes and relationships go through GestaltDB's columnar ingestion (``GraphDB.ingest_arrow`` with
serialized payloads: Arrow columns of ids, endpoints, types and the serializer's own bytes; indexes
maintained as it writes, append-only, so nothing stored is re-read); nodes and relationships that
already exist are merged through ``put_nodes`` / ``put_edges_bulk``. The name index beside the graph
(:mod:`gestalt_nb.graph.names`) is kept in the same transaction.

A failure at any point — an edge to a node that does not exist, a full LMDB map, an index key too
long — rolls the transaction back and says what to do; nothing is written.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from typing import TYPE_CHECKING, Any

from .. import outputs
from ..display import kernel_shell
from ..errors import GestaltError, GestaltWarning, map_full, storage_problem
from ..graph import names

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: Keys read per lookup call when checking what already exists. Writes are never chunked.
CHUNK = 5000
#: Loads with at least this many rows show a progress bar.
PROGRESS_FROM = 5000


# -- progress ------------------------------------------------------------------------
class _Progress:
    """An ipywidgets bar inside a kernel, a text line on stderr elsewhere; silent for small loads."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.done, self.label, self.bar = total, 0, label, None
        self.active = total >= PROGRESS_FROM
        if not self.active:
            return
        shell = kernel_shell()
        if shell is not None:
            import ipywidgets as w

            self.bar = w.IntProgress(value=0, max=total, description=label)
            self.text = w.Label()
            self.kept = outputs.Line(w.HBox([self.bar, self.text]), f"{label}: 0 / {total:,} rows")

    def update(self, rows: int) -> None:
        self.done += rows
        if not self.active:
            return
        if self.bar is not None:
            self.bar.value = self.done
            self.text.value = f"{self.done:,} / {self.total:,}"
        else:
            print(f"\r{self.label}: {self.done:,} / {self.total:,} rows", end="", file=sys.stderr)

    def finish(self, seconds: float) -> None:
        if not self.active:
            return
        rate = f"{self.total / seconds:,.0f} rows/s" if seconds else ""
        if self.bar is not None:
            self.text.value = f"{self.total:,} rows in {seconds:.2f} s ({rate})"
            self.kept.say(f"{self.label}: {self.text.value}")
        else:
            print(f"\r{self.label}: {self.total:,} rows in {seconds:.2f} s ({rate})", file=sys.stderr)


# -- writing -------------------------------------------------------------------------
def _too_long_for_index(items: list[Any], indexed: set[str]) -> str | None:
    """After GestaltDB refused an index key: the row value that is the likeliest cause, named."""
    longest: tuple[int, str, str] | None = None
    for item in items:
        for name in indexed & set(item.properties):
            value = item.properties[name]
            size = len(value.encode("utf-8")) if isinstance(value, str) else len(json.dumps(value, default=str))
            if longest is None or size > longest[0]:
                longest = (size, item.get_id, name)
    if longest is None:
        return None
    size, entity, name = longest
    return (
        f"{entity!r}, column '{name}': a {size:,}-byte value is too long for the property index on '{name}' "
        "(GestaltDB's index keys are limited to 511 bytes). Shorten such values or load them under an unindexed column."
    )


def _ingest_nodes(tx: Any, nodes: list[Any]) -> None:
    """New nodes through ``ingest_arrow`` (serialized payloads, indexes maintained, append-only), names kept."""
    ids = [node.get_id_bytes for node in nodes]
    names.sync(tx, ids, dict(zip(ids, nodes)), new=True)
    values = [tx.serialize_node_value(node) for node in nodes]
    tx.ingest_arrow(ids, [], [], [], [], ingestion_mode="serialized_payloads", index_mode="maintain", node_values=values, edge_values=[])


def _ingest_edges(tx: Any, edges: list[Any], keep: bool) -> None:
    """New relationships through ``ingest_arrow``; the ``Edge`` objects dropped once they are columns, unless ``keep``.

    GestaltDB's LMDB store turns every column into a Python list of bytes: plain lists of bytes
    are handed over as they are, where Arrow arrays would be copied once more.
    """
    columns = (
        [edge.get_id_bytes for edge in edges],
        [edge.source.encode("utf-8") for edge in edges],
        [edge.target.encode("utf-8") for edge in edges],
        [edge.get_type for edge in edges],
        [tx.serialize_edge_value(edge) for edge in edges],
    )
    if not keep:
        edges.clear()  # the columns hold everything that is written: the objects can go before the write
    ids, sources, targets, types, values = columns
    del columns
    tx.ingest_arrow([], ids, sources, targets, types, ingestion_mode="serialized_payloads", index_mode="maintain", node_values=[], edge_values=values)


def _write(connection: Connection, steps: list[tuple[str, list[Any], Any]], total: int, label: str) -> float:
    """Run every (method, items, extra) write step in one transaction, each step as ONE bulk call.

    Chunking would cost: every ``put_edges_bulk`` call re-reads and re-writes the adjacency of each
    node it touches. The progress bar moves once per step (conversion is done before it starts).
    """
    db = connection.db
    progress = _Progress(total, label)
    written: list[str] = []
    held: list[Any] = []
    done = 0
    started = time.perf_counter()
    try:
        with db.transaction() as tx:
            for method, items, extra in steps:
                if not items:
                    continue
                if method == "commit_versions" and connection._held_versions is not None:
                    held = items  # a one_history_commit() block writes them at its end (held once this transaction commits)
                    progress.update(len(items))
                    continue
                written.extend(item.logical_id if method == "commit_versions" else item.get_id for item in items)
                if method == "commit_versions":
                    tx.commit_versions(items)  # the history, in the same transaction as the current state
                elif method == "ingest_nodes":
                    _ingest_nodes(tx, items)
                elif method == "ingest_edges":
                    _ingest_edges(tx, items, keep=bool(db.indexed_edge_properties))  # kept to name a too-long value
                elif method == "put_nodes":
                    names.put_nodes(tx, items)  # the name index kept in the same transaction
                else:
                    tx.put_edges_bulk(items, check_existing=extra)
                progress.update(len(written) - done)
                done = len(written)
            names.advance(tx)  # the name index, kept in this transaction, is current
    except Exception as exc:
        full = map_full(exc, "load")
        if full is not None:
            raise full from exc
        cause = None
        if "index key exceeds" in str(exc):
            indexed = db.indexed_node_properties if label == "nodes" else db.indexed_edge_properties
            cause = _too_long_for_index([item for _, items, _ in steps for item in items], set(indexed))
        storage = storage_problem(exc, connection.path, "load into the database", read_only=connection.read_only) if connection.path else None
        raise GestaltError(storage or f"The load failed and was rolled back; nothing was written: {cause or exc}") from exc
    if held:
        connection._held_versions.extend(held)
    seconds = time.perf_counter() - started
    progress.finish(seconds)
    connection.graph.refresh_schema()  # the schema cache (and tools built on it) see the new data
    if total:
        connection.feed.publish("load", written, exact=True)
    return seconds


def _existing(db: Any, keys: list[bytes], kind: str) -> dict[bytes, bytes]:
    if kind == "Edge" and next(iter(db.iter_edge_ids(num_edges=1)), None) is None:
        return {}  # no relationships stored yet: nothing to merge with, skip the lookups
    if kind == "Node" and next(iter(db.get_node_keys_generator(num_nodes=1)), None) is None:
        return {}
    getter = db.store.get_nodes_bulk if kind == "Node" else db.store.get_edges_bulk
    found = {}
    for offset in range(0, len(keys), CHUNK):
        found.update(getter(keys[offset : offset + CHUNK]))
    return found


def _caller_level() -> int:
    """The stacklevel of the first frame outside gestalt_nb, so a warning shows the person's own line."""
    import os

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _warn(messages: list[str]) -> None:
    for message in messages:
        warnings.warn(message, GestaltWarning, stacklevel=_caller_level())
