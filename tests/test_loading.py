"""Loading DataFrames: types round-trip, atomic failures, missing endpoints, re-loads, big loads."""

from __future__ import annotations

from datetime import date, datetime, timezone

import numpy as np
import pandas as pd
import pytest
from IPython.core.error import UsageError
from langchain_gestaltdb import GraphDocument, GraphNode, GraphRelationship

import gestalt_nb
from gestalt_nb.session import REGISTRY

from .conftest import raw, run


@pytest.fixture
def empty(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'load'}")
    return gestalt_nb.connection()


def counts(connection):
    nodes = raw(connection, "MATCH (n) RETURN count(n) AS c")[0]["c"]
    kinds = [row["t"] for row in raw(connection, "MATCH ()-[r]->() RETURN DISTINCT type(r) AS t")]
    return nodes, sum(connection.db.count_edges_by_type(kind) for kind in kinds)


PEOPLE = pd.DataFrame(
    {
        "pid": ["ada", "bo", "cy"],
        "name": ["Ada", "Bo", "Cy"],
        "age": [36, 41, 29],
        "score": [0.5, np.nan, 2.25],
        "active": [True, False, True],
        "born": [date(1990, 1, 2), date(1984, 5, 6), None],
        "seen": [datetime(2024, 1, 1, 9, 30), datetime(2024, 2, 1, 10, 0), datetime(2024, 3, 1, 11, 0)],
        "seen_utc": pd.to_datetime(["2024-01-01T09:30:00Z", "2024-02-01T10:00:00Z", "2024-03-01T11:00:00Z"]),
        "tags": [["x", "y"], [], ["z"]],
    }
)


def test_round_trip_keeps_values_and_types(shell, empty):
    shell.user_ns["people"] = PEOPLE
    result = run(shell, "%gload nodes people --id pid --label Person")
    assert (result.created, result.updated) == (3, 0)
    back = run(
        shell,
        "%%gcypher\nMATCH (p:Person) RETURN p.name AS name, p.age AS age, p.score AS score, p.active AS active, "
        "p.born AS born, p.seen AS seen, p.seen_utc AS seen_utc, p.tags AS tags ORDER BY name",
    ).df
    assert back["name"].tolist() == ["Ada", "Bo", "Cy"]
    assert back["age"].tolist() == [36, 41, 29] and str(back["age"].dtype) == "int64"
    assert back["score"][0] == 0.5 and pd.isna(back["score"][1]) and back["score"][2] == 2.25
    assert back["active"].tolist() == [True, False, True] and str(back["active"].dtype) == "bool"
    assert back["born"][0] == date(1990, 1, 2) and back["born"][2] is None
    assert back["seen"].tolist() == PEOPLE["seen"].tolist()
    assert [value.to_pydatetime() for value in back["seen_utc"]] == [v.to_pydatetime() for v in PEOPLE["seen_utc"]]
    assert back["seen_utc"][0].tzinfo is not None and back["seen_utc"][0].to_pydatetime().astimezone(timezone.utc).hour == 9
    assert back["tags"].tolist() == [["x", "y"], [], ["z"]]
    bo = raw(empty, "MATCH (p:Person {name: 'Bo'}) RETURN p")[0]["p"]
    assert "score" not in bo.properties  # NaN left the property out


def test_a_bad_row_mid_load_changes_nothing_and_names_row_and_column(shell, empty):
    gestalt_nb.load_nodes(PEOPLE, id="pid", label="Person")
    before = counts(empty), raw(empty, "MATCH (p:Person) RETURN p.name AS n, p.age AS a ORDER BY n")
    frame = pd.DataFrame({"pid": [f"n{i}" for i in range(1000)], "value": [i for i in range(1000)]}, dtype=object)
    frame.loc[500, "value"] = {1, 2}  # a set cannot be stored
    frame.loc[10, "pid"] = "ada"  # would have updated an existing node
    with pytest.raises(gestalt_nb.GestaltError, match=r"row 500, column 'value': cannot store a set\. Nothing was written"):
        gestalt_nb.load_nodes(frame, id="pid", label="Thing")
    assert (counts(empty), raw(empty, "MATCH (p:Person) RETURN p.name AS n, p.age AS a ORDER BY n")) == before


