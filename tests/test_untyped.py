"""Untyped relationship patterns rewritten to every type: the same rows as the untyped query."""

from __future__ import annotations

import json
import random

import pytest
from gestaltdb.cypher import parse_ast
from gestaltdb.graphdb import Edge, GraphDB, Node
from langchain_gestaltdb import GestaltDBGraph, ReadOnlyQueryError

from gestalt_nb.cypher import reading, untyped

TYPES = ("KNOWS", "LIKES", "WORKS_AT", "__internal")


def _graph(path, seed: int, nodes: int = 40, edges: int = 120, loops: bool = False) -> GestaltDBGraph:
    rng = random.Random(seed)
    db = GraphDB.create(path, backend="lmdb", backend_options={"map_size": 1 << 28})
    pairs = []
    while len(pairs) < edges:
        a, b = rng.randrange(nodes), rng.randrange(nodes)
        if a != b or loops:
            pairs.append((a, b))
    with db.transaction() as tx:
        tx.put_nodes([Node(f"n{i}", labels=["P" if i % 3 else "Q"], properties={"k": i % 5}) for i in range(nodes)])
        tx.put_edges_bulk(
            [Edge(f"e{j}", f"n{a}", f"n{b}", properties={"type": TYPES[j % len(TYPES)], "w": j % 7}) for j, (a, b) in enumerate(pairs)],
            check_existing=False,
        )
    return GestaltDBGraph(db, owns_graph=True)


def _rows(records) -> list[str]:
    return sorted(json.dumps(record, sort_keys=True) for record in records)


def _read(graph, query, params=None):
    found = untyped.find(query, parse_ast(query))
    assert found is not None, query
    return untyped.read(graph, found, params)


QUERIES = [
    "MATCH ()-[r]->() RETURN count(r) AS c",
    "MATCH (a)-[r]->(b) RETURN a, r, b",
    "MATCH (a {id: 'n5'})-[r]-(b) RETURN type(r) AS t, b.k AS k",
    "MATCH (a {id: 'n5'})<-[r]-(b) RETURN r",
    "MATCH (a {id: 'n5'})-->(b)<--(c) RETURN a.k, b, c",
    "MATCH (a:Q)--(b:P) RETURN count(*) AS c",
    "MATCH (a {id: 'n5'})-[*1..2]->(b) RETURN count(b) AS c",
    "MATCH (a {id: 'n5'})-[rs*1..3]-(b) RETURN rs, b",
    "MATCH p = (a {id: 'n5'})<-[*0..2]-(b) RETURN p",
    "MATCH (a {id: 'n5'})-[r {w: 3}]->(b) RETURN r",
    "MATCH (a:Q) OPTIONAL MATCH (a)-[r]->(b:Q) RETURN a, r, b",
    "MATCH (a)-[r]->(b) RETURN type(r) AS t, count(*) AS c ORDER BY t",
    "MATCH (a)-[r]->(b) WITH a, count(r) AS out RETURN a.k AS k, sum(out) AS s ORDER BY k",
    "MATCH (a {id: 'n1'})-[r]->(b) RETURN b UNION MATCH (a {id: 'n2'})<-[r]-(b) RETURN b",
    "MATCH (a {id: 'n1'})-[r]->(b) RETURN b.k AS k UNION ALL MATCH (a {id: 'n2'})-[:KNOWS]-(b) RETURN b.k AS k",
    "MATCH (a:Q) CALL { MATCH (a)-[r]-(b) RETURN count(r) AS degree } RETURN a, degree",
    "MATCH ALL SHORTEST p = (a {id: 'n1'})-[*]-(b {id: 'n7'}) RETURN p",
    "MATCH ALL SHORTEST p = (a {id: 'n3'})-[*]->(b:Q) RETURN p",
    "MATCH (a {id: 'n1'}), (b {id: 'n9'}) UNWIND allShortestPaths((a)-[*]-(b)) AS p RETURN p",
    "MATCH (a {id: 'n1'}) RETURN a, '-[r]->' AS text /* (a)-->(b) */ // -[*]-",
]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rewrite_returns_the_untyped_rows(tmp_path, seed):
    graph = _graph(tmp_path / "g", seed)
    for query in QUERIES:
        if "'-[r]->'" in query:
            assert untyped.find(query, parse_ast(query)) is None  # strings and comments are not patterns
            continue
        records, rewrite = _read(graph, query)
        assert rewrite.applied, (query, rewrite.reason)
        assert "|".join(TYPES) in rewrite.text.replace("`", "")
        assert _rows(records) == _rows(graph.query_read_only(query)), query
        if "ORDER BY" in query:
            assert records == graph.query_read_only(query)  # ordered: the same sequence


