"""GestaltStore's transactions: a batch is one commit, concurrent async calls share commits (and
each still fails alone), and the vector array follows every writer (issues 21 and 22)."""

from __future__ import annotations

import asyncio
import hashlib

import pytest
from gestaltdb.graphdb import GraphDB
from langgraph.store.base import PutOp

from gestalt_nb.errors import GestaltError
from gestalt_nb.memory import GestaltStore

MAP = {"map_size": 2**30}
DIMS = 8


def make_db(tmp_path, name="g"):
    return GraphDB.create(tmp_path / name, backend="lmdb", serializer="json", backend_options=MAP)


def commits(db) -> int:
    return db.store.current_snapshot_sequence()


def embed(texts):
    out = []
    for text in texts:
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        out.append([(digest[i] - 128) / 128.0 for i in range(DIMS)])
    return out


def test_a_batch_of_puts_is_one_commit(tmp_path):
    db = make_db(tmp_path)
    store = GestaltStore(db)
    store.put(("warm",), "up", {"n": 0})  # the writer lease and the namespace index
    before = commits(db)
    store.batch([PutOp(("users", str(i % 7)), f"k{i}", {"n": i}) for i in range(500)])
    assert commits(db) == before + 1
    assert len(store.search(("users",), limit=1000)) == 500


def test_gathered_async_calls_share_commits(tmp_path):
    db = make_db(tmp_path)
    store = GestaltStore(db)
    store.put(("warm",), "up", {"n": 0})
    before = commits(db)

    async def run():
        await asyncio.gather(*(store.aput(("users", "a"), f"k{i}", {"n": i}) for i in range(1000)))
        return await asyncio.gather(*(store.aget(("users", "a"), f"k{i}") for i in range(1000)))

    found = asyncio.run(run())
    assert [item.value["n"] for item in found] == list(range(1000))
    assert commits(db) - before <= 5  # one per drain of the queue, not one per call


def test_a_failing_call_fails_alone_in_a_shared_transaction(tmp_path):
    db = make_db(tmp_path)
    db.create_node_property_index("key")  # a person's index: a 600-byte key cannot be indexed
    store = GestaltStore(db)
    long_key = "x" * 600

    async def run():
        return await asyncio.gather(
            store.aput(("users",), "ok", {"n": 1}),
            store.aput(("users",), long_key, {"n": 2}),
            store.aput(("users",), "also", {"n": 3}),
            return_exceptions=True,
        )

    outcomes = asyncio.run(run())
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], GestaltError) and "rolled back" in str(outcomes[1])
    assert store.get(("users",), "ok").value == {"n": 1}
    assert store.get(("users",), "also").value == {"n": 3}
    assert store.get(("users",), long_key) is None


def test_reads_in_a_shared_transaction_see_earlier_calls(tmp_path):
    store = GestaltStore(make_db(tmp_path), index={"dims": DIMS, "embed": embed, "fields": ["text"]})

    async def run():
        return await asyncio.gather(
            store.aput(("docs",), "a", {"text": "green tea"}),
            store.asearch(("docs",), query="green tea"),
            store.adelete(("docs",), "a"),
            store.aget(("docs",), "a"),
        )

    _, found, _, gone = asyncio.run(run())
    assert [item.key for item in found] == ["a"] and found[0].score == pytest.approx(1.0)
    assert gone is None


def test_vector_search_sees_writes_made_outside_the_store(tmp_path):
    db = make_db(tmp_path)
    store = GestaltStore(db, index={"dims": DIMS, "embed": embed, "fields": ["text"]})
    store.batch([PutOp(("docs", str(i % 3)), f"k{i}", {"text": f"note {i}"}) for i in range(30)])
    assert store.search((), query="note 4", limit=1)[0].key == "k4"  # builds the array
    store.put(("docs", "1"), "k4", {"text": "something else"})  # our own commit: updated in place
    assert store.search((), query="note 4", limit=1)[0].key != "k4"
    # another writer: a second store on the same database, as another cell's would be
    other = GestaltStore(db, index={"dims": DIMS, "embed": embed, "fields": ["text"]})
    other.put(("docs", "1"), "fresh", {"text": "brand new"})
    assert store.search((), query="brand new", limit=1)[0].key == "fresh"
    other.delete(("docs", "1"), "fresh")
    assert all(item.key != "fresh" for item in store.search((), query="brand new", limit=40))
    ranked = store.search(("docs", "2"), query="note 5", limit=20)  # k5 is in docs/2
    assert ranked[0].key == "k5" and {item.namespace for item in ranked} == {("docs", "2")}
    scores = [item.score for item in ranked]
    assert scores == sorted(scores, reverse=True)
