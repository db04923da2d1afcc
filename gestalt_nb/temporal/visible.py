"""The graph as it was valid at one moment, as recorded by another: read from GestaltDB's own history, never ours.

Measured on gestaltdb 0.12.1 (``bench/bench_as_of.py``): its Cypher ``FOR VALID_TIME AS OF`` and ``iter_nodes_as_of``
decode a whole temporal commit for every entity they look up (a 300-node history in one commit: 5 s for one
label scan; 50 ms without the qualifier), so a read of a loaded history through them grows with the square of its
size. Here the history is read once per database state, commit by commit (``iter_temporal_commits``: each commit
decoded once), and each moment is the versions GestaltDB's own rule makes visible: among the versions of an id
recorded by ``known_at`` whose valid interval holds ``as_of``, the latest recorded (commit, then its order) —
a retraction there means absent (``tests/test_temporal.py`` checks the rule against ``get_node_as_of`` /
``get_edge_as_of``). That graph is written once into a scratch database (a temporary folder, never the data
file), where the read then runs as any read does; a relationship whose ends are not both valid then is left out.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections import OrderedDict
from typing import Any

from gestaltdb.graphdb import GraphDB, VersionOperation
from gestaltdb.temporal import TemporalInstant
from langchain_gestaltdb import GestaltDBGraph

from ..engine.store import sequence

#: Moments kept materialized per process (the oldest is dropped and its folder removed).
KEEP = 4
_history: dict[str, tuple[Any, list[tuple[int, int, int, Any]]]] = {}
_moments: OrderedDict[tuple[Any, ...], tuple[GraphDB, str, list[GestaltDBGraph]]] = OrderedDict()
_ids: OrderedDict[tuple[Any, ...], frozenset[str]] = OrderedDict()


def _state(db: GraphDB) -> tuple[Any, int | None]:
    return (db.database_id, sequence(db))  # the database's own identity, never id(): a closed one's may be reused


def history_read(db: GraphDB) -> bool:
    """Whether the history of ``db``'s present state was already read (the next moment costs no decode)."""
    kept = _history.get(db.database_id)
    return kept is not None and kept[0] == _state(db)


def history(db: GraphDB) -> list[tuple[int, int, int, Any]]:
    """Every version as (commit system time µs, commit id, order in its commit, version), read once per database state."""
    key = _state(db)
    kept = _history.get(db.database_id)
    if kept is not None and kept[0] == key:
        return kept[1]
    versions = [
        (commit.system_time.epoch_microseconds, commit.commit_id, version.commit_ordinal, version)
        for commit in db.iter_temporal_commits()
        for version in commit.versions
        if hasattr(version, "node") or hasattr(version, "edge")
    ]
    _history[db.database_id] = (key, versions)
    return versions


def _holds(version: Any, moment: int) -> bool:
    valid = version.valid
    if valid is None:
        return True
    return valid.start.epoch_microseconds <= moment and (valid.end is None or moment < valid.end.epoch_microseconds)


def at(db: GraphDB, as_of: TemporalInstant, known_at: TemporalInstant | None) -> tuple[list[Any], list[Any]]:
    """The engine nodes and relationships valid at ``as_of`` as recorded by ``known_at`` (None: everything recorded)."""
    moment, horizon = as_of.epoch_microseconds, None if known_at is None else known_at.epoch_microseconds
    latest: dict[tuple[str, str], tuple[int, int, Any]] = {}
    for recorded, commit_id, ordinal, version in history(db):
        if horizon is not None and recorded > horizon or not _holds(version, moment):
            continue
        kind = "node" if hasattr(version, "node") else "edge"
        key = (kind, version.logical_id)
        if key not in latest or latest[key][:2] < (commit_id, ordinal):
            latest[key] = (commit_id, ordinal, version)
    nodes, edges = [], []
    for (kind, _), (_, _, version) in latest.items():
        if version.operation is VersionOperation.RETRACT:
            continue
        (nodes if kind == "node" else edges).append(version.node if kind == "node" else version.edge)
    present = {node.get_id for node in nodes}
    return nodes, [edge for edge in edges if str(edge.source) in present and str(edge.target) in present]


def materialize(db: GraphDB, as_of: TemporalInstant, known_at: TemporalInstant | None, since: TemporalInstant | None = None) -> GraphDB:
    """A scratch database holding the graph at (``as_of``, ``known_at``); kept for the next read of the same moment.

    With ``since``: everything valid at ``since`` or at ``as_of`` (a node's ``as_of`` version where it has one), so
    one grouping covers both moments (the overview's growth); :func:`node_ids` says which nodes each moment holds.
    """
    key = (*_state(db), as_of, known_at, since)
    if key in _moments:
        _moments.move_to_end(key)
        return _moments[key][0]
    nodes, edges = at(db, as_of, known_at)
    if since is not None:
        earlier_nodes, earlier_edges = at(db, since, known_at)
        nodes = list({node.get_id: node for node in [*earlier_nodes, *nodes]}.values())
        edges = list({edge.get_id: edge for edge in [*earlier_edges, *edges]}.values())
    folder = tempfile.mkdtemp(prefix="gestalt-as-of-")
    size = 64 * 1024 * 1024 + 4096 * (len(nodes) + len(edges))
    moment = GraphDB.create(f"{folder}/graph", backend="lmdb", serializer="json", backend_options={"map_size": size})
    with moment.transaction() as tx:
        if nodes:
            tx.put_nodes(nodes)
        if edges:
            tx.put_edges_bulk(edges, check_existing=False)
    _moments[key] = (moment, folder, [])
    while len(_moments) > KEEP:
        _drop(*_moments.popitem(last=False)[1])
    return moment


def borrow(moment: GraphDB) -> GestaltDBGraph:
    """An adapter over a kept moment's scratch database, closed when the moment is let go (so a result still holding it
    says it is gone instead of reaching a closed LMDB environment)."""
    adapter = GestaltDBGraph(moment)
    for kept, _, adapters in _moments.values():
        if kept is moment:
            adapters.append(adapter)
    return adapter


def node_ids(db: GraphDB, as_of: TemporalInstant, known_at: TemporalInstant | None) -> frozenset[str]:
    """The stored ids of the nodes valid at ``as_of`` as recorded by ``known_at``."""
    key = (*_state(db), as_of, known_at)
    if key not in _ids:
        _ids[key] = frozenset(node.get_id for node in at(db, as_of, known_at)[0])
        while len(_ids) > KEEP:
            _ids.popitem(last=False)
    _ids.move_to_end(key)
    return _ids[key]


def _drop(moment: GraphDB, folder: str, adapters: list[GestaltDBGraph]) -> None:
    for adapter in adapters:
        adapter.close()  # not the owner: marks it closed, the database is closed below
    try:
        moment.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@atexit.register
def _clear() -> None:
    while _moments:
        _drop(*_moments.popitem()[1])
