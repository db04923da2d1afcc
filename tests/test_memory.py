"""GestaltStore beyond conformance: TTL by a controllable clock, concurrency, LangGraph injection,
persistence, atomic failures, long paths, several processes, ABOUT edges and %gmemory."""

from __future__ import annotations

import asyncio
import operator
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Annotated

import pytest
from gestaltdb.graphdb import GraphDB
from IPython.core.error import UsageError
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp
from typing_extensions import TypedDict

import gestalt_nb
from gestalt_nb.errors import GestaltError
from gestalt_nb.memory import INTERNAL_LABELS, INTERNAL_TYPES, GestaltStore
from gestalt_nb.memory.result import MemoryResult

from .conftest import raw, run
from .test_memory_conformance import DIMS, embed

MAP = {"map_size": 2**30}


def make_db(path):
    return GraphDB.create(path, backend="lmdb", serializer="json", backend_options=MAP)


def count(db, query):
    return db.query(query).records[0]["c"]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


class CountingEmbed:
    def __init__(self, fail_on: str | None = None) -> None:
        self.texts: list[str] = []
        self.fail_on = fail_on

    def __call__(self, texts):
        out = []
        for text in texts:  # raises part-way through the texts
            if self.fail_on and self.fail_on in text:
                raise RuntimeError("embedding service unavailable")
            out.extend(embed([text]))
            self.texts.append(text)
        return out


# -- semantics ---------------------------------------------------------------------------------
def test_items_keep_created_at_and_reads_see_the_state_before_the_batch(tmp_path):
    clock = Clock()
    db = make_db(tmp_path / "g")
    store = GestaltStore(db, clock=clock)
    results = store.batch([PutOp(("u",), "k", {"v": 1}), GetOp(("u",), "k")])
    assert results == [None, None]  # the get ran against the state before the batch
    clock.advance(5)
    store.put(("u",), "k", {"v": 2})
    item = store.get(("u",), "k")
    assert item.value == {"v": 2}
    assert item.created_at == datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
    assert item.updated_at == datetime(2026, 1, 1, 12, 5, tzinfo=timezone.utc)
    db.close()


