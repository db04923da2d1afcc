"""Real IPython shell with the extension loaded, real LMDB databases in temp dirs."""

from __future__ import annotations

import dataclasses

import pytest
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb
from gestalt_nb.options import Settings, settings
from gestalt_nb.session import REGISTRY


def pytest_addoption(parser):
    parser.addoption("--hogs", type=int, default=0, metavar="N",
                     help="run N CPU hogs (busy processes) beside the whole run: interrupts and budgets must hold on a busy machine")


@pytest.fixture(scope="session", autouse=True)
def hogs(request):
    """``--hogs N``: N busy processes for the whole run (how the interrupt, budget and overview-process tests are
    checked on a loaded machine: ``pytest --hogs 2 tests/test_budget.py ...``)."""
    import subprocess
    import sys

    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(request.config.getoption("--hogs"))]
    yield len(busy)
    for process in busy:
        process.kill()
        process.wait()


@pytest.fixture(scope="session", autouse=True)
def interruptible():
    """Ctrl-C as a kernel has it around every cell (ipykernel sets ``default_int_handler``), whatever started pytest.

    A shell's background job (``pytest ... &``, a loop under ``nohup``) starts with SIGINT ignored, and Python then
    leaves it ignored: ``_thread.interrupt_main()`` does nothing, so every interrupt test failed in such runs (4-5 of
    25 in three runs in a row) while passing in the foreground."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    if before in (signal.SIG_IGN, signal.SIG_DFL, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before in (signal.SIG_IGN, signal.SIG_DFL):
        signal.signal(signal.SIGINT, before)


@pytest.fixture(scope="session")
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "gestalt_nb")
    return ip


@pytest.fixture(autouse=True)
def clean_state(shell):
    yield
    REGISTRY.close_all()
    REGISTRY.last_result = None
    magic = shell.magics_manager.registry["GestaltMagic"]
    for item in dataclasses.fields(Settings):
        setattr(magic, item.name, item.default)  # observed: writes through to settings
        assert getattr(settings, item.name) == item.default


class CellError(Exception):
    """What a cell raised, as the person saw it."""


def run(shell, source: str):
    """Run a cell; return its value or raise what it raised (UsageError for short errors)."""
    outcome = shell.run_cell(source, store_history=False)
    if outcome.error_before_exec is not None:
        raise outcome.error_before_exec
    if outcome.error_in_exec is not None:
        raise outcome.error_in_exec
    return outcome.result


@pytest.fixture
def demo(shell, tmp_path):
    """The demo graph in a fresh LMDB directory, current in the shell."""
    path = tmp_path / "demo"
    run(shell, f"%gestalt demo {path}")
    return gestalt_nb.connection()


def raw(connection, query: str, params=None):
    """Independent check through the raw GraphDB (not through gestalt_nb's query path)."""
    return connection.db.query(query, parameters=params).records
