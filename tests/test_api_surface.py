"""What a newcomer meets first: start-up stays light, and every public call shows its real parameters.

Start-up is behaviour, not a timing: a fresh interpreter that imports the package, or loads the
extension into an IPython shell, must not have imported the engine, LangChain or pandas (they load on
the first database opened or query run). Signatures are what ``help()``, ``inspect.signature`` and
Shift+Tab show: a bare ``**options`` there hides every parameter.
"""

from __future__ import annotations

import inspect
import json
import pydoc
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("gestaltdb", "langchain_gestaltdb", "langchain_core", "langgraph", "pandas")

#: Methods that hand their keywords on to a class they do not own (the adapter's pydantic toolkits and
#: retriever, GestaltStore, ClaimAPI) → a keyword that class takes, which the method must show.
FORWARDERS = {"toolkit": "allow_writes", "claim_toolkit": "max_evidence", "agent_tools": "max_rows", "retriever": "hops",
              "memory_store": "index", "claims": "max_claims"}


def _fresh(code: str) -> list[str]:
    probe = code + f"\nimport sys, json; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_gestalt_nb_loads_neither_the_engine_nor_langchain_nor_pandas():
    assert _fresh("import gestalt_nb") == []


def test_load_ext_loads_neither_the_engine_nor_langchain_nor_pandas():
    code = ("from IPython.core.interactiveshell import InteractiveShell\n"
            "shell = InteractiveShell.instance()\nshell.run_line_magic('load_ext', 'gestalt_nb')\n"
            "assert 'gcypher' in shell.magics_manager.magics['cell']")
    assert _fresh(code) == []


def test_a_public_name_loads_on_first_use_and_dir_lists_every_one():
    loaded = _fresh("import gestalt_nb\nassert callable(gestalt_nb.run)\nassert set(gestalt_nb.__all__) <= set(dir(gestalt_nb))")
    assert "gestaltdb" in loaded  # the first use is when the engine comes in


def _hidden(function) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]


def test_every_public_call_shows_its_real_parameters():
    import gestalt_nb

    hidden = {name: _hidden(getattr(gestalt_nb, name)) for name in gestalt_nb.__all__
              if inspect.isfunction(getattr(gestalt_nb, name))}
    assert {name: found for name, found in hidden.items() if found} == {}
    assert {"source", "target", "id_prefix", "alias"} <= set(inspect.signature(gestalt_nb.load_edges).parameters)
    assert {"max_hops", "types", "direction"} <= set(inspect.signature(gestalt_nb.shortest_path).parameters)
    assert {"renderer", "layout", "max_nodes", "caption"} <= set(inspect.signature(gestalt_nb.show).parameters)


def test_every_connection_method_shows_its_real_parameters(shell, tmp_path):
    import gestalt_nb

    connection = gestalt_nb.create(str(tmp_path / "db"), alias="sig")
    methods = {name: getattr(connection, name) for name in dir(type(connection))
               if not name.startswith("_") and callable(getattr(connection, name))}
    hidden = {name: _hidden(method) for name, method in methods.items()}
    assert {name: found for name, found in hidden.items() if found} == {}
    shown = {name: inspect.signature(methods[name]).parameters for name in FORWARDERS}
    assert {name: keyword for name, keyword in FORWARDERS.items() if keyword not in shown[name]} == {}
    assert "graph" not in shown["toolkit"] and "db" not in shown["memory_store"]  # what the method fills in
    assert list(inspect.signature(connection.run).parameters)[:2] == ["query", "params"]
    assert "write" in inspect.signature(connection.run).parameters
    assert "Read-only unless" in inspect.getdoc(connection.run)  # the capability's own docstring


def test_shift_tab_shows_a_forwarding_methods_parameters(shell, tmp_path):
    import gestalt_nb

    connection = gestalt_nb.create(str(tmp_path / "db"), alias="tab")
    info = shell.inspector.info(connection.toolkit, "connection.toolkit")
    assert "allow_writes" in (info["definition"] or "") and "**options" not in (info["definition"] or "")
    assert "read-only unless" in (info["docstring"] or "")
    assert "max_rows" in pydoc.render_doc(type(connection))


@pytest.mark.parametrize("name", ["run", "load_edges", "query_subgraph"])
def test_shift_tab_shows_the_parameters(shell, name):
    """IPython's inspector (what Shift+Tab and ``name?`` show) prints the real parameter list."""
    import gestalt_nb

    info = shell.inspector.info(getattr(gestalt_nb, name), name)
    assert "**options" not in (info["definition"] or "")
    assert "alias" in (info["definition"] or "")
