"""The whole graph as compact integer arrays, read in one LMDB snapshot and kept per database state.

One pass over GestaltDB's own tables: the node table's keys (every node, isolated ones too), the
label index (one range per label) and the typed adjacency's ``out`` records (every relationship
once: source, type, target). Records are read a chunk at a time as Arrow arrays straight from
LMDB's pages in the data file (``engine/pages.py``; when a table's pages are not as expected, by two
C-level cursor loops instead); numpy cuts the keys at their separators, Arrow encodes the types,
and ids become integers through one table of the node keys' fingerprints made once (``ids.Table``)
— no Python statement runs per relationship or per node. Node ids become integers in key order;
relationships become three int32 arrays. Nothing per node is kept as a Python object except the id
table (``keys``, made while the communities are found, and its inverse ``index``), which drilling and
``group_of`` need. The copy is cached under the LMDB transaction id it was read at, so a second
overview of an unchanged database reads nothing again, and any write (ours, Cypher's or another
process's) makes the next call read afresh.

GestaltDB's ``build_sampler_snapshot`` builds the same CSR arrays but writes and validates them on
disk (6 s at 100k nodes / 300k relationships here, against 0.13 s for this read), so it is not used.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import Any, Protocol

import numpy as np

from ..engine import keys as layout
from ..engine.pages import Pages, open_pages, spans
from ..engine.store import ensure_index_current, lmdb_store
from ..errors import GestaltError
from ..graph.bookkeeping import MEMORY_LABELS, SOURCE_LABEL, WORDS
from .ids import Table

__all__ = ["Compact", "Sink", "cached", "from_subgraph", "internal_label", "read", "relationships_about", "state_of", "store_of"]

_SEP = layout.SEP
_OUT = layout.OUT  # GestaltDB's typed adjacency: out SEP node SEP type SEP edge -> neighbour
_CHUNK = 65_536  # records read and converted at a time (bounds the Python objects alive)
_AHEAD = 2  # chunks read ahead of the one being converted (bounds the memory they hold)
_APART_FROM = 2 * _CHUNK  # relationships from which chunks are converted in a thread while the next are read


def internal_label(label: str) -> bool:
    """A label of gestalt-nb's or the adapter's own bookkeeping (kept out of an overview)."""
    return label.startswith("__") or label in MEMORY_LABELS or label == SOURCE_LABEL


@dataclass(eq=False)
class Compact:
    """Nodes ``0..n-1`` (``keys[i]`` is node i's stored id) and relationships ``src[j] -type[j]-> dst[j]``."""

    keys: list[bytes]
    labels: list[str]
    #: per label (same order as ``labels``): the node integers carrying it, sorted
    label_members: list[np.ndarray]
    src: np.ndarray
    dst: np.ndarray
    etype: np.ndarray
    type_names: list[str]
    #: node integers in the overview (False: bookkeeping, or outside ``labels=``)
    kept: np.ndarray
    state: int
    notes: list[str] = field(default_factory=list)
    #: groupings computed on this copy, by (by, resolution, max_groups): reused while the copy is
    groupings: dict[tuple, Any] = field(default_factory=dict)
    #: ``keys`` are sorted (read in LMDB's key order)
    ordered: bool = False

    def any_key_starts(self, prefix: bytes) -> bool:
        """Whether a node's stored id starts with ``prefix`` (a binary search when the keys are in LMDB's order)."""
        if self.ordered:
            at = bisect_left(self.keys, prefix)
            return at < len(self.keys) and self.keys[at].startswith(prefix)
        return any(key.startswith(prefix) for key in self.keys)

    @cached_property
    def index(self) -> dict[bytes, int]:
        return {key: number for number, key in enumerate(self.keys)}

    @cached_property
    def degree(self) -> np.ndarray:
        n = len(self.keys)
        return np.bincount(self.src, minlength=n) + np.bincount(self.dst, minlength=n)

    @property
    def node_count(self) -> int:
        return int(self.kept.sum())

    @property
    def edge_count(self) -> int:
        return int(self.src.size)

    def induced(self, numbers: np.ndarray) -> Compact:
        """The copy of nodes ``numbers`` (sorted node integers) and the relationships among them, renumbered 0..k-1
        in the same order (a group's members, grouped again by ``OverviewResult.within``)."""
        numbers = np.asarray(numbers, dtype=np.int64)
        local = np.full(len(self.keys), -1, dtype=np.int64)
        local[numbers] = np.arange(numbers.size)
        inside = (local[self.src] >= 0) & (local[self.dst] >= 0)
        members = [local[found][local[found] >= 0] for found in (numbers_[numbers_ >= 0] for numbers_ in self.label_members)]
        return Compact([self.keys[int(n)] for n in numbers], list(self.labels), members, local[self.src[inside]].astype(np.int32),
                       local[self.dst[inside]].astype(np.int32), self.etype[inside], list(self.type_names),
                       np.ones(numbers.size, dtype=bool), self.state, ordered=self.ordered)

    def ids(self, numbers: Any) -> list[str]:
        return [self.keys[int(number)].decode("utf-8") for number in numbers]

    def numbers(self, ids: Any) -> np.ndarray:
        """Node integers of stored ids (-1 where the id is not a node of this copy)."""
        index = self.index
        return np.fromiter((index.get(str(item).encode("utf-8"), -1) for item in ids), dtype=np.int64)


_CACHE: dict[tuple, Compact] = {}


def store_of(db: Any) -> Any:
    """The LMDB store an overview reads, or a clear error on another backend."""
    store = lmdb_store(db)
    if store is None:
        raise GestaltError("An overview reads GestaltDB's LMDB tables; this database uses another backend. Open or create it with the LMDB backend.")
    return store


def state_of(db: Any) -> int:
    return int(store_of(db).env.info()["last_txnid"])


def cached(db: Any, *, labels: list[str] | None = None, types: list[str] | None = None) -> Compact | None:
    """The kept copy for these labels and types when the database is unchanged since it was read, else None."""
    store = lmdb_store(db)
    found = _CACHE.get(_key(db, store, labels, types)) if store is not None else None
    return found if found is not None and found.state == state_of(db) else None


def _key(db: Any, store: Any, labels: list[str] | None, types: list[str] | None) -> tuple:
    """A copy's key: the database's own identity with its store's (an id() alone may be reused by a later store, and
    the scratch databases of moments, ``temporal/visible.py``, come and go with equal transaction ids)."""
    return (getattr(db, "database_id", None), id(store), tuple(labels or ()), tuple(types or ()))


def relationships_about(db: Any) -> int:
    """About how many relationships ``db`` holds (the typed adjacency's records, two per relationship), without reading them."""
    store = store_of(db)
    with store.env.begin(write=False) as txn:
        return _relationships(txn, store)


def _relationships(txn: Any, store: Any) -> int:
    return int(txn.stat(store.typed_adj_db)["entries"]) // 2


class Sink(Protocol):
    """Where the relationships go as they are read (community detection fed while the read goes on)."""

    def start(self, nodes: int) -> None: ...

    def feed(self, src: np.ndarray, dst: np.ndarray) -> None: ...

    def end(self) -> None: ...


def read(db: Any, *, labels: list[str] | None = None, types: list[str] | None = None,
         step: Callable[[int], None] | None = None, sink: Sink | None = None) -> Compact:
    """The compact copy of ``db`` (only nodes with one of ``labels`` and relationships of ``types``, when given);
    ``step(relationships)`` is called after each chunk read, and ``sink`` is given each chunk's relationships
    (only when the copy is read now: a kept copy is returned as it is)."""
    store = store_of(db)
    key = _key(db, store, labels, types)
    state = state_of(db)
    cached = _CACHE.get(key)
    if cached is not None and cached.state == state:
        return cached
    ensure_index_current(db, "node_label")
    with store.env.begin(write=False) as txn:
        compact = _read(txn, store, layout.index_prefix, labels, types, step, sink)
    compact.state = state
    _CACHE.clear()  # one copy at a time: a million-node copy is ~100 MB
    _CACHE[key] = compact
    return compact


def _prefixed(txn: Any, table: Any, prefix: bytes) -> Any:
    """(keys, values) lists, a chunk at a time, of every record under ``prefix``: two cursors walk the
    range in C (``iternext`` + ``islice``); Python only finds where the prefix ends in the last chunk."""
    keys_cursor, values_cursor = txn.cursor(db=table), txn.cursor(db=table)
    if not (keys_cursor.set_range(prefix) and values_cursor.set_range(prefix)):
        return
    keys_iter, values_iter = keys_cursor.iternext(keys=True, values=False), values_cursor.iternext(keys=False, values=True)
    while True:
        keys = list(islice(keys_iter, _CHUNK))
        if not keys:
            return
        values = list(islice(values_iter, len(keys)))
        end = len(keys) if keys[-1].startswith(prefix) else bisect_left(keys, prefix[:-1] + bytes([prefix[-1] + 1]))
        yield keys[:end], values[:end]
        if end < len(keys):
            return


def _chunks(txn: Any, pages: Pages | None, name: bytes, table: Any, prefix: bytes) -> Any:
    """(keys, values) Arrow binary arrays, a chunk at a time, of every record under ``prefix`` of table ``name``
    (opened as ``table``): read from its pages when they read as expected (``engine/pages.py``), else walked with a cursor."""
    import pyarrow as pa

    found = pages.read(name, table, prefix) if pages is not None else None
    if found is not None:
        yield from found
        return
    for keys, values in _prefixed(txn, table, prefix):
        yield pa.array(keys, pa.binary()), pa.array(values, pa.binary())


class _Edges:
    """The relationships read so far, kept to the overview's nodes and types: each chunk's ids become node integers
    as it is taken (``ids.Table``), and its relationships go to the sink."""

    def __init__(self, table: Table, kept: np.ndarray, types: list[str] | None, sink: Sink | None) -> None:
        self.table, self.kept, self.types, self.sink = table, kept, set(types) if types else None, sink
        self.type_ids: dict[bytes, int] = {}
        self.allowed: list[bool] = []
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        if sink is not None:
            sink.start(int(kept.size))

    @staticmethod
    def cut(keys: Any) -> tuple[Any, Any]:
        """The source and type of each of a chunk's ``out`` keys (source SEP type SEP edge), as Arrow binary arrays."""
        import pyarrow.compute as pc

        fields = _fields(keys)
        if fields is None:  # an id holding the separator: Arrow splits at the first three
            parts = pc.split_pattern(keys, pattern=_SEP, max_splits=3)
            fields = pc.list_element(parts, 1), pc.list_element(parts, 2)
        return fields

    def take(self, sources: Any, kinds: Any, targets: Any) -> None:
        """A chunk of relationships (``cut`` from their ``out`` records, and their targets), as Arrow binary arrays:
        the sources come sorted, so each run of one source is looked up once and repeated."""
        import pyarrow.compute as pc

        runs = pc.run_end_encode(sources)
        encoded = pc.dictionary_encode(kinds)
        kind = np.asarray([self._type(name) for name in encoded.dictionary.to_pylist()], dtype=np.int32)
        src = np.repeat(self.table.numbers(runs.values), np.diff(runs.run_ends.to_numpy(), prepend=0))
        self._add(src, self.table.numbers(targets), kind[encoded.indices.to_numpy(zero_copy_only=False)])

    def _add(self, src: np.ndarray, dst: np.ndarray, kind: np.ndarray) -> None:
        inside = (src >= 0) & (dst >= 0)
        inside[inside] = self.kept[src[inside]] & self.kept[dst[inside]]
        if self.types is not None:
            inside &= np.asarray(self.allowed, dtype=bool)[kind]
        src, dst, kind = src[inside], dst[inside], kind[inside]
        self.parts.append((src, dst, kind))
        if self.sink is not None:
            self.sink.feed(src, dst)

    def _type(self, name: bytes) -> int:
        if name not in self.type_ids:
            self.type_ids[name] = len(self.type_ids)
            self.allowed.append(self.types is None or name.decode("utf-8") in self.types)
        return self.type_ids[name]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.parts:
            return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32)
        return tuple(np.concatenate(column) for column in zip(*self.parts))  # type: ignore[return-value]  # a tuple of three arrays, which mypy cannot count in a generator


