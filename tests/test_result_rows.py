"""A result's rows read once from the engine's values: every view reads exactly what the adapter's JSON gave.

Each query runs through ``gestalt_nb.run`` (engine values → ``Rows``) and, the same text, through the
adapter's ``query_read_only`` (the JSON the result was built from before); records, rows, the DataFrame,
the subgraph, networkx, the table, JSON and text views and the canvas payload must be the same.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node
from langchain_gestaltdb import GestaltDBGraph, ReadOnlyQueryError

import gestalt_nb
from gestalt_nb import display
from gestalt_nb.cypher import reading
from gestalt_nb.cypher.result import QueryResult
from gestalt_nb.graph import values
from gestalt_nb.graph.subgraph import from_records
from gestalt_nb.views import html as h
from gestalt_nb.views.result_view import ResultView

from .conftest import run

QUERIES = [
    "MATCH (a:T)-[r:R]->(b) RETURN a, r, b",
    "MATCH (a:T)-[r:K]->(b) RETURN a, r, b, r AS again",
    "MATCH (a)-[r]->(b) RETURN a, r, b ORDER BY r.w",
    "MATCH (a:T)-[r:R]->(b) RETURN a, a AS again, r, b, r AS same",
    "MATCH p = (a:T {i: 1})-[:R*1..3]->(b) RETURN p, length(p) AS hops, nodes(p) AS ns, relationships(p) AS rs",
    "MATCH (a:T) RETURN collect(a) AS everyone, count(*) AS c",
    "MATCH (a:T)-[r:R]->(b) RETURN {src: a, rel: r, tags: a.tags, deep: {b: b, list: [b, 1]}} AS m",
    "MATCH (a:T) RETURN a.i AS i, a.f AS f, a.tags AS tags, a.m AS m, a.n AS n, a.when AS when, a.at AS at, id(a) AS id ORDER BY i",
    "UNWIND [1] AS x RETURN date('2020-01-02') AS d, datetime('2020-01-02T03:04:05Z') AS dt, duration('P1DT2H') AS du, "
    "localtime('12:00:00') AS lt, time('12:00:00+01:00') AS tt, localdatetime('2020-01-02T03:04:05') AS ldt",
    "MATCH (a:T) RETURN {id: a.i, labels: ['Fake'], properties: {k: 1}} AS node_shaped, {nodes: [a], edges: []} AS path_shaped",
    "MATCH (a:T) RETURN [a, 1, 'x', null, 2.5, true, [a]] AS mixed, keys(a) AS k, labels(a) AS l, properties(a) AS p",
    "MATCH (a:T) OPTIONAL MATCH (a)-[r:NOPE]->(b) RETURN a, r, b",
    "MATCH (a:T {i: 1}) RETURN $p AS p, $n AS n",
    "MATCH (a:T) WHERE a.i > 99 RETURN a",
    "MATCH (a:T)-[r:R]->(b) RETURN a.i AS i, count(r) AS c ORDER BY i UNION ALL MATCH (a:U) RETURN a.i AS i, 0 AS c",
]
PARAMS = {"p": {"x": [1, {"y": 2.0}], "z": None}, "n": 3}


@pytest.fixture
def typed(tmp_path):
    """Ints, floats, lists, maps, nulls, dates and times, integer ids; R and S relationships, and K ones holding only their type."""
    db = GraphDB.create(tmp_path / "g", backend="lmdb")
    nodes = [
        Node(f"__lc_int__:{i}" if i % 2 else f"t{i}", labels=["T"] if i < 6 else ["T", "U"],
             properties={"i": i, "f": i / 4, "tags": [f"tag{i}", i], "m": {"x": i, "y": [i, {"z": None}]}, "n": None, "name": f"Node {i}"})
        for i in range(8)
    ]
    db.put_nodes(nodes)
    db.put_edges_bulk([Edge(f"r{i}", nodes[i].get_id, nodes[(i + 1) % 8].get_id, properties={"type": "R", "w": i * 1.5, "on": None}) for i in range(8)]
                      + [Edge("s1", nodes[1].get_id, nodes[1].get_id, properties={"type": "S", "w": 99})]
                      + [Edge(f"k{i}", nodes[i].get_id, nodes[i + 2].get_id, properties={"type": "K"}) for i in range(3)], check_existing=False)
    graph = GestaltDBGraph(db, owns_graph=True)
    graph.query("MATCH (a:T) SET a.when = date('2021-05-06'), a.at = datetime('2021-05-06T07:08:09Z') RETURN a")
    connection = gestalt_nb.use(graph, alias="typed")
    yield connection
    connection.close()


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)  # key order and 1 / 1.0 / true all show


def _as_before(result: QueryResult, records: list) -> QueryResult:
    """The same result made the old way: from the adapter's JSON records."""
    given = {item.name: getattr(result, item.name) for item in dataclasses.fields(result) if item.init and item.name != "records"}
    subgraph = from_records(records, title=result.subgraph.title, fetch=gestalt_nb.connection("typed").nodes)
    return QueryResult(**{**given, "records": records, "subgraph": subgraph})