def test_a_failure_while_writing_rolls_the_whole_load_back(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'tiny'} --map-size 2MiB")
    connection = gestalt_nb.connection()
    gestalt_nb.load_nodes(pd.DataFrame({"pid": ["keep"], "n": [1]}), id="pid", label="Keep")
    before = counts(connection)
    big = pd.DataFrame({"pid": [f"b{i}" for i in range(3000)], "blob": ["x" * 2000] * 3000})
    with pytest.raises(UsageError, match="database is full .* rolled back and nothing was written"):
        shell.user_ns["big"] = big
        run(shell, "%gload nodes big --id pid --label Blob")
    assert counts(connection) == before
    assert raw(connection, "MATCH (k:Keep) RETURN k.n AS n") == [{"n": 1}]


def test_an_edge_to_a_missing_node_is_reported_not_created(shell, empty):
    gestalt_nb.load_nodes(PEOPLE, id="pid", label="Person")
    before = counts(empty)
    knows = pd.DataFrame({"a": ["ada", "bo", "cy"], "b": ["bo", "zed", "ada"], "since": [2020, 2021, 2022]}, index=[10, 11, 12])
    shell.user_ns["knows"] = knows
    with pytest.raises(UsageError, match=r"row 1 \(index 11\), column 'b': 'zed' is not a node in the graph\. Load the nodes first"):
        run(shell, "%gload edges knows --source a --target b --type KNOWS")
    assert counts(empty) == before


def test_reloading_updates_instead_of_duplicating(shell, empty):
    gestalt_nb.load_nodes(PEOPLE, id="pid", label="Person")
    knows = pd.DataFrame({"a": ["ada", "bo"], "b": ["bo", "cy"], "since": [2020, 2021]})
    first = gestalt_nb.load_edges(knows, source="a", target="b", type="KNOWS")
    assert (first.created, first.updated, first.unchanged) == (2, 0, 0)
    again = gestalt_nb.load_edges(knows, source="a", target="b", type="KNOWS")
    assert (again.created, again.updated, again.unchanged) == (0, 0, 2)
    same_nodes = gestalt_nb.load_nodes(PEOPLE, id="pid", label="Person")
    assert (same_nodes.created, same_nodes.updated, same_nodes.unchanged) == (0, 0, 3)
    changed = gestalt_nb.load_edges(knows.assign(since=[1999, 2021]), source="a", target="b", type="KNOWS")
    assert (changed.created, changed.updated, changed.unchanged) == (0, 1, 1)
    assert counts(empty) == (3, 2)
    rows = raw(empty, "MATCH (a)-[r:KNOWS]->(b) RETURN a.name AS a, r.since AS s ORDER BY a")
    assert rows == [{"a": "Ada", "s": 1999}, {"a": "Bo", "s": 2021}]
    older = gestalt_nb.load_nodes(pd.DataFrame({"pid": ["ada"], "age": [37]}), id="pid", label="Author")
    assert older.updated == 1
    ada = raw(empty, "MATCH (p {id: 'ada'}) RETURN p")[0]["p"]
    assert sorted(ada.labels) == ["Author", "Person"] and ada.properties["age"] == 37 and ada.properties["name"] == "Ada"


def test_parallel_relationships_need_and_keep_their_ids(empty):
    gestalt_nb.load_nodes(PEOPLE, id="pid", label="Person")
    calls = pd.DataFrame({"cid": ["c1", "c2"], "a": ["ada", "ada"], "b": ["bo", "bo"], "minutes": [5, 7]})
    gestalt_nb.load_edges(calls, source="a", target="b", type="CALLED", id="cid")
    assert {row["r"].get_id for row in raw(empty, "MATCH ()-[r:CALLED]->() RETURN r")} == {"c1", "c2"}
    moved = calls.assign(b=["cy", "bo"])
    with pytest.raises(gestalt_nb.GestaltError, match="an id cannot change its endpoints or type"):
        gestalt_nb.load_edges(moved, source="a", target="b", type="CALLED", id="cid")


