"""Every code line in README.md and docs/**/*.md runs as written (issue 45).

Each fenced block is a notebook cell or not, by its fence's info string: ``python``, ``ipython`` and a
bare fence are cells; ``bash``/``sh``/``console`` (commands for a terminal) and ``text`` (option
synopses with ``[--x N]`` brackets, and outputs) are not run. Any other info string fails the test, so
a new kind of block is decided on, not silently left out. A cell that is deliberately not runnable
says why in an HTML comment on the line right before its fence, e.g.
``<!-- not run: needs a chat model (llm) -->``; each page's test warns with what it left out.

Each page's cells run in order, in one real IPython kernel per page (nbclient, errors kept so every
failing cell of a page is reported with page, block number, its first line and the error as the
traceback ends it: ``NameError: name 'x' is not defined``, a message of several lines by its first). A page whose cells do not start with ``%load_ext gestalt_nb`` (the guides, which assume the
tour's first cell) runs after a preamble: ``%load_ext gestalt_nb``, ``import gestalt_nb`` and
``gestalt_nb.demo(PATH)`` on its own copy of a demo graph built once for the session, so a page that
writes changes only its copy. The README and docs/index.md open the demo themselves, as written.
Cells run in a scratch working directory (a page that writes ``people.html`` writes it there).
The README's tour is also checked to show the overview where ``%goverview`` stands, and a copy of it
with a misspelled name to fail on that block.
"""

from __future__ import annotations

import re
import shutil
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the docs' code runs in real kernels (pip install -e '.[test]')")
nbclient = pytest.importorskip("nbclient", reason="the docs' code runs in real kernels (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[1]
CELLS = {"python", "ipython", ""}
NOT_CODE = {"bash", "sh", "console", "text"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^`\s]*)[ \t]*$")
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<why>.*?)\s*-->\s*$")
CELL_TIMEOUT = 120


@dataclass
class Block:
    """One fenced block: where it is (page, 1-based block number among the page's cells), its source."""

    page: str
    number: int
    line: int
    info: str
    source: str
    not_run: str | None = None

    @property
    def first_line(self) -> str:
        return next((line for line in self.source.splitlines() if line.strip()), "")


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/ except the generated reference."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [path for path in found if "reference" not in path.relative_to(ROOT).parts]


def fenced_blocks(text: str, page: str) -> list[Block]:
    """Every fenced block of ``text`` in order; cell blocks numbered 1, 2, … (others 0)."""
    lines = text.splitlines()
    blocks: list[Block] = []
    at, number = 0, 0
    while at < len(lines):
        opening = FENCE.match(lines[at])
        if not opening:
            at += 1
            continue
        indent, info = opening["indent"], opening["info"].lower()
        end = next((k for k in range(at + 1, len(lines)) if lines[k].strip() == "```"
                    and lines[k].startswith(indent)), None)
        if end is None:
            raise AssertionError(f"{page}:{at + 1}: a fence that never closes")
        before = lines[at - 1] if at else ""
        mark = NOT_RUN.search(before)
        if info in CELLS:
            number += 1
        source = textwrap.dedent("\n".join(lines[at + 1:end]))
        blocks.append(Block(page, number if info in CELLS else 0, at + 1, info, source,
                            mark["why"] if mark else None))
        at = end + 1
    return blocks


def page_blocks(path: Path) -> list[Block]:
    return fenced_blocks(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))


def preamble(demo_path: Path) -> str:
    return f"%load_ext gestalt_nb\nimport gestalt_nb\ngestalt_nb.demo({str(demo_path)!r});"


def run_cells(blocks: list[Block], workdir: Path, first: str | None = None) -> list:
    """Run ``blocks`` in order in one fresh kernel (after ``first`` if given); the executed cells."""
    cells = ([nbformat.v4.new_code_cell(first)] if first else []) + [
        nbformat.v4.new_code_cell(block.source) for block in blocks]
    notebook = nbformat.v4.new_notebook(cells=cells)

    def keep_reply(cell, cell_index, execute_reply):  # a UsageError shows no error output, only the reply says it
        cell.metadata["reply"] = execute_reply.get("content", {})

    client = nbclient.NotebookClient(notebook, kernel_name="python3", timeout=CELL_TIMEOUT, allow_errors=True,
                                     resources={"metadata": {"path": str(workdir)}}, on_cell_executed=keep_reply)
    client.execute()
    return notebook.cells[1:] if first else notebook.cells