def _graph_view(result: QueryResult) -> tuple:
    graph = result.to_networkx()
    return sorted(map(repr, graph.nodes(data=True))), sorted(map(repr, graph.edges(keys=True, data=True)))


@pytest.mark.parametrize("query", QUERIES)
def test_every_view_reads_what_the_adapter_json_gave(typed, query):
    result = gestalt_nb.run(query, PARAMS)
    expected = typed.graph.query_read_only(result.executed, PARAMS)
    assert result.rows._records is None  # nothing converted to JSON records yet
    assert _dumps([result.rows[number] for number in range(len(result))]) == _dumps(expected)
    assert _dumps(result.rows.head(2)) == _dumps(expected[:2])
    before = _as_before(result, expected)
    assert result.subgraph.to_dict() == before.subgraph.to_dict()
    assert list(result.subgraph.nodes.values()) == list(before.subgraph.nodes.values())
    assert list(result.subgraph.edges.values()) == list(before.subgraph.edges.values())
    assert repr(result.df.to_dict("split")) == repr(before.df.to_dict("split"))
    assert _graph_view(result) == _graph_view(before)
    assert repr(result.nodes_df().to_dict("split")) == repr(before.nodes_df().to_dict("split"))
    now, then = ResultView(result), ResultView(before)
    assert now.table_html() == then.table_html() and now.text() == then.text() and now.info_html() == then.info_html()
    assert h.json_block(result.rows, 100_000) == h.json_block(before.records, 100_000)
    assert h.json_block(result.rows, 300) == h.json_block(before.records, 300)
    if result.subgraph:
        assert now.drawing.canvas.graph == then.drawing.canvas.graph
    assert result.rows._records is None  # the views converted only what they showed, and kept none of it
    assert _dumps(result.records) == _dumps(expected) and result.to_json() == before.to_json()
    assert result.records is result.records  # made once


def test_a_write_reads_its_rows_the_same_way(typed):
    result = gestalt_nb.run("MATCH (a:T {i: 2}) SET a.k = [1, 2.0] RETURN a, a.k AS k", write=True)
    assert _dumps(result.records) == _dumps(typed.graph.query_read_only("MATCH (a:T {i: 2}) RETURN a, a.k AS k"))
    assert result.subgraph.nodes["t2"].properties["k"] == [1, 2.0]


def test_a_nan_the_adapter_refuses_is_read_as_the_float_it_is(tmp_path):
    db = GraphDB.create(tmp_path / "g", backend="lmdb")
    db.put_nodes([Node("a", labels=["T"], properties={"x": math.nan})])
    graph = GestaltDBGraph(db, owns_graph=True)
    gestalt_nb.use(graph, alias="nan")
    for query, read in (("MATCH (n:T) RETURN n", lambda r: r["n"]["properties"]["x"]), ("MATCH (n:T) RETURN n.x AS x", lambda r: r["x"]),
                        ("MATCH (n:T) RETURN [{v: n.x}] AS x", lambda r: r["x"][0]["v"])):
        with pytest.raises(ValueError, match="Non-finite"):
            graph.query_read_only(query)
        assert math.isnan(read(gestalt_nb.run(query).records[0]))  # tests/test_nonfinite.py: every read path


