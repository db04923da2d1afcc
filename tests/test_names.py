"""The case-insensitive name lookup lives beside the graph: nodes stay as written, every write keeps it right."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from gestaltdb.graphdb import GraphDB, Node
from langchain_core.documents import Document

import gestalt_nb
from gestalt_nb.agents import ScriptedChatModel
from gestalt_nb.graph import names

from .conftest import raw, run
from .test_graphrag import graph

ZORA = (
    'CREATE (a:Person {name: "Zora Quill"})-[:KNOWS]->(b:Person {name: "ZORA QUILL"}), '
    '(b)-[:WORKS_AT]->(q:Company {name: "Quill Works"}) RETURN a'
)


@pytest.fixture
def fresh(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'fresh'}")
    return gestalt_nb.connection()


def seeds(entity: str) -> list[str]:
    return sorted(gestalt_nb.query_subgraph([entity], max_hops=0).seed_node_ids)


def stored_keys(connection) -> set[str]:
    db = connection.db
    return {key for node_key in db.get_node_keys_generator() for key in db.get_node(node_key).properties}


def entries(connection, node_id: str) -> list[bytes]:
    """The digests the side index holds for a node (read straight from LMDB)."""
    store = connection.db.store
    with store.env.begin() as txn:
        return names._split(txn.get(names.OWNER_PREFIX + node_id.encode(), db=store.index_db) or b"")


def records(connection) -> int:
    """How many (digest, node) records the side index holds."""
    store = connection.db.store
    with store.env.begin() as txn:
        cursor = txn.cursor(db=store.index_db)
        if not cursor.set_range(names.FAMILY_PREFIX):
            return 0
        return sum(1 for key in cursor.iternext(values=False) if key.startswith(names.FAMILY_PREFIX))


def by_name(connection, name: str) -> str:
    return raw(connection, "MATCH (n) WHERE n.name = $n RETURN id(n) AS i", {"n": name})[0]["i"]


def assert_untouched(connection) -> None:
    """No stored node, and nothing a person reads, carries a property gestalt-nb added."""
    assert not {key for key in stored_keys(connection) if key.startswith("__")}
    result = gestalt_nb.run("MATCH (n) RETURN n, keys(n) AS k, properties(n) AS p")
    for record in result.records:
        assert not [key for key in record["k"] if key.startswith("__")]
        assert not [key for key in record["p"] if key.startswith("__")]
    assert not [column for column in result.df.columns if "__name" in str(column)]
    assert "__name" not in json.dumps(result.records, default=str)
    networkx = result.subgraph.to_networkx()
    assert not [key for _, data in networkx.nodes(data=True) for key in data if key.startswith("__name")]
    assert "__name" not in gestalt_nb.query_subgraph(None).df.to_json()


def test_the_zora_quill_cell_resolves_all_three_nodes(shell, fresh):
    run(shell, f"%%gcypher --write\n{ZORA}")
    assert len(seeds("quill works")) == 1
    assert len(seeds("zora quill")) == 2
    assert_untouched(fresh)
    assert not names.stale(fresh.db)


def test_a_rename_by_set_and_a_detach_delete_keep_the_index_right(shell, fresh):
    run(shell, f"%%gcypher --write\n{ZORA}")
    upper = by_name(fresh, "ZORA QUILL")
    run(shell, '%%gcypher --write\nMATCH (n:Person {name: "Zora Quill"}) SET n.name = "Ada  Stone" RETURN count(n) AS c')
    assert seeds("ada stone") == [by_name(fresh, "Ada  Stone")]
    assert seeds("zora quill") == [upper]
    run(shell, '%%gcypher --write\nMATCH (n:Person {name: "ZORA QUILL"}) DETACH DELETE n RETURN count(*) AS c')
    assert gestalt_nb.query_subgraph(["zora quill"]).unresolved_entities == ["zora quill"]
    assert entries(fresh, upper) == []  # the deleted node's entries went with it
    assert names._candidates(fresh.db, names.FAMILY_PREFIX + names.digest("zora quill"), 10) == []
    assert_untouched(fresh)


def test_run_write_true_keeps_names_of_nodes_it_does_not_return(fresh):
    gestalt_nb.run("UNWIND ['Mira Holt', 'Oskar Lind'] AS n CREATE (:Person {name: n}) RETURN count(*) AS c", write=True)
    assert len(seeds("MIRA HOLT")) == 1 and len(seeds("oskar lind")) == 1


def test_a_failed_write_leaves_the_index_as_it_was(shell, fresh):
    run(shell, f"%%gcypher --write\n{ZORA}")
    with pytest.raises(gestalt_nb.GestaltError):
        gestalt_nb.run('CREATE (:Person {name: "Never Here"}) WITH 1 AS x RETURN 1 / 0 AS boom', write=True)
    assert gestalt_nb.query_subgraph(["never here"]).unresolved_entities == ["never here"]
    assert not names.stale(fresh.db)


def test_loads_keep_the_index_and_a_reload_renames(fresh):
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["p1", "p2"], "name": ["Lena Voss", "Ivo Marr"]}), id="id", label="Person")
    gestalt_nb.load_edges(pd.DataFrame({"s": ["p1"], "t": ["p2"]}), source="s", target="t", type="KNOWS")
    assert seeds("LENA VOSS") == ["p1"]
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["p1"], "name": ["Lena Berg"]}), id="id", label="Person")
    assert seeds("lena berg") == ["p1"]
    assert gestalt_nb.query_subgraph(["lena voss"]).unresolved_entities == ["lena voss"]
    assert entries(fresh, "p1") == [names.digest("lena berg")]  # one record (both keys agree), the old name's gone
    assert_untouched(fresh)


def test_from_networkx_keeps_the_index(fresh):
    import networkx as nx

    g = nx.Graph()
    g.add_node("x", name="Tarn Ek")
    g.add_node("y", name="Ulla Fen")
    g.add_edge("x", "y")
    gestalt_nb.from_networkx(g)
    assert seeds("tarn ek") == ["x"]
    assert_untouched(fresh)


def test_graphrag_extraction_keeps_the_index_without_properties(fresh):
    model = ScriptedChatModel(responses=[graph([("Nadia Roe", "Person"), ("Roe Labs", "Organization")], [("Nadia Roe", "FOUNDED", "Roe Labs")])])
    gestalt_nb.extract([Document(id="d", page_content="Nadia Roe founded Roe Labs.")], model)
    assert seeds("NADIA ROE") == ["Nadia Roe"] and seeds("roe labs") == ["Roe Labs"]
    assert not [key for node in fresh.db.get_nodes([b"Nadia Roe"]) for key in node.properties if key.startswith("__")]
    assert not names.stale(fresh.db)


def test_the_demo_graph_is_indexed_and_untouched(demo):
    assert seeds("ALICE CHEN") == ["alice"]
    assert not names.stale(demo.db) and "__name_lc" not in demo.db.indexed_node_properties
    assert not [key for key in stored_keys(demo) if key.startswith("__name")]


def old_database(path, count=30):
    """A database as the previous version wrote it: ``__name_lc`` / ``__name_norm`` in every named node, indexed."""
    db = GraphDB.create(str(path), backend="lmdb", serializer="json", backend_options={"map_size": 64 << 20},
                        indexed_node_properties=["name", "__name_lc", "__name_norm"])
    with db.transaction() as tx:
        tx.put_nodes([Node(f"n{i}", labels=["Old"], properties={"name": f"Old Node {i}", "__name_lc": f"old node {i}", "__name_norm": f"old node {i}"}) for i in range(count)])
    db.close()


def test_a_database_written_by_the_previous_version_is_migrated_once_when_asked(shell, tmp_path, capsys):
    old_database(tmp_path / "old")
    run(shell, f"%gestalt open {tmp_path / 'old'}")  # a plain open writes nothing: one line says how to build the index
    assert "opening it wrote nothing: names are matched in memory. connection.index_names() (or --index-names" in capsys.readouterr().out
    assert names.legacy(gestalt_nb.connection().db) and seeds("OLD NODE 7") == ["n7"]
    run(shell, "%gestalt close")
    run(shell, f"%gestalt open {tmp_path / 'old'} --index-names")
    printed = capsys.readouterr().out
    assert printed.count("Moving the case-insensitive name index") == 1 and "30 names; '__name_lc' and '__name_norm' removed" in printed
    connection = gestalt_nb.connection()
    assert seeds("OLD NODE 7") == ["n7"]
    assert not names.legacy(connection.db) and not names.stale(connection.db)
    assert_untouched(connection)
    assert not [row for row in raw(connection, "SHOW INDEXES") if "__name" in json.dumps(row, default=str)]
    manifest = json.loads((tmp_path / "old" / "gestaltdb_manifest.json").read_text())
    assert manifest["graph"]["indexed_node_properties"] == ["name"]
    run(shell, "%gestalt close")
    run(shell, f"%gestalt open {tmp_path / 'old'}")
    assert "name index" not in capsys.readouterr().out  # once
    assert seeds("old node 3") == ["n3"] and not names.legacy(gestalt_nb.connection().db)
    assert records(gestalt_nb.connection()) == 30
    assert gestalt_nb.connection().index_names() == 30 and records(gestalt_nb.connection()) == 30  # a rebuild leaves nothing behind


def test_a_migration_that_fails_leaves_the_old_database_working(shell, tmp_path, capsys, monkeypatch):
    old_database(tmp_path / "old", 5)

    def full(*args, **kwargs):
        raise RuntimeError("MDB_MAP_FULL")

    monkeypatch.setattr(names, "_drop_legacy", full)
    run(shell, f"%gestalt open {tmp_path / 'old'} --index-names")
    assert "The name index was not changed (RuntimeError: MDB_MAP_FULL)" in capsys.readouterr().out
    db = gestalt_nb.connection().db
    assert names.legacy(db) and "__name_lc" in db.get_node(b"n1").properties  # rolled back: as it was
    assert seeds("OLD NODE 1") == ["n1"]  # found through the old index


def test_a_read_only_connection_to_an_old_database_still_finds_names(tmp_path):
    old_database(tmp_path / "old", 5)
    db = GraphDB.open(str(tmp_path / "old"), backend_options={"map_size": 64 << 20})
    try:
        gestalt_nb.use(db, alias="borrowed")  # no path: nothing is written
        assert seeds("OLD NODE 2") == ["n2"]
        assert "__name_lc" in db.get_node(b"n2").properties
    finally:
        db.close()


def write_elsewhere(path, node_id: str, name: str) -> None:
    code = (
        "from gestaltdb.graphdb import GraphDB, Node\n"
        f"db = GraphDB.open({str(path)!r}, backend_options={{'map_size': 64 << 20}})\n"
        f"db.put_nodes([Node({node_id!r}, labels=['Ext'], properties={{'name': {name!r}}})])\n"
        "db.close()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_write_by_another_process_is_found_on_the_next_lookup_without_writing(shell, tmp_path, monkeypatch):
    run(shell, f"%gestalt create {tmp_path / 'shared'} --map-size 64MiB")
    write_elsewhere(tmp_path / "shared", "ext1", "Far Away")
    assert names.stale(gestalt_nb.connection().db)
    assert seeds("FAR AWAY") == ["ext1"]  # matched in memory: a read writes nothing, so the index stays behind
    assert names.stale(gestalt_nb.connection().db)
    monkeypatch.setattr(names, "CATCH_UP_NODES", 0)
    write_elsewhere(tmp_path / "shared", "ext2", "Farther Still")
    result = gestalt_nb.query_subgraph(["farther still"])
    assert any("index_names()" in note for note in result.notes)
    gestalt_nb.connection().index_names()
    assert seeds("farther still") == ["ext2"]
