"""The package's folders are its architecture: imports point one way, and modules stay readable.

Read from the source with ``ast`` (nothing is imported): every run-time import inside the package,
module-level or deferred into a function, goes from a higher layer to a lower one or stays within
its own folder. Imports under ``if TYPE_CHECKING:`` are for annotations only and do not count.
The JavaScript (``js/src``, ``js/labextension/src``) is held to the same size rule as the Python.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gestalt_nb"

#: Lower numbers are lower layers; a module may import its own folder and anything in a lower layer.
LAYERS = {
    "errors": 0, "options": 0, "deferred": 0, "shorten": 0, "checks": 0,  # one error type, the settings, names imported on first use, argument checks
    "engine": 0.5,  # GestaltDB's and LMDB's private parts, behind one door (engine/__init__.py)
    "display": 1, "outputs": 1,  # how a widget is shown as its picture and its live output (outputs.py)
    "graph": 2,
    "cypher": 3,
    "temporal": 3.2,  # time as an axis: history in (engine versions), reads as of a moment over cypher/, diffs
    "grouped": 3.5,  # seeing a graph whole: reads through graph/, budgets from cypher/
    "data": 4,
    "claims": 5,
    "feed": 6,
    "memory": 7,
    "agents": 8,
    "graphrag": 9,
    "capabilities": 9.5,  # Connection's capabilities, each written out over the lower module's function
    "makers": 9.5,  # Connection's makers (toolkits, claims, retriever, memory store), each written out over the class it makes
    "session": 10, "open_demo": 10,
    "render": 11, "canvas": 11, "views": 11,  # the drawing side: one layer (ARCHITECTURE.md)
    "magics": 12,
    "__init__": 13, "api": 13,  # the public calls (api) and the package that names them lazily
}
#: Layers whose parts may use each other.
SHARED = {0, 11}
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, path.relative_to(PACKAGE)


def part(relative: Path) -> str:
    """The top-level folder or module a file belongs to."""
    return relative.parts[0].removesuffix(".py") if len(relative.parts) > 1 or relative.name != "__init__.py" else "__init__"


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def runtime_imports(tree: ast.AST):
    """Import nodes outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                stack.extend(child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            stack.append(child)


def targets(node: ast.AST, relative: Path) -> list[str]:
    """The top-level parts of gestalt_nb an import reaches (``__init__`` for the package top itself:
    ``import gestalt_nb``, ``from gestalt_nb import run``, ``from .. import run``)."""
    package = list(relative.parent.parts)
    if isinstance(node, ast.Import):
        names = [alias.name.split(".") for alias in node.names if alias.name.split(".")[0] == "gestalt_nb"]
        return [name[1] if len(name) > 1 else "__init__" for name in names]
    if node.level == 0:
        if (node.module or "").split(".")[0] != "gestalt_nb":
            return []
        inner = (node.module or "").split(".")[1:]
    else:
        inner = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
    if inner:
        return [inner[0]]
    # `from gestalt_nb import x` / `from .. import x`: a top-level module, or a name of the package top
    return [alias.name if alias.name in LAYERS and alias.name != "__init__" else "__init__" for alias in node.names]


def violations():
    found = []
    for path, relative in modules():
        here = part(relative)
        tree = ast.parse(path.read_text(), str(path))
        for node in runtime_imports(tree):
            for target in targets(node, relative):
                if target == here or target not in LAYERS:
                    continue
                if LAYERS[target] > LAYERS[here] or (LAYERS[target] == LAYERS[here] and LAYERS[here] not in SHARED):
                    found.append(f"{relative}:{node.lineno} ({here}, layer {LAYERS[here]}) imports {target} (layer {LAYERS[target]})")
    return found


def test_every_top_level_part_has_a_layer():
    parts = {part(relative) for _, relative in modules()}
    assert parts <= set(LAYERS), f"give these a layer in LAYERS: {sorted(parts - set(LAYERS))}"


def test_shared_layers_are_named():
    assert SHARED <= set(LAYERS.values())


def test_imports_point_down():
    assert violations() == []


def test_the_rule_catches_an_upward_import(tmp_path):
    """The walker itself: a deferred import from graph/ into views/ is found, a TYPE_CHECKING one is not."""
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..session import Connection\ndef f():\n    from ..views import VIEWS\n"
    tree = ast.parse(source)
    reached = [t for node in runtime_imports(tree) for t in targets(node, Path("graph/x.py"))]
    assert reached == ["views"]


@pytest.mark.parametrize(
    "source, where",
    [
        ("import gestalt_nb\n", "magics/agents.py"),
        ("import gestalt_nb as g\n", "graph/x.py"),
        ("from gestalt_nb import run\n", "magics/agents.py"),
        ("from .. import run\n", "magics/agents.py"),
        ("from . import run\n", "session.py"),
    ],
)
def test_the_rule_catches_an_import_of_the_package_top(source, where):
    """Importing the package itself from inside it is an upward import (the top is the highest layer)."""
    reached = [t for node in runtime_imports(ast.parse(source)) for t in targets(node, Path(where))]
    assert reached == ["__init__"]


def test_the_rule_still_reads_submodules_named_from_the_top():
    reached = [t for node in runtime_imports(ast.parse("from gestalt_nb import views\nfrom .. import display\n")) for t in targets(node, Path("graph/x.py"))]
    assert reached == ["views", "display"]


def test_folders_say_what_they_hold():
    for folder in sorted(p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text()))
        assert doc and len(doc) > 40, f"{folder.name}/__init__.py needs a docstring saying what lives there"


