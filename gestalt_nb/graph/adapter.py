"""The adapter's JSON shape for engine values, named in one place.

langchain-gestaltdb normalises every node, relationship, path and temporal value it returns with its own
``_serialization.normalize``, and exports no public name for it. gestalt-nb makes records that must be exactly
what the adapter's ``query_read_only`` would return, so it uses the same function, imported here only: if the
adapter moves it, this is the one line to change (and ``tests/test_result_rows.py`` fails first).
"""

from __future__ import annotations

from langchain_gestaltdb._serialization import normalize

__all__ = ["normalize"]