def _fields(keys: Any) -> tuple[Any, Any] | None:
    """The source and type of each ``out`` key (out SEP source SEP type SEP edge) as two Arrow binary arrays, cut
    where numpy finds the separators in the keys' bytes; None unless every key has exactly three, the first after
    ``out`` (then Arrow's ``split_pattern`` reads them)."""
    import pyarrow as pa

    count = len(keys)
    if count == 0 or not pa.types.is_binary(keys.type):
        return None
    offsets = np.frombuffer(keys.buffers()[1], np.int32, count + 1, keys.offset * 4).astype(np.int64)
    data = np.frombuffer(keys.buffers()[2], np.uint8)
    marks = np.flatnonzero(data[offsets[0]:offsets[-1]] == _SEP[0]) + offsets[0]
    if marks.size != 3 * count:
        return None
    first, second, third = marks[0::3], marks[1::3], marks[2::3]
    if not ((first == offsets[:-1] + len(_OUT) - 1).all() and (third < offsets[1:]).all()):
        return None
    # [before the source] [source] [separator] [type]: the keys' bytes in order, cut at every bound
    bounds = np.empty(4 * count + 1, np.int64)
    bounds[0] = 0
    bounds[1::4], bounds[2::4], bounds[3::4], bounds[4::4] = first + 1, second, second + 1, third
    every = np.arange(1, 4 * count, 4, dtype=np.int64)
    sources, kinds = spans(keys.buffers()[2], bounds, [every, every + 2])  # the pieces' numbers: 1, 5, 9… and 3, 7, 11…
    return sources, kinds


