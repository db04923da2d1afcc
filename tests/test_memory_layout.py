"""GestaltStore's item layout: path-ordered ids written in bulk, stores of the earlier layout (hash
ids found through the ``__mem_path`` index) still read and written, and failed batches that leave
nothing behind."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node
from langgraph.store.base import PutOp

from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.bookkeeping import SUBNAMESPACE_OF
from gestalt_nb.memory import IN_NAMESPACE, ITEM, GestaltStore, item_id
from gestalt_nb.memory.codec import (
    EXPIRES,
    NAMESPACE,
    PATH,
    caption,
    encode_namespace,
    index_value,
    iso,
    legacy_item_id,
    namespace_id,
)

MAP = {"map_size": 2**30}
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def make_db(path):
    return GraphDB.create(path, backend="lmdb", serializer="json", backend_options=MAP)


def count(db, query):
    return db.query(query).records[0]["c"]


def edge_count(db):
    return count(db, "MATCH (:__MemoryItem)-[r:IN_NAMESPACE]->(:__MemoryNamespace) RETURN count(r) AS c")


# -- what the store wrote before path-ordered ids (gestalt-nb at 399287f), through GestaltDB's API ---
def _earlier_namespace(tx, namespace):
    node_id = namespace_id(namespace)
    if tx.get_node(node_id.encode("utf-8")) is None:
        props = {"namespace": list(namespace), "name": caption(namespace[-1]), "path": "/".join(namespace),
                 "depth": len(namespace), PATH: index_value(encode_namespace(namespace))}
        tx.put_node(Node(node_id, labels=[NAMESPACE], properties=props))
        if len(namespace) > 1:
            parent = _earlier_namespace(tx, namespace[:-1])
            edge = Edge(f"__memsub:{node_id[8:]}", node_id, parent, properties={"type": SUBNAMESPACE_OF})
            tx.put_edge(edge, update_adjacency=False)
    return node_id


def write_earlier(db, items, *, ttl=None):
    """Items as the earlier layout stored them: hash ids, the indexed path property, an edge each."""
    for name in (PATH, EXPIRES):
        if name not in db.indexed_node_properties:
            db.create_node_property_index(name)
    with db.transaction() as tx:
        for namespace, key, value in items:
            parent = _earlier_namespace(tx, namespace)
            node_id = legacy_item_id(namespace, key)
            props = {"namespace": list(namespace), "key": key, "name": caption(key), "value": value,
                     "created_at": iso(NOW), "updated_at": iso(NOW),
                     PATH: index_value(encode_namespace(namespace) + "." + key)}
            if ttl is not None:
                expires = NOW + timedelta(minutes=ttl)
                props.update({"ttl_minutes": ttl, "expires_at": iso(expires), EXPIRES: expires.timestamp()})
            tx.put_node(Node(node_id, labels=[ITEM], properties=props))
            tx.put_edge(Edge(f"__memin:{node_id[6:]}", node_id, parent, properties={"type": IN_NAMESPACE}),
                        update_adjacency=False)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def test_new_items_get_path_ordered_ids_labels_and_edges(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    store.batch([PutOp(("u", str(i % 3)), f"k{i}", {"n": i}) for i in range(30)])
    node = db.get_node(item_id(("u", "1"), "k4").encode("utf-8"))
    assert node.get_id == "__mem2:u.1..k4" and node.properties["value"] == {"n": 4}
    assert PATH not in node.properties  # found by its id's order, not by a path index
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 30
    assert edge_count(db) == 30
    assert count(db, "MATCH ()-[r:IN_NAMESPACE]->() RETURN count(r) AS c") == 30
    rows = db.query("MATCH (m:__MemoryItem)-[:IN_NAMESPACE]->(n:__MemoryNamespace {path: 'u/2'}) RETURN m.key AS k").records
    assert sorted(r["k"] for r in rows) == sorted(f"k{i}" for i in range(2, 30, 3))
    assert [item.key for item in store.search(("u", "0"), limit=3)] == ["k0", "k12", "k15"]  # key order
    store.put(("u", "1"), "k4", {"n": -4})  # an update rewrites the node, and only the node
    assert store.get(("u", "1"), "k4").value == {"n": -4}
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 30 and edge_count(db) == 30
    db.close()


def test_keys_with_separators_quotes_and_control_characters_keep_their_order_and_edges(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    keys = ["x", "x\x1fIN_NAMESPACE\x1fy", "x\x1f", 'q"uo\\te', "\x00", "\x01", " ", "é", "ключ", "a/b", "x.y", ""]
    store.batch([PutOp(("n", "-a"), key, {"k": key}) for key in keys] + [PutOp(("n",), key, {"k": key}) for key in keys])
    assert [item.key for item in store.search(("n", "-a"), limit=100)] == sorted(keys)
    assert [(item.namespace, item.key) for item in store.search(("n",), limit=100)] == sorted(
        [(("n", "-a"), key) for key in keys] + [(("n",), key) for key in keys],
        key=lambda place: encode_namespace(place[0]) + "." + place[1])
    for key in keys:
        assert store.get(("n", "-a"), key).value == {"k": key}
        node_id = item_id(("n", "-a"), key)
        assert "\x1f" not in node_id
        links = list(db.iter_typed_adjacency(node_id, IN_NAMESPACE, "out"))
        assert [str(r["neighbor_id"], "utf-8") for r in links] == [namespace_id(("n", "-a"))]
    assert edge_count(db) == 2 * len(keys)
    store.batch([PutOp(("n", "-a"), key, None) for key in keys])
    assert store.list_namespaces() == [("n",)] and edge_count(db) == len(keys)
    db.close()


def test_the_bulk_path_writes_what_gestaltdbs_own_serialiser_writes(tmp_path):
    """The store spells its item and edge records out itself (memory/bulk.py): each stored record must be
    the JSON document GestaltDB's own serialiser makes of the entity GestaltDB reads back (compact, so not
    the same bytes), with its adjacency and its label and type entries, so a GestaltDB release that changed
    its record format fails here rather than in a person's store."""
    import json

    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    values = [{"n": 1}, {"text": 'q"u\\o\u00e9\u2028\x00', "list": [1, 2.5, None, True], "deep": {"a": {"b": []}}}, {}, {"big": 10**20, "neg": -0.5}]
    puts = [PutOp(("ns", "sub"), f"k{i}", value) for i, value in enumerate(values)] + [PutOp(("ns",), "\x00odd \"key\"", {"n": 0})]
    store.batch(puts)
    for op in puts:
        node_id = item_id(op.namespace, op.key)
        node = db.get_node(node_id.encode("utf-8"))
        assert node.properties["value"] == op.value and list(node.labels) == [ITEM]
        assert json.loads(db.store.get_node(node_id.encode("utf-8"))) == json.loads(db.entity_serializer.serialize(node, "Node")), node_id
        (link,) = db.iter_typed_adjacency(node_id, IN_NAMESPACE, "out")
        edge = db.get_edge(link["edge_id"])
        assert (edge.source, edge.target, edge.get_type) == (node_id, namespace_id(op.namespace), IN_NAMESPACE)
        assert json.loads(db.store.get_edge(link["edge_id"])) == json.loads(db.entity_serializer.serialize(edge, "Edge"))
    rows = db.query("MATCH (m:__MemoryItem)-[r:IN_NAMESPACE]->(n:__MemoryNamespace) RETURN m.key AS key, n.path AS path").records
    assert sorted((r["path"], r["key"]) for r in rows) == sorted(("/".join(op.namespace), op.key) for op in puts)
    db.close()


