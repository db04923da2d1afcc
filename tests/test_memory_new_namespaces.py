"""A GestaltStore batch into new namespaces: its records are the ones GestaltDB's own calls write
(namespace nodes, their ``SUBNAMESPACE_OF`` edges, items, ``IN_NAMESPACE`` edges, every index and
adjacency record), table by table; a namespace the batch creates is read for old items only when
items are stored under it without its node."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone

import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node
from langgraph.store.base import PutOp

from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.bookkeeping import SUBNAMESPACE_OF
from gestalt_nb.memory import IN_NAMESPACE, ITEM, GestaltStore, item_id
from gestalt_nb.memory.codec import EXPIRES, NAMESPACE, PATH, caption, encode_namespace, index_value, iso, namespace_id

MAP = {"map_size": 2**28}
NOW = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
TABLES = ("nodes_db", "edges_db", "adj_db", "typed_adj_db", "index_db")


def make_db(path):
    db = GraphDB.create(path, backend="lmdb", serializer="json", backend_options=MAP)
    for name in (PATH, EXPIRES):
        db.create_node_property_index(name)
    return db


def reference(db, puts):
    """What GestaltDB's own put_node / put_edge write for these puts (one transaction)."""
    with db.transaction() as tx:
        for namespace, key, value in puts:
            for depth in range(1, len(namespace) + 1):
                ns = namespace[:depth]
                node_id = namespace_id(ns)
                if tx.get_node(node_id.encode("utf-8")) is None:
                    props = {"namespace": list(ns), "name": caption(ns[-1]), "path": "/".join(ns), "depth": depth,
                             PATH: index_value(encode_namespace(ns))}
                    tx.put_node(Node(node_id, labels=[NAMESPACE], properties=props))
                    if depth > 1:
                        edge = Edge(f"__memsub:{node_id[8:]}", node_id, namespace_id(ns[:-1]), properties={"type": SUBNAMESPACE_OF})
                        tx.put_edge(edge, update_adjacency=False)
            node_id = item_id(namespace, key)
            props = {"namespace": list(namespace), "key": key, "name": caption(key), "created_at": iso(NOW),
                     "updated_at": iso(NOW), "value": value}
            tx.put_node(Node(node_id, labels=[ITEM], properties=props))
            tx.put_edge(Edge("__memin" + node_id[5:], node_id, namespace_id(namespace), properties={"type": IN_NAMESPACE}),
                        update_adjacency=False)


def tables(db):
    """Every record of the graph's tables; node and edge records as the JSON they hold."""
    store = db.store
    out = {}
    with store.env.begin() as txn:
        for name in TABLES:
            rows = dict(txn.cursor(db=getattr(store, name)))
            if name in ("nodes_db", "edges_db"):
                rows = {key: json.loads(value) for key, value in rows.items()}
            out[name] = rows
    return out


PUTS = [(("users", f"new-{i % 3}", "memories"), f"k{i}", {"text": f"memory {i}", "n": i}) for i in range(30)] + [
    (("users", "new-0", "memories"), "a long key " * 12, {"n": -1}),  # an id cut and hashed
    (("users", "ü"), "é\x00\"quoted\"", {"deep": {"list": [1, 2.5, None, True]}}),  # escaped and non-ASCII
    (("solo",), "k", {}),
]


def test_a_batch_into_new_namespaces_writes_what_gestaltdb_writes(tmp_path):
    ours, theirs = make_db(tmp_path / "ours"), make_db(tmp_path / "theirs")
    store = GestaltStore(ours, clock=lambda: NOW)
    store.batch([PutOp(namespace, key, value) for namespace, key, value in PUTS])
    reference(theirs, PUTS)
    mine, expected = tables(ours), tables(theirs)
    for name in TABLES:
        assert mine[name] == expected[name], name
    assert store.list_namespaces() == sorted({namespace for namespace, _, _ in PUTS})
    assert store.get(("users", "ü"), "é\x00\"quoted\"").value == {"deep": {"list": [1, 2.5, None, True]}}
    ours.close()
    theirs.close()


