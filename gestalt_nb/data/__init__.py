"""Getting data in and out: DataFrames (``loading``), networkx (``networkx_io``), the demo graph
(``demo_graph``), and the files the demos read (``graphrag/``: the GraphRAG sample paragraphs).

May import: ``errors``, ``options``, ``display``, ``graph/``.
"""
