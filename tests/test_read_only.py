"""Reads never write: a database GestaltDB made itself, opened plain or ``read_only=True`` (on a read-only mount too),
queried, described and searched by name, keeps ``data.mdb`` byte-identical; building the name index is asked for."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
from gestaltdb.graphdb import GraphDB, Node
from IPython.core.error import UsageError

import gestalt_nb
from gestalt_nb.graph import names
from gestalt_nb.session import REGISTRY

from .conftest import run
from .test_first_run import mounted  # noqa: F401  (a fixture: small tmpfs mounts, root only)

NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]


def made_by_gestaltdb(path: Path) -> Path:
    """A database written by GestaltDB alone (no gestalt-nb), with names, a relationship type and a property index."""
    db = GraphDB.create(str(path), backend="lmdb", serializer="json", backend_options={"map_size": 64 << 20},
                        indexed_node_properties=["born"])
    nodes = [Node(f"p{i}", labels=["Person"], properties={"name": name, "born": 1815 + 40 * i}) for i, name in enumerate(NAMES)]
    db.put_nodes(nodes)
    for i in range(len(NAMES) - 1):
        db.query("MATCH (a {id: $a}), (b {id: $b}) CREATE (a)-[:INFLUENCED]->(b) RETURN count(*) AS c",
                 parameters={"a": f"p{i}", "b": f"p{i + 1}"})
    db.close()
    return path


def digest(path: Path) -> str:
    return hashlib.sha256((path / "data.mdb").read_bytes()).hexdigest()


def every_read(shell, path: Path) -> None:
    """Queries, schema, info, explain and names (magic and Python), as a person exploring would."""
    result = run(shell, "%gcypher MATCH (a:Person)-[r:INFLUENCED]->(b) RETURN a, r, b")
    assert len(result) == 4 and len(result.subgraph.nodes) == 5
    assert run(shell, "%gcypher MATCH (n) RETURN count(n) AS c").records == [{"c": 5}]
    assert run(shell, "%gcypher MATCH (n:Person {born: 1855}) RETURN n.name AS name").records == [{"name": "Alan Turing"}]
    run(shell, "%gcypher MATCH ()-[r]->() RETURN count(r) AS c")  # untyped: rewritten in a read snapshot
    schema = gestalt_nb.schema()
    assert "Person" in str(schema.labels) if hasattr(schema, "labels") else schema
    run(shell, "%gschema")
    gestalt_nb.explain("MATCH (n:Person) RETURN n")
    gestalt_nb.connection().info()
    found = gestalt_nb.query_subgraph(["ALAN turing"], max_hops=1)
    assert sorted(found.seed_node_ids) == ["p1"] and sorted(found.subgraph.nodes) == ["p0", "p1", "p2"]
    assert not any("matched exactly" in note for note in found.notes)
    shown = run(shell, '%gsubgraph "grace HOPPER" --hops 0')
    assert list(shown.seed_node_ids) == ["p2"]
    communities = gestalt_nb.overview("community")  # the overview: communities, labels, a number; drawn, drilled, exported
    assert communities.groups["size"].sum() == 5 and gestalt_nb.overview("label").groups["name"].tolist() == ["Person"]
    by_year = run(shell, "%goverview --by born -o by_year")
    assert by_year.groups["size"].sum() == 5
    by_year.canvas.drill(0)
    assert "Person" in communities.canvas.to_html()


def test_a_plain_connect_and_every_read_leave_data_mdb_byte_identical(shell, tmp_path, capsys):
    path = made_by_gestaltdb(tmp_path / "theirs")
    before = digest(path)
    gestalt_nb.connect(str(path), map_size="64MiB")
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1 and "opening it wrote nothing: names are matched in memory" in printed  # said in one line
    every_read(shell, path)
    REGISTRY.close_all()
    assert digest(path) == before
    assert not names.has_index(GraphDB.open(str(path), backend_options={"map_size": 64 << 20}))


def test_names_found_in_memory_follow_writes_and_building_the_index_is_asked_for(shell, tmp_path):
    path = made_by_gestaltdb(tmp_path / "theirs")
    connection = gestalt_nb.connect(str(path), map_size="64MiB")
    assert gestalt_nb.query_subgraph(["ada lovelace"], max_hops=0).seed_node_ids == ["p0"]
    gestalt_nb.run("CREATE (n:Person {id: 'p9', name: 'Katherine Johnson'}) RETURN n", write=True)
    assert gestalt_nb.query_subgraph(["KATHERINE johnson"], max_hops=0).seed_node_ids == ["p9"]  # the map follows the write
    assert not names.has_index(connection.db)
    before = digest(path)
    assert connection.index_names() == 6 and names.built(connection.db) and digest(path) != before  # the explicit call writes
    REGISTRY.close_all()
    other = made_by_gestaltdb(tmp_path / "flagged")
    assert names.built(gestalt_nb.connect(str(other), map_size="64MiB", index_names=True).db)
    with pytest.raises(gestalt_nb.GestaltError, match="read_only=True cannot build the name index"):
        gestalt_nb.connect(str(made_by_gestaltdb(tmp_path / "both")), read_only=True, index_names=True)


def test_read_only_opens_through_lmdb_read_only_mode_and_refuses_writes_in_one_line(shell, tmp_path):
    path = made_by_gestaltdb(tmp_path / "theirs")
    before = digest(path)
    connection = gestalt_nb.connect(str(path), map_size="64MiB", read_only=True)
    assert connection.read_only and connection.db.store.env.flags()["readonly"]
    every_read(shell, path)
    with pytest.raises(gestalt_nb.GestaltError, match=r"^Cannot write to the database: it was opened read-only \(read_only=True / --read-only\)"):
        gestalt_nb.run("CREATE (n:X) RETURN n", write=True)
    with pytest.raises(gestalt_nb.GestaltError):
        connection.index_names()
    REGISTRY.close_all()
    assert digest(path) == before


def test_a_chmod_copy_opened_read_only_stays_byte_identical(shell, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(made_by_gestaltdb(tmp_path / "theirs"), copy)
    before = digest(copy)
    subprocess.run(["chmod", "-R", "a-w", str(copy)], check=True)
    try:
        run(shell, f"%gestalt open {copy} --read-only --map-size 64MiB")  # as root chmod stops nothing: LMDB's read-only mode does
        every_read(shell, copy)
        REGISTRY.close_all()
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(copy)], check=True)
    assert digest(copy) == before


def test_a_read_only_mount_is_read_with_read_only_and_said_so_without(shell, mounted):  # noqa: F811
    place = mounted("ro", "8m")
    shutil.copytree(made_by_gestaltdb(place.parent / "theirs"), place / "db")
    before = digest(place / "db")
    subprocess.run(["mount", "-o", "remount,ro", str(place)], check=True)
    with pytest.raises(UsageError, match=r"not writable \(Read-only file system\)\. To read it, open it with read_only=True \(--read-only\)"):
        run(shell, f"%gestalt open {place / 'db'} --map-size 64MiB")
    run(shell, f"%gestalt open {place / 'db'} --read-only --map-size 64MiB")
    assert gestalt_nb.connection().db.store.env.flags()["readonly"]  # LMDB itself skips its lock file on a read-only file system
    every_read(shell, place / "db")
    with pytest.raises(UsageError, match="it was opened read-only"):
        run(shell, "%gcypher --write CREATE (n:X) RETURN n")
    REGISTRY.close_all()
    assert digest(place / "db") == before
