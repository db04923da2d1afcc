"""Untyped relationship patterns rewritten to name every relationship type, read in one snapshot.

GestaltDB expands an untyped hop (``-[r]->``, ``-->``, ``-[*1..2]-``, in MATCH, OPTIONAL MATCH,
SHORTEST, ``shortestPath()``, UNION branches and CALL subqueries) by reading every relationship in
the database for each node it expands; a typed hop walks typed adjacency. A read is rewritten to
``-[r:T1|T2|…]->`` with every type the database holds, internal ones included (untyped patterns
match them today, so the rewrite does too), and returns the rows the untyped query returns:

- The types are read in the same LMDB read transaction the query then runs in (one MVCC snapshot),
  so a writer adding a type between two reads cannot make the list stale for the read that uses it.
- A relationship without a type is matched untyped but is in no typed adjacency: the rewrite is
  used only when the snapshot's typed adjacency holds exactly two entries (out, in) per stored
  relationship, and the type index is not deferred (stale).
- A variable-length hop in either direction walks a self-loop once untyped but twice typed (out
  and in): such a hop is rewritten only when the snapshot holds no self-loop (checked once per
  snapshot, by scanning typed adjacency; remembered by transaction id).
- Rows come back in another order where the query does not order them (typed adjacency is grouped
  by type), so a LIMIT without ORDER BY, or SHORTEST k among equally short paths, may pick other,
  equally valid rows — as Cypher allows either way. ORDER BY, counts, ``type(r)`` and paths agree.

Positions come from the engine's own parse tree (token offsets, so strings and comments are never
touched), and the rewritten text is parsed again and compared with the original AST: anything but
the added types (and a column alias that keeps an unaliased column's name) and it is not used.
Writes, temporal (``FOR VALID_TIME``) reads and non-LMDB backends are left as written.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from gestaltdb.cypher import parse_ast
from gestaltdb.cypher_ast import MatchClause, OptionalMatchClause, PatternHop, ProjectionItem

from ..engine.keys import OUT, adjacency_prefix, index_prefix, names_under
from ..engine.store import cypher_tree, snapshot_db, stale_indexes
from ..options import settings
from . import anchor
from .ast_text import same_tree, walk
from .reading import as_json, read_only, reader, snapshot

#: The alternation is kept only while types * this <= relationships. Measured (bench_untyped.py
#: --types-sweep, 10k nodes / 30k relationships): the alternation's cost grows with the number of
#: types (one seek per type and direction), the untyped scan's with the relationships; 1,000 types
#: were still 8-10x faster, the two meet near relationships / 3.
TYPES_PER_RELATIONSHIP = 4
#: The adapter refuses longer query texts (query_read_only); a longer rewrite runs as written.
MAX_TEXT = 10_000
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HOPS = {"out_hop": "-", "in_hop": "<-", "any_hop": "-"}


@dataclass(frozen=True)
class Untyped:
    """Where the untyped hops of one query text are (``reason`` says why they cannot be rewritten)."""

    text: str
    parsed: Any
    #: (offset, bare): bare hops (``-->``) get ``[:T|…]`` after their first dash; others ``:T|…`` in the brackets.
    sites: tuple[tuple[int, bool], ...] = ()
    #: (end offset, column name) of each unaliased RETURN/WITH item with a hop inside (keeps its column name).
    aliases: tuple[tuple[int, str], ...] = ()
    #: A variable-length hop in either direction: exact only on a snapshot without self-loops.
    loops_matter: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class Rewrite:
    """What happened to one read: the text that ran, the types it names, or why it ran as written."""

    text: str
    types: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def applied(self) -> bool:
        return bool(self.types)

    def sentence(self) -> str:
        if self.applied:
            return (
                f"yes: untyped relationship patterns name all {len(self.types)} relationship types the database holds, "
                "read in the query's own snapshot (typed adjacency instead of a scan of every relationship; the same rows, "
                "in another order where the query sets none); the text that ran is below"
            )
        return f"no: the untyped relationship patterns ran as written ({self.reason})"


def _untyped_hops(parsed: Any) -> list[PatternHop]:
    return [node for node in walk(parsed) if isinstance(node, PatternHop) and not node.edge_types]


def has_untyped(parsed: Any) -> bool:
    return any(isinstance(node, PatternHop) and not node.edge_types for node in walk(parsed))


def run_read(adapter: Any, prepared: Any, params: dict[str, Any], write: bool) -> tuple[list[dict[str, Any]], Rewrite | None]:
    """The read ``query.run`` makes: ``query_read_only`` (``query`` with --write), untyped hops rewritten."""
    found = find_in(prepared.text) if prepared.untyped and not write and settings.rewrite_untyped else None
    if found is None:
        return (adapter.query(prepared.text, params) if write else read_only(adapter, prepared.text, params)), None
    return read(adapter, found, params)


@functools.lru_cache(maxsize=256)
def find_in(text: str) -> Untyped | None:
    """``find`` on ``text`` as the adapter would read it (remembered per text: the sites depend on it alone)."""
    return find(text, parse_ast(text))


def find(text: str, parsed: Any, writes: bool = False) -> Untyped | None:
    """The untyped hops of ``text`` (already parsed as ``parsed``), or None when it has none."""
    hops = _untyped_hops(parsed)
    if not hops:
        return None
    if writes:
        return Untyped(text, parsed, reason="writes are never rewritten")
    if any(isinstance(node, (MatchClause, OptionalMatchClause)) and node.qualifiers for node in walk(parsed)):
        return Untyped(text, parsed, reason="a FOR VALID_TIME / SYSTEM_TIME read walks history, not today's type index")
    sites = _sites(text)
    if sites is None or len(sites) != len(hops):
        return Untyped(text, parsed, reason="the untyped hops could not be placed in the text")
    aliases = tuple(
        (node.span.end, _column(node.expression))
        for node in walk(parsed)
        if isinstance(node, ProjectionItem) and node.alias is None and node.span is not None
        and any(node.span.start <= offset < node.span.end for offset, _ in sites)
    )
    loops = any(hop.direction == "any" and (hop.min_length, hop.max_length) != (1, 1) for hop in hops)
    return Untyped(text, parsed, tuple(sites), aliases, loops)


def _sites(text: str) -> list[tuple[int, bool]] | None:
    """Insertion points of every untyped hop, from the engine's parse tree (None if unavailable)."""
    try:
        tree = cypher_tree(text)
    except Exception:
        return None
    sites = []
    for hop in tree.iter_subtrees():
        if hop.data not in _HOPS:
            continue
        first = hop.children[0] if hop.children else None
        if getattr(first, "data", None) != "relationship":
            dash = _HOPS[hop.data]
            if text[hop.meta.start_pos : hop.meta.start_pos + len(dash)] != dash:
                return None
            sites.append((hop.meta.start_pos + len(dash), True))
            continue
        parts = [getattr(child, "data", None) for child in first.children]
        if "rel_type_spec" in parts:
            continue
        if parts and parts[0] == "symbolic_name":
            sites.append((first.children[0].meta.end_pos, False))
        elif text[first.meta.start_pos] == "[":
            sites.append((first.meta.start_pos + 1, False))
        else:
            return None
    return sorted(sites)


