"""Completion in %%gcypher cells and %gcypher lines, through IPython's real completer."""

from __future__ import annotations

import warnings

import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node
from IPython.core.completer import provisionalcompleter

import gestalt_nb
from gestalt_nb.magics.cypher_args import gcypher_parser
from gestalt_nb.options import RENDERERS

from .conftest import raw, run

GENES = ("BRCA1", "TP53", "EGFR", "KRAS")


@pytest.fixture(scope="module")
def generated_path(tmp_path_factory):
    """A generated graph with its own vocabulary (labels, types, properties), closed after building."""
    path = tmp_path_factory.mktemp("generated") / "bio"
    db = GraphDB.create(path, backend="lmdb", backend_options={"map_size": 256 * 1024**2})
    with db.transaction() as tx:
        tx.put_nodes([Node(g, labels=["Gene"], properties={"symbol": g, "chromosome": i + 1}) for i, g in enumerate(GENES)])
        tx.put_nodes([Node(f"prot-{g}", labels=["Protein"], properties={"uniprot": f"P{i}", "mass_kda": 10.5 * i}) for i, g in enumerate(GENES)])
        tx.put_nodes([Node("cancer", labels=["Disease"], properties={"icd10": "C80"})])
        tx.put_edges_bulk(
            [Edge(f"enc-{g}", g, f"prot-{g}", properties={"type": "ENCODES", "evidence": "curated"}) for g in GENES]
            + [Edge(f"assoc-{g}", g, "cancer", properties={"type": "ASSOCIATED_WITH", "score": 0.5}) for g in GENES],
            check_existing=False,
        )
    db.close()
    return path


@pytest.fixture
def generated(shell, generated_path, demo):
    """The generated graph open as 'bio'; the demo graph stays current."""
    run(shell, f"%gestalt open {generated_path} --alias bio")
    run(shell, "%gestalt switch demo")
    return gestalt_nb.connection("bio")


def complete(shell, text: str, offset: int | None = None):
    offset = len(text) if offset is None else offset
    with warnings.catch_warnings(), provisionalcompleter():
        warnings.simplefilter("ignore")
        return list(shell.Completer.completions(text, offset))


def texts(shell, text: str, offset: int | None = None, kind: str | None = None) -> list[str]:
    return [c.text for c in complete(shell, text, offset) if kind is None or c.type == kind]


def all_labels(connection) -> set[str]:
    return {row["l"] for row in raw(connection, "MATCH (n) UNWIND labels(n) AS l RETURN DISTINCT l")}


def all_types(connection) -> set[str]:
    return {row["t"] for row in raw(connection, "MATCH ()-[r]->() RETURN DISTINCT type(r) AS t")}


def props_of(connection, label: str) -> set[str]:
    return {key for row in raw(connection, f"MATCH (n:{label}) RETURN n") for key in row["n"].properties}


def test_labels_after_a_colon_in_a_node_pattern(shell, demo):
    assert set(texts(shell, "%%gcypher\nMATCH (n:")) == all_labels(demo)
    found = complete(shell, "%%gcypher\nMATCH (p:Pe")
    assert [c.text for c in found] == ["Person"]
    assert (found[0].start, found[0].end, found[0].type) == (len("%%gcypher\nMATCH (p:"), len("%%gcypher\nMATCH (p:Pe"), "label")
    # a second label, a label in a later pattern, and SET n:Label
    assert "Company" in texts(shell, "%%gcypher\nMATCH (p:Person)-[:WORKS_FOR]->(c:Co")
    assert "Person" in texts(shell, "%%gcypher --write\nMATCH (n {id: 'x'}) SET n:Pe")


def test_relationship_types_inside_a_relationship_pattern(shell, demo):
    assert set(texts(shell, "%%gcypher\nMATCH (p:Person)-[r:")) == all_types(demo)
    assert texts(shell, "%%gcypher\nMATCH (p)-[:WO") == ["WORKS_FOR"]
    assert texts(shell, "%%gcypher\nMATCH (p)-[:KNOWS|WO") == ["WORKS_FOR"]
    assert not set(texts(shell, "%%gcypher\nMATCH (p)-[r:")) & all_labels(demo)


