"""People's own words: gestalt-nb's and the adapter's bookkeeping labels and types (sources, memory items and
namespaces, MENTIONS, IN_NAMESPACE, …) stay out of legends, filters and colour counts unless the query names them.

Every demo notebook (all of notebooks/) is run cell by cell in a real shell, and every canvas it draws is read as the
page gets it: its legend's labels and types.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from IPython.utils.capture import capture_output

from gestalt_nb.canvas import GraphCanvas

from .conftest import run

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
TYPES = {"MENTIONS", "IN_NAMESPACE", "SUBNAMESPACE_OF", "ABOUT"}  # bookkeeping.TYPES, written out
DRAW_NO_GRAPH = {"05_agents"}  # its views are agent traces and tables: no canvas, so no legend


def canvases_made(shell, source: str) -> list[GraphCanvas]:
    """The canvases a cell made (read from the heap: views, tabs and explorers all hold theirs)."""
    before = {id(item) for item in gc.get_objects() if isinstance(item, GraphCanvas)}
    with capture_output():
        shell.run_cell(source, store_history=False)  # a cell tagged raises-exception raises as in the notebook
    return [item for item in gc.get_objects() if isinstance(item, GraphCanvas) and id(item) not in before]


def legend_of(canvas: GraphCanvas) -> tuple[list[str], list[str]]:
    graph = canvas.graph
    return [entry["name"] for entry in graph["labels"]], list(graph["types"])


def bookkeeping_names(labels: list[str], types: list[str]) -> list[str]:
    return [name for name in labels + types if name.startswith("__") or name in TYPES]


@pytest.mark.parametrize("name", sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb")))
def test_no_bookkeeping_label_reaches_a_demo_notebooks_legend(shell, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    cells = [cell for cell in json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())["cells"] if cell["cell_type"] == "code"]
    drawn, found = 0, {}
    for number, cell in enumerate(cells):
        for canvas in canvases_made(shell, "".join(cell["source"])):
            drawn += 1
            names = bookkeeping_names(*legend_of(canvas))
            if names:
                found[number] = names
    assert (drawn == 0) == (name in DRAW_NO_GRAPH), f"{name}: the notebook drew {drawn} canvases"
    assert not found, f"{name}: bookkeeping names in legends (cell: names): {found}"


def test_a_node_with_only_a_bookkeeping_label_is_listed_in_words_and_keeps_its_label_for_the_panel(shell, demo):
    result = run(shell, "%%gcypher -o everything --limit 200\nMATCH (n) RETURN n")
    canvas = GraphCanvas(result.subgraph)
    labels, _ = legend_of(canvas)
    assert "(source)" in labels and "__LangChainSource__" not in labels
    source = next(node for node in canvas.graph["nodes"] if labels[node["l"]] == "(source)")
    assert source["L"] == ["__LangChainSource__"]  # the panel lists every label the node has
    # the filter works by the names the legend lists
    hidden = canvas.filter(labels=["(source)"])
    assert hidden == sum(1 for node in result.subgraph.nodes.values() if node.labels != ("__LangChainSource__",))
    assert hidden > 0


def test_a_query_that_names_a_bookkeeping_label_or_type_sees_it_as_written(shell, demo):
    asked = run(shell, "%%gcypher\nMATCH (s:__LangChainSource__)-[m:MENTIONS]->(n:Person) RETURN s, m, n")
    labels, types = legend_of(GraphCanvas(asked.subgraph))
    assert "__LangChainSource__" in labels and "MENTIONS" in types
    unasked = run(shell, "%%gcypher\nMATCH (n:Person)<-[m]-(s) RETURN s, m, n")
    labels, types = legend_of(GraphCanvas(unasked.subgraph))
    assert "(source)" in labels and "(mentions)" in types
    assert not bookkeeping_names(labels, types)
    edge = next(edge for edge in GraphCanvas(unasked.subgraph).graph["edges"] if types[edge["y"]] == "(mentions)")
    assert edge["p"]["type"] == "MENTIONS"  # the panel names the stored type


def test_the_static_picture_legend_uses_the_same_words(shell, demo):
    from gestalt_nb.render.static_svg import svg

    result = run(shell, "%%gcypher --limit 200\nMATCH (n) RETURN n")
    picture = svg(result.subgraph, caption_property="name")
    assert "(source)" in picture and "__LangChainSource__" not in picture


def test_the_schema_lists_bookkeeping_by_its_stored_name_and_says_it_in_the_legends_words(shell, demo):
    """The schema shows everything in the graph, bookkeeping too, under the name a query matches; its picture
    captions that node as its legend lists it, ``(source)``, and its tables say which names are bookkeeping."""
    import base64
    import re

    from gestalt_nb.views.schema_view import SchemaView

    result = run(shell, "%gschema")
    picture = base64.b64decode(re.search(r'base64,([^"]+)', SchemaView(result).static_html()).group(1)).decode()
    assert "__LangChainSource__" not in picture and picture.count(">(source)<") == 2  # its caption and its legend entry
    source = result.subgraph.nodes["__LangChainSource__"]
    assert source.properties["name"] == "(source)" and source.properties["label"] == "__LangChainSource__"
    canvas = GraphCanvas(result.subgraph)
    labels, types = legend_of(canvas)
    assert "(source)" in labels and "(mentions)" in types and not bookkeeping_names(labels, types)
    table = result.labels_df.set_index("label")
    assert table.loc["__LangChainSource__", "bookkeeping"] == "(source)" and table.loc["Person", "bookkeeping"] == ""
    kinds = result.relationships_df
    assert set(kinds[kinds["start"] == "__LangChainSource__"]["bookkeeping"]) == {"(mentions)"}
    assert set(kinds[kinds["type"] == "WORKS_FOR"]["bookkeeping"]) == {""}
