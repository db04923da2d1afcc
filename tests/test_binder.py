"""Binder's files install what the notebooks need, from this repository."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_post_build_installs_this_package_with_extras_that_exist():
    post_build = ROOT / "binder" / "postBuild"
    assert os.access(post_build, os.X_OK)
    extras = re.search(r'pip install [^"]*"\.\[([a-z,]+)\]"', post_build.read_text()).group(1).split(",")
    section = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1].split("\n[")[0]
    declared = re.findall(r"^(\w+) = \[", section, flags=re.MULTILINE)
    assert set(extras) <= set(declared)
    notebooks = "\n".join(path.read_text() for path in (ROOT / "notebooks").glob("*.ipynb"))
    assert "gestalt_nb.agents" in notebooks and "agents" in extras  # the agent demo's extra is installed


def test_readme_badge_points_at_the_quickstart_and_every_notebook_is_listed():
    readme = (ROOT / "README.md").read_text()
    assert "mybinder.org/v2/" in readme and "urlpath=lab/tree/notebooks/01_quickstart.ipynb" in readme
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{notebook.name}" in readme, notebook.name


def test_demo_notebooks_are_saved_without_widget_state():
    """Saved widget state would carry old drawings (and megabytes) into every clone."""
    import json

    for path in sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        assert "widgets" not in notebook.get("metadata", {}), path.name
        assert path.stat().st_size < 60_000, path.name
