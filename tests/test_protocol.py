"""The canvas's page ↔ kernel protocol: both sides list the same kinds, and the kernel survives any page input.

The page's messages are untrusted: every kind, sent malformed (wrong types, huge numbers, missing or
extra fields, not an object at all), must be logged and dropped by a real ``GraphCanvas`` — never an
exception in the comm handler, never a changed state.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from gestalt_nb.canvas import GraphCanvas, protocol
from gestalt_nb.canvas.widget import HANDLERS
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js" / "src"


def _js_list(name: str) -> set[str]:
    text = (JS / "protocol.js").read_text(encoding="utf-8")
    found = re.search(rf"export const {name} = /\*\* @type {{const}} \*/ \(\[([^\]]*)\]\)", text)
    assert found, f"js/src/protocol.js declares no {name}"
    return set(re.findall(r'"([a-z]+)"', found.group(1)))


def test_both_sides_declare_the_same_kinds():
    assert _js_list("PAGE_SENDS") == set(protocol.PAGE_KINDS) == set(HANDLERS)
    assert _js_list("PAGE_HANDLES") == set(protocol.KERNEL_KINDS)


def test_both_sides_declare_the_same_relationship_columns():
    text = (JS / "protocol.js").read_text(encoding="utf-8")
    found = re.search(r"export const EDGE_COLUMNS = /\*\* @type {const} \*/ \(\[([^\]]*)\]\)", text)
    assert found and tuple(re.findall(r'"([a-z]+)"', found.group(1))) == protocol.EDGE_COLUMNS == ("id", "s", "t", "y", "h", "p", "w")


def test_what_the_page_sends_and_handles_is_declared():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in JS.glob("*.js"))
    sent = set(re.findall(r'send\(\{\s*kind:\s*"([a-z]+)"', sources))
    handled = set(re.findall(r'msg\.kind (?:===|!==) "([a-z]+)"', sources))
    assert sent == set(protocol.PAGE_KINDS), sent ^ set(protocol.PAGE_KINDS)
    assert handled == set(protocol.KERNEL_KINDS), handled ^ set(protocol.KERNEL_KINDS)
    python = (ROOT / "gestalt_nb" / "canvas" / "widget.py").read_text(encoding="utf-8")
    assert set(re.findall(r'\{"kind": "([a-z]+)"', python)) == set(protocol.KERNEL_KINDS)


def canvas() -> GraphCanvas:
    graph = Subgraph()
    for name in ("a", "b", "c"):
        graph.add_node(Node(name, ("N",), {"name": name}))
    graph.add_edge(Edge("ab", "a", "b", "T"))
    return GraphCanvas(graph)


BAD = {
    "click": [{"id": None}, {"id": ["a"]}, {"id": {"x": 1}}, {"id": "x" * 20_000}, {}],
    "dblclick": [{"id": True}, {"id": 3.5j if False else [1]}, {}],
    "undo": [],
    "collapse": [{"ids": "a"}, {"ids": []}, {"ids": [None]}, {"ids": ["x" * 20_000]}, {}],
    "sync": [{"have": "lots"}, {"have": 10**30}, {"have": -1}, {"have": float("nan")}, {"have": [1]}],
    "ready": [{"ms": "fast"}, {"nodes": -5}, {"ms": 10**40}],
    "shown": [{"ids": "a"}, {"ids": ["a"], "xy": [1], "r": [1], "ci": [0], "colors": [], "hidden": []}, {"width": "wide"}],
    "path": [{"ids": "ab"}, {"ids": ["a"]}, {"ids": ["a", None]}, {"ids": ["a", "b", "c"]}],
}


@pytest.mark.parametrize("kind", protocol.PAGE_KINDS)
def test_malformed_page_messages_are_logged_and_dropped(kind, caplog):
    drawn = canvas()
    calls = []
    drawn.on_click(calls.append)
    drawn.on_double_click(calls.append)
    before = (drawn.revision, drawn.shown, drawn.ready_info, sorted(drawn.subgraph.nodes))
    for fields in BAD[kind]:
        with caplog.at_level(logging.WARNING, logger="gestalt_nb.canvas.protocol"):
            caplog.clear()
            drawn._message(drawn, {"kind": kind, **fields}, None)  # must not raise
            assert any("dropped a malformed" in record.getMessage() for record in caplog.records), (kind, fields)
    assert (drawn.revision, drawn.shown, drawn.ready_info, sorted(drawn.subgraph.nodes)) == before
    assert calls == []


@pytest.mark.parametrize("content", [None, "click", 42, ["click"], {"kind": 7}, {"kind": "rm -rf"}, {}])
def test_messages_that_are_not_a_known_kind_are_dropped(content, caplog):
    drawn = canvas()
    with caplog.at_level(logging.WARNING, logger="gestalt_nb.canvas.protocol"):
        drawn._message(drawn, content, None)
    assert any("unknown kind" in record.getMessage() for record in caplog.records)


def test_well_formed_messages_reach_their_handlers():
    drawn = canvas()
    clicks, doubles = [], []
    drawn.on_click(clicks.append)
    drawn.on_double_click(doubles.append)
    drawn._message(drawn, {"kind": "click", "id": "a"}, None)
    drawn._message(drawn, {"kind": "dblclick", "id": "b"}, None)
    drawn._message(drawn, {"kind": "ready", "ms": 120, "nodes": 3}, None)
    assert clicks == ["a"] and doubles == ["b"]
    assert drawn.ready_info == {"kind": "ready", "ms": 120, "nodes": 3}


def _fields(body: str) -> list[str]:
    """The top-level ``name: type`` parts of a JSDoc object type's body (commas inside <>, {}, [] and () aside)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch in "<{[(") - (ch in ">}])")
        if ch == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    parts.append(body[start:].strip())
    return [part for part in parts if part]


