"""Take the docs' screenshots in real JupyterLab 4 (Debian's Chromium, offline, a temp server).

    python docs/screenshot.py            # the README's: the demo graph's canvas (docs/images/canvas.png)
    python docs/screenshot.py overview   # the overview guide's: %goverview of the standard library's imports,
                                         # its top level and its largest group opened in place
                                         # (docs/images/overview*.png), and one in JupyterLab Dark to look at

Uses the browser tests' own driver (tests/jupyter_page.py).
"""

from __future__ import annotations

import ast
import json
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.jupyter_page import JupyterPage, JupyterServer, browser, contrast  # noqa: E402  (the path above first)

IMAGES = ROOT / "docs" / "images"
CELLS = [
    "%load_ext gestalt_nb\n%gestalt demo",
    "%%gcypher -o people --caption name\nMATCH (p:Person)-[r]->(x) RETURN p, r, x LIMIT 80",
]
CANVAS = ".jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]"
#: Where the dark-theme picture goes: it is looked at, not shown in the docs.
DARK = Path(tempfile.gettempdir()) / "overview-dark.png"


def write_notebook(server: JupyterServer, name: str, cells: list[str]) -> None:
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
                          for s in cells], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                       "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    (server.root / name).write_text(json.dumps(notebook), encoding="utf-8")


def main() -> None:
    server = JupyterServer("lab")
    try:
        write_notebook(server, "tour.ipynb", CELLS)
        server.start()
        with browser() as chromium:
            page = JupyterPage(chromium, server, viewport={"width": 1200, "height": 820})
            page.open("tour.ipynb")
            page.run_all()
            page.pause(6)  # the layout settles and stops
            canvas = page.page.locator(".gestalt-canvas, canvas").last
            canvas.scroll_into_view_if_needed()
            page.pause(1)
            page.page.screenshot(path=str(IMAGES / "canvas.png"))
            page.close()
    finally:
        server.cleanup()


def stdlib_imports() -> tuple[list[str], list[tuple[str, str]]]:
    """The running Python's standard library as a graph: every module that parses (its tests included), and an
    edge from each module to each stdlib module it imports (``from p import m`` goes to the module p.m if there is one)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files: dict[str, tuple[Path, bool]] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if any(part in ("site-packages", "dist-packages") or "-" in part for part in parts):
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if name:
            files[name] = (path, parts[-1] == "__init__")
    modules, edges = [], set()
    for name, (path, package) in files.items():
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):  # the tests' deliberately broken files
            continue
        modules.append(name)
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    start = here
                    for _ in range(node.level - 1):
                        start = start.rpartition(".")[0]
                    base = ".".join(part for part in (start, base) if part)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.add((name, target))
    known = set(modules)
    return modules, sorted((a, b) for a, b in edges if b in known)


def stdlib_database(path: Path) -> tuple[int, int]:
    """A fresh LMDB database of the standard library's imports: (:Module {name, package})-[:IMPORTS]->(:Module)."""
    import pyarrow as pa

    import gestalt_nb

    modules, edges = stdlib_imports()
    connection = gestalt_nb.create(str(path), alias="stdlib")
    connection.db.ingest_arrow(
        pa.array(modules), pa.array([f"i{n}" for n in range(len(edges))]), pa.array([a for a, _ in edges]),
        pa.array([b for _, b in edges]), pa.array(["IMPORTS"] * len(edges)), labels=pa.array([["Module"]] * len(modules)),
        node_properties={"name": pa.array(modules), "package": pa.array([m.split(".")[0] if "." in m else None for m in modules])})
    connection.close()
    return len(modules), len(edges)


def shoot(page: JupyterPage, name: Path) -> None:
    """The canvas (toolbar, drawing, status line and legend), nothing around it, with no hover tooltip."""
    page.page.evaluate(f"() => document.querySelector('{CANVAS}').scrollIntoView({{block: 'center'}})")
    page.page.mouse.move(2, 2)
    page.pause(1)
    page.page.locator(CANVAS).first.screenshot(path=str(name))


def overview() -> None:
    server = JupyterServer("lab")
    try:
        counts = stdlib_database(server.root / "stdlib")
        print(f"the standard library: {counts[0]:,} modules, {counts[1]:,} imports")
        write_notebook(server, "overview.ipynb", ["%load_ext gestalt_nb\n%gestalt open stdlib", "%goverview -o whole"])
        server.start()
        with browser() as chromium:
            page = JupyterPage(chromium, server, viewport={"width": 1280, "height": 1000})
            page.open("overview.ipynb")
            page.menu("View", "Appearance", "Show Left Sidebar")  # off: the canvas gets the width
            page.run_all()
            page.page.wait_for_function(f"() => document.querySelector('{CANVAS}')?.gestaltCanvas", timeout=60_000)
            page.pause(5)  # the layout over the groups settles and stops
            shoot(page, IMAGES / "overview.png")
            print(page.kernel_json("import json\nprint(json.dumps(whole.groups[['size', 'caption']].values.tolist()))"))
            page.kernel_json("whole.canvas.drill(0)\nprint(json.dumps(whole.within(0).groups[['size', 'caption']].values.tolist()))")
            page.page.wait_for_function(f"() => !document.querySelector('{CANVAS}').gestaltCanvas.graphPosition('group:0')", timeout=30_000)
            page.pause(2)  # the others glide aside
            shoot(page, IMAGES / "overview-drilled.png")
            page.menu("Settings", "Theme", "JupyterLab Dark")
            page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
            page.pause(3)
            shoot(page, DARK)
            notes = contrast(page, f"{CANVAS} .gc-notes")
            print(f"dark theme: the notes banner's text has a contrast of {notes:.1f}:1 with its background")
            if notes < 4.5:
                raise SystemExit("the notes banner does not read on JupyterLab Dark (contrast under 4.5:1)")
            print(f"pictures: {IMAGES / 'overview.png'}, {IMAGES / 'overview-drilled.png'}, {DARK} (dark, to look at)")
            page.close()
    finally:
        server.cleanup()


if __name__ == "__main__":
    overview() if sys.argv[1:] == ["overview"] else main()
