"""query_subgraph against an independent typed reference computation on generated graphs."""

from __future__ import annotations

import random

import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node
from IPython.core.error import UsageError
from langchain_gestaltdb import GestaltDBGraph

import gestalt_nb
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph import names
from gestalt_nb.graph.names import NAME_KEY

from .conftest import run

TYPES = ["KNOWS", "WORKS_WITH", "CITES", "FUNDS"]
WORDS = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Ken", "Dennis"]


def generate(path, seed: int, *, nodes: int = 60, edges: int = 150, indexed: bool = True):
    """A random typed graph with mixed-case duplicate names, confidences, self-loops and internal parts."""
    rng = random.Random(seed)
    spec_nodes = []
    for i in range(nodes):
        name = f"{rng.choice(WORDS)} {rng.choice(['Lovelace', 'Hopper', 'Turing'])}"
        name = name.upper() if rng.random() < 0.2 else name.lower() if rng.random() < 0.2 else name
        props = {"name": name} if rng.random() < 0.9 else {}
        spec_nodes.append(Node(f"n{i}", labels=[rng.choice(["Person", "Org"])], properties=props))
    internal = [Node("src1", labels=["__LangChainSource__"], properties={"text": "about n1"}),
                Node("mem1", labels=["__MemoryNote"], properties={"name": spec_nodes[2].properties.get("name", "x")})]
    spec_edges = []
    for j in range(edges):
        a, b = f"n{rng.randrange(nodes)}", f"n{rng.randrange(nodes)}"
        if j % 37 == 0:
            b = a  # a self-loop now and then
        props = {"type": rng.choice(TYPES)}
        if rng.random() < 0.6:
            props["confidence"] = round(rng.random(), 2)
        spec_edges.append(Edge(f"e{j}", a, b, properties=props))
    spec_edges += [Edge("m1", "src1", "n1", properties={"type": "MENTIONS"}), Edge("m2", "src1", "n2", properties={"type": "MENTIONS"}),
                   Edge("x1", "mem1", "n2", properties={"type": "__MEMORY_ABOUT"}), Edge("x2", "n3", "n4", properties={"type": "__INTERNAL"})]
    db = GraphDB.create(path, backend="lmdb", serializer="json", backend_options={"map_size": 64 << 20})
    from gestalt_nb.graph import names

    if indexed:
        names.start(db)
    with db.transaction() as tx:
        names.put_nodes(tx, spec_nodes + internal)
        tx.put_edges_bulk(spec_edges, check_existing=False)
        names.advance(tx)
    return db, spec_nodes + internal, spec_edges


def is_internal_node(node):
    return any(label.startswith("__") for label in node.labels)


def is_internal_type(kind):
    return kind.startswith("__") or kind == "MENTIONS"


def reference(nodes, edges, entities, relations=None, min_confidence=0.0, max_hops=1, filter_during=False, indexed=True):
    """Breadth-first over the generated edge list (no database): the same semantics, unbounded."""
    by_id = {node.get_id: node for node in nodes}
    allowed = {node_id for node_id, node in by_id.items() if not is_internal_node(node)}
    seeds, unresolved = [], []
    for entity in entities:
        found = [n.get_id for n in nodes if indexed and n.get_id in allowed and isinstance(n.properties.get("name"), str)
                 and " ".join(n.properties["name"].split()).casefold() == " ".join(entity.split()).casefold()]
        if not found and entity in allowed:
            found = [entity]
        if not found:
            unresolved.append(entity)
        seeds += [f for f in found if f not in seeds]

    def conf_ok(edge):
        value = edge.properties.get("confidence")
        return min_confidence <= 0 or (value is not None and value >= min_confidence)

    def walkable(edge):
        kind = edge.properties["type"]
        if is_internal_type(kind):
            return False
        if filter_during:
            return (relations is None or kind in relations) and conf_ok(edge)
        return True

    hop = {seed: 0 for seed in seeds}
    frontier = list(seeds)
    followed = set()
    degree = {}
    for depth in range(1, max_hops + 1):
        nxt = []
        for u in frontier:
            degree[u] = 0
            for edge in edges:
                if is_internal_type(edge.properties["type"]) or (filter_during and relations is not None and edge.properties["type"] not in relations):
                    continue
                ends = [end for end, other in ((edge.source, edge.target), (edge.target, edge.source)) if end == u]
                degree[u] += len(ends)  # a self-loop is read twice (out and in)
                if not ends or not walkable(edge):
                    continue
                v = edge.target if edge.source == u else edge.source
                if v not in allowed:
                    continue
                if v not in hop:
                    hop[v] = depth
                    nxt.append(v)
                followed.add(edge.get_id)
        frontier = nxt
    kept = {e.get_id for e in edges if e.get_id in followed and (relations is None or e.properties["type"] in relations) and conf_ok(e)}
    return {"nodes": set(hop), "edges": kept, "seeds": seeds, "unresolved": unresolved, "hop": hop, "degree": degree}


