"""The first ten minutes: what a newcomer hits after the README's demo command."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from packaging.markers import Marker
from packaging.requirements import Requirement

import gestalt_nb
from gestalt_nb.session import REGISTRY

from .conftest import run

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


# -- the demo command installs what the notebooks import ---------------------------------------------


def demo_command_extras() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**Open the demo**") :]
    command = re.search(r"```bash\n(.*?)\n```", section, re.S).group(1)
    extras = re.search(r'pip install -e "\.\[([\w,-]+)\]"', command).group(1)
    return extras.split(",")


def project_requirements() -> list[str]:
    """This checkout's own requirements, as the metadata lines pip would write for them."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra, requirements in project["optional-dependencies"].items():
        lines += [f"{line} ; extra == '{extra}'" for line in requirements]
    return lines


def closure(name: str, extras: list[str], seen: set[str] | None = None) -> set[str]:
    """Every distribution ``pip install name[extras]`` installs (this checkout's pyproject, then the
    installed metadata of each dependency)."""
    seen = set() if seen is None else seen
    key = name.lower().replace("_", "-")
    if key in seen:
        return seen
    seen.add(key)
    for line in project_requirements() if key == "gestalt-nb" else metadata.requires(name) or []:
        requirement = Requirement(line)
        marker = requirement.marker or Marker("python_version >= '0'")
        if any(marker.evaluate({"extra": extra}) for extra in extras or [""]):
            closure(requirement.name, list(requirement.extras), seen)
    return seen


def third_party_imports(source: str) -> set[str]:
    """Modules a cell imports; an import under ``if ...find_spec(...)`` is optional (it checks first)."""
    names = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "find_spec" in ast.unparse(node.test):
            for item in node.orelse:
                visit(item)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return names


def gestalt_nb_needs(module: str, seen: set[str]) -> set[str]:
    """The third-party modules a gestalt_nb module imports at load time (following its own imports)."""
    if module in seen:
        return set()
    seen.add(module)
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:  # top-level imports only: lazy imports inside functions are optional paths
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_LAZY" for t in node.targets):
            # a package's names loaded on first use (PEP 562 __getattr__): importing them loads these modules
            found.update(f"{module}.{value.value}" for value in node.value.values if isinstance(value, ast.Constant))
        blocks = [node] + (node.body if isinstance(node, ast.Try) else [])
        for item in blocks:
            if isinstance(item, ast.Import):
                found.update(alias.name for alias in item.names)
            elif isinstance(item, ast.ImportFrom):
                if item.level:
                    base = module.rsplit(".", item.level if path.name != "__init__.py" else item.level - 1)[0] if item.level else ""
                    target = f"{base}.{item.module}" if item.module else base
                    found.add(target)
                elif item.module:
                    found.add(item.module)
    needs = set()
    for name in found:
        if name.split(".")[0] == "gestalt_nb":
            needs |= gestalt_nb_needs(name, seen) if (ROOT / (name.replace(".", "/") + ".py")).exists() or (ROOT / name.replace(".", "/")).is_dir() else set()
        else:
            needs.add(name)
    return needs