def test_properties_of_the_variables_label_or_type(shell, demo):
    cell = "%%gcypher\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company)\nWHERE p."
    assert set(texts(shell, cell)) == props_of(demo, "Person")
    assert set(texts(shell, cell.replace("WHERE p.", "RETURN c."))) == props_of(demo, "Company")
    works = {key for row in raw(demo, "MATCH ()-[r:WORKS_FOR]->() RETURN r") for key in row["r"].properties} - {"type"}  # the type itself
    assert set(texts(shell, cell.replace("WHERE p.", "RETURN r."))) == works
    assert texts(shell, cell + "h_") == ["h_index"]
    # keys of an inline property map, for the pattern's label
    assert texts(shell, "%%gcypher\nMATCH (p:Person {na") == ["name"]


def test_cursor_in_the_middle_of_a_cell(shell, demo):
    cell = "%%gcypher\nMATCH (p:Per)-[:WORKS_FOR]->(c:Company)\nRETURN p LIMIT 3"
    offset = cell.index("Per") + 3
    found = complete(shell, cell, offset)
    assert [c.text for c in found] == ["Person"] and found[0].end == offset


def test_parameters_from_the_P_dict(shell, demo):
    shell.user_ns["who"] = {"name": "Alice Chen", "min_h": 3}
    assert texts(shell, "%%gcypher -P who\nMATCH (p:Person {name: $") == ["name", "min_h"]
    assert texts(shell, "%%gcypher -P \"{'year': 2020}\"\nMATCH (p:Paper) WHERE p.year > $") == ["year"]
    # nothing is evaluated: a -P expression that is not a name or a dict literal gives only the $names in the query
    shell.user_ns["calls"] = []
    assert texts(shell, "%%gcypher -P \"calls.append(1) or {}\"\nMATCH (p {name: $n}) WHERE p.h_index > $") == ["n"]
    assert shell.user_ns["calls"] == []


def test_magic_options_and_their_values(shell, demo):
    options = {o for action in gcypher_parser()._actions for o in action.option_strings}
    assert set(texts(shell, "%%gcypher -")) == options
    assert texts(shell, "%%gcypher --li") == ["--limit", "--live"]  # every option of the parser, --live included
    assert texts(shell, "%%gcypher --alias ") == ["demo"]
    assert set(texts(shell, "%%gcypher --renderer ")) == set(RENDERERS)
    assert texts(shell, "%gcypher --ex") == ["--explain"]
    shell.user_ns["who_params"] = {"name": "x"}
    assert "who_params" in texts(shell, "%%gcypher -P who_")
    from gestalt_nb.cypher import snippets

    snippets.save("staff_list", "MATCH (p:Person) RETURN p", ["p"])
    try:
        assert texts(shell, "%%gcypher --with sta") == ["staff_list"]
    finally:
        snippets.SNIPPETS.pop("staff_list")


def test_line_magic_completes_after_its_options(shell, demo):
    assert texts(shell, "%gcypher --limit 5 MATCH (c:Comp") == ["Company"]
    assert texts(shell, "rows = %gcypher MATCH (p:Person) RETURN p.bo") == ["born"]
    assert texts(shell, "x = 1\n%gcypher MATCH (n:Pla") == ["Place"]


def test_keywords_functions_and_variables(shell, demo):
    assert texts(shell, "%%gcypher\nMATCH (person:Person) RET") == ["RETURN"]
    found = texts(shell, "%%gcypher\nMATCH (person:Person) RETURN co")
    assert {"count(", "collect(", "coalesce("} <= set(found)
    assert "toUpper(" in texts(shell, "%%gcypher\nMATCH (p:Person) RETURN toU")
    assert "person" in texts(shell, "%%gcypher\nMATCH (person:Person) RETURN pe")


def test_another_connection_by_alias_uses_its_own_schema(shell, generated, demo):
    assert set(texts(shell, "%%gcypher --alias bio\nMATCH (g:")) == all_labels(generated) == {"Gene", "Protein", "Disease"}
    assert set(texts(shell, "%%gcypher --alias bio\nMATCH (g:Gene)-[r:")) == {"ENCODES", "ASSOCIATED_WITH"}
    assert set(texts(shell, "%%gcypher --alias bio\nMATCH (g:Gene) RETURN g.")) == {"symbol", "chromosome"}
    assert set(texts(shell, "%%gcypher --alias bio\nMATCH (:Gene)-[r:ENCODES]->() RETURN r.")) == {"evidence"}
    # the current connection (demo) still completes its own vocabulary
    assert set(texts(shell, "%%gcypher\nMATCH (g:")) == all_labels(demo)