def query(db, *args, **kwargs):
    connection = gestalt_nb.use(GestaltDBGraph(db, owns_graph=False), alias="gen")
    return connection.subgraph(*args, **kwargs)


def check(result, ref):
    assert {n["id"] for n in result.nodes} == ref["nodes"]
    assert {e["id"] for e in result.edges} == ref["edges"]
    assert set(result.seed_node_ids) == set(ref["seeds"])
    assert result.unresolved_entities == ref["unresolved"]
    assert result.hops == ref["hop"]
    assert not result.truncated


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_reference(tmp_path, seed):
    db, nodes, edges = generate(tmp_path / "g", seed)
    rng = random.Random(seed * 11)
    named = [n for n in nodes if "name" in n.properties and not is_internal_node(n)]
    try:
        for _ in range(12):
            entities = [rng.choice(named).properties["name"] for _ in range(rng.randint(1, 2))]
            entities = [e.swapcase() if rng.random() < 0.5 else e for e in entities]
            entities += rng.choice([[], ["nobody at all"], [f"n{rng.randrange(60)}"], ["mem1"]])
            entities = list(dict.fromkeys(entities))
            relations = rng.choice([None, ["KNOWS"], ["KNOWS", "FUNDS"], ["NOT_A_TYPE"]])
            min_conf = rng.choice([0.0, 0.0, 0.5])
            hops = rng.choice([0, 1, 2, 3])
            during = rng.random() < 0.4
            ref = reference(nodes, edges, entities, relations, min_conf, hops, during)
            result = query(db, entities, relations, min_conf, hops, max_nodes=10_000, max_edges=10_000, max_fanout=10_000, filter_during_traversal=during)
            check(result, ref)
            assert result.query_params["entities"] == entities and result.hops_traversed == hops
    finally:
        db.close()


def test_bounds_set_truncated_exactly(tmp_path):
    db, nodes, edges = generate(tmp_path / "g", 5)
    try:
        entities = ["n0", "n1"]
        ref = reference(nodes, edges, entities, max_hops=2)
        big = {"max_nodes": 10_000, "max_edges": 10_000, "max_fanout": 10_000}
        n_nodes, n_edges = len(ref["nodes"]), len(ref["edges"])
        fanout = max(ref["degree"].values())
        assert n_nodes > 3 and n_edges > 3
        check(query(db, entities, max_hops=2, **{**big, "max_nodes": n_nodes}), ref)
        check(query(db, entities, max_hops=2, **{**big, "max_edges": n_edges}), ref)
        check(query(db, entities, max_hops=2, **{**big, "max_fanout": fanout}), ref)
        for name, value in (("max_nodes", n_nodes - 1), ("max_edges", n_edges - 1), ("max_fanout", fanout - 1)):
            cut = query(db, entities, max_hops=2, **{**big, name: value})
            assert cut.truncated, name
            assert {n["id"] for n in cut.nodes} <= ref["nodes"] and {e["id"] for e in cut.edges} <= ref["edges"]
            assert len(cut.nodes) <= (value if name == "max_nodes" else n_nodes)
            assert len(cut.edges) <= (value if name == "max_edges" else n_edges)
            assert any(name in note for note in cut.notes)
        sample = query(db, None, max_nodes=10)
        assert len(sample.nodes) == 10 and sample.truncated and not any(n["id"] in ("src1", "mem1") for n in sample.nodes)
    finally:
        db.close()


def test_internal_parts_only_on_request(tmp_path):
    db, nodes, edges = generate(tmp_path / "g", 4)
    try:
        plain = query(db, ["n2"], max_hops=1)
        assert "src1" not in {n["id"] for n in plain.nodes} and "mem1" not in {n["id"] for n in plain.nodes}
        assert all(NAME_KEY not in n["properties"] for n in plain.nodes)
        full = query(db, ["n2"], max_hops=1, include_internal=True)
        assert {"src1", "mem1"} <= {n["id"] for n in full.nodes}
        assert {"m2", "x1"} <= {e["id"] for e in full.edges}
        assert query(db, ["mem1"]).unresolved_entities == ["mem1"]
    finally:
        db.close()