def test_the_engine_reader_keeps_the_adapters_read_only_check(typed):
    engine = reading.reader(typed.graph)
    assert isinstance(engine, reading.EngineReads) and engine.graph is typed.graph.graph
    before = typed.graph.query_read_only("MATCH (n) RETURN count(n) AS c")
    with pytest.raises(ReadOnlyQueryError):
        engine.query_read_only("MATCH (n:T {i: 1}) SET n.i = 100 RETURN n")
    assert typed.graph.query_read_only("MATCH (n) RETURN count(n) AS c") == before
    assert typed.graph.query_read_only("MATCH (n:T {i: 100}) RETURN n") == []
    assert type(engine.query_read_only("MATCH (n:T) RETURN n")) is reading.EngineRecords


def test_an_adapter_subclass_is_read_through_its_own_methods(typed):
    class Counting(GestaltDBGraph):
        calls = 0

        def query_read_only(self, *args, **kwargs):
            Counting.calls += 1
            return super().query_read_only(*args, **kwargs)

    query = "MATCH (a:T)-[r:R]->(b) RETURN a, r, b"
    expected = typed.graph.query_read_only(query)
    typed.close()  # borrowed: the database stays open; a new connection over it takes the subclass
    adapter = Counting(typed.graph.graph)
    assert reading.reader(adapter) is adapter
    gestalt_nb.use(adapter, alias="counting")
    result = gestalt_nb.run(query)
    assert Counting.calls == 1 and result.records == expected


def test_displaying_a_result_converts_only_the_rows_it_shows(shell, typed):
    result = shell.run_cell_magic("gcypher", "", "MATCH (a:T)-[r:R]->(b) RETURN a, r, b")
    shell.display_formatter.format(result)
    assert result.rows._records is None and len(result.view.head) == len(result) == 8
    assert result.records == typed.graph.query_read_only("MATCH (a:T)-[r:R]->(b) RETURN a, r, b")


def test_the_engine_records_of_a_read_are_freed_after_its_cell_not_before_its_output(shell, typed):
    """Freeing tens of thousands of engine objects is work the output does not wait for: the records are kept
    until the cell has finished (one read's at a time), then freed."""
    run(shell, "from gestalt_nb import display as _display\n"
               "r1 = %gcypher MATCH (a:T)-[r:K]->(b) RETURN a, r, b\n"
               "held = [(type(item).__name__, len(item)) for item in _display._unneeded]\n"
               "r2 = %gcypher MATCH (a:T) RETURN a\n"
               "held_after_another = [(type(item).__name__, len(item)) for item in _display._unneeded]")
    assert shell.user_ns["held"] == [("EngineRecords", 3)]
    assert shell.user_ns["held_after_another"] == [("EngineRecords", 8)]  # the first read's records are gone already
    assert display._unneeded == []
    assert len(shell.user_ns["r1"].subgraph.edges) == 3 and shell.user_ns["r1"].records[0]["r"]["properties"] == {"type": "K"}


def test_a_node_read_twice_is_kept_once(typed):
    result = gestalt_nb.run("MATCH (a:T {i: 1})-[r:R|S]->(b) RETURN a, r, b")
    firsts = [row[0] for row in result.rows._items]
    assert len(firsts) == 2 and firsts[0] is firsts[1] is result.subgraph.nodes[1]
    assert values.frame(result.records, result.columns).equals(result.df)


def test_a_write_that_changes_a_node_between_rows_keeps_each_rows_state(typed):
    query = "UNWIND [1, 1.0, true] AS v MATCH (a:T {i: 2}) SET a.c = v RETURN a, v"
    result = gestalt_nb.run(query, write=True)
    again = typed.graph.query(query)  # the same writes again: the same row states
    assert _dumps(result.records) == _dumps(again)