def _column(expression: Any) -> str:
    from gestaltdb.query_engine.cypher.semantics import render_projection

    return render_projection(expression)


def _name(value: str, quote_all: bool = False) -> str:
    if _PLAIN.match(value) and not quote_all:
        return value
    return "`" + value.replace("`", "``") + "`"


_APPLIED: dict[tuple[str, tuple[str, ...]], str | None] = {}


def apply(untyped: Untyped, types: tuple[str, ...]) -> str | None:
    """``untyped.text`` with every untyped hop naming ``types``, or None when the re-parse differs.

    Remembered per (text, types): the check parses the rewritten text once, not at every run.
    """
    key = (untyped.text, tuple(types))
    if key not in _APPLIED:
        if len(_APPLIED) > 256:
            _APPLIED.clear()
        _APPLIED[key] = _apply(untyped, key[1])
    return _APPLIED[key]


def _apply(untyped: Untyped, types: tuple[str, ...]) -> str | None:
    for quote_all in (False, True):
        names = "|".join(_name(kind, quote_all) for kind in types)
        edits = [(offset, f"[:{names}]" if bare else f":{names}") for offset, bare in untyped.sites]
        edits += [(end, f" AS {_name(column, True)}") for end, column in untyped.aliases]
        text = untyped.text
        for offset, insert in sorted(edits, reverse=True):
            text = text[:offset] + insert + text[offset:]
        try:
            again = parse_ast(text)
        except Exception:
            continue
        if _same(untyped.parsed, again, types, {column for _, column in untyped.aliases}):
            return text
    return None