def _read(txn: Any, store: Any, index_prefix: Any, labels: list[str] | None, types: list[str] | None,
          step: Callable[[int], None] | None, sink: Sink | None) -> Compact:
    """Node keys; the labels that decide which nodes are in (bookkeeping, ``labels=``); every relationship, handed
    to ``sink`` as read (``end`` once all are: its community detection starts); then the other labels' members,
    read while that runs."""
    pages = open_pages(store.env, txn)
    try:
        node_keys = _node_keys(txn, pages, store)
        table = Table(node_keys)
        found = sorted(layout.names_under(txn, store.index_db, index_prefix("node_label", [])))
        deciding = [label for label in found if internal_label(label) or label in (labels or ())]
        members = dict(zip(deciding, _members(txn, pages, store, index_prefix, table, deciding)))
        kept, notes = _kept(len(node_keys), found, members, labels)
        src, dst, etype, type_names = _relationships_of(txn, pages, store, _Edges(table, kept, types, sink), step)
        keys = node_keys.to_pylist()  # made while the communities are found
        rest = [label for label in found if label not in members]
        members.update(zip(rest, _members(txn, pages, store, index_prefix, table, rest)))
    finally:
        if pages is not None:
            pages.close()
    return Compact(keys, found, [members[label] for label in found], src, dst, etype, type_names, kept, 0, notes, ordered=True)