def test_drop_isolated_keeps_seeds(tmp_path):
    db, nodes, edges = generate(tmp_path / "g", 6)
    try:
        ref = reference(nodes, edges, ["n0"], ["KNOWS"], 0.0, 2)
        result = query(db, ["n0"], ["KNOWS"], 0.0, 2, drop_isolated=True)
        touched = {e.source for e in edges if e.get_id in ref["edges"]} | {e.target for e in edges if e.get_id in ref["edges"]} | {"n0"}
        assert {n["id"] for n in result.nodes} == ref["nodes"] & touched
    finally:
        db.close()


def test_without_index_names_fall_back_to_ids_until_built(tmp_path, shell, monkeypatch):
    db, nodes, edges = generate(tmp_path / "g", 7, indexed=False)
    connection = gestalt_nb.use(db, alias="plain")
    name = nodes[5].properties["name"]
    in_memory = connection.subgraph([name.upper()], max_hops=0)  # no index: names read into memory (nothing written)
    assert nodes[5].get_id in in_memory.seed_node_ids and not in_memory.notes and not names.has_index(db)
    monkeypatch.setattr(names, "CATCH_UP_NODES", 0)  # a graph too big to read into memory: ids, and a note
    result = connection.subgraph([name.upper(), "n7"], max_hops=0)
    assert result.unresolved_entities == [name.upper()] and result.seed_node_ids == ["n7"]
    assert any("index_names()" in note for note in result.notes)
    shell.user_ns["nm"] = name.upper()
    printed = shell.run_cell("%gsubgraph n7 --hops 0")
    assert printed.result.seed_node_ids == ["n7"]
    built = connection.index_names()
    assert built == sum(1 for node in nodes if names.name_key(node.properties.get("name")) and not is_internal_node(node))
    assert connection.index_names() == built  # a rebuild: the same names, no node rewritten
    assert all(NAME_KEY not in node.properties for node in connection.db.get_nodes([n.get_id_bytes for n in nodes]))
    ref = reference(nodes, edges, [name.upper()], max_hops=0)
    check(connection.subgraph([name.upper()], max_hops=0), ref)
    # a writer keeps the key: a load adds a node, found case-insensitively at once
    import pandas as pd

    gestalt_nb.load_nodes(pd.DataFrame({"id": ["new1"], "name": ["Zed  ZEDSON"]}), id="id", label="Person", alias=connection.alias)
    assert connection.subgraph(["zed zedson"], max_hops=0).seed_node_ids == ["new1"]
    db.close()


def test_magic_on_demo(shell, demo):
    result = run(shell, "%gsubgraph 'alice chen' 'ACME ROBOTICS' nobody --relations WORKS_FOR,KNOWS --hops 1 -o sg")
    assert shell.user_ns["sg"] is result
    assert set(result.seed_node_ids) == {"alice", "acme"} and result.unresolved_entities == ["nobody"]
    assert {e["properties"]["type"] for e in result.edges} <= {"WORKS_FOR", "KNOWS"}
    assert {"alice-WORKS_FOR-acme", "alice-KNOWS-bob", "carla-WORKS_FOR-acme"} <= {e["id"] for e in result.edges}
    assert result.subgraph.highlight_nodes == {"alice", "acme"}
    assert "Graph" in result.show().tab_titles and len(result.df) == len(result.nodes)
    for bad in ("%gsubgraph alice --hops 9", "%gsubgraph alice --min-confidence 2", "%gsubgraph alice --max-nodes 0"):
        with pytest.raises(UsageError):
            run(shell, bad)
    same = gestalt_nb.query_subgraph(["Alice Chen", "acme robotics", "nobody"], ["WORKS_FOR", "KNOWS"])
    assert {n["id"] for n in same.nodes} == {n["id"] for n in result.nodes}


def test_bad_arguments_are_clear(demo):
    with pytest.raises(GestaltError, match="entities"):
        demo.subgraph([3])
    with pytest.raises(GestaltError, match="max_hops"):
        demo.subgraph(["alice"], max_hops=-1)


def test_a_cypher_written_node_is_found_case_insensitively_at_once(shell, demo):
    # the write returns no node: the name index is kept from the write's own change set
    run(shell, "%%gcypher --write\nCREATE (p:Person {id: 'zq', name: 'Zed Quill'}) RETURN p.id AS id")
    assert demo.subgraph(["zed quill"], max_hops=0).seed_node_ids == ["zq"]
    assert demo.subgraph(["ZED QUILL"], max_hops=0).seed_node_ids == ["zq"]
