"""Several history loads written to GestaltDB's history as one commit: ``with gestalt_nb.one_history_commit(): …``.

Each ``load_nodes`` / ``load_edges`` with ``valid_from`` / ``valid_to`` is one commit of GestaltDB's history, and
GestaltDB's ``commit_versions`` looks every new version's id up in every earlier commit: a history loaded in several
loads (people, companies, jobs) takes time growing with the square of its size (702 s at 10,000 nodes, three loads).
Inside the block each load checks and writes what is valid now as it always does, in its own transaction, and holds
its versions (only once its transaction has committed); the block's end writes every held version in one transaction,
as one commit (100,000 nodes: 107 s; ``bench/bench_diff.py``). A version held later wins where two overlap, as in a
later load; a correction that ``known_at`` must tell apart from the first belief is a load of its own, after the block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import GestaltError
from .writes import _write

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection


class OneHistoryCommit:
    """The block: loads inside hold their history's versions; its end writes them as one commit (also when the block
    raised: the loads that finished said they were written)."""

    def __init__(self, connection: Connection) -> None:
        connection._check_open()
        self.connection = connection

    def __enter__(self) -> OneHistoryCommit:
        connection = self.connection
        connection._check_open()
        if connection._held_versions is not None:
            raise GestaltError(f"one_history_commit() is already open on connection '{connection.alias}': blocks do not nest; "
                               "load inside the open one.")
        connection._held_versions = []
        return self

    def __exit__(self, *_: object) -> None:
        connection = self.connection
        held, connection._held_versions = connection._held_versions or [], None
        if held:
            commit(connection, held)

    def __repr__(self) -> str:
        return f"<one_history_commit on '{self.connection.alias}'>"


def commit(connection: Connection, versions: list[Any]) -> None:
    """Every held version in one transaction (the loads' own ``_write``: its progress, its errors, the live feed): one
    commit of GestaltDB's history; all of them or, on a failure, none."""
    try:
        _write(connection, [("commit_versions", versions, None)], len(versions), "history")
    except GestaltError as exc:
        raise GestaltError(f"The history held by one_history_commit() ({len(versions):,} versions) was not written, nothing of it: "
                           f"{exc} What its loads made valid now was written; load their history again.") from exc


def held_node_ids(connection: Connection) -> set[str]:
    """The ids of the nodes whose versions the open block holds (none outside a block)."""
    from gestaltdb.graphdb import NodeVersionWrite

    return {version.logical_id for version in connection._held_versions or [] if isinstance(version, NodeVersionWrite)}


def one_history_commit(connection: Connection) -> OneHistoryCommit:
    """The work of :meth:`Connection.one_history_commit <gestalt_nb.capabilities.Capabilities.one_history_commit>`, ``connection`` first (documented there, once)."""
    return OneHistoryCommit(connection)