def notebook_needs(path: Path) -> set[str]:
    cells = ["".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    modules: set[str] = set()
    for cell in cells:
        if cell.lstrip().startswith("%%"):
            continue  # a cell magic's body is not Python (here: Cypher)
        python = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.splitlines())
        modules |= third_party_imports(python)
        modules |= set(re.findall(r"^\s*%load_ext\s+(\S+)", cell, re.M))
        if re.search(r"renderer[ =]+['\"]?pyvis", cell):
            modules.add("pyvis")
    needs: set[str] = set()
    for module in modules:
        if module.split(".")[0] == "gestalt_nb":
            needs |= gestalt_nb_needs(module, set())
        else:
            needs.add(module)
    return {name.split(".")[0] for name in needs} - set(sys.stdlib_module_names) - {"gestalt_nb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_the_readme_demo_command_installs_every_module_each_notebook_imports(path):
    installed = closure("gestalt-nb", demo_command_extras())
    providers = metadata.packages_distributions()
    missing = {}
    for module in notebook_needs(path):
        dists = {name.lower().replace("_", "-") for name in providers.get(module, [module])}
        if not dists & installed:
            missing[module] = sorted(dists)
    assert not missing, f"{path.name} imports {missing}, not installed by pip install -e '.[{','.join(demo_command_extras())}]'"


def test_the_notebook_import_check_catches_a_module_the_demo_extras_leave_out():
    assert "langgraph" in notebook_needs(ROOT / "notebooks" / "05_agents.ipynb")  # via gestalt_nb.agents
    assert "langgraph" not in closure("gestalt-nb", ["pyvis"])


# -- one line for a missing optional dependency, and for GestaltError from a plain call ----------------


def hide(monkeypatch, package: str) -> None:
    """As if ``package`` were not installed: its modules (even ones imported earlier) fail to import."""
    for name in [name for name in sys.modules if name == package or name.startswith(package + ".")] + [package]:
        monkeypatch.setitem(sys.modules, name, None)


def test_a_missing_pyvis_is_one_line_with_the_pip_command(shell, demo, monkeypatch, capsys, caplog):
    hide(monkeypatch, "pyvis")
    with pytest.raises(UsageError, match=r"^The pyvis renderer needs pyvis, which is not installed: pip install 'gestalt-nb\[pyvis\]'; or keep"):
        run(shell, "%gcypher --renderer pyvis MATCH (p:Person) RETURN p LIMIT 2")
    result = run(shell, "%gcypher MATCH (p:Person) RETURN p LIMIT 2")
    capsys.readouterr()
    shell.run_cell("import gestalt_nb; gestalt_nb.show(gestalt_nb.last_result(), renderer='pyvis')", store_history=False)
    shown = capsys.readouterr().out.strip()
    assert shown.count("\n") == 0 and "MissingDependency" in shown and "pip install 'gestalt-nb[pyvis]'" in shown
    run(shell, "%config GestaltMagic.renderer = 'pyvis'")  # %config refuses it and logs why
    assert gestalt_nb.settings.renderer == "canvas" and "pip install 'gestalt-nb[pyvis]'" in caplog.text
    assert len(result) == 2


def test_a_missing_langgraph_is_one_line_with_the_pip_command(shell, monkeypatch, capsys):
    hide(monkeypatch, "langgraph")
    monkeypatch.delitem(sys.modules, "gestalt_nb.agents.agent", raising=False)
    with pytest.raises(ImportError, match=r"gestalt_nb.agents needs LangGraph, which is not installed: pip install 'gestalt-nb\[agents\]'"):
        import gestalt_nb.agents.agent  # noqa: F401 - the agent moved here; gestalt_nb.agents loads it on first use
    monkeypatch.delitem(sys.modules, "gestalt_nb.agents.agent", raising=False)
    capsys.readouterr()
    shell.run_cell("from gestalt_nb.agents import build_graph_agent", store_history=False)
    shown = capsys.readouterr().out.strip()
    assert shown.count("\n") == 0 and shown.endswith("pip install 'gestalt-nb[agents]'.")


def test_gestalt_error_from_a_plain_python_call_is_one_line_unless_short_errors_is_off(shell, demo, capsys):
    shell.user_ns["bad"] = __import__("pandas").DataFrame({"src": ["alice"], "dst": ["nobody"]})
    source = "import gestalt_nb; gestalt_nb.load_edges(bad, source='src', target='dst', type='KNOWS')"
    capsys.readouterr()
    outcome = shell.run_cell(source, store_history=False)
    short = capsys.readouterr().out.strip()
    assert isinstance(outcome.error_in_exec, gestalt_nb.GestaltError)
    assert short.count("\n") == 0 and "GestaltError" in short and "nobody" in short and "Traceback" not in short
    run(shell, "%config GestaltMagic.short_errors = False")
    shell.run_cell(source, store_history=False)
    full = capsys.readouterr().out
    assert "Traceback" in full and full.count("\n") > 5


# -- the demo connection is reused; a re-run notebook prints no noise --------------------------------


def test_gestalt_demo_again_reuses_the_demo_and_load_ext_again_is_silent(shell, capsys):
    run(shell, "%load_ext gestalt_nb")
    run(shell, "%gestalt demo")
    first = gestalt_nb.connection()
    capsys.readouterr()
    run(shell, "%load_ext gestalt_nb")
    run(shell, "%gestalt demo")
    out = capsys.readouterr().out
    assert "already loaded" not in out and out.startswith("Already open: 'demo'")
    assert list(REGISTRY.connections) == ["demo"] and gestalt_nb.connection() is first
    run(shell, "%config GestaltMagic.row_limit = 7")
    run(shell, "%load_ext gestalt_nb")  # loading again keeps the settings
    assert gestalt_nb.settings.row_limit == 7
    assert len({id(m) for m in shell.configurables if type(m).__name__ == "GestaltMagic"}) == 1


# -- -P is taken verbatim -----------------------------------------------------------------------------


def test_params_are_taken_verbatim_nested_and_quoted(shell, demo):
    nested = run(shell, "%gcypher -P {'a': {'b': 1}, 'name': 'Carla Ruiz'} MATCH (p:Person {name: $name}) RETURN $a AS a, p.name AS n")
    assert nested.records == [{"a": {"b": 1}, "n": "Carla Ruiz"}]
    assert nested.params_source == "{'a': {'b': 1}, 'name': 'Carla Ruiz'}"
    cell = run(shell, "%%gcypher --limit 5 -P dict(name='Carla Ruiz', who = {'x': [1, 2]}) -o kept\nMATCH (p:Person {name: $name}) RETURN p.name AS n, $who AS w")
    assert cell.records == [{"n": "Carla Ruiz", "w": {"x": [1, 2]}}] and shell.user_ns["kept"] is cell
    with pytest.raises(UsageError, match=re.escape("-P must give a dict with string keys; __import__('os').getpid() gave a int")):
        run(shell, "%gcypher -P __import__('os').getpid() MATCH (p:Person) RETURN p")


# -- unwritable directory, full disk -------------------------------------------------------------------


@pytest.fixture
def mounted(tmp_path):
    """Small tmpfs mounts (root only), unmounted afterwards."""
    points = []

    def mount(name: str, size: str) -> Path:
        point = tmp_path / name
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], capture_output=True)
        if done.returncode:
            pytest.skip(f"cannot mount a size-limited tmpfs here ({done.stderr.decode().strip() or 'not root'})")
        points.append(point)
        return point

    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    yield mount
    REGISTRY.close_all()
    for point in reversed(points):
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_an_unwritable_database_directory_gives_a_clear_message(shell, mounted):
    place = mounted("ro", "8m")
    run(shell, f"%gestalt create {place / 'db'}")
    run(shell, "%gcypher --write CREATE (n:Kept {name: 'x'}) RETURN n")
    REGISTRY.close_all()
    subprocess.run(["mount", "-o", "remount,ro", str(place)], check=True)
    for line in (f"%gestalt open {place / 'db'}", f"%gestalt create {place / 'new'}", f"%gestalt demo {place / 'demo'}"):
        with pytest.raises(UsageError, match=r"the directory is not writable \(Read-only file system\)\. To read it, open it with read_only=True"):
            run(shell, line)


