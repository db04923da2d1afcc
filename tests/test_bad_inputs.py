"""Every public call and canvas method refuses a bad value with one ``GestaltError`` line naming the argument.

The walker covers new code by default: every function ``gestalt_nb`` names and every public method of
``Connection``, ``GraphCanvas``, ``OverviewResult`` and ``QueryResult`` is walked; for each parameter whose
annotation ``gestalt_nb/checks.py`` knows (whole numbers, numbers, True/False, text, lists of text, dicts, each
or None), every value of ``BAD`` that none of its kinds accepts is passed — the other parameters given a good
value — and must be refused before anything runs: one ``GestaltError`` line naming the parameter, never a raw
exception, never a silent coercion (``True`` as 1, ``1.5`` as 1, ``NaN`` as a timeout). The adapter's toolkits check
their keywords with pydantic: those refusals are one line too.
"""

from __future__ import annotations

import functools
import inspect
import math

import pytest

import gestalt_nb
from gestalt_nb.canvas.widget import GraphCanvas
from gestalt_nb.checks import ACCEPTS, kinds
from gestalt_nb.cypher.result import QueryResult
from gestalt_nb.graph.subgraph import Subgraph
from gestalt_nb.grouped.result import OverviewResult
from gestalt_nb.session import Connection

#: Values a person might pass by mistake: text for a number, a fraction for a whole number, a flag for a count …
BAD = ["text", 1.5, True, None, [1], {"a": 1}, math.nan, 3, ("a", 2)]
#: A good value of each kind, for the parameters not under test.
GOOD = {"int": 1, "float": 1.0, "bool": False, "str": "x", "list[str]": ["x"], "dict": {}, "None": None}
CLASSES = [Connection, GraphCanvas, OverviewResult, QueryResult]
#: What the walker leaves out, and why.
LEFT_OUT = {"load_ipython_extension": "IPython's entry point, called by %load_ext with its shell"}


def public_functions() -> list[tuple[str, str]]:
    return [("gestalt_nb", name) for name in gestalt_nb.__all__
            if inspect.isfunction(getattr(gestalt_nb, name)) and name not in LEFT_OUT]


def public_methods() -> list[tuple[str, str]]:
    """Every public method the class itself (or its own mixins from gestalt_nb) defines, not traitlets' or ipywidgets'."""
    found = set()
    for cls in CLASSES:
        for own in (klass for klass in cls.__mro__ if klass.__module__.startswith("gestalt_nb")):
            found |= {(cls.__name__, name) for name, member in vars(own).items()
                      if not name.startswith("_") and inspect.isfunction(getattr(cls, name, None))}
    return sorted(found)


def callables() -> list[tuple[str, str]]:
    return public_functions() + public_methods()