def test_shortest_single_paths_have_the_untyped_length(tmp_path):
    """SHORTEST 1 / shortestPath pick one of the equally short paths; the length and ends agree."""
    graph = _graph(tmp_path / "g", 4)
    for query in (
        "MATCH SHORTEST 1 p = (a {id: 'n1'})-[*]-(b {id: 'n8'}) RETURN length(p) AS n, a.k AS s, b.k AS e",
        "MATCH (a {id: 'n2'}), (b {id: 'n6'}) RETURN length(shortestPath((a)-[*]-(b))) AS n",
    ):
        records, rewrite = _read(graph, query)
        assert rewrite.applied and records == graph.query_read_only(query)


def test_a_column_keeps_its_name(tmp_path):
    graph = _graph(tmp_path / "g", 5)
    query = "MATCH (a {id: 'n1'}), (b {id: 'n4'}) RETURN shortestPath((a)-[*]-(b))"
    records, rewrite = _read(graph, query)
    assert rewrite.applied and list(records[0]) == list(graph.query_read_only(query)[0])


def test_self_loops_keep_variable_length_hops_in_either_direction_untyped(tmp_path):
    graph = _graph(tmp_path / "g", 6, loops=True)
    loops = graph.query_read_only("MATCH (a)-[r]->(a) RETURN count(r) AS c")[0]["c"]
    assert loops > 0
    query = "MATCH (a {id: 'n1'})-[*1..2]-(b) RETURN count(*) AS c"
    found = untyped.find(query, parse_ast(query))
    typed = untyped.apply(found, untyped.catalogue(graph.graph).types)
    records, rewrite = untyped.read(graph, found, None)
    assert not rewrite.applied and "self-loop" in rewrite.reason
    assert records == graph.query_read_only(query)
    # why: typed adjacency walks a self-loop out and in (the engine's own behaviour)
    assert graph.query_read_only(typed) != records or all(r["c"] == 0 for r in records)
    for query in ("MATCH (a)-[r]-(b) RETURN a, r, b", "MATCH (a {id: 'n1'})-[*1..2]->(b) RETURN b"):
        records, rewrite = _read(graph, query)
        assert rewrite.applied and _rows(records) == _rows(graph.query_read_only(query))


def test_a_relationship_without_a_type_keeps_the_query_untyped(tmp_path):
    graph = _graph(tmp_path / "g", 7)
    graph.graph.put_edge(Edge("bare", "n1", "n2", properties={}))
    records, rewrite = _read(graph, "MATCH (a {id: 'n1'})-[r]->(b) RETURN r")
    assert not rewrite.applied and "no type" in rewrite.reason
    assert any(record["r"]["id"] == "bare" for record in records)


def test_types_added_between_two_reads(tmp_path):
    graph = _graph(tmp_path / "g", 8)
    query = "MATCH (a)-[r]->(b) RETURN type(r) AS t, count(*) AS c ORDER BY t"
    first, rewrite = _read(graph, query)
    assert rewrite.applied and first == graph.query_read_only(query)
    graph.query("MATCH (a {id: 'n1'}), (b {id: 'n2'}) CREATE (a)-[:BRAND_NEW]->(b) RETURN a")
    second, rewrite = _read(graph, query)
    assert "BRAND_NEW" in rewrite.types and second == graph.query_read_only(query)
    assert {"t": "BRAND_NEW", "c": 1} in second and {"t": "BRAND_NEW", "c": 1} not in first


def test_the_types_and_the_query_share_one_snapshot(tmp_path):
    """A writer commits a new type after the types were read: the read still sees one state."""
    graph = _graph(tmp_path / "g", 9)
    db = graph.graph
    query = "MATCH (a {id: 'n1'})-[r]->(b) RETURN type(r) AS t, b"
    found = untyped.find(query, parse_ast(query))
    with db.current_read_view(capture_provenance=False) as view:
        rewrite = untyped.decide(found, view._graph)
        db.put_edge(Edge("late", "n1", "n3", properties={"type": "LATE"}))  # commits now, outside the snapshot
        pinned = GestaltDBGraph(view._graph).query_read_only(rewrite.text, read_snapshot=False)
        as_written = GestaltDBGraph(view._graph).query_read_only(query, read_snapshot=False)
    assert rewrite.applied and "LATE" not in rewrite.types
    assert _rows(pinned) == _rows(as_written) and all(row["t"] != "LATE" for row in pinned)
    after, rewrite = untyped.read(graph, found, None)
    assert "LATE" in rewrite.types and {"t": "LATE"} .items() <= next(r for r in after if r["t"] == "LATE").items()
    assert _rows(after) == _rows(graph.query_read_only(query))


