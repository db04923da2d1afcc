"""The one error type a person sees: a short message that says what to do next."""

from __future__ import annotations


class GestaltError(Exception):
    """A user-facing failure. ``str(err)`` is the whole message; no traceback is needed.

    Magics show it as a one-line ``UsageError``; raised by a plain Python call in IPython or a
    notebook (``gestalt_nb.load_edges(...)``, or while a result is displayed) it shows as one line
    too, through IPython's ``_render_traceback_`` hook — unless
    ``%config GestaltMagic.short_errors = False``, which brings back full tracebacks everywhere.
    The original exception, when there was one, stays reachable as ``__cause__``.
    """

    #: Whether IPython shows the one line (``%config GestaltMagic.short_errors``; the settings set it, from above).
    short = True

    @property
    def _render_traceback_(self):
        """IPython shows what this returns instead of a traceback; absent when short_errors is off."""
        if not GestaltError.short:
            raise AttributeError("_render_traceback_")
        return self._short

    def _short(self) -> list[str]:
        return [f"\x1b[0;31m{type(self).__name__}\x1b[0m: {self}"]


class MissingDependency(GestaltError, ImportError):
    """An optional package is not installed; the message is the one ``pip install`` line to run."""


def missing(package: str, extra: str, feature: str, alternative: str = "") -> MissingDependency:
    """The error for ``feature`` needing ``package`` (installed by the ``extra`` extra): one line."""
    other = f"; {alternative}" if alternative else ""
    return MissingDependency(f"{feature} needs {package}, which is not installed: pip install 'gestalt-nb[{extra}]'{other}.")


def caret_excerpt(source: str, line: int, column: int) -> str:
    """Return the offending source line with a caret under ``column`` (both one-based)."""
    lines = source.splitlines() or [""]
    text = lines[min(max(line, 1), len(lines)) - 1]
    return f"  {text}\n  {' ' * max(column - 1, 0)}^"


class GestaltWarning(UserWarning):
    """Something was done as asked but may not be what was meant (mixed types, reversed duplicates)."""


def map_full(exc: BaseException, what: str) -> GestaltError | None:
    """The one message for LMDB's ``MapFullError`` (None for any other error): ``what`` was rolled back."""
    if type(exc).__name__ != "MapFullError":
        return None
    return GestaltError(
        f"The database is full (LMDB map size reached); the {what} was rolled back and nothing was written. "
        "Close it and reopen with a larger map: %gestalt open PATH --map-size 16GiB."
    )


def damaged_database(exc: BaseException, path: object) -> str:
    """The one line for a directory that is not a readable GestaltDB database (a garbled manifest, a
    corrupt or foreign LMDB file), in place of the library's own exception."""
    manifest = isinstance(exc, ValueError) and "JSON" in "".join(kind.__name__ for kind in type(exc).__mro__)
    part = "its manifest (gestaltdb_manifest.json) is not readable" if manifest else "its data files are not a readable database"
    return (
        f"Cannot open {path}: it is not a GestaltDB database or its files are damaged ({part}). "
        "Nothing was changed; open a backup copy, or create a new database with %gestalt create."
    )


def storage_problem(exc: BaseException, path: object, doing: str, *, read_only: bool = False) -> str | None:
    """A clear message when ``exc`` means the disk holding ``path`` is full or cannot be written.

    ``doing`` completes "Cannot ... ": e.g. "open the database at /data/g". LMDB reports a full disk
    at commit as an I/O error, so free space is checked too. ``read_only``: the connection was opened read-only,
    which is then what is said. None when it is neither.
    """
    import errno
    import shutil
    from pathlib import Path

    text = str(exc)
    code = getattr(exc, "errno", None)
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or type(exc).__name__ == "ReadonlyError" or any(
        words in text for words in ("Read-only file system", "Permission denied", "Operation not permitted")
    ):
        if read_only or "read-only environment" in text:  # a write to a database opened with read_only=True
            return f"Cannot {doing}: it was opened read-only (read_only=True / --read-only). Close it and open it without read-only to write."
        reason = getattr(exc, "strerror", None) or text.rsplit(": ", 1)[-1]
        return (
            f"Cannot {doing}: the directory is not writable ({reason}). To read it, open it with read_only=True "
            "(--read-only); to write, fix its permissions or copy the database directory somewhere writable."
        )
    place = Path(str(path))
    while not place.exists() and place != place.parent:
        place = place.parent
    try:
        free = shutil.disk_usage(place).free
    except OSError:
        free = None
    if code == errno.ENOSPC or "No space left" in text or (free is not None and free < 1024**2 and "Input/output error" in text):
        shown = f" ({free:,} bytes free)" if free is not None else ""
        return (
            f"Cannot {doing}: the disk holding {place} is full{shown}. Nothing was written; the database is as it "
            "was. Free some space (or move the database to a larger disk) and try again."
        )
    return None


def no_connection() -> str:
    """What to do without a connection: magics in IPython, Python calls in a script."""
    try:
        from IPython import get_ipython

        in_ipython = get_ipython() is not None
    except ImportError:
        in_ipython = False
    if in_ipython:
        return ("No open GestaltDB connection. Run %gestalt demo for the demo graph, "
                "or %gestalt open PATH / %gestalt create PATH (in Python: gestalt_nb.demo() / gestalt_nb.connect(PATH)).")
    return ("No open GestaltDB connection. Call gestalt_nb.demo() for the demo graph, "
            "or gestalt_nb.connect(PATH) / gestalt_nb.create(PATH) for a database directory.")
