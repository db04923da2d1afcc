"""The contract with the engine: every private part of GestaltDB, LMDB and the LangChain adapter that gestalt-nb uses (all in
gestalt_nb/engine/) still works as used, on the installed versions — and nothing outside gestalt_nb/engine/ uses one.

Each test checks one part on a real database and fails with one line naming the installed version and the supported
range (``engine.mismatch``), e.g. ``gestaltdb 0.13.0: GraphDB._manifest is gone; gestalt-nb supports gestaltdb>=0.12.1,<0.13``.
"""

from __future__ import annotations

import ast
import json
import re
from contextlib import contextmanager
from pathlib import Path

import lmdb
import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node
from langchain_gestaltdb import GestaltDBGraph

from gestalt_nb import engine
from gestalt_nb.engine import keys, records, store
from gestalt_nb.engine.pages import open_pages
from gestalt_nb.engine.readonly import open_read_only

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gestalt_nb"


@contextmanager
def contract(package: str, what: str):
    """Any failure inside becomes one line: the installed version of ``package``, what broke, the supported range."""
    try:
        yield
    except Exception as exc:  # AssertionError, AttributeError, KeyError … all mean the same: the part changed
        pytest.fail(f"{engine.mismatch(package, what)} [{type(exc).__name__}: {exc}]", pytrace=False)


@pytest.fixture
def db(tmp_path):
    opened = GraphDB.create(tmp_path / "g", backend="lmdb", backend_options={"map_size": 2**27})
    with opened.transaction() as tx:
        tx.put_nodes([Node("a", labels=["Person"], properties={"name": "Ann"}), Node("b", labels=["City"])])
        tx.put_edge(Edge("e1", "a", "b", properties={"type": "LIVES_IN"}))
    yield opened
    opened.close()


def test_the_supported_ranges_are_pyprojects():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for package, spec in engine.SUPPORTED.items():
        assert any(re.fullmatch(rf"{package}(\[[a-z,]+\])?{re.escape(spec)}", line.replace(" ", "")) for line in declared), (
            f"pyproject.toml's dependencies should say {package}{spec}, as gestalt_nb/engine's SUPPORTED does")


def test_a_broken_contract_names_the_installed_version_and_the_range():
    line = engine.mismatch("gestaltdb", "GraphDB._manifest is gone")
    assert line.startswith(f"gestaltdb {engine.installed('gestaltdb')}: GraphDB._manifest is gone; gestalt-nb supports gestaltdb>=")
    with pytest.raises(pytest.fail.Exception, match=r"^lmdb \d[^:]*: a part; gestalt-nb supports lmdb"):
        with contract("lmdb", "a part"):
            raise AttributeError("gone")


def test_the_lmdb_store_tables_and_transactions(db):
    with contract("gestaltdb", "LMDBStore's env and tables (index_db, nodes_db, edges_db, typed_adj_db) or a transaction's txn/parent changed"):
        lmdb_store = store.lmdb_store(db)
        assert lmdb_store is not None and all(getattr(lmdb_store, name) is not None for name in ("index_db", "nodes_db", "edges_db", "typed_adj_db"))
        assert store.write_txn(db) is None and store.node_count(db, -1) == 2
        before = store.sequence(db)
        with db.transaction() as tx:
            assert store.write_txn(tx) is not None and store.index_table(tx) is store.index_table(db) is not None
            assert records.table_of(tx.store, "index_db") is lmdb_store.index_db
            tx.put_node(Node("c"))
            with store.reading(tx) as (txn, table):
                assert txn is store.write_txn(tx) and table is lmdb_store.index_db
        assert store.sequence(db) > before and store.node_count(db, -1) == 3


def test_deferred_index_upkeep(db):
    with contract("gestaltdb", "GraphDB._ensure_indexes_current or GraphDB._load_stale_indexes changed"):
        assert store.stale_indexes(db) == set()
        store.ensure_index_current(db, "edge_type")
        store.ensure_index_current(db, "node_label")


def test_the_store_path_the_manifest_and_dropping_a_property_index(db, tmp_path):
    with contract("gestaltdb", "GraphDB._store_path, _manifest, _manifest_from_current or _persist_property_index_metadata changed"):
        assert store.store_path(db) == tmp_path / "g"
        db.create_node_property_index("old")
        assert "old" in db.indexed_node_properties
        with db.transaction() as tx:
            store.drop_node_indexes(db, tx, ("old",))
        assert store.save_manifest_file(db)
        db.close()
        reopened = GraphDB.open(tmp_path / "g")
        assert "old" not in reopened.indexed_node_properties and "old" not in json.dumps(reopened.manifest)
        reopened.close()


def test_a_read_views_own_graph_and_an_adapters(db):
    with contract("gestaltdb", "a read view's GraphDB (ReadView._graph) changed"):
        with db.current_read_view(capture_provenance=False) as view:
            inside = store.snapshot_db(view)
            assert isinstance(inside, GraphDB) and inside.get_node(b"a") is not None
    with contract("langchain-gestaltdb", "GestaltDBGraph._graph changed"):
        assert store.adapter_db(GestaltDBGraph(db, owns_graph=False)) is db


