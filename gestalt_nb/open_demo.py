"""Open the demo notebooks in JupyterLab from copies in a scratch folder, so the checkout stays clean.

Running a notebook saves its outputs (autosave), which would leave the tracked notebooks in
``notebooks/`` modified. This copies them into ``--dir`` (default ``~/gestalt-nb-demo``; existing
copies are kept, ``--fresh`` replaces them) and starts JupyterLab there, on the quickstart::

    python -m gestalt_nb.open_demo [--dir DIR] [--fresh] [--dry-run] [JUPYTER LAB OPTIONS ...]

Options it does not know (``--allow-root``, ``--no-browser``, ``--port 8899`` ...) go to JupyterLab.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

FIRST = "01_quickstart.ipynb"


def source_notebooks() -> Path:
    """The repository's ``notebooks/`` folder (the demos ship with the repository)."""
    folder = Path(__file__).resolve().parents[1] / "notebooks"
    if not (folder / FIRST).is_file():
        raise SystemExit("The demo notebooks ship with the repository: run this from a clone of gestalt-nb (pip install -e '.[lab]').")
    return folder


def copy_notebooks(target: Path, *, fresh: bool = False) -> list[Path]:
    """Copy every demo notebook into ``target`` (keeping existing copies unless ``fresh``); return the new ones."""
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for notebook in sorted(source_notebooks().glob("*.ipynb")):
        destination = target / notebook.name
        if fresh or not destination.exists():
            shutil.copyfile(notebook, destination)
            copied.append(destination)
    return copied


def command(target: Path, jupyter_options: list[str]) -> list[str]:
    return [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={target}", *jupyter_options, str(target / FIRST)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gestalt_nb.open_demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default=str(Path.home() / "gestalt-nb-demo"), help="scratch folder for the copies")
    parser.add_argument("--fresh", action="store_true", help="replace existing copies with the repository's notebooks")
    parser.add_argument("--dry-run", action="store_true", help="copy, print the JupyterLab command, do not start it")
    args, jupyter_options = parser.parse_known_args(argv)
    target = Path(args.dir).expanduser().resolve()
    if source_notebooks() == target or source_notebooks() in target.parents:
        raise SystemExit(f"--dir {target} is inside the repository's notebooks/; choose a folder outside it.")
    copied = copy_notebooks(target, fresh=args.fresh)
    kept = len(list(target.glob("*.ipynb"))) - len(copied)
    print(f"Demo notebooks in {target}: {len(copied)} copied, {kept} kept from an earlier run (--fresh replaces them). "
          "The repository's notebooks/ stay untouched.")
    launch = command(target, jupyter_options)
    print(" ".join(launch))
    if not args.dry_run:
        os.execv(launch[0], launch)


if __name__ == "__main__":
    main()
