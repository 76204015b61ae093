"""Every relative link in README.md, CONTRIBUTING.md, docs/*.md and the notebooks' Markdown
leads somewhere.

The same links are read on a code host, in JupyterLab and on the site (`make site`), so they
are plain relative paths: `notebooks/03_stored_intermediates.ipynb` from the README,
`../notebooks/03_stored_intermediates.ipynb` from docs/,
`03_stored_intermediates.ipynb` between notebooks, `figures/x.png` for images. Each must
name an existing file. A `#anchor` into a Markdown file (README.md, docs/…)
it must match a heading as GitHub and the site spell it. Into a notebook, the one anchor that lands
in JupyterLab and on the site is `#cell-id=<id of the section's cell>` (autograd_pitfalls/anchors.py:
the index pages' links carry it), and that cell must exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
MARKDOWN = MarkdownIt("commonmark").enable("table")
HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""")


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "notebooks").glob("*.ipynb"))]


def markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = nbformat.read(path, as_version=4).cells
        return "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
    return path.read_text(encoding="utf-8")


def links_in(markdown: str) -> Iterator[str]:
    """Targets of Markdown links and images, and of href/src in inline HTML."""
    for token in MARKDOWN.parse(markdown):
        for child in [token, *(token.children or [])]:
            if child.type == "link_open":
                yield str(child.attrs["href"])
            elif child.type == "image":
                yield str(child.attrs["src"])
            elif child.type in ("html_inline", "html_block"):
                yield from HTML_LINK.findall(child.content)


def github_slug(heading: str) -> str:
    """The anchor GitHub (and the site, myst_heading_anchors) gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def heading_anchors(markdown: str) -> set[str]:
    tokens = MARKDOWN.parse(markdown)
    anchors: set[str] = set()
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            text = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            slug, n = github_slug(text), 0
            while (slug if n == 0 else f"{slug}-{n}") in anchors:
                n += 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def problem_with(link: str, document: Path) -> str | None:
    """Why a link from this document does not resolve, or None."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        return None  # a web address: not checked here (no network in the tests)
    target = (document.parent / unquote(parts.path)).resolve() if parts.path else document
    if ROOT not in target.parents:
        return "leads outside the repository"
    if not target.exists():
        return "no such file"
    if parts.fragment:
        if target.suffix == ".ipynb":
            ids = {cell.get("id") for cell in nbformat.read(target, as_version=4).cells}
            if not parts.fragment.startswith("cell-id=") or parts.fragment[len("cell-id="):] not in ids:
                return f"#{parts.fragment}: into a notebook, only #cell-id=<an id of its cells> lands"
        elif target.suffix != ".md":
            return "an anchor into a file that has no headings"
        elif parts.fragment not in heading_anchors(target.read_text(encoding="utf-8")):
            return f"no heading with the anchor #{parts.fragment}"
    return None


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    problems = [f"{link}: {why}" for link in links_in(markdown_of(document))
                if (why := problem_with(link, document))]
    assert not problems, f"broken links in {document.name}:\n" + "\n".join(problems)


def test_links_are_found() -> None:
    """The reader sees Markdown links, images, HTML, and skips code."""
    text = "[a](x.ipynb) ![b](f.png) <img src='g.png'> `[c](not_a_link)`\n\n    [d](code)\n"
    assert list(links_in(text)) == ["x.ipynb", "f.png", "g.png"]
    assert heading_anchors("# For teachers\n## A `grad_fn`, again?\n# For teachers") == {
        "for-teachers", "a-grad_fn-again", "for-teachers-1"}