def error_of(cell) -> str | None:
    """A cell's error as its traceback ends ("NameError: name 'x' is not defined"; of a message of several
    lines, its first), None if it ran."""
    reply = cell.metadata.get("reply", {})
    errors = [output for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    if reply.get("status", "ok") == "ok" and not errors:
        return None
    found = errors[0] if errors else reply
    lines = str(found.get("evalue", "")).strip().splitlines()
    return f"{found.get('ename', 'error')}: {lines[0] if lines else ''}".strip()


def failures(blocks: list[Block], cells: list) -> list[str]:
    return [f"{block.page} block {block.number} (line {block.line}) `{block.first_line}`: {error}"
            for block, cell in zip(blocks, cells, strict=True) if (error := error_of(cell))]


def run_page(blocks: list[Block], workdir: Path, demo_path: Path) -> tuple[list, list[str]]:
    """Run a page's runnable cells (after the preamble unless it loads the extension itself)."""
    runnable = [block for block in blocks if block.info in CELLS and block.not_run is None]
    if not runnable:
        return [], []
    own = runnable[0].source.lstrip().startswith("%load_ext gestalt_nb")
    cells = run_cells(runnable, workdir, None if own else preamble(demo_path))
    return cells, failures(runnable, cells)


@pytest.fixture(scope="module")
def demo_graph(tmp_path_factory):
    """The demo graph built once; each page opens its own copy."""
    import gestalt_nb

    path = tmp_path_factory.mktemp("docs-demo") / "demo"
    gestalt_nb.demo(str(path), alias="docs-demo-build").close()
    return path


PAGES = pages()


def test_every_fence_is_decided():
    """Each block is a cell or says it is not code; a not-run mark sits only on a cell and says why."""
    problems = []
    for path in PAGES:
        for block in page_blocks(path):
            where = f"{block.page}:{block.line}"
            if block.info not in CELLS | NOT_CODE:
                problems.append(f"{where}: fence info '{block.info}' is neither a cell ({sorted(CELLS)}) "
                                f"nor marked as not code ({sorted(NOT_CODE)})")
            if block.not_run is not None and (block.info not in CELLS or not block.not_run):
                problems.append(f"{where}: a not-run mark belongs right before a cell and says why")
    assert not problems, "\n".join(problems)
    cells = [block for path in PAGES for block in page_blocks(path) if block.info in CELLS]
    assert len(cells) >= 20, f"only {len(cells)} cells found: is the fence pattern still right?"


@pytest.fixture(scope="module")
def readme_tour(demo_graph, tmp_path_factory):
    """README.md's cells run once, as written (its page test and the tour's check share the run)."""
    blocks = page_blocks(ROOT / "README.md")
    return blocks, run_page(blocks, tmp_path_factory.mktemp("readme"), demo_graph)


@pytest.mark.parametrize("path", PAGES, ids=[str(path.relative_to(ROOT)) for path in PAGES])
def test_page_code_runs(path, demo_graph, readme_tour, tmp_path):
    blocks = page_blocks(path)
    left_out = [f"block {block.number} (line {block.line}) `{block.first_line}`: {block.not_run}"
                for block in blocks if block.not_run is not None]
    if left_out:
        warnings.warn(f"{path.relative_to(ROOT)}: not run: " + "; ".join(left_out), stacklevel=1)
    if path.name == "README.md":
        _, failed = readme_tour[1]
    else:
        copy = tmp_path / "demo"
        shutil.copytree(demo_graph, copy)
        work = tmp_path / "work"
        work.mkdir()
        _, failed = run_page(blocks, work, copy)
    assert not failed, "cells that fail as written:\n" + "\n".join(failed)


def test_readme_tour_shows_the_overview(readme_tour):
    """The README's tour, each block a cell, runs and the cell with ``%goverview`` shows the overview there."""
    blocks, (cells, failed) = readme_tour
    runnable = [block for block in blocks if block.info in CELLS and block.not_run is None]
    assert runnable[0].source.startswith("%load_ext gestalt_nb") and not failed, failed
    tour = next(k for k, block in enumerate(runnable) if "%goverview" in block.source)
    shown = [output for output in cells[tour].outputs if output.output_type == "display_data"]
    plain = [str(output.get("data", {}).get("text/plain", "")) for output in shown]
    at = next((k for k, text in enumerate(plain) if text.startswith("OverviewResult(")), None)
    assert at is not None, f"the tour's %goverview showed no overview where it stands: {[t[:80] for t in plain]}"
    assert at + 1 < len(shown) and "application/vnd.jupyter.widget-view+json" in shown[at + 1].data, \
        "the overview's picture is not followed by its live canvas"


def test_a_broken_block_is_reported(demo_graph, tmp_path):
    """A copy of the tour (after the preamble) with a misspelled name fails on that block, named by its first
    line and its error; the other cells still run."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("people.df;", "peple.df;")
    blocks = [block for block in fenced_blocks(text, "README-copy.md") if block.info in CELLS][1:]
    shutil.copytree(demo_graph, tmp_path / "demo")
    cells, failed = run_page(blocks, tmp_path, tmp_path / "demo")
    assert len(failed) == 1, failed
    assert failed[0].startswith("README-copy.md block 3 ") and "`people.df" not in failed[0]
    assert "`peple.df;" in failed[0] and "NameError: name 'peple' is not defined" in failed[0], failed[0]
    assert error_of(cells[0]) is None and cells[0].outputs, "the cell before the broken one ran and showed"
