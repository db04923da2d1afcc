"""Time as an axis: history loaded as GestaltDB's own temporal versions, reads as of a moment, two moments compared.

Nothing here keeps a history of its own: versions are written through GestaltDB's temporal API (``commit_versions``)
and read back from its history (``iter_temporal_commits``), by its own rule of which version is visible.

- ``moments``: a moment as a person writes it (a date, a datetime, ISO text, epoch seconds) → GestaltDB's instant;
  the ``valid_from`` / ``valid_to`` columns of a load → intervals, refused with their row and column when malformed;
- ``history``: a load's rows → GestaltDB's node and relationship version writes, and which rows are valid now;
- ``visible``: the graph valid at a moment as recorded by another, written once into a scratch database (never the
  data file) and kept for the next read of the same moment;
- ``asof``: a read at a moment — the usual bounded read (``cypher.query.run``) over ``visible``'s graph — and the
  same read at two moments compared (``diff``, ``Connection.diff``);
- ``diff``: two drawings of the same read compared → ``DiffResult`` (``.changes``, a drawing coloured by change).

Imports: ``errors``, ``graph``, ``display``, ``cypher``, ``engine`` and GestaltDB's public names; ``data`` imports
``moments`` and ``history``.
"""