def test_namespaces_are_validated_by_langgraph_and_nothing_else(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a.b",), "k")])
    with pytest.raises(InvalidNamespaceError):
        store.batch([SearchOp(("",))])
    # What InMemoryStore takes through batch(), GestaltStore takes too (even a "langgraph" root).
    store.batch([PutOp(("langgraph", "x/y", "ü"), "", {"v": 1})])
    assert store.get(("langgraph", "x/y", "ü"), "").value == {"v": 1}
    with pytest.raises(GestaltError, match="not JSON"):
        store.put(("a",), "k", {"when": datetime.now()})
    db.close()


def test_long_namespaces_and_keys_work_past_the_index_key_limit(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    long_ns = ("ü" * 400, "b" * 300)
    twin_ns = ("ü" * 400, "b" * 299 + "c")  # the same first 150 bytes of path
    store.put(long_ns, "k" * 2000, {"v": 1})
    store.put(long_ns, "k" * 1999 + "j", {"v": 2})
    store.put(twin_ns, "k", {"v": 3})
    assert store.get(long_ns, "k" * 2000).value == {"v": 1}
    assert sorted(item.value["v"] for item in store.search(long_ns)) == [1, 2]
    assert sorted(item.value["v"] for item in store.search(long_ns[:1])) == [1, 2, 3]
    assert store.list_namespaces(prefix=long_ns) == [long_ns]
    assert store.list_namespaces(max_depth=1) == [long_ns[:1]]
    store.delete(long_ns, "k" * 2000)
    store.delete(long_ns, "k" * 1999 + "j")
    assert store.list_namespaces() == [twin_ns]
    db.close()


# -- TTL ---------------------------------------------------------------------------------------
def test_ttl_expired_items_vanish_by_the_clock_and_reads_refresh(tmp_path):
    clock = Clock()
    db = make_db(tmp_path / "g")
    store = GestaltStore(db, ttl={"default_ttl": 10, "refresh_on_read": True}, clock=clock)
    store.put(("t",), "default", {"v": 1})          # 10 minutes (the store's default)
    store.put(("t",), "forever", {"v": 2}, ttl=None)
    store.put(("short",), "brief", {"v": 3}, ttl=1)
    clock.advance(1)  # "brief" expires exactly now
    assert store.get(("short",), "brief") is None
    assert [item.key for item in store.search(())] == ["default", "forever"]
    assert store.list_namespaces() == [("t",)]
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 3  # invisible before any sweep
    clock.advance(8)  # 9 minutes: a read refreshes "default" to 9 + 10
    assert store.get(("t",), "default").value == {"v": 1}
    clock.advance(5)  # 14 minutes: alive only thanks to the refresh
    assert store.get(("t",), "default", refresh_ttl=False) is not None
    clock.advance(6)  # 20 minutes: past 19
    assert store.get(("t",), "default") is None
    assert [item.key for item in store.search(("t",))] == ["forever"]
    assert store.sweep_ttl() == 2
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 1
    assert raw_paths(db) == ["t"]  # the emptied namespace node went with its item
    assert store.sweep_ttl() == 0
    db.close()


def raw_paths(db):
    return sorted(record["p"] for record in db.query("MATCH (n:__MemoryNamespace) RETURN n.path AS p").records)


def test_ttl_without_config_and_put_over_an_expired_item(tmp_path):
    clock = Clock()
    db = make_db(tmp_path / "g")
    store = GestaltStore(db, clock=clock)
    store.put(("t",), "k", {"v": 1}, ttl=2)
    clock.advance(3)
    assert store.get(("t",), "k") is None
    store.put(("t",), "k", {"v": 2})  # a new item: fresh created_at, no TTL
    item = store.get(("t",), "k")
    assert item.value == {"v": 2} and item.created_at == clock.now
    clock.advance(10**6)
    assert store.get(("t",), "k") is not None
    db.close()


class FailingSweep(GestaltStore):
    """Fails after deleting two expired items: the sweep must change nothing."""

    def _remove(self, tx, node):
        self.removed = getattr(self, "removed", 0) + 1
        if self.removed > 2:
            raise RuntimeError("disk on fire")
        super()._remove(tx, node)


def test_sweep_is_one_transaction(tmp_path):
    clock = Clock()
    db = make_db(tmp_path / "g")
    store = FailingSweep(db, clock=clock)
    for number in range(5):
        store.put(("t", str(number)), "k", {"v": number}, ttl=1)
    clock.advance(2)
    with pytest.raises(GestaltError, match="rolled back"):
        store.sweep_ttl()
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 5
    assert len(raw_paths(db)) == 6
    db.close()


def test_background_sweeper_runs_and_stops_on_close(tmp_path):
    clock = Clock()
    db = make_db(tmp_path / "g")
    store = GestaltStore(db, ttl={"sweep_interval_minutes": 0.001}, clock=clock)  # every 60 ms
    thread = store._sweeper
    assert thread.daemon  # never keeps the kernel alive
    store.put(("t",), "k", {"v": 1}, ttl=1)
    clock.advance(2)
    deadline = time.monotonic() + 10
    while count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 0
    store.close()
    assert not thread.is_alive()
    with pytest.raises(GestaltError, match="closed"):
        store.get(("t",), "k")
    db.close()


# -- concurrency -------------------------------------------------------------------------------
def test_threads_and_abatch_write_without_loss(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    errors = []

    def writer(number):
        try:
            for batch in range(10):
                store.batch([PutOp(("w", str(number)), f"{batch}-{i}", {"n": i}) for i in range(3)])
                store.search(("w",), limit=5)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    async def many():
        await asyncio.gather(*(store.aput(("a",), str(i), {"i": i}) for i in range(40)))
        return await store.asearch(("a",), limit=100)

    assert errors == []
    assert len(asyncio.run(many())) == 40
    assert len(store.search(("w",), limit=1000)) == 180
    assert count(db, "MATCH (m:__MemoryItem) RETURN count(m) AS c") == 220
    db.close()


class RunState(TypedDict):
    written: Annotated[list[str], operator.add]
    total: int


def _graph(store, *, asynchronous):
    graph = StateGraph(RunState)

    def make(number):
        def node(state: RunState, runtime: Runtime) -> dict:
            for i in range(15):
                runtime.store.put(("runs", f"w{number}"), f"m{i}", {"by": number, "i": i})
            return {"written": [f"w{number}"]}

        async def anode(state: RunState, runtime: Runtime) -> dict:
            await asyncio.gather(*(runtime.store.aput(("runs", f"w{number}"), f"m{i}", {"by": number, "i": i}) for i in range(15)))
            return {"written": [f"w{number}"]}

        return anode if asynchronous else node

    def join(state: RunState, runtime: Runtime) -> dict:
        return {"total": len(runtime.store.search(("runs",), limit=1000))}

    for number in range(4):
        graph.add_node(f"w{number}", make(number))
        graph.add_edge(START, f"w{number}")
        graph.add_edge(f"w{number}", "join")
    graph.add_node("join", join)
    graph.add_edge("join", END)
    return graph.compile(store=store)


def test_compiled_graph_writes_from_parallel_nodes_invoke_and_ainvoke(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    state = _graph(store, asynchronous=False).invoke({"written": []})
    assert sorted(state["written"]) == ["w0", "w1", "w2", "w3"] and state["total"] == 60
    for item in store.search(("runs",), limit=1000):
        store.delete(item.namespace, item.key)
    state = asyncio.run(_graph(store, asynchronous=True).ainvoke({"written": []}))
    assert state["total"] == 60
    assert store.list_namespaces(prefix=("runs",)) == [("runs", f"w{n}") for n in range(4)]
    db.close()


# -- persistence and failure ---------------------------------------------------------------------
def test_close_and_reopen_keeps_everything_and_never_re_embeds(tmp_path):
    path = tmp_path / "g"
    clock = Clock()
    first = CountingEmbed()
    db = make_db(path)
    store = GestaltStore(db, index={"dims": DIMS, "embed": first, "fields": ["text"]}, clock=clock)
    store.put(("docs",), "a", {"text": "jazz rock"})
    store.put(("docs",), "b", {"text": "cats dogs"}, ttl=30)
    before = [(i.key, i.score, i.value, i.created_at) for i in store.search(("docs",), query="jazz")]
    store.close()
    db.close()

    second = CountingEmbed()
    db = GraphDB.open(path, backend_options=MAP)
    store = GestaltStore(db, index={"dims": DIMS, "embed": second, "fields": ["text"]}, clock=clock)
    after = [(i.key, i.score, i.value, i.created_at) for i in store.search(("docs",), query="jazz")]
    assert after == before and after[0][1] is not None
    assert sorted(first.texts) == ["cats dogs", "jazz", "jazz rock"]
    assert second.texts == ["jazz"]  # the query only: nothing re-embedded
    clock.advance(31)
    assert store.get(("docs",), "b") is None  # the TTL survived too
    db.close()


def test_failed_embedding_part_way_leaves_nothing(tmp_path):
    db = make_db(tmp_path / "g")
    store = GestaltStore(db, index={"dims": DIMS, "embed": CountingEmbed(fail_on="boom"), "fields": ["text"]})
    with pytest.raises(RuntimeError, match="unavailable"):
        store.batch([PutOp(("d",), "a", {"text": "fine"}), PutOp(("d",), "b", {"text": "boom"})])
    assert count(db, "MATCH (n) RETURN count(n) AS c") == 0

    async def attempt():
        await store.abatch([PutOp(("d",), "a", {"text": "fine"}), PutOp(("d",), "b", {"text": "boom"})])

    with pytest.raises(RuntimeError):
        asyncio.run(attempt())
    assert count(db, "MATCH (n) RETURN count(n) AS c") == 0
    db.close()


def test_batch_failing_inside_the_transaction_leaves_nothing(tmp_path):
    db = make_db(tmp_path / "g")
    db.create_node_property_index("key")  # the person's own index: long keys no longer fit
    store = GestaltStore(db)
    store.put(("keep",), "k", {"v": 0})
    before = count(db, "MATCH (n) RETURN count(n) AS c")
    with pytest.raises(GestaltError, match="too long for one of this database's property indexes"):
        store.batch([PutOp(("d", "e"), "short", {"v": 1}), PutOp(("keep",), "k", None), PutOp(("d",), "x" * 600, {"v": 2})])
    assert count(db, "MATCH (n) RETURN count(n) AS c") == before
    assert store.get(("keep",), "k").value == {"v": 0}
    assert store.list_namespaces() == [("keep",)]
    db.close()


def test_closed_connection_is_a_clear_error(shell, tmp_path):
    connection = gestalt_nb.create(tmp_path / "g", map_size="64MiB")
    with pytest.raises(GestaltError, match="needs a gestalt-nb connection"):
        GestaltStore({"not": "a graph"})
    adapter_store = GestaltStore(connection.graph)  # a GestaltDBGraph works as well
    adapter_store.put(("a",), "k", {"v": 1})
    store = connection.memory_store()
    assert store.get(("a",), "k").value == {"v": 1}
    run(shell, f"%gestalt close {connection.alias}")
    with pytest.raises(GestaltError, match="closed"):
        store.get(("a",), "k")


SECOND_PROCESS = """
import sys
from gestaltdb.graphdb import GraphDB
from gestalt_nb.memory import GestaltStore
from gestalt_nb.errors import GestaltError
db = GraphDB.open(sys.argv[1], backend_options={"map_size": 2**30})
store = GestaltStore(db)
try:
    store.put(("other",), "k", {"v": 1})
    print("wrote")
except GestaltError as exc:
    print("refused:", exc)
print(store.get(("mine",), "k").value)
db.close()
"""


def test_a_second_writing_process_is_refused_while_the_first_holds_the_store(tmp_path):
    path = tmp_path / "g"
    db = make_db(path)
    store = GestaltStore(db)
    store.put(("mine",), "k", {"v": 1})

    def second() -> str:
        done = subprocess.run([sys.executable, "-c", SECOND_PROCESS, str(path)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    out = second()
    assert "refused: Another process" in out and "unsupported" in out and "{'v': 1}" in out  # reads still work
    store.close()  # releases the writer lease
    assert "wrote" in second()
    db.close()


def test_a_lease_left_by_a_dead_process_is_taken_over(tmp_path):
    import os
    import socket

    db = make_db(tmp_path / "g")
    store = GestaltStore(db)
    for stale in (f"{socket.gethostname()}:{os.getpid()}:0", "another-host:1:1"):  # a reused pid; a moved directory
        with db.transaction() as tx:
            tx.store.put_metadata(b"gestalt_nb.memory.writer", stale.encode())
        store.put(("a",), "k", {"v": stale})
        assert store.get(("a",), "k").value == {"v": stale}
        assert db.store.get_metadata(b"gestalt_nb.memory.writer").decode() != stale
    db.close()


# -- the graph a person sees ------------------------------------------------------------------------
def test_about_edges_follow_the_value_and_person_made_edges_go_with_the_item(shell, demo):
    store = demo.memory_store(about="about")
    store.put(("users", "ada"), "colleague", {"text": "works with Alice", "about": ["alice", "nobody", "__memns:x"]})
    rows = raw(demo, "MATCH (m:__MemoryItem)-[:ABOUT]->(p:Person) RETURN m.key AS k, p.id AS p")
    assert rows == [{"k": "colleague", "p": "alice"}]  # ids that are not entities are skipped
    store.put(("users", "ada"), "colleague", {"text": "works with Bob", "about": "bob"})
    assert [r["p"] for r in raw(demo, "MATCH (m:__MemoryItem)-[:ABOUT]->(p:Person) RETURN p.id AS p")] == ["bob"]
    run(shell, "%%gcypher --write\nMATCH (p:Person {name: 'Eva Novak'}), (m:__MemoryItem {key: 'colleague'}) CREATE (p)-[:REMEMBERS]->(m) RETURN p")
    store.delete(("users", "ada"), "colleague")
    assert raw(demo, "MATCH ()-[r:REMEMBERS]->() RETURN count(r) AS c") == [{"c": 0}]
    assert raw(demo, "MATCH ()-[r:ABOUT]->() RETURN count(r) AS c") == [{"c": 0}]
    assert raw(demo, "MATCH (n:__MemoryNamespace) RETURN count(n) AS c") == [{"c": 0}]
    assert raw(demo, "MATCH (p:Person) RETURN count(p) AS c") == [{"c": 6}]
    assert INTERNAL_LABELS == {"__MemoryItem", "__MemoryNamespace"}
    assert INTERNAL_TYPES == {"IN_NAMESPACE", "SUBNAMESPACE_OF", "ABOUT"}


def test_gmemory_draws_the_tree_and_tables_the_values(shell, demo):
    empty = run(shell, "%gmemory")
    assert isinstance(empty, MemoryResult) and len(empty) == 0 and "No agent memory" in empty.notes[0]
    assert "__mem_path" not in demo.db.indexed_node_properties  # %gmemory never writes
    store = demo.memory_store(about="about")
    store.put(("users", "ada", "prefs"), "drink", {"text": "green tea", "about": ["alice"]})
    store.put(("users", "ada", "prefs"), "theme", {"text": "dark mode"})
    store.put(("users", "bob"), "drink", {"text": "coffee"})
    result = run(shell, "%gmemory users/ada -o mem")
    assert shell.user_ns["mem"] is result
    assert result.df[["namespace", "key"]].values.tolist() == [["users/ada/prefs", "drink"], ["users/ada/prefs", "theme"]]
    assert result.df["value"][0] == {"text": "green tea", "about": ["alice"]}
    labels = sorted(label for node in result.subgraph.nodes.values() for label in node.labels)
    assert labels == ["Person", "__MemoryItem", "__MemoryItem", "__MemoryNamespace", "__MemoryNamespace", "__MemoryNamespace"]
    types = sorted(edge.type for edge in result.subgraph.edges.values())
    assert types == ["ABOUT", "IN_NAMESPACE", "IN_NAMESPACE", "SUBNAMESPACE_OF", "SUBNAMESPACE_OF"]
    assert all(edge.source in result.subgraph.nodes and edge.target in result.subgraph.nodes for edge in result.subgraph.edges.values())
    bundle = result._repr_mimebundle_()
    assert "green tea" in bundle["text/plain"] and "<svg" in bundle["text/html"] or "data:image/svg" in bundle["text/html"]
    assert len(run(shell, "%gmemory users --limit 1")) == 1
    store.put(("users", "bob"), "fleeting", {"text": "gone soon"}, ttl=0.0001)  # 6 ms, by the wall clock
    time.sleep(0.05)
    assert "fleeting" not in run(shell, "%gmemory users/bob").df["key"].tolist()
    with pytest.raises(UsageError, match="cannot contain"):
        run(shell, "%gmemory users/a.b")
    # The same memories through Cypher.
    rows = run(shell, "%%gcypher\nMATCH (m:__MemoryItem)-[:IN_NAMESPACE]->(n:__MemoryNamespace {path: 'users/ada/prefs'}) RETURN m.key AS key, m.value['text'] AS text ORDER BY key")
    assert rows.df.values.tolist() == [["drink", "green tea"], ["theme", "dark mode"]]


def test_each_committed_batch_is_one_event_on_the_connection_feed(shell, demo):
    store = demo.memory_store()
    before = demo.feed.revision
    store.batch([PutOp(("users", "1"), "a", {"x": 1}), PutOp(("users", "1"), "b", {"x": 2})])
    assert demo.feed.revision == before + 1 and demo.feed.last_event.op == "memory"
    store.get(("users", "1"), "a")  # a read publishes nothing
    assert demo.feed.revision == before + 1
    with pytest.raises(InvalidNamespaceError):
        store.put(("users", "bad.dot"), "c", {"x": 3})  # refused: nothing committed, nothing published
    assert demo.feed.revision == before + 1
    GestaltStore(demo.graph).put(("users", "2"), "z", {"y": 1})  # through the adapter graph: same connection's feed
    assert demo.feed.revision == before + 2
