"""The one way text and lists are cut: the kept start and "…", so a reader sees that something was cut."""

from __future__ import annotations

from gestalt_nb.shorten import listing, shorten


def test_shorten_keeps_short_text_and_marks_a_cut():
    assert shorten("abc", 3) == "abc"
    assert shorten("abcdef", 4) == "abc…" and len(shorten("abcdef", 4)) == 4


def test_listing_marks_what_it_left_out():
    assert listing([1, 2, 3], 5) == "1, 2, 3"
    assert listing(list(range(8)), 5) == "0, 1, 2, 3, 4, …"
    assert listing(["a", "b"], 1, " | ") == "a | …"


def test_an_answer_view_marks_a_cut_passage():
    from gestalt_nb.views import graphrag_views

    assert graphrag_views.shorten is shorten
    assert shorten("x" * (graphrag_views.PASSAGE_CHARS + 10), graphrag_views.PASSAGE_CHARS).endswith("…")


def test_a_group_caption_keeps_its_count_and_loses_whole_trailing_names_first():
    from gestalt_nb.shorten import shorten_caption

    long = "test.test_gdb.util, test.test_gdb.test_cfunction, test.test_gdb.test_pretty ×1,234"
    assert shorten_caption(long, 60) == "test.test_gdb.util, test.test_gdb.test_cfunction… ×1,234"
    assert shorten_caption(long, 30) == "test.test_gdb.util… ×1,234"
    assert shorten_caption("a" * 70 + " ×12", 20) == "a" * 15 + "… ×12"  # one long name: its end goes, the count stays
    assert shorten_caption("test 72% · unittest ×280", 60) == "test 72% · unittest ×280"
    assert shorten_caption("Ada Berg x" * 10, 20) == shorten("Ada Berg x" * 10, 20)  # no count: as shorten


def test_the_canvas_gets_a_long_group_caption_with_its_count():
    from gestalt_nb.canvas.payload import CAPTION_CHARS, Vocabulary
    from gestalt_nb.graph.subgraph import Node

    caption = "test.test_importlib.frozen, test.test_importlib.builtin, test.test_importlib.source ×31"
    sent = Vocabulary().node(Node("group:0/3", (), {"caption": caption, "nodes": 31}), "caption", False, group=True)["c"]
    assert len(sent) <= CAPTION_CHARS and sent.startswith("test.test_importlib.frozen") and sent.endswith(" ×31"), sent