@functools.cache
def cases() -> list[tuple[str, str, str, object]]:
    """(owner, callable, parameter, bad value) for every checkable parameter and every value none of its kinds takes."""
    out = []
    for owner, name in callables():
        target = getattr(gestalt_nb if owner == "gestalt_nb" else globals()[owner], name)
        for parameter in inspect.signature(target).parameters.values():
            accepted = kinds(parameter.annotation)
            if not accepted:
                continue
            for value in BAD:
                if not any(ACCEPTS[kind](value) for kind in accepted):
                    out.append((owner, name, parameter.name, value))
    return out


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A real instance of each class: the demo graph's connection, a query's result, its overview and a canvas."""
    path = str(tmp_path_factory.mktemp("bad") / "demo")
    connection = gestalt_nb.demo(path, alias="bad-inputs")
    result = connection.run("MATCH (a)-[r:KNOWS]->(b) RETURN a, r, b LIMIT 3")
    return {"path": path, "QueryResult": result, "OverviewResult": connection.overview(), "GraphCanvas": GraphCanvas(Subgraph())}


@pytest.fixture
def instances(made, tmp_path, monkeypatch):
    """The instances, the connection opened again (each test ends by closing every connection: conftest.clean_state);
    run in a temporary folder, so a call that wrongly runs (``create("x", ...)``) makes nothing in the repository."""
    monkeypatch.chdir(tmp_path)
    return {**made, "Connection": gestalt_nb.connect(made["path"], alias="bad-inputs")}


def call_with(target, parameter: str, value: object):
    """Call ``target`` with ``parameter=value`` and a good value for every other required parameter."""
    arguments = {}
    for other in inspect.signature(target).parameters.values():
        if other.name == parameter:
            arguments[other.name] = value
        elif other.default is inspect.Parameter.empty and other.kind in (other.POSITIONAL_OR_KEYWORD, other.KEYWORD_ONLY):
            accepted = kinds(other.annotation) or ("None",)
            arguments[other.name] = GOOD[accepted[0]]
    return target(**arguments)


def test_the_walker_reaches_every_public_call():
    walked = {(owner, name) for owner, name in callables()}
    assert len(walked) >= 80, len(walked)
    assert {("gestalt_nb", "run"), ("gestalt_nb", "overview"), ("Connection", "run"), ("GraphCanvas", "drill"),
            ("GraphCanvas", "style"), ("OverviewResult", "members"), ("QueryResult", "frame")} <= walked
    assert len(cases()) >= 300, len(cases())


@pytest.mark.parametrize(("owner", "name"), callables(), ids=lambda value: value)
def test_a_bad_value_is_refused_in_one_line_naming_it(instances, owner, name):
    target = getattr(gestalt_nb, name) if owner == "gestalt_nb" else getattr(instances[owner], name)
    wrong = []
    for _, _, parameter, value in (case for case in cases() if case[:2] == (owner, name)):
        try:
            call_with(target, parameter, value)
            wrong.append(f"{parameter}={value!r}: accepted")
        except gestalt_nb.GestaltError as refused:
            said = str(refused)
            if "\n" in said or parameter not in said:
                wrong.append(f"{parameter}={value!r}: {said!r}")
        except Exception as raw:
            wrong.append(f"{parameter}={value!r}: raw {type(raw).__name__}: {raw}")
    assert not wrong, wrong


@pytest.mark.parametrize(("call", "says"), [
    (lambda c: c.toolkit(max_rows="x"), "toolkit: max_rows must be a whole number"),
    (lambda c: c.agent_tools(max_rows=0), "max_rows must be greater than or equal to 1, not 0"),
    (lambda c: c.claim_toolkit(max_depth=-1), "claim_toolkit: max_depth must be greater than or equal to 0, not -1"),
    (lambda c: c.claims(max_claims="x"), "claims: max_claims must be"),
    (lambda c: c.retriever(max_seeds=0), "retriever: max_seeds must be greater than or equal to 1, not 0"),
])
def test_the_adapters_keyword_checks_are_one_line_too(instances, call, says):
    with pytest.raises(gestalt_nb.GestaltError, match=says) as refused:
        call(instances["Connection"])
    assert "\n" not in str(refused.value)


def test_good_values_still_pass_and_are_not_coerced(instances, tmp_path):
    connection = instances["Connection"]
    assert gestalt_nb.create(tmp_path / "made", alias="made").path == tmp_path / "made"  # a path: text or a pathlib.Path
    import numpy as np

    assert len(connection.run("MATCH (n) RETURN n", limit=np.int64(2)).records) == 2  # numpy's whole numbers are whole numbers
    assert gestalt_nb.query_history(last=0).shape[0] >= 0
    with pytest.raises(gestalt_nb.GestaltError, match="last must be a whole number of at least 0, not -1"):
        gestalt_nb.query_history(last=-1)
    with pytest.raises(gestalt_nb.GestaltError, match="write must be True or False, not 'yes'"):
        gestalt_nb.explain("MATCH (n) RETURN n", write="yes")
