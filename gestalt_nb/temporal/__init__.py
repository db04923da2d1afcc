"""Time as an axis: history loaded as GestaltDB's own temporal versions, reads as of a moment, two moments compared.

Nothing here keeps a history of its own: versions are written through GestaltDB's temporal API (``commit_versions``)
and read through its Cypher's ``FOR VALID_TIME AS OF`` / ``FOR SYSTEM_TIME AS OF``.

- ``moments``: a moment as a person writes it (a date, a datetime, ISO text, epoch seconds) → GestaltDB's instant;
  the ``valid_from`` / ``valid_to`` columns of a load → intervals, refused with their row and column when malformed;
- ``history``: a load's rows → GestaltDB's node and relationship version writes, and which rows are valid now;
- ``asof``: a read's text with the temporal qualifiers added after its first ``MATCH`` pattern;
- ``diff``: two drawings of the same read compared → ``DiffResult`` (``.changes``, a drawing coloured by change).

Imports: ``errors``, ``graph``, ``display`` and GestaltDB's public names; ``cypher`` and ``data`` import this.
"""
