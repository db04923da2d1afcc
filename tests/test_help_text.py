"""Help that says the right thing: every public function documents each of its parameters (a numpy-style
``Parameters`` section) and shows an example that runs; settings are spelled ``%config`` everywhere."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pandas as pd
import pytest

import gestalt_nb

ROOT = Path(__file__).resolve().parent.parent

#: Public functions whose docstrings do not document every parameter yet (issue 45, scope 6). Strict: document
#: one and the test fails until it leaves this list.
NOT_YET: set[str] = set()
PUBLIC = sorted(name for name in gestalt_nb.__all__ if inspect.isfunction(getattr(gestalt_nb, name)))


def section(doc: str, title: str) -> list[str] | None:
    """The lines of a numpy-style docstring section (``title`` underlined by dashes), None when there is none."""
    lines = doc.splitlines()
    for number, line in enumerate(lines[:-1]):
        if line.strip() == title and set(lines[number + 1].strip()) == {"-"}:
            body = []
            for later, text in enumerate(lines[number + 2:], number + 2):
                if later + 1 < len(lines) and text.strip() and set(lines[later + 1].strip()) == {"-"}:
                    break
                body.append(text)
            return body
    return None


def documented(doc: str) -> set[str]:
    """The parameter names a ``Parameters`` section describes (``name : type`` lines at its own indent)."""
    found: set[str] = set()
    for line in section(doc, "Parameters") or []:
        if line and not line[0].isspace():
            found.update(name.strip() for name in line.split(":")[0].split(","))
    return found


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="not documented yet"))
                                  if name in NOT_YET else name for name in PUBLIC])
def test_every_public_function_documents_each_parameter_and_shows_an_example(name):
    function = getattr(gestalt_nb, name)
    doc = inspect.getdoc(function) or ""
    wanted = [item.name for item in inspect.signature(function).parameters.values()
              if item.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    missing = [item for item in wanted if item not in documented(doc)]
    assert not missing, f"{name}: the docstring's Parameters section does not describe {missing}"
    assert section(doc, "Examples"), f"{name}: no Examples section"


def test_the_section_reader_sees_a_missing_parameter():
    doc = "Summary.\n\nParameters\n----------\ndf : DataFrame\n    Rows.\n\nReturns\n-------\nx : int\n    Not a parameter."
    assert documented(doc) == {"df"}


def examples(function) -> list[str]:
    return [line.strip()[4:] for line in section(inspect.getdoc(function), "Examples") if line.strip().startswith(">>> ")]


def test_the_loading_examples_run_as_written(shell, tmp_path):
    gestalt_nb.create(str(tmp_path / "fresh"))
    namespace = {"pd": pd, "gestalt_nb": gestalt_nb}
    for function in (gestalt_nb.load_nodes, gestalt_nb.load_edges):
        lines = examples(function)
        assert lines
        for line in lines:
            exec(line, namespace)
    rows = gestalt_nb.run("MATCH (a:Person)-[k:KNOWS]->(b:Person) RETURN a.name AS a, k.since AS since, b.name AS b").df
    assert rows.to_dict("records") == [{"a": "Ada", "since": 2020, "b": "Bob"}]


def test_the_run_example_runs_on_the_demo_graph(shell, demo):
    namespace = {"gestalt_nb": gestalt_nb}
    for line in examples(gestalt_nb.run):
        exec(line, namespace)
    assert len(namespace["result"].df) == 1


def test_settings_are_spelled_percent_config_in_every_help_page_and_file(shell):
    pages = [inspect.getdoc(function) or "" for kind in ("line", "cell") for function in shell.magics_manager.magics[kind].values()
             if type(getattr(function, "__self__", None)).__module__.startswith("gestalt_nb")]  # every %magic? page
    assert any("%config GestaltMagic.timeout" in page for page in pages)
    assert not [page.splitlines()[0] for page in pages if re.search(r"%%config\b", page)]
    texts = [path for pattern in ("gestalt_nb/**/*.py", "docs/**/*.md", "*.md", "notebooks/*.ipynb")
             for path in ROOT.glob(pattern) if re.search(r"%%config\b", path.read_text(encoding="utf-8"))]
    assert not texts, f"%%config (a cell magic that does not exist) in {texts}"


def _hooks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_wraps_long_signatures_and_lists_each_parameter():
    hooks = _hooks()
    entry = "\n".join(hooks._entry("load_edges", gestalt_nb.load_edges))
    code = entry.split("```python\n")[1].split("```")[0].splitlines()
    assert code[0] == "def load_edges(" and "    type_column: str | None = None," in code and code[-1] == ") -> LoadResult"
    assert max(map(len, code)) <= hooks.WIDTH
    for name in inspect.signature(gestalt_nb.load_edges).parameters:
        assert f"\n- `{name}` (*" in entry, f"{name} is not a list item of the reference"
    assert "\n```pycon\n>>> knows = pd.DataFrame(" in entry and "\n----" not in entry
    short = hooks._entry("connection", gestalt_nb.connection)
    assert "def connection(alias: str | None = None) -> Connection" in short