def _node_keys(txn: Any, pages: Pages | None, store: Any) -> Any:
    """Every node's stored id, in key order, as one Arrow binary array (from the node table's pages, or a cursor)."""
    import pyarrow as pa

    found = pages.read(b"nodes", store.nodes_db, b"", values=False) if pages is not None else None
    if found is not None:
        return pa.concat_arrays([keys for keys, _ in found] or [pa.array([], pa.binary())])
    return pa.array(list(txn.cursor(db=store.nodes_db).iternext(keys=True, values=False)), pa.binary())


def _relationships_of(txn: Any, pages: Pages | None, store: Any, edges: _Edges, step: Callable[[int], None] | None) -> tuple:
    """Every relationship, taken by ``edges`` (to the kept nodes and types, and to its sink) as it is read: source,
    target and type arrays, and the type names."""
    big = _relationships(txn, store) >= _APART_FROM
    worker = ThreadPoolExecutor(1, thread_name_prefix="gestalt-overview-read") if big else None
    try:  # reading the next chunk and making numbers of the one before overlap on two cores
        waiting: deque[Any] = deque()
        for records, targets in _chunks(txn, pages, b"typed_adj", store.typed_adj_db, _OUT):  # out SEP source SEP type SEP edge -> target
            sources, kinds = edges.cut(records)
            if worker is None:
                edges.take(sources, kinds, targets)
            else:
                waiting.append(worker.submit(edges.take, sources, kinds, targets))
                if len(waiting) > _AHEAD:
                    waiting.popleft().result()
            if step is not None:
                step(len(records))
            del records, targets, sources, kinds
        while waiting:
            waiting.popleft().result()
    finally:
        if worker is not None:
            worker.shutdown(wait=True, cancel_futures=True)  # a stop: what is queued is dropped, the chunk in hand ends
    src, dst, etype = edges.arrays()
    if edges.sink is not None:
        edges.sink.end()
    return src, dst, etype, [name.decode("utf-8") for name in edges.type_ids]


