"""Take the README's screenshot (docs/images/canvas.png): the demo graph's canvas in real JupyterLab 4.

    python docs/screenshot.py            # Debian's Chromium, offline, a temp server

Uses the browser tests' own driver (tests/jupyter_page.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.jupyter_page import JupyterPage, JupyterServer, browser  # noqa: E402  (the path above first)

CELLS = [
    "%load_ext gestalt_nb\n%gestalt demo",
    "%%gcypher -o people --caption name\nMATCH (p:Person)-[r]->(x) RETURN p, r, x LIMIT 80",
]


def main() -> None:
    server = JupyterServer("lab")
    try:
        notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
                              for s in CELLS], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                           "language": "python"}},
                    "nbformat": 4, "nbformat_minor": 5}
        (server.root / "tour.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
        server.start()
        with browser() as chromium:
            page = JupyterPage(chromium, server, viewport={"width": 1200, "height": 820})
            page.open("tour.ipynb")
            page.run_all()
            page.pause(6)  # the layout settles and stops
            canvas = page.page.locator(".gestalt-canvas, canvas").last
            canvas.scroll_into_view_if_needed()
            page.pause(1)
            page.page.screenshot(path=str(ROOT / "docs" / "images" / "canvas.png"))
            page.close()
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
