"""Seeing a graph of any size whole: groups computed from the database, drawn as super-nodes, drilled into.

``compact`` reads the graph into integer arrays (one LMDB snapshot, cached per database state; ``engine/pages``
reads a table's records from LMDB's pages in the data file, ``ids`` turns stored ids into node numbers
through one table of the node keys' fingerprints),
``grouping`` finds the groups (networkit's Leiden communities, label sets, property values or bins;
``detect`` runs Leiden — a big graph's in a child process, so a budget or a stop ends it),
``result`` is the ``OverviewResult`` (groups, links, membership, the drawn super-nodes and a group's
members for drilling), ``reading`` reads a drilled group's relationships, ``growth`` puts an overview at a moment
(the as-of scratch database of ``temporal``) and counts each group's members at two moments, and ``build`` ties them
together within a read's budget, showing ``progress`` for a big graph. May import ``graph``, ``cypher``, ``temporal``
and the bottom layers (``engine/`` among them).
"""
