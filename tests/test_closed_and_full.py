"""A closed connection's every capability says it is closed in one GestaltError line; the memory store's batch
on a full disk says the disk is full, as loads and writes do."""

from __future__ import annotations

import inspect

import networkx as nx
import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.session import Connection

from .conftest import raw, run
from .test_first_run import mounted  # noqa: F401  (a fixture: small tmpfs mounts, root only)

pytest.importorskip("langgraph")

#: Every public capability of a connection, called as a person would (a new one fails the completeness check below).
CALLS = {
    "run": lambda c: c.run("MATCH (n) RETURN n"),
    "explain": lambda c: c.explain("MATCH (n) RETURN n"),
    "diff": lambda c: c.diff("MATCH (n) RETURN n", "2021-01-01", "2022-01-01"),
    "timeline": lambda c: c.timeline("MATCH (n) RETURN n", ["2021-01-01", "2022-01-01"]),
    "subgraph": lambda c: c.subgraph(["x"]),
    "shortest_path": lambda c: c.shortest_path("a", "b"),
    "load_nodes": lambda c: c.load_nodes(pd.DataFrame({"id": ["a"]}), id="id", label="P"),
    "load_edges": lambda c: c.load_edges(pd.DataFrame({"s": ["a"], "t": ["b"]}), source="s", target="t", type="R"),
    "from_networkx": lambda c: c.from_networkx(nx.path_graph(2)),
    "one_history_commit": lambda c: c.one_history_commit(),
    "schema": lambda c: c.schema(),
    "overview": lambda c: c.overview(),
    "index_names": lambda c: c.index_names(),
    "feed": lambda c: c.feed,
    "handle": lambda c: c.handle,
    "db": lambda c: c.db,
    "toolkit": lambda c: c.toolkit(),
    "claim_toolkit": lambda c: c.claim_toolkit(),
    "agent_tools": lambda c: c.agent_tools(),
    "claims": lambda c: c.claims(),
    "retriever": lambda c: c.retriever(seed_ids=["a"]),
    "memory_store": lambda c: c.memory_store(),
    "nodes": lambda c: c.nodes(["a"]),
    "edges": lambda c: c.edges(["a"]),
}
#: Public names that are data or still answer on a closed connection (``info`` says ``closed: True``; ``close`` again is a no-op).
NOT_CAPABILITIES = {"alias", "graph", "owned", "path", "map_size", "claim_writes", "read_only", "closed", "scratch", "reopen", "info",
                    "close"}


def test_every_public_capability_is_called_here():
    public = {name for name, _ in inspect.getmembers(Connection) if not name.startswith("_")}
    public |= {field for field in Connection.__dataclass_fields__ if not field.startswith("_")}
    assert public - NOT_CAPABILITIES == set(CALLS)


@pytest.mark.parametrize("owned", [True, False], ids=["owned", "borrowed"])
def test_a_closed_connection_says_so_in_one_line_from_every_capability(shell, tmp_path, owned):
    if owned:
        connection = gestalt_nb.create(str(tmp_path / "db"))
    else:
        from gestaltdb.graphdb import GraphDB

        connection = gestalt_nb.use(GraphDB.create(str(tmp_path / "db"), backend="lmdb"), alias="borrowed")
    connection.close()
    for name, call in CALLS.items():
        with pytest.raises(gestalt_nb.GestaltError) as raised:
            call(connection)
        message = str(raised.value)
        assert message.startswith(f"Connection '{connection.alias}' is closed.") and "\n" not in message, (name, message)
    assert connection.info()["closed"] is True
    connection.close()  # again: nothing to do


def test_the_memory_store_on_a_full_disk_says_the_disk_is_full(shell, mounted):  # noqa: F811
    place = mounted("full", "1m")
    run(shell, f"%gestalt create {place / 'db'} --map-size 64MiB")
    run(shell, "%gcypher --write CREATE (n:Kept {name: 'before'}) RETURN n")
    store = gestalt_nb.connection().memory_store()
    store.put(("small",), "k", {"v": 1})
    with pytest.raises(gestalt_nb.GestaltError) as raised:
        store.batch([__import__("langgraph.store.base", fromlist=["PutOp"]).PutOp(("big",), f"k{i}", {"text": "x" * 4000})
                     for i in range(400)])
    message = str(raised.value)
    assert message.startswith("Cannot write the memory batch: the disk holding ") and " is full" in message
    assert "Nothing was written; the database is as it was" in message and "Input/output error" not in message
    assert store.get(("small",), "k").value == {"v": 1} and store.search(("big",)) == []
    assert raw(gestalt_nb.connection(), "MATCH (n:Kept) RETURN n.name AS name") == [{"name": "before"}]
    store.close()