def test_items_left_without_their_namespace_node_are_updated_not_doubled(tmp_path):
    db = make_db(tmp_path / "g")
    ns = ("users", "7")
    clock = {"now": NOW}
    store = GestaltStore(db, clock=lambda: clock["now"])
    store.batch([PutOp(ns, "a", {"v": 1}), PutOp(ns, "b", {"v": 2})])
    db.query("MATCH (n:__MemoryNamespace) DETACH DELETE n RETURN count(*) AS c", read_snapshot=False)
    assert db.get_node(namespace_id(ns).encode("utf-8")) is None
    clock["now"] = NOW.replace(hour=10)
    store.batch([PutOp(ns, "a", {"v": 11}), PutOp(ns, "c", {"v": 3})])  # the namespace node is made again
    items = {item.key: item for item in store.search(ns)}
    assert {key: item.value for key, item in items.items()} == {"a": {"v": 11}, "b": {"v": 2}, "c": {"v": 3}}
    assert items["a"].created_at == NOW and items["a"].updated_at == clock["now"]
    count = db.query("MATCH (m:__MemoryItem) RETURN count(m) AS c").records[0]["c"]
    links = db.query("MATCH (:__MemoryItem)-[r:IN_NAMESPACE]->(:__MemoryNamespace) RETURN count(r) AS c").records[0]["c"]
    assert count == 3 and links == 2  # a, c linked to the new namespace node; b's edge went with the old node
    db.close()


def test_one_batch_puts_deletes_and_puts_again_in_a_new_namespace(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    ns = ("fresh",)
    store.batch([PutOp(ns, "x", {"v": 1}), PutOp(ns, "y", {"v": 2})])
    store.batch([PutOp(("fresh", "sub"), "x", {"v": 1}), PutOp(ns, "x", None), PutOp(ns, "z", {"v": 3})])
    assert [(item.key, item.value) for item in store.search(ns)] == [("y", {"v": 2}), ("z", {"v": 3}), ("x", {"v": 1})]
    assert [item.namespace for item in store.search(ns)] == [ns, ns, ("fresh", "sub")]
    db.close()


def test_a_put_without_a_namespace_is_refused_clearly(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    with pytest.raises(GestaltError, match="namespace of at least one label"):
        store.batch([PutOp((), "k", {"v": 1})])
    db.close()


def test_put_values_read_back_as_json_writes_them(tmp_path):
    """Values are encoded with orjson where it reads back as json's text does, else with json."""
    import math

    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    values = {
        "plain": {"text": "memory", "n": 3, "f": 0.1, "big": 1e16, "neg": -0.0, "t": True, "l": [1, [2, {"x": "y"}]]},
        "unicode": {"s": "é\u2028\x00\"\\ \U0001f600", "k\u00fc": "v"},
        "null": {"nothing": None},
        "nan": {"n": math.nan, "inf": math.inf},  # orjson would write null: json's NaN/Infinity are kept
        "huge": {"n": 2**70, "m": -(2**65)},  # past orjson's 64 bits
        "int keys": {"d": {1: "one", 2.5: "x"}},  # json writes the keys as strings
        "surrogate": {"s": "\ud800"},
        "tuple": {"t": (1, 2)},
    }
    store.batch([PutOp(("v",), key, value) for key, value in values.items()])
    for key, value in values.items():
        got = store.get(("v",), key).value
        expected = json.loads(json.dumps(value))
        if key == "nan":
            assert math.isnan(got["n"]) and got["inf"] == math.inf
        else:
            assert got == expected, key
    with pytest.raises(GestaltError, match="not JSON"):
        store.put(("v",), "when", {"when": datetime.now()})
    with pytest.raises(GestaltError, match="not JSON"):
        store.put(("v",), "set", {"s": {1, 2}})
    marker = uuid.uuid4()
    store.put(("v",), "uuid", {"id": marker})  # as SqliteStore stores it: its JSON string
    assert store.get(("v",), "uuid").value == {"id": str(marker)}
    db.close()
