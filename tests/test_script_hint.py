"""Without a connection, a script is told the Python call (it cannot run ``%gestalt demo``); IPython the magic."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gestalt_nb
from gestalt_nb.errors import GestaltError


def test_a_script_without_a_connection_is_told_the_python_call(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import gestalt_nb\ntry:\n    gestalt_nb.run('MATCH (n) RETURN n')\nexcept gestalt_nb.GestaltError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path).stdout
    assert "gestalt_nb.demo()" in out and "%gestalt" not in out, out


def test_ipython_without_a_connection_is_told_the_magic(shell):
    with pytest.raises(GestaltError, match="Run %gestalt demo.*gestalt_nb.demo()"):
        gestalt_nb.run("MATCH (n) RETURN n")