@pytest.mark.parametrize("limit", [MAX_MODULE_LINES])
def test_modules_stay_small(limit):
    long = [f"{relative}: {n} lines" for path, relative in modules() if (n := len(path.read_text().splitlines())) > limit]
    assert long == []


def test_functions_stay_small():
    long = []
    for path, relative in modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{relative}:{node.lineno} {node.name}: {n} lines")
    assert long == []


def test_a_deferred_package_import_says_why():
    """An import of gestalt_nb's own modules inside a function is there for start-up time (or an optional
    package) and says so on its line; any other belongs at the top of the module."""
    silent = []
    for path, relative in modules():
        lines = path.read_text().splitlines()
        for function in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                own = isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "gestalt_nb")
                if own and "#" not in lines[node.end_lineno - 1]:
                    silent.append(f"{relative}:{node.lineno} {ast.unparse(node)}")
    assert silent == []


def test_no_private_name_is_used_outside_its_part():
    """A name starting with one underscore is its module's (or its folder's) own: no other part imports it."""
    crossing = []
    for path, relative in modules():
        for node in runtime_imports(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            private = [alias.name for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
            if private and any(target != part(relative) for target in targets(node, relative)):
                crossing.append(f"{relative}:{node.lineno} {', '.join(private)}")
    assert crossing == []


def _module_of(relative: Path) -> str:
    return ".".join(relative.with_suffix("").parts).removesuffix(".__init__") or "__init__"


def _resolve(base: list[str], name: str | None) -> str | None:
    """The module a name imported from ``base`` is: a submodule when a file holds it, else ``base`` itself."""
    for candidate in ([*base, name] if name else None, base):
        if candidate is None:
            continue
        path = PACKAGE.joinpath(*candidate)
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file() or not candidate:
            return ".".join(candidate) or "__init__"
    return None


def import_graph() -> dict[str, set[str]]:
    """Every module of the package → the package modules it imports at run time (deferred ones too)."""
    graph: dict[str, set[str]] = {}
    for path, relative in modules():
        here = _module_of(relative)
        package = list(relative.parent.parts)
        found = graph.setdefault(here, set())
        for node in runtime_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                bases = [alias.name.split(".")[1:] for alias in node.names if alias.name.split(".")[0] == "gestalt_nb"]
                found.update(filter(None, (_resolve(base, None) for base in bases)))
                continue
            if node.level == 0 and (node.module or "").split(".")[0] != "gestalt_nb":
                continue
            base = (node.module or "").split(".")[1:] if node.level == 0 else \
                package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            found.update(filter(None, (_resolve(base, alias.name) for alias in node.names)))
        found.discard(here)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_import_cycle_among_the_package_modules():
    """Modules import one another one way, deferred imports included (``TYPE_CHECKING`` imports aside)."""
    assert cycles(import_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]

# -- the JavaScript (js/src, js/labextension/src): the same size rule, read from the code's own braces --------------

JS_ROOTS = (PACKAGE.parent / "js" / "src", PACKAGE.parent / "js" / "labextension" / "src")
_CONTROL = {"if", "for", "while", "switch", "catch", "with"}  # a `(...) {` of these opens a block, not a function
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^")  # after these (or at the start, or after return / typeof …) `/` starts a regex
_BEFORE_REGEX_WORDS = {"return", "typeof", "case", "of", "in", "do", "else", "void", "delete", "new", "yield", "await"}


def js_sources():
    for root in JS_ROOTS:
        for path in sorted(root.rglob("*.js")):
            yield path, path.relative_to(PACKAGE.parent)


def _js_code(text: str) -> str:
    """``text`` with its comments, strings, template literals and regular expressions blanked (newlines kept), so the
    braces and parentheses left are the code's own."""
    out, n, i = list(text), len(text), 0

    def skip_string(k: int, quote: str) -> int:
        while k < n and text[k] != quote and text[k] != "\n":
            k += 2 if text[k] == "\\" else 1
        return k + 1

    def skip_template(k: int) -> int:
        while k < n and text[k] != "`":
            if text[k] == "\\":
                k += 2
            elif text.startswith("${", k):
                depth, k = 1, k + 2
                while k < n and depth:
                    if text[k] in "'\"":
                        k = skip_string(k + 1, text[k])
                        continue
                    if text[k] == "`":
                        k = skip_template(k + 1)
                        continue
                    depth += (text[k] == "{") - (text[k] == "}")
                    k += 1
            else:
                k += 1
        return k + 1

    def regex_may_start(k: int) -> bool:
        j = k - 1
        while j >= 0 and out[j].isspace():
            j -= 1
        if j < 0 or out[j] in _BEFORE_REGEX:
            return True
        end = j + 1
        while j >= 0 and (out[j].isalnum() or out[j] in "_$"):
            j -= 1
        return "".join(out[j + 1 : end]) in _BEFORE_REGEX_WORDS

    def skip_regex(k: int) -> int:
        in_class = False
        while k < n and text[k] != "\n" and (in_class or text[k] != "/"):
            if text[k] == "\\":
                k += 1
            elif text[k] in "[]":
                in_class = text[k] == "["
            k += 1
        k += 1
        while k < n and text[k].isalpha():
            k += 1
        return k

    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i) % (n + 1)
        elif text.startswith("/*", i):
            end = text.index("*/", i + 2) + 2
        elif text[i] in "'\"":
            end = skip_string(i + 1, text[i])
        elif text[i] == "`":
            end = skip_template(i + 1)
        elif text[i] == "/" and regex_may_start(i):
            end = skip_regex(i + 1)
        else:
            i += 1
            continue
        out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
        i = end
    return "".join(out)


def js_functions(text: str) -> list[tuple[str, int, int]]:
    """``(name, first line, lines)`` of each function in JavaScript source: declarations, methods, getters and
    arrow functions with a block body, from the ``{`` that opens the body to the ``}`` that closes it."""
    code = _js_code(text)
    closing, stack = {}, []
    for k, ch in enumerate(code):
        if ch in "({[":
            stack.append(k)
        elif ch in ")}]" and stack:
            closing[stack.pop()] = k
    opening = {end: start for start, end in closing.items()}
    found = []
    for start, end in sorted(closing.items()):
        head = code[:start].rstrip()
        if code[start] != "{":
            continue
        if head.endswith("=>"):
            named = re.search(r"([\w$]+)\s*=\s*(?:async\s*)?(?:\([^()]*\)|[\w$]+)\s*=>$", head)
            name = named.group(1) if named else "(arrow)"
        elif head.endswith(")") and len(head) - 1 in opening:
            word = re.search(r"([\w$]+)\s*$", code[: opening[len(head) - 1]])
            if not word or word.group(1) in _CONTROL:
                continue
            name = word.group(1)
        else:
            continue
        first = code.count("\n", 0, start) + 1
        found.append((name, first, code.count("\n", 0, end) + 2 - first))
    return found


def test_js_files_stay_small():
    long = [f"{relative}: {n} lines" for path, relative in js_sources() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert long == []


def test_js_functions_stay_small():
    long = [
        f"{relative}:{first} {name}: {n} lines"
        for path, relative in js_sources()
        for name, first, n in js_functions(path.read_text(encoding="utf-8"))
        if n > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_the_js_rule_finds_every_kind_of_function_and_only_functions():
    source = (
        "function top(a) {\n  if (a) {\n    return `${a}}`;\n  }\n  const re = /[{(]/g;\n  return '}';\n}\n"
        "const arrow = (x) => {\n  // } a brace in a comment\n  return x;\n};\n"
        "class C {\n  method() {\n    for (const k of []) {\n    }\n  }\n  get ready() {\n    return 1;\n  }\n}\n"
        "const table = { key: 1 };\n"
    )
    assert [(name, lines) for name, _, lines in js_functions(source)] == [("top", 7), ("arrow", 4), ("method", 4), ("ready", 3)]
    long = "function long() {\n" + "  x();\n" * MAX_FUNCTION_LINES + "}\n"
    assert [lines for _, _, lines in js_functions(long)] == [MAX_FUNCTION_LINES + 2]


def test_the_js_readme_names_every_file_and_the_real_traits():
    """js/README.md maps the canvas's sources: every file of js/src is named there, and the traits it names are the
    canvas's synced traits (the ones Python and the page share)."""
    from gestalt_nb.canvas.widget import GraphCanvas

    readme = (PACKAGE.parent / "js" / "README.md").read_text(encoding="utf-8")
    root = PACKAGE.parent / "js"
    unnamed = [str(path.relative_to(root)) for path in sorted((root / "src").rglob("*")) if path.is_file() and f"`{path.relative_to(root).as_posix()}`" not in readme]
    assert unnamed == [], f"name these in js/README.md: {unnamed}"
    named = re.search(r"traits ((?:`\w+`/?)+)", readme)
    assert named, "js/README.md names no traits"
    widget = GraphCanvas.__mro__[1:]  # the traits every widget has (tooltip, layout …) are not the canvas's own
    inherited = {name for base in widget if hasattr(base, "class_trait_names") for name in base.class_trait_names()}
    synced = {name for name in GraphCanvas.class_trait_names(sync=True) if not name.startswith("_") and name not in inherited}
    assert set(re.findall(r"`(\w+)`", named.group(1))) == synced


def test_no_absolute_path_of_one_machine_is_in_the_repository():
    """Every path in the repository is relative or made where it runs (a temp folder, $GESTALT_SHOTS)."""
    listed = subprocess.run(["git", "grep", "-n", "-I", "-E", r"/work/|/home/[a-z]|/Users/[A-Za-z]"], cwd=PACKAGE.parent,
                            capture_output=True, text=True)
    assert listed.returncode in (0, 1), listed.stderr  # 1: nothing found
    found = [line for line in listed.stdout.splitlines() if not line.startswith("tests/test_layout.py:")]
    assert not found, "absolute paths of one machine:\n" + "\n".join(found[:20])