def js_ops(text: str) -> dict[str, tuple[set[str], set[str]]]:
    """protocol.js's delta steps: ``op`` kind → (required fields, optional fields), from its ``{{op: "…", …}}`` typedefs."""
    found = {}
    for body in re.findall(r"@typedef \{\{(op: .*?)\}\} \w+Op\b", text):
        fields = dict(re.match(r"(\w+)(\??):\s*(.*)", part, re.S).group(1, 2) for part in _fields(body))
        kind = re.search(r'^op: "([a-z]+)"', body).group(1)
        fields.pop("op")
        found[kind] = ({name for name, optional in fields.items() if not optional}, {name for name, optional in fields.items() if optional})
    return found


def python_ops() -> dict[str, tuple[set[str], set[str]]]:
    return {kind: tuple(set(fields) for fields in protocol.op_fields(declared)) for kind, declared in zip(protocol.OP_KINDS, protocol.OPS, strict=True)}


def test_both_sides_declare_the_same_delta_steps_with_the_same_fields():
    text = (JS / "protocol.js").read_text(encoding="utf-8")
    assert js_ops(text) == python_ops()
    assert _js_list("OP_KINDS") == set(protocol.OP_KINDS) == {"add", "remove", "highlight", "fit", "style", "layout", "filter"}


def test_the_step_comparison_sees_a_field_or_a_kind_that_differs():
    text = (JS / "protocol.js").read_text(encoding="utf-8")
    assert "hide?: string[]" in text and '{{op: "fit"}}' in text
    assert js_ops(text.replace("hide?: string[]", "hide: string[]")) != python_ops()  # optional on one side only
    assert js_ops(text.replace("hide?: string[]", "hidden?: string[]")) != python_ops()  # another name
    assert js_ops(text.replace('{{op: "fit"}}', '{{op: "zoom"}}')) != python_ops()  # another kind


def test_the_page_applies_every_kind_through_one_table():
    delta = (JS / "delta.js").read_text(encoding="utf-8")
    table = re.search(r"export const APPLY = \{\n(.*?)\n\};", delta, re.S)
    assert table, "js/src/delta.js has no APPLY table"
    assert set(re.findall(r"^  (\w+)\(", table.group(1), re.M)) == set(protocol.OP_KINDS)
    assert not re.search(r'op\.op === "', "\n".join(path.read_text(encoding="utf-8") for path in JS.rglob("*.js")))  # no if-chain on the kind
    python = "\n".join((ROOT / "gestalt_nb" / "canvas" / name).read_text(encoding="utf-8") for name in ("widget.py", "encode.py"))
    assert set(re.findall(r'\w+Op\(\s*op="([a-z]+)"', python)) == set(protocol.OP_KINDS)  # the kernel builds each from its declaration


def test_the_protocol_doc_names_every_kind_and_setting():
    """docs/protocol.md names every page message, kernel message and delta step (as `kind` in its tables), and every
    key of the settings trait."""
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \|", doc, re.M))
    missing = (set(protocol.PAGE_KINDS) | set(protocol.KERNEL_KINDS) | set(protocol.OP_KINDS)) - rows
    assert missing == set(), f"docs/protocol.md has no row for {sorted(missing)}"
    settings_row = re.search(r"^\| `settings` \|.*$", doc, re.M)
    assert settings_row, "docs/protocol.md has no row for the settings trait"
    keys = set(canvas().settings)
    assert keys >= {"expandable", "collapsible", "caption"} and keys <= set(re.findall(r"`(\w+)`", settings_row.group(0))), keys