def test_a_value_shaped_like_gestaltdbs_tagged_values_comes_back_as_written(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    tagged = {"when": {"__gestaltdb_type__": "temporal_date", "value": "2020-01-01"}, "n": 1}
    store.batch([PutOp(("t",), "tagged", tagged), PutOp(("t",), "plain", {"n": 2})])
    assert store.get(("t",), "tagged").value == tagged
    assert [item.value for item in store.search(("t",))] == [{"n": 2}, tagged]
    db.close()


def test_a_store_of_the_earlier_layout_is_read_and_written(tmp_path):
    db = make_db(tmp_path / "g")
    write_earlier(db, [(("users", "1"), "a", {"v": 1, "tag": "x"}), (("users", "1"), "c", {"v": 3}),
                       (("users", "2"), "b", {"v": 2, "tag": "x"})])
    write_earlier(db, [(("users", "3"), "old", {"v": 9})], ttl=5)
    clock = Clock()
    store = GestaltStore(db, clock=clock)
    assert store.get(("users", "1"), "a").value == {"v": 1, "tag": "x"}
    assert [i.key for i in store.search(("users",))] == ["a", "c", "b", "old"]
    assert [i.key for i in store.search(("users",), filter={"tag": "x"})] == ["a", "b"]
    assert store.list_namespaces() == [("users", "1"), ("users", "2"), ("users", "3")]
    clock.now += timedelta(minutes=1)
    store.batch([PutOp(("users", "1"), "b", {"v": 12}), PutOp(("users", "1"), "a", {"v": 11})])  # one new, one old
    assert [(i.key, i.value["v"]) for i in store.search(("users", "1"))] == [("a", 11), ("b", 12), ("c", 3)]
    updated = db.get_node(legacy_item_id(("users", "1"), "a").encode("utf-8"))  # kept its id and path index
    assert updated.properties["value"] == {"v": 11} and PATH in updated.properties
    assert db.get_node(item_id(("users", "1"), "a").encode("utf-8")) is None
    item = store.get(("users", "1"), "a")
    assert item.created_at == NOW and item.updated_at == clock.now
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 5 and edge_count(db) == 5
    store.delete(("users", "2"), "b")  # the namespace's last item: the namespace node goes too
    assert store.list_namespaces() == [("users", "1"), ("users", "3")]
    assert db.get_node(namespace_id(("users", "2")).encode("utf-8")) is None
    clock.now += timedelta(minutes=10)
    assert store.get(("users", "3"), "old") is None
    assert store.sweep_ttl() == 1
    assert [i.key for i in store.search(())] == ["a", "b", "c"]
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 3 and edge_count(db) == 3
    db.close()


class FailingPut(GestaltStore):
    """Raises on the put of key ``boom``, after the puts before it are written."""

    def _put(self, tx, namespace, key, *args, **kwargs):
        if key == "boom":
            raise RuntimeError("disk on fire")
        super()._put(tx, namespace, key, *args, **kwargs)


def test_a_batch_failing_midway_leaves_nothing(tmp_path):
    db = make_db(tmp_path / "g")
    store = FailingPut(db)
    store.batch([PutOp(("keep",), f"k{i}", {"n": i}) for i in range(5)])
    before = (count(db, "MATCH (n) RETURN count(n) AS c"), count(db, "MATCH ()-[r]->() RETURN count(r) AS c"))
    ops = [PutOp(("new", str(i % 4)), f"n{i}", {"n": i}) for i in range(500)] + [PutOp(("keep",), "k1", {"n": -1})]
    with pytest.raises(GestaltError, match="rolled back.*disk on fire"):
        store.batch(ops + [PutOp(("new", "0"), "boom", {"n": 0})])
    after = (count(db, "MATCH (n) RETURN count(n) AS c"), count(db, "MATCH ()-[r]->() RETURN count(r) AS c"))
    assert after == before
    assert store.get(("new", "1"), "n1") is None and store.get(("keep",), "k1").value == {"n": 1}
    assert store.list_namespaces() == [("keep",)]

    async def gathered():  # one shared transaction: the failing call fails alone, the others commit
        return await asyncio.gather(store.aput(("a",), "x", {"n": 1}), store.aput(("b",), "boom", {"n": 2}),
                                    store.aput(("c",), "y", {"n": 3}), return_exceptions=True)

    outcomes = asyncio.run(gathered())
    assert outcomes[0] is None and outcomes[2] is None and isinstance(outcomes[1], GestaltError)
    assert store.list_namespaces() == [("a",), ("c",), ("keep",)]
    assert edge_count(db) == 7
    db.close()


def test_gathered_calls_in_one_transaction_see_each_others_writes(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    ns = ("g",)

    async def gathered():
        return await asyncio.gather(
            store.aput(ns, "a", {"v": 1}), store.aput(ns, "b", {"v": 1}),
            store.aput(ns, "a", {"v": 2}, ttl=60),  # the same item again, through GestaltDB's own writes (TTL)
            store.adelete(ns, "b"),  # an item only an earlier call of the transaction wrote
            store.aget(ns, "a"), store.asearch(ns),
            store.aput(ns, "c", {"v": 3}), store.aput(ns, "a", {"v": 4}),
        )

    outcomes = asyncio.run(gathered())
    assert outcomes[4].value == {"v": 2} and [item.key for item in outcomes[5]] == ["a"]
    assert [(item.key, item.value) for item in store.search(ns)] == [("a", {"v": 4}), ("c", {"v": 3})]
    assert store.get(ns, "b") is None
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 2 and edge_count(db) == 2
    assert db.get_node(item_id(ns, "a").encode("utf-8")).properties.get("ttl_minutes") is None
    db.close()
