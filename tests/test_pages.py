"""The committed pages are what the index data generates, and its references become links."""

from __future__ import annotations

from autograd_pitfalls import pages
from autograd_pitfalls.pages import PAGE_STYLE, linked, row


def test_the_generated_pages_are_up_to_date():
    stale = pages.stale_pages()
    assert not stale, f"{', '.join(stale)} differ from the index data: run `{pages.COMMAND}` (or make pages)"


def test_references_become_links():
    assert linked("pytorch/pytorch#22095, #65907; `a#1` [x](y#2)") == (
        "[pytorch/pytorch#22095](https://github.com/pytorch/pytorch/issues/22095), "
        "[#65907](https://github.com/pytorch/pytorch/issues/65907); `a#1` [x](y#2)")
    assert linked("article 002, #5") == "article 002, #5"  # no repository to put it in
    # a bare #N in a later cell of a row belongs to the repository an earlier cell named
    assert row(["until pytorch/pytorch#1", "see #2"], PAGE_STYLE)[1] == \
        "see [#2](https://github.com/pytorch/pytorch/issues/2)"


def test_every_heading_appears_once_on_its_page():
    for path, text in pages.pages().items():
        headings = [line for line in text.splitlines() if line.startswith("#")]
        repeated = sorted({h for h in headings if headings.count(h) > 1})
        assert not repeated, f"{path} repeats {repeated}: a link to it lands on the first only"
