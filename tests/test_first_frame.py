"""In a kernel, a drawn result's canvas goes out before its static picture, table and text, which replace the
output in place (same display id); elsewhere (a terminal, plain IPython) one message carries everything."""

from __future__ import annotations

import pytest
from IPython.core.displaypub import CapturingDisplayPublisher
from IPython.display import display

from tests.conftest import run

WIDGET = "application/vnd.jupyter.widget-view+json"
QUERY = "%%gcypher\nMATCH (p:Person)-[r:LIVES_IN]->(c:Place) RETURN p, r, c"


@pytest.fixture
def captured(shell):
    """What the shell sends after the cell ran (the cell's own Out display is taken out by ``run_quiet``)."""
    before = shell.display_pub
    shell.display_pub = CapturingDisplayPublisher()
    yield shell.display_pub.outputs
    shell.display_pub = before


def run_quiet(shell, source: str):
    result = run(shell, source + ";") if not source.startswith("%%") else run(shell, source)
    shell.display_pub.outputs.clear()  # the cell's own display of its value
    return result


@pytest.fixture
def kernel(shell):
    """The shell as a kernel's is: it has a ``kernel`` (what the view asks before sending in two steps)."""
    shell.kernel = "a kernel"
    yield
    del shell.kernel


def test_in_a_kernel_the_canvas_goes_first_and_the_picture_follows_in_place(shell, demo, captured, kernel):
    result = run_quiet(shell, QUERY)
    display(result)
    first, then = captured
    assert not first["update"] and then["update"]
    assert first["transient"]["display_id"] == then["transient"]["display_id"]
    assert first["data"][WIDGET]["model_id"] == then["data"][WIDGET]["model_id"]  # the same live view: the canvas is not remade
    assert result.canvas.graph["nodes"]  # its payload went out with it
    assert first["data"]["text/plain"] == result.summary() and '<img alt="graph' not in first["data"]["text/html"]
    assert '<img alt="graph' in then["data"]["text/html"] and "<table" in then["data"]["text/html"]  # what a saved notebook keeps
    assert "LIVES_IN" in then["data"]["text/plain"]


def test_outside_a_kernel_one_message_carries_everything(shell, demo, captured):
    display(run_quiet(shell, QUERY))
    (only,) = captured
    assert not only["update"] and '<img alt="graph' in only["data"]["text/html"] and WIDGET in only["data"]


def test_a_result_with_nothing_to_draw_is_sent_once_even_in_a_kernel(shell, demo, captured, kernel):
    display(run_quiet(shell, "%%gcypher\nMATCH (c:Place) RETURN c.name AS name"))
    (only,) = captured
    assert "<table" in only["data"]["text/html"]


def test_graph_text_in_the_first_message_stays_text(shell, demo, captured, kernel):
    run_quiet(shell, "%%gcypher --write\nCREATE (n:Person {name: '<img src=x onerror=alert(1)>'}) RETURN n")
    display(run_quiet(shell, "%%gcypher\nMATCH (n:Person) WHERE n.name STARTS WITH '<img' RETURN n"))
    first = captured[0]["data"]["text/html"]
    assert "<img" not in first
