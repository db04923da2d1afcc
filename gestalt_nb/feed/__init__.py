"""Watching a graph change: the change feed (``changes``: one event per committed write, LMDB
write-sequence polling) and live results (``live``: ``%%gcypher --live``, debounced re-runs).

May import: ``errors``, ``options``, ``display``, ``graph/``, ``cypher/``.
"""
