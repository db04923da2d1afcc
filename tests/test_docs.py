"""The docs site builds offline from this checkout with warnings as errors, and holds what it promises:
every demo notebook executed, a reference entry for every magic and every setting, every guide in the nav.

``mkdocs build --strict`` fails on a broken internal link or anchor (mkdocs.yml's ``validation``), on a
notebook cell that raises (mkdocs-jupyter, ``allow_errors: false``) and on a page left out of the nav.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs_jupyter", reason="the docs site needs the test extra (mkdocs-material, mkdocs-jupyter)")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    shutil.rmtree(ROOT / ".cache" / "mkdocs-jupyter", ignore_errors=True)  # execute every notebook afresh
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # not --quiet: it hides the warnings strict counts
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    return out


def test_every_notebook_is_a_page_with_its_outputs(site):
    notebooks = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for name in notebooks:
        page = site / "notebooks" / name / "index.html"
        assert page.exists(), f"{name} has no page"
        outputs = page.read_text(encoding="utf-8").count('data-mime-type=')  # one per rendered output
        assert outputs >= 1, f"{name}'s page shows no executed output"


def test_reference_lists_every_magic_and_setting(site, shell):
    from gestalt_nb.magics import GestaltMagic

    magics = (site / "reference" / "magics" / "index.html").read_text(encoding="utf-8")
    ours = {name for kind in ("line", "cell") for name, function in shell.magics_manager.magics[kind].items()
            if type(getattr(function, "__self__", None)).__module__.startswith("gestalt_nb")}
    assert {"gcypher", "gestalt", "gschema", "claims"} <= ours
    for name in ours:
        assert f"%{name}</code>" in magics, f"%{name} has no reference entry"
    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    for name in GestaltMagic.class_traits(config=True):
        assert f"<code>{name}</code>" in settings, f"setting {name} has no reference entry"


def test_api_reference_shows_real_parameters(site):
    import gestalt_nb

    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in gestalt_nb.__all__:
        assert f"<code>{name}</code>" in api, f"gestalt_nb.{name} has no reference entry"
    assert "Connection.run" in api


def test_every_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w./-]+\.(?:md|ipynb))\s*$", config, flags=re.MULTILINE))
    pages = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")
             if path.relative_to(ROOT / "docs").parts[0] not in ("reference", "notebooks")}
    assert pages - listed == set(), f"pages missing from mkdocs.yml's nav: {sorted(pages - listed)}"