def test_a_read_without_untyped_hops_also_runs_in_one_snapshot(tmp_path):
    """``reading.read_only`` (every read the magic makes without a rewrite) pins one snapshot, as the engine's own
    default read does: a write committed while it reads is not in its rows, and is in the next read's."""
    graph = _graph(tmp_path / "g", 10)
    db = graph.graph
    query = "MATCH (n:P) RETURN n.k AS k"
    with reading.snapshot(graph) as pinned:
        db.put_node(Node("late", labels=["P"], properties={"k": 99}))  # commits now, outside the snapshot
        inside = pinned.query_read_only(query, read_snapshot=False)
    assert type(pinned) is GestaltDBGraph and all(row["k"] != 99 for row in inside)
    after = reading.read_only(graph, query, None)
    assert {"k": 99} in after and _rows(after) == _rows(graph.query_read_only(query))
    with reading.snapshot(reading.EngineReads(db)) as pinned:  # engine records stay unconverted
        assert isinstance(pinned.query_read_only(query, read_snapshot=False), reading.EngineRecords)


def test_an_adapter_subclass_reads_through_its_own_method(tmp_path):
    graph = _graph(tmp_path / "g", 11)

    class Own(GestaltDBGraph):
        def query_read_only(self, query, params=None, **options):
            return [{"own": query}]

    assert reading.read_only(Own(graph.graph), "MATCH (n) RETURN n", None) == [{"own": "MATCH (n) RETURN n"}]
    with pytest.raises(ReadOnlyQueryError):
        reading.read_only(graph, "CREATE (n:X) RETURN n", None)
    assert graph.query_read_only("MATCH (n:X) RETURN count(n) AS c") == [{"c": 0}]


def test_typed_patterns_writes_and_plain_queries_are_left_alone(tmp_path):
    for query in (
        "MATCH (a)-[r:KNOWS]->(b) RETURN r",
        "MATCH (a)-[:KNOWS|LIKES*1..2]-(b) RETURN b",
        "MATCH (n:P) RETURN n.k",
        "UNWIND [1, 2] AS x RETURN x",
    ):
        assert untyped.find(query, parse_ast(query)) is None, query
    write = "MATCH (a {id: 'n1'})-[r]->(b) SET b.seen = true RETURN b"
    assert untyped.find(write, parse_ast(write), writes=True).reason == "writes are never rewritten"
    temporal = "MATCH (a)-[r]->(b) FOR VALID_TIME AS OF datetime('2024-01-01T00:00:00Z') RETURN r"
    try:
        parsed = parse_ast(temporal)
    except Exception:
        return
    assert "VALID_TIME" in untyped.find(temporal, parsed).reason


def test_many_types_keep_the_untyped_form(tmp_path):
    """Types near the number of relationships, or too many names for the adapter's text limit."""
    db = GraphDB.create(tmp_path / "g", backend="lmdb", backend_options={"map_size": 1 << 28})
    with db.transaction() as tx:
        tx.put_nodes([Node(f"n{i}") for i in range(50)])
        tx.put_edges_bulk([Edge(f"e{j}", f"n{j % 50}", f"n{(j * 7 + 1) % 50}", properties={"type": f"T{j % 5}"}) for j in range(12)], check_existing=False)
    graph = GestaltDBGraph(db, owns_graph=True)
    records, rewrite = _read(graph, "MATCH (a)-[r]->(b) RETURN count(r) AS c")
    assert not rewrite.applied and "not faster" in rewrite.reason and records == [{"c": 12}]
    with db.transaction() as tx:
        tx.put_edges_bulk(
            [Edge(f"x{j}", f"n{j % 50}", f"n{(j * 3 + 2) % 50}", properties={"type": f"A_LONG_TYPE_NAME_{j % 900}"}) for j in range(4000)],
            check_existing=False,
        )
    records, rewrite = _read(graph, "MATCH (a {id: 'n1'})-[r]->(b) RETURN count(r) AS c")
    assert not rewrite.applied and "10,000-character" in rewrite.reason
    assert records == graph.query_read_only("MATCH (a {id: 'n1'})-[r]->(b) RETURN count(r) AS c")