def test_a_transactions_node_writes_go_through_its_store(db):
    with contract("gestaltdb", "a transaction's node writes no longer go through tx.store (put_node / put_nodes_bulk / delete_node)"):
        with db.transaction() as tx:
            with store.node_writes(tx) as touched:
                tx.put_node(Node("c", labels=["Person"]))
                tx.put_nodes([Node("d"), Node("e")])
                tx.delete_node("b")
            assert type(tx.store).__name__ != "_NodeWrites"  # put back on leaving
        assert {bytes(key).decode() for key in touched} >= {"c", "d", "e", "b"}
        assert db.get_node(b"c") is not None and db.get_node(b"b") is None


def test_the_adapters_schema_sample(db):
    with contract("langchain-gestaltdb", "GestaltDBGraph._schema (its schema sample) changed"):
        graph = GestaltDBGraph(db, owns_graph=False)
        graph.get_structured_schema  # noqa: B018 - takes the sample
        first = store.sampled_schema(graph)
        assert first is not None and store.sampled_schema(graph) is first
        graph.refresh_schema()
        assert store.sampled_schema(graph) is not first


def test_an_engine_nodes_raw_id():
    with contract("gestaltdb", "Node._id / Edge._id (an entity's id as held) changed"):
        assert store.raw_id(Node("n1")) == "n1" and store.raw_id(Edge("e", "a", "b")) == "e"


def test_the_cypher_parsers_tree_gives_the_untyped_hops():
    from gestalt_nb.cypher.untyped import find_in

    with contract("gestaltdb", "the Cypher grammar's parse tree (query_engine.cypher.parser._PARSER, its hop rules) changed"):
        assert store.cypher_tree("MATCH (a)-[r]->(b) RETURN r").iter_subtrees is not None
        found = find_in("MATCH (a)-[r]->(b)--(c) RETURN r")
        assert found is not None and found.sites == ((12, False), (19, True))  # after ``r``; after the first dash of ``--``


def test_the_key_layout(db):
    lmdb_store = store.lmdb_store(db)
    with contract("gestaltdb", "the index or typed-adjacency key layout (kvstores._index_prefix, _index_key, _typed_adjacency_key) changed"):
        assert keys.layout_checked()
        with lmdb_store.env.begin() as txn:
            assert keys.names_under(txn, lmdb_store.index_db, keys.index_prefix("node_label", [])) == ["City", "Person"]
            assert keys.names_under(txn, lmdb_store.index_db, keys.index_prefix("edge_type", [])) == ["LIVES_IN"]
            assert txn.get(keys.adjacency_key(b"out", b"a", b"LIVES_IN", b"e1"), db=lmdb_store.typed_adj_db) == b"b"
            assert txn.get(keys.adjacency_key(b"in", b"b", b"LIVES_IN", b"e1"), db=lmdb_store.typed_adj_db) == b"a"
            assert keys.kinds_at(txn, lmdb_store.typed_adj_db, b"b") == {"LIVES_IN"}
            entry = keys.index_prefix("node_label", [b"Person"]) + keys.index_part(b"a")
            assert txn.get(entry, db=lmdb_store.index_db) == b"a"


def test_records_written_as_gestaltdb_writes_them(db):
    from json.encoder import encode_basestring_ascii as quote

    with contract("gestaltdb", "the JSON record layout of nodes and edges, or GraphDB._put_node_indexes / _delete_node_indexes / "
                              "_typed_adjacency_count_cache, changed"):
        with db.transaction() as tx:
            assert records.fast(tx)
            node = Node("n", labels=["L"], properties={"k": 1})
            assert json.loads(tx.entity_serializer.serialize(node, "Node")) == json.loads(records.node_json(quote("n"), '["L"]', '"k":1'))
            edge = Edge("x", "a", "b", properties={"type": "T"})
            assert json.loads(tx.entity_serializer.serialize(edge, "Edge")) == json.loads(records.edge_json(quote("x"), quote("a"), quote("b"), '"type":"T"'))
            records.write_node(tx, node, None)
            assert tx.count_typed_adjacency(b"a", "T", "out") == 0  # counted, and kept in the transaction's cache
            records.put_records(tx.store, "edges_db", {b"x": records.edge_json('"x"', '"a"', '"b"', '"type":"T"').encode()}, None)
            records.put_typed_adjacency(tx.store, [(b"a", b"b", "T", b"x")])
            records.put_index_entries(tx.store, [("edge_type", [b"T"], b"x")])
            records.forget_adjacency_counts(tx)
            assert tx.count_typed_adjacency(b"a", "T", "out") == 1
        assert db.get_node(b"n").properties == {"k": 1} and db.get_edge(b"x").source == "a"
        rows = db.query("MATCH (m:L) RETURN m.k AS k").records
        assert [row["k"] for row in rows] == [1] and [row["n"] for row in db.query("MATCH ()-[r:T]->() RETURN count(r) AS n").records] == [1]


