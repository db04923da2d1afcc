"""%gschema, the explorer and the retrieval view, checked against the database itself."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import gestalt_nb
from gestalt_nb.graph.explorer import Explorer

from .conftest import raw, run


def typed_triples(connection):
    """(start label, type, end label) for every relationship, read with typed patterns only."""
    kinds = {row["t"] for row in raw(connection, "MATCH ()-[r]->() RETURN DISTINCT type(r) AS t")}
    triples = set()
    for kind in kinds:
        for row in raw(connection, f"MATCH (a)-[r:{kind}]->(b) RETURN labels(a) AS s, labels(b) AS e"):
            triples |= {(s, kind, e) for s in row["s"] for e in row["e"]}
    return triples


# -- schema ------------------------------------------------------------------------
def test_schema_meta_graph_matches_the_relationship_types_present(shell, demo):
    result = run(shell, "%gschema -o shape")
    assert shell.user_ns["shape"] is result
    drawn = {(edge.source, edge.type, edge.target) for edge in result.subgraph.edges.values()}
    assert drawn == typed_triples(demo)
    assert set(result.subgraph.nodes) == {row["l"] for row in raw(demo, "MATCH (n) UNWIND labels(n) AS l RETURN DISTINCT l")}
    assert all(node.labels == (node.id,) for node in result.subgraph.nodes.values())  # each in its label's colour
    people = result.labels_df.set_index("label").loc["Person"]
    assert people["nodes"] == 6 and "born: TemporalDate" in people["properties"]
    assert result.indexes["node properties"] == ["name"]  # the case-insensitive name lookup is kept beside the graph
    assert "The whole graph fit in the sample" in result.note()


def test_schema_note_reports_the_sample_limits_and_truncation(shell, demo):
    small = run(shell, "%gschema --nodes 3 --edges 4")
    assert small.metadata["truncated"] and small.metadata["inspected_edges"] == 4
    assert "limits: 3 nodes, 4 relationships" in small.note()
    assert "larger than the sample" in small.note()
    assert small.note() in small.show().static_html() and small.note() in small.show().text()
    full = run(shell, "%gschema --exhaustive")
    assert full.note().startswith("Exhaustive schema: every node and relationship was inspected")
    assert {(e.source, e.type, e.target) for e in full.subgraph.edges.values()} == typed_triples(demo)


def test_schema_refresh_sees_new_labels(shell, demo):
    assert "Robot" not in run(shell, "%gschema").labels
    run(shell, "%%gcypher --write\nCREATE (r:Robot {name: 'R2'}) RETURN r")
    assert "Robot" not in run(shell, "%gschema").labels  # the adapter's cached sample
    assert "Robot" in run(shell, "%gschema --refresh").labels


def test_schema_is_the_same_object_the_agent_tool_returns(demo):
    import json

    from langchain_gestaltdb import GestaltDBSchemaTool

    tool_view = json.loads(GestaltDBSchemaTool(graph=demo.graph).invoke({}))
    assert tool_view == gestalt_nb.schema().schema


# -- explorer ----------------------------------------------------------------------
def neighbours(connection, node_id, pattern):
    rows = raw(connection, f"MATCH (a {{id: $id}}){pattern}(b) RETURN b, r", {"id": node_id})
    return {row["b"].get_id for row in rows}, {row["r"].get_id for row in rows}


@pytest.mark.parametrize(
    ("direction", "pattern"),
    [("out", "-[r:KNOWS]->"), ("in", "<-[r:KNOWS]-"), ("both", "-[r:KNOWS]-")],
)
def test_expansion_returns_exactly_the_neighbours_the_database_holds(demo, direction, pattern):
    explorer = Explorer(demo, sample_size=100)
    explorer.start("bob")
    explorer.expand(direction=direction, types=["KNOWS"])
    nodes, edges = neighbours(demo, "bob", pattern)
    assert set(explorer.subgraph.nodes) == nodes | {"bob"}
    assert set(explorer.subgraph.edges) == edges


def test_expansion_of_every_type_and_the_cypher_for_what_is_drawn(demo):
    explorer = Explorer(demo, sample_size=100)
    explorer.start("acme")
    explorer.expand(direction="both")
    expected = set()
    for kind in explorer.relationship_types():
        expected |= neighbours(demo, "acme", f"-[r:{kind}]-")[0]
    assert set(explorer.subgraph.nodes) == expected | {"acme"}
    assert "-[r]-" not in explorer.cypher() and "-[r]->" not in explorer.cypher()
    redrawn = gestalt_nb.run(explorer.cypher()).subgraph
    assert set(redrawn.nodes) == set(explorer.subgraph.nodes)
    assert set(redrawn.edges) == set(explorer.subgraph.edges)


def test_node_budget_stops_the_walk_and_says_so(demo):
    explorer = Explorer(demo, node_budget=3, sample_size=100)
    explorer.start("acme")
    explorer.expand(direction="both")
    assert len(explorer.subgraph.nodes) == 3 and explorer.subgraph.truncated
    assert "Node budget reached (3)" in explorer.subgraph.notes[-1]
    assert all(e.source in explorer.subgraph.nodes and e.target in explorer.subgraph.nodes for e in explorer.subgraph.edges.values())


def test_undo_restores_the_previous_subgraph_and_reset_clears(demo):
    explorer = Explorer(demo, sample_size=100)
    explorer.start("alice")
    explorer.expand(types=["KNOWS"])
    before = explorer.subgraph.to_dict(), explorer.cypher()
    explorer.expand(["carla"], types=["KNOWS", "WORKS_FOR"])
    assert explorer.subgraph.to_dict() != before[0]
    assert explorer.undo()
    assert (explorer.subgraph.to_dict(), explorer.cypher()) == before
    explorer.reset()
    assert not explorer.subgraph
    assert explorer.undo() and explorer.subgraph.to_dict() == before[0]


def test_explorer_finds_a_start_by_indexed_property_and_explains_missing_indexes(demo):
    explorer = Explorer(demo)
    assert explorer.find("Person", "name", "Eva Novak") == ["eva"]
    with pytest.raises(gestalt_nb.GestaltError, match="'h_index' has no property index"):
        explorer.find("Person", "h_index", 7)
    with pytest.raises(gestalt_nb.GestaltError, match="No node with id 'nobody'"):
        explorer.start("nobody")
    with pytest.raises(gestalt_nb.GestaltError, match="Nothing to expand yet"):
        explorer.expand()


def test_explorer_widget_buttons_drive_the_same_state(shell, demo):
    view = run(shell, "%gexplore")
    widget = view.widget
    view.find_label.value, view.find_property.value, view.find_value.value = "Person", "name", "Dev Patel"
    view.find_button.click()
    assert set(view.explorer.subgraph.nodes) == {"dev"}
    view.types.value = ("KNOWS",)
    view.direction.value = "both"
    revision = view.canvas.revision
    view.expand_button.click()
    expected = {"dev"} | neighbours(demo, "dev", "-[r:KNOWS]-")[0]
    assert set(view.explorer.subgraph.nodes) == expected == set(view.canvas.subgraph.nodes)
    assert view.canvas.revision == revision + 1  # one delta, not a redraw
    assert "WHERE id(r) IN" in view.cypher.value
    dev = next(node for node in view.canvas.graph["nodes"] if node["id"] == "dev")
    assert dev["c"] == "Dev Patel" and dev["p"]["born"] == "1985-01-09"  # the canvas panel reads these
    view.undo_button.click()
    assert set(view.explorer.subgraph.nodes) == {"dev"} == set(view.canvas.subgraph.nodes)
    view.start_id.value = "nobody"
    view.start_button.click()
    assert "No node with id" in view.status.value
    assert widget is view.widget


# -- retrieval ---------------------------------------------------------------------
def test_retrieval_subgraph_is_exactly_the_seeds_entities_and_path_edges(shell, demo):
    result = run(shell, '%gretrieve "Alice Chen" --seed-label Person --seed-property name --hop KNOWS:out --hop WORKS_FOR -o found')
    assert shell.user_ns["found"] is result
    metas = [doc.metadata for doc in result.documents]
    assert {m["id"] for m in metas} == set(result.subgraph.nodes)
    assert {m["id"] for m in metas if m["is_seed"]} == result.subgraph.highlight_nodes == {"alice"}
    path_edges = {step["edge_id"] for m in metas for path in m["paths"] for step in path["steps"]}
    assert set(result.subgraph.edges) == path_edges == result.subgraph.highlight_edges
    friends = neighbours(demo, "alice", "-[r:KNOWS]->")[0]
    employers = set()
    for friend in friends:
        employers |= neighbours(demo, friend, "-[r:WORKS_FOR]->")[0]
    assert set(result.subgraph.nodes) == {"alice"} | friends | employers
    assert list(result.df.columns[:4]) == ["id", "labels", "seed", "hops"]
    assert result.show().tab_titles == ["Graph", "Documents", "Settings"]


def test_show_retrieval_takes_any_retriever(demo):
    retriever = demo.retriever(seed_ids=("globex",), hops=[{"edge_type": "WORKS_FOR", "direction": "in"}])
    result = gestalt_nb.show_retrieval(retriever, "anything")
    assert set(result.subgraph.nodes) == {"globex"} | neighbours(demo, "globex", "<-[r:WORKS_FOR]-")[0]


def test_truncation_flags_are_shown(shell, demo):
    result = run(shell, "%gretrieve x --seed-ids acme --hop WORKS_FOR:in --hop KNOWS:any --max-entities 2")
    assert result.truncated and len(result.documents) == 2
    assert any("result truncated" in note for note in result.notes())
    assert "result truncated" in result.show().static_html()


def test_empty_retrieval_explains_a_missing_property_index(shell, demo):
    result = run(shell, "%gretrieve 21 --seed-label Person --seed-property h_index --hop WORKS_FOR")
    assert result.documents == []
    assert "there is none, so indexed seeding silently finds nothing" in result.notes()[0]
    assert result.show().tab_titles == ["Documents", "Settings"]
    absent = run(shell, '%gretrieve "Zed" --seed-label Person --seed-property name')
    assert absent.notes() == ["No :Person node has name = 'Zed' (exact match on the index)."]
    ghost = run(shell, "%gretrieve x --seed-ids ghost,phantom")
    assert ghost.notes() == ["None of the seed ids exist in the graph: ghost, phantom."]


def test_retrieve_magic_argument_errors(shell, demo):
    with pytest.raises(UsageError, match="Say how to find seeds"):
        run(shell, "%gretrieve Alice")
    with pytest.raises(UsageError, match="Cannot read hop 'KNOWS:sideways'"):
        run(shell, "%gretrieve x --seed-ids alice --hop KNOWS:sideways")


def test_expand_all_control_draws_what_the_sample_left_out_as_one_delta(shell, tmp_path):
    from gestaltdb.graphdb import Edge as DbEdge
    from gestaltdb.graphdb import Node as DbNode

    connection = gestalt_nb.create(str(tmp_path / "star"))
    with connection.db.transaction() as tx:
        tx.put_nodes([DbNode("hub", labels=["Hub"], properties={"name": "Hub"})]
                     + [DbNode(f"s{i}", labels=["Spoke"], properties={"name": f"Spoke {i}"}) for i in range(40)])
        tx.put_edges_bulk([DbEdge(f"h{i}", "hub", f"s{i}", properties={"type": "HAS"}) for i in range(40)], check_existing=False)
    connection.graph.refresh_schema()
    view = gestalt_nb.explore("hub", sample_size=10)
    view.widget  # noqa: B018 - builds the widget (made on first read)
    assert view.expand_all_button.layout.display == "none"  # nothing left out yet
    view.expand_button.click()
    assert len(view.canvas.subgraph.nodes) == 11 and view.explorer.left_out == 30
    assert view.expand_all_button.layout.display == "" and "10 of 40" in view.canvas.status["text"]
    revision = view.canvas.revision
    view.expand_all_button.click()
    assert len(view.canvas.subgraph.nodes) == 41 == len(view.explorer.subgraph.nodes)
    assert view.canvas.revision == revision + 1 and view.expand_all_button.layout.display == "none"
    view.undo_button.click()
    assert len(view.canvas.subgraph.nodes) == 11