def test_integer_ids_match_the_adapters_ingestion(empty):
    gestalt_nb.load_nodes(pd.DataFrame({"num": [1, 2], "name": ["one", "two"]}), id="num", label="Number")
    gestalt_nb.load_edges(pd.DataFrame({"s": [1], "t": [2]}), source="s", target="t", type="NEXT")
    gestalt_nb.load_graph_documents(
        [GraphDocument(relationships=[GraphRelationship(source=GraphNode(id=1, type="Number"), target=GraphNode(id=2, type="Number"), type="NEXT")])]
    )
    names = {row["n"]: row["i"] for row in raw(empty, "MATCH (n:Number) RETURN n.name AS n, id(n) AS i")}
    assert names == {"one": "__lc_int__:1", "two": "__lc_int__:2"}
    assert counts(empty)[0] == 2


def test_load_graph_documents_runs_in_one_transaction_and_fails_whole(empty):
    doc = GraphDocument(nodes=[GraphNode(id="x", type="Thing")])
    with pytest.raises(gestalt_nb.GestaltError, match="rolled back; nothing was written: include_source=True requires"):
        gestalt_nb.load_graph_documents([doc], include_source=True)
    assert counts(empty) == (0, 0)
    result = gestalt_nb.load_graph_documents([doc])
    assert result.created == 1 and counts(empty) == (1, 0)


def test_a_load_bigger_than_lmdbs_old_10mib_default_works_with_our_defaults(shell, empty, capsys):
    frame = pd.DataFrame({"pid": [f"p{i}" for i in range(6000)], "text": ["y" * 3000] * 6000})  # ~18 MB
    result = gestalt_nb.load_nodes(frame, id="pid", label="Page")
    assert result.created == 6000 and counts(empty)[0] == 6000
    assert "6,000 rows in" in capsys.readouterr().err and "rows/s" in repr(result)


def test_the_schema_cache_sees_loaded_data(empty):
    assert "Person" not in gestalt_nb.schema().labels
    gestalt_nb.load_nodes(PEOPLE, id="pid", label="Person")
    assert "Person" in gestalt_nb.schema().labels


def test_label_column_and_argument_errors(shell, empty):
    frame = pd.DataFrame({"pid": ["a", "b"], "kind": ["Cat", ["Dog", "Pet"]]})
    gestalt_nb.load_nodes(frame, id="pid", label_column="kind")
    assert sorted(raw(empty, "MATCH (n {id: 'b'}) RETURN labels(n) AS l")[0]["l"]) == ["Dog", "Pet"]
    with pytest.raises(gestalt_nb.GestaltError, match="No such column: id='nope'. The frame has: pid, kind"):
        gestalt_nb.load_nodes(frame, id="nope", label="X")
    with pytest.raises(gestalt_nb.GestaltError, match="exactly one of label="):
        gestalt_nb.load_nodes(frame, id="pid")
    with pytest.raises(gestalt_nb.GestaltError, match="row 1, column 'pid': the id is empty"):
        gestalt_nb.load_nodes(pd.DataFrame({"pid": ["a", None]}), id="pid", label="X")
    shell.user_ns["not_a_frame"] = [1, 2]
    with pytest.raises(UsageError, match="needs a pandas DataFrame"):
        run(shell, "%gload nodes not_a_frame --id pid --label X")
    assert REGISTRY.current == empty.alias


def test_a_value_too_long_for_its_index_is_named_and_nothing_is_written(empty):
    empty.db.create_node_property_index("name")
    frame = pd.DataFrame({"pid": ["ok", "long", "fine"], "name": ["Ada", "z" * 900, "Bo"]})
    with pytest.raises(gestalt_nb.GestaltError, match=r"'long', column 'name': a 900-byte value is too long for the property index on 'name'"):
        gestalt_nb.load_nodes(frame, id="pid", label="Person")
    assert counts(empty) == (0, 0)
