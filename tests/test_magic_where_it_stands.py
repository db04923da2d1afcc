"""A view magic shows its view where it stands in a cell, as ``display()`` would; assigned or last, IPython shows
it (once) or not at all, as for any Python expression. Run in a real shell on the demo graph."""

from __future__ import annotations

from IPython.utils.capture import capture_output

from gestalt_nb.graph.schema import SchemaResult

from .conftest import run

WIDGET = "application/vnd.jupyter.widget-view+json"


def views_shown(shell, cell: str) -> tuple[list[str], object]:
    """The widget models a cell displayed (in order), and the cell's value."""
    with capture_output() as shown:
        value = run(shell, cell)
    return [output.data[WIDGET]["model_id"] for output in shown.outputs if WIDGET in output.data], value


def test_a_view_magic_mid_cell_shows_its_view_once(shell, demo):
    models, _ = views_shown(shell, "%gschema\nprint(1)")
    assert len(models) == 1


def test_an_assigned_view_magic_shows_nothing_and_keeps_its_result(shell, demo):
    models, _ = views_shown(shell, "s = %gschema\nov = %goverview --by label")
    assert models == []
    assert isinstance(shell.user_ns["s"], SchemaResult)
    assert shell.user_ns["ov"].by == "label"


def test_a_view_magic_stored_with_o_shows_nothing_mid_cell_like_an_assignment(shell, demo):
    models, _ = views_shown(shell, "%gschema --nodes 5 -o small\nprint(small.note())")
    assert models == [] and isinstance(shell.user_ns["small"], SchemaResult)


def test_a_view_magic_last_in_a_cell_is_shown_once_by_ipython(shell, demo):
    models, value = views_shown(shell, "%gschema")
    assert len(models) == 1 and isinstance(value, SchemaResult)
    models, value = views_shown(shell, "x = 1\n%gschema")
    assert len(models) == 1 and isinstance(value, SchemaResult)


def test_every_view_magic_of_a_cell_shows_in_order(shell, demo):
    models, value = views_shown(shell, '%goverview --by label\n%gsubgraph "alice chen" --hops 1\n%gschema')
    assert len(models) == 3 and len(set(models)) == 3
    assert isinstance(value, SchemaResult)  # the last one is still the cell's value
    models, _ = views_shown(shell, "for turn in range(2):\n    %gschema\n")  # not `for _`: a cell that assigns _ stops IPython updating it for the session
    assert len(models) == 2  # a loop shows each, as display() in a loop would


def test_a_magic_with_nothing_to_show_shows_nothing_mid_cell(shell, demo, tmp_path):
    models, _ = views_shown(shell, f"%gestalt create {tmp_path / 'other'} --alias other\n%gestalt switch demo\nprint(1)")
    assert models == []


def test_a_function_body_is_left_alone(shell, demo):
    models, _ = views_shown(shell, "def schema():\n    %gschema\n    return 1\nschema()")
    assert models == []  # as for any expression statement in a function
