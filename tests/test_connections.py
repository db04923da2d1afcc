"""%gestalt open | create | demo | use | switch | list | close | info, on real LMDB directories."""

from __future__ import annotations

import pytest
from gestaltdb.graphdb import GraphDB, Node
from IPython.core.error import UsageError
from langchain_gestaltdb import GestaltDBGraph

import gestalt_nb
from gestalt_nb.session import REGISTRY, parse_size

from .conftest import raw, run


def test_create_then_write_then_reopen_keeps_data(shell, tmp_path):
    path = tmp_path / "fresh"
    run(shell, f"%gestalt create {path} --alias fresh --map-size 256MiB")
    connection = gestalt_nb.connection()
    assert connection.alias == "fresh" and connection.map_size == 256 * 1024**2
    assert connection.info()["backend"] == "lmdb"
    run(shell, "%%gcypher --write\nCREATE (a:Person {name: 'Ada', born: date('1815-12-10')}) RETURN a")
    run(shell, "%gestalt close fresh")
    assert REGISTRY.current is None
    run(shell, f"%gestalt open {path}")
    result = run(shell, "%gcypher MATCH (a:Person) RETURN a.name AS name, a.born AS born")
    assert result.records[0]["name"] == "Ada"
    assert str(result.df.loc[0, "born"]) == "1815-12-10"


def test_reopened_database_accepts_writes_beyond_lmdbs_default_10mib_map(shell, tmp_path):
    path = tmp_path / "big"
    run(shell, f"%gestalt create {path}")
    run(shell, "%gestalt close")
    run(shell, f"%gestalt open {path}")
    db = gestalt_nb.connection().db
    payload = "x" * 4000
    with db.transaction() as tx:  # ~16 MiB: more than LMDB's 10 MiB default map would hold
        tx.put_nodes([Node(f"n{i}", labels=["Blob"], properties={"data": payload}) for i in range(4000)])
    assert raw(gestalt_nb.connection(), "MATCH (n:Blob) RETURN count(n) AS c")[0]["c"] == 4000