def test_a_full_disk_gives_a_clear_message_and_leaves_the_database_as_it_was(shell, mounted):
    import pandas as pd

    place = mounted("full", "1m")
    run(shell, f"%gestalt create {place / 'db'} --map-size 64MiB")
    run(shell, "%gcypher --write CREATE (n:Kept {name: 'before'}) RETURN n")
    shell.user_ns["rows"] = pd.DataFrame({"id": [f"n{i}" for i in range(20000)], "text": ["x" * 200] * 20000})
    with pytest.raises(UsageError, match=r"Cannot load into the database: the disk holding .* is full .*Nothing was written; the database is as it was"):
        run(shell, "%gload nodes rows --id id --label N")
    with pytest.raises(UsageError, match=r"Cannot write to the database: the disk holding .* is full"):
        run(shell, "%gcypher --write UNWIND range(1, 20000) AS i CREATE (n:M {i: i, t: 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'}) RETURN count(*) AS c")
    assert run(shell, "%gcypher MATCH (n) RETURN n.name AS name").records == [{"name": "before"}]


# -- the demo opens copies, so the checkout stays clean -------------------------------------------------


def test_the_demo_command_opens_copies_in_a_scratch_folder_and_leaves_the_notebooks_alone(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[lab]" && python -m gestalt_nb.open_demo --allow-root' in readme
    before = {path.name: path.read_bytes() for path in NOTEBOOKS}
    target = tmp_path / "demo"

    def open_demo(*options):
        done = subprocess.run(
            [sys.executable, "-m", "gestalt_nb.open_demo", "--dir", str(target), "--dry-run", "--allow-root", *options],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
        )
        return done.stdout

    first = open_demo()
    assert f"{len(NOTEBOOKS)} copied, 0 kept" in first
    assert f"-m jupyterlab --ServerApp.root_dir={target} --allow-root {target / '01_quickstart.ipynb'}" in first
    assert sorted(p.name for p in target.glob("*.ipynb")) == sorted(before)
    (target / "01_quickstart.ipynb").write_text("{}", encoding="utf-8")  # the person's own edits and outputs
    assert f"0 copied, {len(NOTEBOOKS)} kept" in open_demo() and (target / "01_quickstart.ipynb").read_text() == "{}"
    assert f"{len(NOTEBOOKS)} copied, 0 kept" in open_demo("--fresh")
    assert {path.name: path.read_bytes() for path in NOTEBOOKS} == before
    inside = subprocess.run(
        [sys.executable, "-m", "gestalt_nb.open_demo", "--dir", str(ROOT / "notebooks"), "--dry-run"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert inside.returncode and "choose a folder outside it" in inside.stderr