def _members(txn: Any, pages: Pages | None, store: Any, index_prefix: Any, table: Table, labels: list[str]) -> list[np.ndarray]:
    """Per label, the sorted node integers carrying it (its label index range, looked up a chunk at a time)."""
    members = []
    for label in labels:
        chunks = [table.numbers(values) for _, values in _chunks(txn, pages, b"index", store.index_db, index_prefix("node_label", [label]))]
        numbers = np.concatenate(chunks or [np.zeros(0, np.int32)])
        members.append(np.sort(numbers[numbers >= 0]))
    return members


def _kept(count: int, found: list[str], members: dict[str, np.ndarray], labels: list[str] | None) -> tuple[np.ndarray, list[str]]:
    """Which nodes are in the overview: not bookkeeping, and with one of ``labels`` when given (``members``: at
    least those labels' nodes)."""
    kept = np.ones(count, dtype=bool)
    internal = sorted(label for label in found if internal_label(label))
    for label in internal:
        kept[members[label]] = False
    notes = []
    if not kept.all():
        said = ", ".join(WORDS[label].strip("()") if label in WORDS else label for label in internal)  # in words: (source)
        notes.append(f"{int((~kept).sum()):,} bookkeeping nodes ({said}) are left out.")
    if labels:
        unknown = sorted(set(labels) - set(found))
        if unknown:
            raise GestaltError(f"No node has the label(s) {', '.join(unknown)}; the graph's labels are: {', '.join(name for name in found if not internal_label(name)) or 'none'}.")
        chosen = np.zeros(count, dtype=bool)
        for label in labels:
            chosen[members[label]] = True
        kept &= chosen
    return kept, notes


def from_subgraph(subgraph: Any) -> Compact:
    """A compact copy of a drawn ``Subgraph`` (``%%gcypher --overview``: a query's result, grouped)."""
    keys = [node_id.encode("utf-8") for node_id in subgraph.nodes]
    index = {key: number for number, key in enumerate(keys)}
    found = sorted({label for node in subgraph.nodes.values() for label in node.labels})
    position = {label: number for number, label in enumerate(found)}
    buckets: list[list[int]] = [[] for _ in found]
    for number, node in enumerate(subgraph.nodes.values()):
        for label in node.labels:
            buckets[position[label]].append(number)
    type_names = sorted({edge.type for edge in subgraph.edges.values()})
    type_ids = {name: number for number, name in enumerate(type_names)}
    edges = [e for e in subgraph.edges.values() if e.source in subgraph.nodes and e.target in subgraph.nodes]
    src = np.fromiter((index[e.source.encode("utf-8")] for e in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((index[e.target.encode("utf-8")] for e in edges), dtype=np.int64, count=len(edges))
    etype = np.fromiter((type_ids[e.type] for e in edges), dtype=np.int32, count=len(edges))
    compact = Compact(keys, found, [np.asarray(b, dtype=np.int64) for b in buckets], src, dst, etype, type_names,
                      np.ones(len(keys), dtype=bool), -1)
    compact.__dict__["index"] = index
    return compact