def test_lmdb_pages_read_as_a_cursor_walks(db):
    lmdb_store = store.lmdb_store(db)
    with contract("lmdb", f"LMDB's page format (C library {'.'.join(map(str, lmdb.version()))}; engine/pages.py reads 0.9's) changed"):
        assert lmdb.version()[:2] == (0, 9)
        with lmdb_store.env.begin() as txn:
            pages = open_pages(lmdb_store.env, txn)
            assert pages is not None
            read = pages.read(b"typed_adj", lmdb_store.typed_adj_db, b"")
            assert read is not None
            found = [pair for chunk_keys, chunk_values in read for pair in zip(chunk_keys.to_pylist(), chunk_values.to_pylist())]
            pages.close()
            assert found == list(txn.cursor(db=lmdb_store.typed_adj_db))


def test_opening_read_only(db, tmp_path):
    identity = db.database_id
    db.close()
    with contract("gestaltdb", "GraphDB.open's backend choice (_backend_class), identity (_initialize_database_id) or LMDBStore's tables changed"):
        opened = open_read_only(tmp_path / "g", 2**27)
        assert opened.store.env.flags()["readonly"] and opened.database_id == identity and opened.get_node(b"a") is not None
        opened.close()


def test_the_adapters_own_functions():
    from gestalt_nb.engine import adapter

    with contract("langchain-gestaltdb", "_serialization.normalize, _schema._type_name or _ingestion.entity_id / _digest changed"):
        assert adapter.normalize(Node("n", labels=["L"], properties={"k": 1}), _depth=0) == {"id": "n", "properties": {"k": 1}, "labels": ["L"]}
        assert [adapter.type_name(value) for value in (1, "a", 1.5, [1], True)] == ["integer", "string", "float", "list", "boolean"]
        assert (adapter.entity_id("x"), adapter.entity_id(2)) == ("x", "__lc_int__:2")
        assert re.fullmatch(r"[0-9a-f]{64}", adapter.digest(["a", 1])) and adapter.digest(["a", 1]) == adapter.digest(["a", 1])


def test_the_adapters_claim_versions(db):
    from gestalt_nb.engine import adapter

    with contract("langchain-gestaltdb", "claims._serialize_claim_version changed"):
        made = db.assert_claim(subject="eva", predicate="WORKS_FOR", object="acme", polarity="positive", agent="me",
                               valid_from="2025-01-01T00:00:00Z")
        (version,) = db.iter_claim_versions(made.logical_id)
        row = adapter.claim_version(version)
        assert row["version_id"] == made.version_id and row["operation"] == "assert" and "system_time" in row


# -- the door is the only one ----------------------------------------------------------------------------------------
def _named_attribute(call: ast.Call) -> str:
    """The attribute a ``getattr``/``hasattr``/``attrgetter`` call names ("" for any other call)."""
    at = {"getattr": 1, "hasattr": 1, "attrgetter": 0}.get(getattr(call.func, "id", None), -1)
    value = call.args[at].value if 0 <= at < len(call.args) and isinstance(call.args[at], ast.Constant) else ""
    return value if isinstance(value, str) else ""


def _private_names_used_in_engine() -> set[str]:
    """Private attributes the engine folder reads of other objects, and private names it imports from the engines."""
    found = set()
    for path in (PACKAGE / "engine").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
            elif isinstance(node, ast.Call) and _named_attribute(node).startswith("_"):
                found.add(_named_attribute(node))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("gestaltdb", "lmdb", "langchain_gestaltdb")):
                found |= {alias.name for alias in node.names if alias.name.startswith("_")}
    return found


def test_nothing_outside_the_engine_folder_uses_the_engines_private_parts():
    engine_names = _private_names_used_in_engine()
    assert {"_graph", "_manifest", "_store_path", "_PARSER", "_put_node_indexes", "_typed_adjacency_count_cache", "_id"} <= engine_names
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "engine":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            where = f"gestalt_nb/{relative}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("gestaltdb", "lmdb", "langchain_gestaltdb"):
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                if private or any(part.startswith("_") for part in node.module.split(".")):
                    found.append(f"{where} imports {node.module}: {private or '(a private module)'}")
            elif isinstance(node, ast.Attribute) and node.attr in engine_names and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{where} reads .{node.attr}")
            elif isinstance(node, ast.Constant) and node.value in engine_names:
                found.append(f"{where} names {node.value!r}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, bytes) and b"\x1f" in node.value:
                found.append(f"{where} spells a GestaltDB key ({node.value!r}): use gestalt_nb/engine/keys.py")
    assert not found, "the engine's private parts are used outside gestalt_nb/engine/:\n" + "\n".join(found)