def _same(old: Any, new: Any, types: tuple[str, ...], aliases: set[str]) -> bool:
    """``new`` is ``old`` with ``types`` on each untyped hop and ``aliases`` on unaliased items."""

    def field(node: Any, name: str, before: Any, after: Any) -> bool | None:
        if isinstance(node, PatternHop) and name == "edge_types" and before == ():
            return tuple(after) == tuple(types)
        if isinstance(node, ProjectionItem) and name == "alias" and before is None and after is not None:
            return after in aliases
        return None

    return same_tree(old, new, field)


# -- what the snapshot holds -------------------------------------------------------------------------
_LOOPS: dict[tuple[int, int], bool] = {}


@dataclass(frozen=True)
class Catalogue:
    """One snapshot's relationship types, and whether a typed pattern sees every relationship."""

    types: tuple[str, ...]
    complete: bool
    sequence: int | None
    relationships: int = 0


def catalogue(db: Any) -> Catalogue | str:
    """The types in ``db``'s store (an LMDB read snapshot or the live store), or why it cannot say."""
    from gestaltdb.kvstores import LMDBStore, LMDBTransactionStore

    store = db.store
    if isinstance(store, LMDBTransactionStore):
        txn, base = store.txn, store.parent
    elif isinstance(store, LMDBStore):
        txn, base = None, store
    else:
        return f"the {type(store).__name__} backend has no LMDB type index to read"
    if "edge_type" in stale_indexes(db):
        return "the relationship type index is deferred (rebuild it: db.rebuild_relationship_type_index())"
    if txn is None:
        with base.env.begin(write=False) as own:
            return _read(own, base, index_prefix("edge_type", []))
    return _read(txn, base, index_prefix("edge_type", []))


def _read(txn: Any, base: Any, prefix: bytes) -> Catalogue:
    edges = txn.stat(base.edges_db)["entries"]
    typed = txn.stat(base.typed_adj_db)["entries"]
    found = names_under(txn, base.index_db, prefix)
    return Catalogue(tuple(sorted(found)), typed == 2 * edges, txn.id(), edges)


def self_loops(db: Any, sequence: int | None) -> bool:
    """Whether the snapshot holds a relationship from a node to itself (remembered per transaction id)."""
    store = db.store
    base = getattr(store, "parent", store)
    key = (id(base), sequence)
    if sequence is not None and key in _LOOPS:
        return _LOOPS[key]
    txn = getattr(store, "txn", None)
    own = base.env.begin(write=False) if txn is None else None
    try:
        cursor = (txn or own).cursor(db=base.typed_adj_db)
        found = False
        if cursor.set_range(OUT):
            for name, target in cursor:
                if not name.startswith(OUT):
                    break
                if name.startswith(adjacency_prefix(b"out", target)):
                    found = True
                    break
    finally:
        if own is not None:
            own.abort()
    if sequence is not None:
        if len(_LOOPS) > 64:
            _LOOPS.clear()
        _LOOPS[key] = found
    return found


def decide(untyped: Untyped, db: Any) -> Rewrite:
    """The text to run on ``db`` (a snapshot): ``untyped`` rewritten, or as written and why."""
    if untyped.reason:
        return Rewrite(untyped.text, reason=untyped.reason)
    found = catalogue(db)
    if isinstance(found, str):
        return Rewrite(untyped.text, reason=found)
    if not found.types:
        return Rewrite(untyped.text, reason="the database holds no typed relationship")
    if not found.complete:
        return Rewrite(untyped.text, reason="some relationships have no type, and only an untyped pattern finds them")
    if len(found.types) * TYPES_PER_RELATIONSHIP > found.relationships:
        return Rewrite(untyped.text, reason=f"{len(found.types):,} types for {found.relationships:,} relationships: naming them all is not faster")
    if untyped.loops_matter and self_loops(db, found.sequence):
        return Rewrite(untyped.text, reason="a variable-length hop in either direction walks a self-loop once untyped, twice typed")
    text = apply(untyped, found.types)
    if text is None:
        return Rewrite(untyped.text, reason="the rewritten query would not parse to the same query")
    if len(text) > MAX_TEXT:
        return Rewrite(untyped.text, reason=f"naming all {len(found.types):,} types would pass the adapter's {MAX_TEXT:,}-character limit")
    return Rewrite(text, found.types)


