"""Running Cypher: how a ``%%gcypher`` cell's text becomes a bounded, read-only-checked read and a result.

- ``query``: prepare (parse, read-only check, LIMIT push-down) and ``run`` → ``QueryResult``
- ``budget``: the time and memory budgets every read runs within (one watchdog thread)
- ``explain``: ``--explain``, the engine's plan as a tree and slow-shape warnings
- ``result``: ``QueryResult`` (records, ``.df``, ``.subgraph``)
- ``reading``: the adapter's ``query_read_only`` check kept, the engine's values handed to ``graph.rows``
- ``text``: strings, comments and brackets in Cypher text without the parser
- ``lint``, ``format``: what the Cypher editor (js/labextension) asks over its comm — lint marks and
  hover text (parsed and planned, never run) — and Format Cypher
- ``completion``, ``history``, ``snippets``: Tab completion, ``%ghistory``, ``--save`` / ``--with``

May import: ``errors``, ``options``, ``engine/``, ``display``, ``graph/``. Takes a ``Connection`` as an argument
(imported only under ``TYPE_CHECKING``), never the session's registry.
"""
