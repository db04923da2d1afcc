"""Signatures written in the source: a public call that forwards to a capability spells out that capability's
parameters (plus ``alias``), and ``show`` / ``render`` one keyword per setting; nothing is patched in at run time,
so an editor and a type checker read what ``help()`` shows. These tests fail when the two drift apart."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import gestalt_nb
from gestalt_nb import api
from gestalt_nb.agents import planner
from gestalt_nb.cypher import explain, paths
from gestalt_nb.data import held, loading, networkx_io
from gestalt_nb.feed.live import Live
from gestalt_nb.graph import neighbourhood, schema
from gestalt_nb.graphrag import answering, extraction
from gestalt_nb.grouped import build
from gestalt_nb.options import SETTING_NAMES
from gestalt_nb.temporal import asof

ROOT = Path(__file__).resolve().parent.parent

#: public call → (the capability it forwards to, parameters the call fills in, defaults it changes)
FORWARDS = {
    "run": (asof.run, ("connection",), {}),
    "diff": (asof.diff, ("connection",), {}),
    "explain": (explain.explain, ("connection",), {}),
    "schema": (schema.schema, ("connection",), {}),
    "overview": (build.overview, ("connection",), {}),
    "live": (Live.__init__, ("self", "connection"), {}),
    "plan": (planner.plan, ("connection",), {"model": None}),
    "extract": (extraction.extract, ("connection",), {}),
    "ingest_graph_documents": (extraction.ingest, ("connection",), {}),
    "answer": (answering.answer, ("connection",), {}),
    "query_subgraph": (neighbourhood.query_subgraph, ("connection",), {}),
    "load_nodes": (loading.load_nodes, ("connection",), {}),
    "load_edges": (loading.load_edges, ("connection",), {}),
    "load_graph_documents": (loading.load_graph_documents, ("connection",), {}),
    "from_networkx": (networkx_io.from_networkx, ("connection",), {}),
    "shortest_path": (paths.shortest_path, ("connection",), {}),
}


def _shape(parameters) -> list[tuple[str, object, object, object]]:
    return [(p.name, p.kind, p.default, p.annotation) for p in parameters]


@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_a_forwarding_call_spells_out_its_capabilitys_parameters(name):
    target, filled, defaults = FORWARDS[name]
    call = getattr(api, name)
    wanted = [p.replace(default=defaults.get(p.name, p.default)) for p in inspect.signature(target).parameters.values() if p.name not in filled]
    written = [p for p in inspect.signature(call).parameters.values() if p.name != "alias"]
    assert _shape(written) == _shape(wanted), f"gestalt_nb.api.{name} no longer takes what {target.__qualname__} takes"
    assert inspect.signature(call).parameters["alias"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "__signature__" not in call.__dict__


@pytest.mark.parametrize("function", [api.show, gestalt_nb.render])
def test_show_and_render_take_one_keyword_per_setting(function):
    keywords = [p for p in inspect.signature(function).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "connection"]
    assert [p.name for p in keywords] == [*SETTING_NAMES, "caption"]
    assert {p.default for p in keywords} == {None}
    assert "__signature__" not in function.__dict__


def test_no_signature_is_assigned_at_run_time():
    for path in (*ROOT.glob("gestalt_nb/api/*.py"), ROOT / "gestalt_nb/options.py", ROOT / "gestalt_nb/render/__init__.py"):
        assert "__signature__ =" not in path.read_text(encoding="utf-8"), path


def test_a_setting_override_reaches_the_view(shell):
    from gestalt_nb.graph.subgraph import Node, Subgraph

    subgraph = Subgraph(nodes={"a": Node("a", ("T",), {"name": "A"})})
    view = api.show(subgraph, max_nodes=7, layout="grid", caption="name")
    assert (view.options.max_nodes, view.options.layout.name, view.options.caption_property) == (7, "grid", "name")
    drawing = gestalt_nb.render(subgraph, max_edges=9, layout="circular")
    assert (drawing.options.max_edges, drawing.options.layout.spec()["name"]) == (9, "circular")


#: Connection method → the lower module's function that does the work (the connection first)
CAPABILITIES = {
    "run": asof.run, "explain": explain.explain, "subgraph": neighbourhood.query_subgraph, "shortest_path": paths.shortest_path,
    "load_nodes": loading.load_nodes, "load_edges": loading.load_edges, "from_networkx": networkx_io.from_networkx,
    "schema": schema.schema, "overview": build.overview, "diff": asof.diff, "one_history_commit": held.one_history_commit,
}


@pytest.mark.parametrize("name", sorted(CAPABILITIES))
def test_a_connection_capability_is_its_functions_signature_and_documented_once(name):
    from gestalt_nb.capabilities import Capabilities

    method, function = getattr(Capabilities, name), CAPABILITIES[name]
    own = list(inspect.signature(method).parameters.values())
    theirs = list(inspect.signature(function).parameters.values())
    assert own[0].name == "self" and _shape(own[1:]) == _shape(theirs[1:]), f"Connection.{name} no longer takes what {function.__module__}.{function.__name__} takes"
    assert inspect.signature(method).return_annotation == inspect.signature(function).return_annotation
    assert len(inspect.getdoc(method) or "") > 80, f"Connection.{name} has no docstring of its own"
    assert inspect.getdoc(function) == (f"The work of :meth:`Connection.{name} <gestalt_nb.capabilities.Capabilities.{name}>`, "
                                        "``connection`` first (documented there, once)."), f"{function.__name__} documents Connection.{name} twice"


def _makers() -> dict[str, tuple[object, tuple[str, ...]]]:
    """Connection maker → (the class it makes, the parameters the maker fills in)."""
    from langchain_gestaltdb import GestaltDBRetriever

    from gestalt_nb.agents.handoff import ClaimToolkit, Toolkit
    from gestalt_nb.claims.api import ClaimAPI
    from gestalt_nb.memory.store import GestaltStore

    return {"toolkit": (Toolkit, ("graph",)), "agent_tools": (Toolkit, ("graph",)), "claim_toolkit": (ClaimToolkit, ("graph",)),
            "claims": (ClaimAPI, ("connection",)), "retriever": (GestaltDBRetriever, ("graph",)), "memory_store": (GestaltStore, ("db",))}


@pytest.mark.parametrize("name", ["agent_tools", "claim_toolkit", "claims", "memory_store", "retriever", "toolkit"])
def test_a_connection_maker_writes_out_its_classs_keywords_and_defaults(name):
    from gestalt_nb.makers import Makers

    made, filled = _makers()[name]
    theirs = [(p.name, p.default) for p in inspect.signature(made).parameters.values()
              if p.name not in filled and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    own = list(inspect.signature(getattr(Makers, name)).parameters.values())
    assert own[0].name == "self" and all(p.kind is p.KEYWORD_ONLY for p in own[1:])
    assert [(p.name, p.default) for p in own[1:]] == theirs, f"Connection.{name} no longer takes what {made.__name__} takes"
    assert "**" not in str(inspect.signature(getattr(Makers, name))) and "__signature__" not in vars(getattr(Makers, name))


def test_a_makers_keyword_its_class_refuses_is_one_line(shell, demo):
    from gestalt_nb.errors import GestaltError

    connection = gestalt_nb.connection()
    with pytest.raises(GestaltError, match=r"^toolkit: max_rows must be less than or equal to 1000, not 5000\.$"):
        connection.toolkit(max_rows=5000)
    with pytest.raises(GestaltError, match=r"^claim_toolkit: max_depth must be greater than or equal to 0, not -1\.$"):
        connection.claim_toolkit(max_depth=-1)
    with pytest.raises(GestaltError, match=r"^retriever: configure exactly one seed strategy: seed_ids, seed_resolver, or seed_label\.$"):
        connection.retriever(max_seeds=3)  # the model's rule over several keywords: its words, not the whole input
    assert connection.toolkit(max_rows=7).max_rows == 7 and connection.retriever(seed_ids=("0",), max_seeds=3).max_seeds == 3
