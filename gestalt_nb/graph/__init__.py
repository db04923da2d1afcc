"""Graph shapes and walks over a connection's graph.

- ``subgraph``: ``Subgraph`` / ``Node`` / ``Edge``, the one drawable shape, and its converters
- ``rows``: a query's rows in one compact form (engine values read once; JSON per row when shown)
- ``values``: the adapter's JSON shapes as Python values and text
- ``ids``: integer ids as written ↔ the stored ``__lc_int__:N``; ``names``: the case-insensitive name index
- ``catalog``: every label and relationship type, from the engine's indexes (read through ``engine/``)
- ``neighbourhood``: ``query_subgraph`` over typed adjacency; ``explorer``: typed one-hop expansion;
  ``paths``: shortest paths; ``schema``: the schema sample and its meta-graph; ``retrieval``:
  retriever documents → drawn paths

May import: ``errors``, ``options``, ``engine/``, ``display`` and each other. Never a capability above it, the
session, the drawing side or the magics.
"""
