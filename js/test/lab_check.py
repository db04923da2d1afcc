"""Look at the canvas in real JupyterLab / Notebook 7 (uses tests/jupyter_page.py).

Run:  python js/test/lab_check.py [--frontends lab,notebook] [--prefix fix-lab]

Opens a small notebook (quickstart query, KNOWS query, schema), selects a node from Python, hovers
another, switches JupyterLab to its dark theme, and saves screenshots of the first graph output to
<the temp folder>/gestalt-shots/<prefix>-<frontend>[-dark].png. Prints page errors and console errors, and the
panel's key heights (a key squeezed to one character per line is tall).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.jupyter_page import ARGS, CHROMIUM, FIRST_FRAME_JS, JupyterPage, JupyterServer  # noqa: E402 - after the path above

CELLS = [
    "%load_ext gestalt_nb",
    "%gestalt demo",
    "%%gcypher -o people\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c LIMIT 50",
    "who = {\"name\": \"Alice Chen\"}",
    "%%gcypher -P who\nMATCH (p:Person {name: $name})-[k:KNOWS]->(friend:Person) RETURN p, k, friend",
    "%%gcypher --limit 20\nMATCH (n) RETURN n",
    "%gschema",
]

SEL = ".jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]"


def notebook() -> dict:
    return {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in CELLS],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def panel_report(page, n=0):
    return page.page.evaluate(
        f"""(n) => {{ const el = document.querySelectorAll('{SEL}')[n]; if (!el) return null;
        return [...el.querySelectorAll('.gc-panel .gc-key')].map(d => {{ const r = d.getBoundingClientRect();
          return [d.textContent, Math.round(r.width), Math.round(r.height)]; }}); }}""", n)


def shot(page, n, path):
    page.page.evaluate(f"(n) => document.querySelectorAll('{SEL}')[n].scrollIntoView({{block: 'center'}})", n)
    page.pause(0.5)
    loc = page.canvases().nth(n).locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')][1]")
    (loc if loc.count() else page.canvases().nth(n)).screenshot(path=str(path))
    print("  shot", path)


def main():
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser()
    ap.add_argument("--frontends", default="lab,notebook")
    ap.add_argument("--prefix", default="fix-lab")
    ap.add_argument("--shots", default=str(Path(tempfile.gettempdir()) / "gestalt-shots"))
    ap.add_argument("--width", type=int, default=1400)
    args = ap.parse_args()
    shots = Path(args.shots)
    problems = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for front in args.frontends.split(","):
            server = JupyterServer(front).start()
            try:
                (server.root / "t.ipynb").write_text(json.dumps(notebook()))
                page = JupyterPage(browser, server, viewport={"width": args.width, "height": 1000})
                page.context.add_init_script(FIRST_FRAME_JS)
                page.open("t.ipynb")
                page.run_all(timeout=180)
                page.page.wait_for_function(f"() => Array.from(document.querySelectorAll('{SEL}')).every(el => el.__gestaltFirst)", timeout=60_000)
                count = page.canvases().count()
                firsts = page.page.evaluate(f"() => Array.from(document.querySelectorAll('{SEL}')).map(el => el.__gestaltFirst)")
                print(f"{front}: {count} canvases, first frames {firsts}")
                page.kernel_json("import json\npeople.canvas.selected = ['dev']\nprint(json.dumps(people.canvas.selected))")
                page.pause(0.8)
                rep = panel_report(page, 0)
                print(f"  panel keys [text, width, height]: {rep}")
                if rep and max(h for _, _, h in rep) > 20:
                    problems += 1
                    print("  PROBLEM: a panel key wraps")
                shot(page, 0, shots / f"{args.prefix}-{front}.png")
                for k in range(1, count):
                    shot(page, k, shots / f"{args.prefix}-{front}-{k}.png")
                if front == "lab":
                    page.menu("Settings", "Theme", "JupyterLab Dark")
                    page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
                    page.pause(1.0)
                    rep = panel_report(page, 0)
                    print(f"  dark panel keys: {rep}")
                    if rep and max(h for _, _, h in rep) > 20:
                        problems += 1
                        print("  PROBLEM: a panel key wraps (dark)")
                    shot(page, 0, shots / f"{args.prefix}-{front}-dark.png")
                    page.menu("Settings", "Theme", "JupyterLab Light")
                    page.pause(0.5)
                errs = [e for e in page.errors]
                cons = [f"{c['text']} @ {c['url']}" for c in page.console_errors()]
                print(f"  page errors: {errs}")
                print(f"  console errors: {cons[:10]}")
                print(f"  remote requests: {page.remote[:5]}")
                problems += len(errs)
                page.close()
            finally:
                server.cleanup()
        browser.close()
    print(f"{problems} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
