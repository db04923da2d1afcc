"""The page cannot put noise in the notebook: crafted comm messages and trait updates, delivered to a real canvas
exactly as the comm delivers them (``Widget._handle_msg``), in a real IPython shell, are dropped with at most one
log line each — no traceback on stdout / stderr, no error shown — and valid ones still work."""

from __future__ import annotations

import gzip
import logging

import pytest
from IPython.utils.capture import capture_output

import gestalt_nb

from .conftest import run

BAD_STATE = [
    {"selected": [1, {}]},
    {"selected": "alice"},
    {"selected": [None]},
    {"selected": ["x" * 20_000]},
    {"selected": list(range(200_000))},
    {"height": "x"},
    {"height": -5},
    {"height": 10**40},
    {"height": float("nan")},
    {"height": None},
    {"graph_gz": "zz"},
    {"graph_gz": b"zz"},
    {"graph_gz": gzip.compress(b'{"nodes": []}')},  # even a well-formed graph: the kernel's to send, not the page's
    {"revision": -1},
    {"settings": {"expandable": "yes"}},
    {"_key": 5},
    {"layout": "IPY_MODEL_nothing"},
    {"_dom_classes": 3},
    {"no_such_trait": 1},
    {"selected": ["alice"], "height": "x"},  # one bad part drops... only that part
]

BAD_MESSAGES = [
    {"kind": "path", "ids": ["nobody", "nothing"]},
    {"kind": "path", "ids": ["alice", "x" * 9_000]},
    {"kind": "path", "ids": [0, 1]},
    {"kind": "path", "ids": ["alice", "alice"]},
    {"kind": "path", "ids": ["alice", None]},
    {"kind": "path", "ids": "ab"},
    {"kind": "path"},
    {"kind": "collapse", "ids": ["alice"]},
    {"kind": "collapse", "ids": [{"a": 1}]},
    {"kind": "dblclick", "id": "nobody"},
    {"kind": "dblclick", "id": 10**30},
    {"kind": "click", "id": "nobody"},
    {"kind": "sync", "have": 10**30},
    {"kind": "shown", "ids": ["alice"], "xy": [[1, 2]], "r": [1], "ci": [0], "colors": ["#fff"], "hidden": [], "width": "w"},
    {"kind": "undo", "extra": [1, 2, 3]},
    {"kind": "ready", "ms": "x"},
    {"kind": None},
    "path",
    ["path", "a", "b"],
    None,
]


def update(canvas, state: dict) -> None:
    """A page's state update as the comm hands it to the widget (binary values go as buffers: memoryviews)."""
    paths = [[name] for name, value in state.items() if isinstance(value, bytes)]
    buffers = [memoryview(value) for value in state.values() if isinstance(value, bytes)]
    state = {name: value for name, value in state.items() if not isinstance(value, bytes)}
    msg = {"content": {"data": {"method": "update", "state": state, "buffer_paths": paths}}, "buffers": buffers}
    canvas._handle_msg(msg)


def custom(canvas, content) -> None:
    canvas._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


@pytest.fixture
def drawn(shell, demo):
    result = run(shell, "%gcypher MATCH (p:Person)-[r:KNOWS]->(q:Person) RETURN p, r, q")
    return result.canvas


def quiet(caplog):
    """What reached the notebook (stdout, stderr, displayed outputs) and the log lines, for one delivery."""
    caplog.clear()
    return capture_output()


def assert_quiet(shown, caplog, what) -> None:
    assert shown.stdout == "" and shown.stderr == "" and shown.outputs == [], (what, shown.stdout[:300], shown.stderr[:300])
    records = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(records) <= 1, (what, [record.getMessage() for record in records])
    assert all(record.exc_info is None and "\n" not in record.getMessage() for record in records), what


def test_bad_trait_updates_are_dropped_in_one_line_and_change_nothing(drawn, caplog):
    before = (drawn.graph_gz, drawn.height, drawn.revision, dict(drawn.settings), drawn._key, list(drawn.selected))
    moved = []
    drawn.on_select(moved.append)
    caplog.set_level(logging.WARNING)
    for state in BAD_STATE:
        with quiet(caplog) as shown:
            update(drawn, dict(state))
        assert_quiet(shown, caplog, state)
        assert caplog.records and "dropped from a canvas state update" in caplog.records[0].getMessage(), state
    after = (drawn.graph_gz, drawn.height, drawn.revision, dict(drawn.settings), drawn._key)
    assert after == before[:5]
    assert list(drawn.selected) == ["alice"] and moved == [["alice"]]  # only the last update's good part was set


def test_bad_page_messages_are_dropped_in_one_line_without_a_traceback(drawn, caplog):
    caplog.set_level(logging.WARNING)
    for content in BAD_MESSAGES:
        with quiet(caplog) as shown:
            custom(drawn, content)
        assert_quiet(shown, caplog, content)


def test_good_updates_and_messages_still_work(drawn, caplog):
    moved, clicked = [], []
    drawn.on_select(moved.append)
    drawn.on_click(clicked.append)
    caplog.set_level(logging.WARNING)
    with quiet(caplog) as shown:
        update(drawn, {"selected": ["alice", "bob", "removed-meanwhile"], "height": 420})
        custom(drawn, {"kind": "click", "id": "alice"})
        custom(drawn, {"kind": "path", "ids": ["alice", "carla"]})
    assert_quiet(shown, caplog, "good")
    assert list(drawn.selected) == ["alice", "bob"] and drawn.height == 420 and moved == [["alice", "bob"]] and clicked == ["alice"]
    assert drawn.status["text"].startswith("Shortest path:")
    assert gestalt_nb.connection().shortest_path("alice", "carla").subgraph.nodes.keys() <= drawn.subgraph.nodes.keys()