def test_create_refuses_a_non_empty_directory(shell, tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file.txt").write_text("hello")
    with pytest.raises(UsageError, match="not empty; choose an empty or new directory"):
        run(shell, f"%gestalt create {tmp_path / 'used'}")


def test_open_a_missing_database_says_how_to_create_one(shell, tmp_path):
    with pytest.raises(UsageError, match=r"No GestaltDB database at .*%gestalt create"):
        run(shell, f"%gestalt open {tmp_path / 'nothing'}")


def test_demo_builds_once_and_reopens_the_same_graph(shell, tmp_path):
    path = tmp_path / "demo"
    run(shell, f"%gestalt demo {path}")
    first = raw(gestalt_nb.connection(), "MATCH (n) RETURN count(n) AS c")[0]["c"]
    labels = {row["l"] for row in raw(gestalt_nb.connection(), "MATCH (n) UNWIND labels(n) AS l RETURN DISTINCT l")}
    assert {"Person", "Company", "Place", "Paper", "Project", "__LangChainSource__"} <= labels
    run(shell, "%gestalt close demo")
    run(shell, f"%gestalt demo {path}")
    assert raw(gestalt_nb.connection(), "MATCH (n) RETURN count(n) AS c")[0]["c"] == first
    assert "name" in gestalt_nb.connection().info()["node_indexes"]


def test_two_connections_alias_switch_list_and_info(shell, tmp_path, capsys):
    run(shell, f"%gestalt create {tmp_path / 'one'} --alias one")
    run(shell, f"%gestalt create {tmp_path / 'two'} --alias two")
    assert REGISTRY.current == "two"
    run(shell, "%%gcypher --write --alias one\nCREATE (n:OnlyInOne) RETURN n")
    assert run(shell, "%gcypher MATCH (n:OnlyInOne) RETURN n").records == []
    run(shell, "%gestalt switch one")
    assert len(run(shell, "%gcypher MATCH (n:OnlyInOne) RETURN n")) == 1
    table = run(shell, "%gestalt list")
    assert list(table["alias"]) == ["one", "two"]
    assert list(table["current"]) == [True, False]
    capsys.readouterr()
    run(shell, "%gestalt info two")
    out = capsys.readouterr().out
    assert "two" in out and "lmdb" in out and str(tmp_path / "two") in out


def test_use_borrows_a_graph_and_close_never_closes_it(shell, tmp_path):
    owner = GestaltDBGraph.create(tmp_path / "mine", backend="lmdb", backend_options={"map_size": 2**28})
    try:
        owner.query("CREATE (n:Mine {name: 'kept'}) RETURN n")
        shell.user_ns["my_graph"] = owner
        run(shell, "%gestalt use my_graph")
        assert REGISTRY.current == "my_graph" and not gestalt_nb.connection().owned
        assert run(shell, "%gcypher MATCH (n:Mine) RETURN n.name AS name").records == [{"name": "kept"}]
        run(shell, "%gestalt close my_graph")
        assert owner.query("MATCH (n:Mine) RETURN n.name AS name") == [{"name": "kept"}]  # still open for its owner
    finally:
        owner.close()


def test_use_wraps_a_raw_graphdb_without_owning_it(shell, tmp_path):
    db = GraphDB.create(tmp_path / "rawdb", backend="lmdb", backend_options={"map_size": 2**28})
    try:
        shell.user_ns["db"] = db
        run(shell, "%gestalt use db --alias rawdb")
        assert gestalt_nb.connection().alias == "rawdb"
        run(shell, "%gestalt close")
        assert db.query("UNWIND [1] AS x RETURN x").records == [{"x": 1}]
    finally:
        db.close()


def test_use_rejects_other_objects(shell):
    shell.user_ns["not_a_graph"] = 42
    with pytest.raises(UsageError, match="Cannot use a int; pass a GestaltDBGraph or gestaltdb GraphDB"):
        run(shell, "%gestalt use not_a_graph")


def test_closed_connection_and_owner_closed_graph_fail_clearly(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'c'} --alias c")
    connection = gestalt_nb.connection()
    run(shell, "%gestalt close c")
    with pytest.raises(gestalt_nb.GestaltError, match="Connection 'c' is closed. Reopen it with %gestalt open"):
        connection.run("MATCH (n) RETURN n")
    owner = GestaltDBGraph.create(tmp_path / "o", backend="lmdb")
    shell.user_ns["owner"] = owner
    run(shell, "%gestalt use owner")
    owner.close()
    with pytest.raises(UsageError, match="was closed by its owner"):
        run(shell, "%gcypher MATCH (n) RETURN n")


def test_unknown_alias_and_no_connection_say_what_to_do(shell, tmp_path):
    with pytest.raises(UsageError, match=r"No open GestaltDB connection. Run %gestalt demo"):
        run(shell, "%gcypher MATCH (n) RETURN n")
    run(shell, f"%gestalt create {tmp_path / 'x'} --alias x")
    with pytest.raises(UsageError, match=r"No connection named 'nope'. Open connections: x"):
        run(shell, "%%gcypher --alias nope\nMATCH (n) RETURN n")
    with pytest.raises(UsageError, match="Alias 'x' is already in use"):
        run(shell, f"%gestalt create {tmp_path / 'y'} --alias x")


def test_bad_subcommand_shows_usage(shell):
    with pytest.raises(UsageError, match="invalid choice: 'opne'"):
        run(shell, "%gestalt opne /tmp/x")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1GiB", 1024**3), ("512MiB", 512 * 1024**2), ("2g", 2 * 1024**3), ("4294967296", 4 * 1024**3), (2**21, 2**21)],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["lots", "12 parsecs", "10k"])
def test_parse_size_rejects_nonsense_and_tiny_maps(text):
    with pytest.raises(gestalt_nb.GestaltError):
        parse_size(text)


def test_owned_connections_close_at_exit(tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "exit"))
    REGISTRY.close_all()  # what atexit runs
    assert connection.closed and not REGISTRY.connections
    with pytest.raises(RuntimeError, match="closed"):
        connection.graph.graph  # noqa: B018 - reading it is what raises


def test_the_default_demo_lives_in_a_scratch_directory_removed_on_close(shell):
    run(shell, "%gestalt demo")
    connection = gestalt_nb.connection()
    assert connection.scratch is not None and connection.path.is_relative_to(connection.scratch)
    assert connection.path.exists()
    run(shell, "%gestalt close demo")
    assert not connection.scratch.exists()


def test_procedures_are_refused_with_the_way_to_opt_in(shell, demo):
    with pytest.raises(UsageError, match="not provably read-only: Procedure is not allowlisted.* run it with --write"):
        run(shell, "%gcypher CALL pg.sample_typed_paths(['alice'], [{edge_type: 'KNOWS'}]) YIELD path RETURN path")
