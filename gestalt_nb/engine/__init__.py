"""The engine behind one door: every part of GestaltDB, LMDB and the LangChain adapter that gestalt-nb uses beyond their public API.

A GestaltDB upgrade is checked here and in ``tests/test_engine_contract.py`` (one contract per part, each failing
with a line naming the installed version and the range below); no module outside this folder reads a private
attribute of an engine object, imports a private name of GestaltDB or spells GestaltDB's keys and records
(``tests/test_engine_contract.py`` checks that too).

- ``store``: attributes GestaltDB keeps private — the LMDB store, tables and write transaction under a ``GraphDB``,
  its snapshot sequence, deferred index upkeep (``_ensure_indexes_current``, ``_load_stale_indexes``), the store
  path and manifest (``_store_path``, ``_manifest``, ``_manifest_from_current``, ``_persist_property_index_metadata``),
  a read view's ``GraphDB`` (``_graph``), an engine node's raw id (``_id``) and the Cypher parser's tree (``_PARSER``);
- ``keys``: GestaltDB's key layout in LMDB (index keys, typed adjacency), checked against its own key functions;
- ``records``: records written straight into LMDB as GestaltDB writes them (nodes, edges, index entries, typed
  adjacency), and its own index upkeep for one node (``_put_node_indexes``, ``_delete_node_indexes``);
- ``pages``: LMDB's page format (a table's records read from the data file with numpy);
- ``readonly``: ``GraphDB.open`` through LMDB's ``readonly=True`` (``_backend_class``, ``_initialize_database_id``);
- ``adapter``: four functions of the LangChain adapter's private modules (its JSON form of values, type names, ids).

The versions these are written against are ``SUPPORTED``, the same ranges as ``pyproject.toml``'s dependencies.
This package imports none of them at import time (``%load_ext`` stays light); ``adapter`` imports the adapter when it is imported.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["SUPPORTED", "installed", "mismatch"]

#: The ranges gestalt-nb's use of the engine's private parts is written and checked against (as in pyproject.toml).
SUPPORTED = {"gestaltdb": ">=0.12.1,<0.13", "lmdb": ">=3.0,<4", "langchain-gestaltdb": ">=0.1.1,<0.2"}


def installed(package: str) -> str:
    """The installed version of ``package`` ("not installed" when it is not)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def mismatch(package: str, what: str) -> str:
    """The line a broken contract says: ``"gestaltdb 0.13.0: GraphDB._manifest is gone; gestalt-nb supports gestaltdb>=0.12.1,<0.13"``.

    Parameters
    ----------
    package : str
        ``"gestaltdb"`` or ``"lmdb"``.
    what : str
        What no longer matches, in a few words.
    """
    return f"{package} {installed(package)}: {what}; gestalt-nb supports {package}{SUPPORTED[package]} (see gestalt_nb/engine/)"