def read(adapter: Any, untyped: Untyped, params: dict[str, Any] | None, allowed_procedures: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], Rewrite]:
    """Run ``untyped.text`` read-only through the adapter, rewritten when exact, in one LMDB snapshot.

    The type list and the query share one read transaction (``current_read_view``); the adapter's
    read-only check (``query_read_only``) still parses and validates the text that runs.
    """
    with snapshot(adapter) as pinned:
        if pinned is None:
            store = type(adapter.graph.store).__name__
            rewrite = Rewrite(untyped.text, reason=f"the {store} backend has no read snapshot to read the types in")
            return adapter.query_read_only(untyped.text, params, allowed_procedures=allowed_procedures), rewrite
        rewrite = decide(untyped, pinned.graph)
        records = pinned.query_read_only(rewrite.text, params, allowed_procedures=allowed_procedures, read_snapshot=False)
    return records, rewrite


def explained(db: Any, prepared: Any) -> Rewrite | None:
    """What ``run`` would do with ``prepared``'s untyped hops (for ``--explain``), or None if it has none."""
    if not prepared.untyped:
        return None
    if prepared.writes:
        return Rewrite(prepared.text, reason="writes are never rewritten")
    if not settings.rewrite_untyped:
        return Rewrite(prepared.text, reason="turned off: %config GestaltMagic.rewrite_untyped = False")
    found = find_in(prepared.text)
    return None if found is None else preview(db, found)


def preview(db: Any, untyped: Untyped) -> Rewrite:
    """What ``read`` would run now (for ``--explain``), decided in a snapshot; runs nothing."""
    if not getattr(db.store, "supports_read_snapshots", False):
        return Rewrite(untyped.text, reason=f"the {type(db.store).__name__} backend has no read snapshot to read the types in")
    with db.current_read_view(capture_provenance=False) as view:
        return decide(untyped, snapshot_db(view))


def rewriting(adapter: Any) -> Any:
    """A borrowed adapter over ``adapter``'s database whose ``query_read_only`` rewrites untyped hops (and a first
    pattern begun at its far end, :mod:`.anchor`).

    For the agent's query tool: the adapter's tool calls ``graph.query_read_only``, so it gets this
    object as its graph and stays the adapter's own class. Writes (``query``) pass through untouched.
    """
    from langchain_gestaltdb import GestaltDBGraph

    class RewritingGraph(GestaltDBGraph):
        def __init__(self) -> None:
            super().__init__(adapter.graph)

        @property
        def graph(self) -> Any:  # follows the wrapped adapter's closed state
            return adapter.graph

        def query_read_only(self, query: str, params: dict[str, Any] | None = None, *, allowed_procedures=(), read_snapshot=None):
            found = None
            try:
                parsed = parse_ast(query) if isinstance(query, str) else None
                if parsed is not None and not _writes(parsed):
                    far = anchor.decide(adapter.graph, query) if settings.rewrite_far_end else None
                    query = far.text if far is not None and far.applied else query  # begun at a node found directly
                    found = find_in(query)
            except Exception:
                pass  # the adapter's own check reports what is wrong with the text
            if read_snapshot is not None:
                return adapter.query_read_only(query, params, allowed_procedures=allowed_procedures, read_snapshot=read_snapshot)
            engine = reader(adapter)  # the engine's records, made JSON here: a NaN or an infinity is kept, not refused
            if found is None or not settings.rewrite_untyped:
                return as_json(read_only(engine, query, params, allowed_procedures))
            return as_json(read(engine, found, params, tuple(allowed_procedures))[0])

        def __getattr__(self, name: str) -> Any:
            return getattr(adapter, name)

    return RewritingGraph()


def _writes(parsed: Any) -> bool:
    from gestaltdb.cypher_ast import CreateClause, DeleteClause, ForeachClause, MergeClause, RemoveClause, SetClause

    kinds = (CreateClause, DeleteClause, ForeachClause, MergeClause, RemoveClause, SetClause)
    return type(parsed).__name__ in ("CreateConstraint", "DropConstraint") or any(isinstance(node, kinds) for node in walk(parsed))
