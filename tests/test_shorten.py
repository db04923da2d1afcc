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