def test_nothing_inside_strings_and_comments(shell, demo):
    for cell in ("%%gcypher\nMATCH (n {name: 'Pe", "%%gcypher\nMATCH (n) // n:Pe", "%%gcypher\nMATCH (n) /* (n:Pe"):
        assert not [c for c in complete(shell, cell) if c.type == "label"]


def test_python_cells_are_left_to_ipython(shell, demo):
    shell.user_ns["gestalt_value"] = 1
    # Cypher with nothing to offer keeps Python names out of that request only
    assert texts(shell, "%%gcypher\nMATCH (n {name: 'gestalt_va") == []
    found = complete(shell, "gestalt_va")
    assert "gestalt_value" in [c.text for c in found]
    assert not [c for c in found if c._origin == "gestalt_nb.cypher"]
    shell.run_line_magic("reload_ext", "gestalt_nb")  # re-registering leaves one matcher and nothing disabled
    assert texts(shell, "%%gcypher\nMATCH (n {name: 'gestalt_va") == []
    shell.run_line_magic("reload_ext", "gestalt_nb")
    assert not shell.Completer.disable_matchers
    assert [getattr(m, "matcher_identifier", None) for m in shell.Completer.custom_matchers].count("gestalt_nb.cypher") == 1
    assert "gestalt_value" in texts(shell, "gestalt_va")


@pytest.mark.parametrize(
    "text",
    [
        "%%gcypher\nMATCH (((((",
        "%%gcypher\n]]]})MATCH (n:",
        "%%gcypher --alias nowhere\nMATCH (n:",
        "%%gcypher -P\nMATCH (n {a: $",
        "%%gcypher -P \"{'a':\"\nRETURN $",
        "%gcypher",
        "%%gcypher",
        "%%gcypher\nMATCH (n)-[r:KNOWS]->(m) RETURN `odd name`.",
    ],
)
def test_completion_never_raises(shell, demo, text, capsys):
    complete(shell, text)  # would raise, or print IPython's matcher traceback, on an error
    assert "Traceback" not in capsys.readouterr().err


def test_a_closed_connection_still_gets_keywords(shell, demo):
    run(shell, "%gestalt close demo")
    assert texts(shell, "%%gcypher\nMATCH (n:") == []
    assert texts(shell, "%%gcypher\nMATCH (n) RET") == ["RETURN"]


def test_completion_reads_the_cached_sample_not_the_graph(shell, demo):
    """After a write the cached sample is unchanged until %gschema --refresh; completion follows it."""
    run(shell, "%gcypher --write CREATE (z:Zebra {stripes: 3}) RETURN z")
    assert "Zebra" not in texts(shell, "%%gcypher\nMATCH (n:")
    run(shell, "%gschema --refresh")
    assert "Zebra" in texts(shell, "%%gcypher\nMATCH (n:")
    assert texts(shell, "%%gcypher\nMATCH (z:Zebra) RETURN z.") == ["stripes"]


def test_a_real_kernel_answers_complete_requests(tmp_path):
    """What JupyterLab, Notebook 7 and VS Code send: a complete_request to an ipykernel."""
    import os
    from pathlib import Path

    from jupyter_client.manager import start_new_kernel

    here = str(Path(gestalt_nb.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}
    manager, client = start_new_kernel(kernel_name="python3", env=env)
    printed = []
    try:
        client.execute_interactive(
            f"import gestalt_nb\n%load_ext gestalt_nb\n%gestalt demo {tmp_path / 'demo'}\nprint(gestalt_nb.__file__)",
            timeout=60,
            output_hook=lambda msg: printed.append(msg["content"].get("text", "")),
        )
        assert here in "".join(printed)  # the kernel loaded this checkout
        cell = "%%gcypher\nMATCH (p:Person)-[r:WO"
        reply = client.complete(cell, len(cell), reply=True, timeout=30)["content"]
        assert reply["status"] == "ok" and reply["matches"] == ["WORKS_FOR"]
        assert (reply["cursor_start"], reply["cursor_end"]) == (len(cell) - 2, len(cell))
        types = reply["metadata"].get("_jupyter_types_experimental", [])
        assert [t["type"] for t in types] == ["relationship type"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
