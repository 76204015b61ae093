"""autograd_pitfalls/anchors.py and site_src/cell_id_anchors.py: the index's words for a
notebook section ("§7a", "*The bug*") become the fragment that lands there in JupyterLab and on
the site."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from autograd_pitfalls import anchors

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("cell_id_anchors", ROOT / "site_src" / "cell_id_anchors.py")
site_anchors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_anchors)


def notebook(tmp_path: Path) -> Path:
    cells = [
        nbformat.v4.new_markdown_cell("# 08 · Field guide\n\n## Setup", id="title"),
        nbformat.v4.new_code_cell("# not a heading", id="code"),
        nbformat.v4.new_markdown_cell("## The bug: a second `backward()`", id="bug"),
        nbformat.v4.new_markdown_cell("## The bug again: two losses", id="again"),
        nbformat.v4.new_markdown_cell(
            "## 7 · \"Trying to backward\": two causes\n\nText.\n\n```python\n# a comment\n```\n\n"
            "### 7a · A tensor precomputed, before the loop", id="cell-061"),
        nbformat.v4.new_markdown_cell("## Fixes: `grad_tensors=` and *weights*", id="fixes"),
        nbformat.v4.new_markdown_cell("## Fix: `retain_graph`", id="fix"),
    ]
    path = tmp_path / "08_x.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


@pytest.mark.parametrize(("words", "anchor"), [
    ("§7a", "cell-id=cell-061"),  # a number: the heading's cell
    ("§7", "cell-id=cell-061"),
    ("*The bug*", "cell-id=bug"),  # the title begins with the words, then ":"
    ("*The bug again*", "cell-id=again"),
    ("*Setup*", "cell-id=title"),
    ("*Fixes: `grad_tensors=` and *weights**", "cell-id=fixes"),  # Markdown compared as text
    ("Fix", "cell-id=fix"),  # "Fixes: ..." does not begin with the word "Fix"
])
def test_words_name_one_heading(tmp_path: Path, words: str, anchor: str) -> None:
    assert anchors.section_anchor(notebook(tmp_path), words) == anchor


@pytest.mark.parametrize("words", ["§9", "*Why*", "# a comment"])
def test_words_that_name_no_heading_fail(tmp_path: Path, words: str) -> None:
    with pytest.raises(ValueError, match="names 0 headings"):
        anchors.section_anchor(notebook(tmp_path), words)


def test_words_that_name_two_headings_fail(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="names 2 headings"):
        anchors.find_heading([anchors.Heading(2, "Why: a", "x"), anchors.Heading(2, "Why: b", "y")],
                             "*Why*")


def test_the_site_section_answers_to_the_cell_anchor(tmp_path: Path) -> None:
    """On the site, each cell's first heading's section gets "cell-id=<id>" as a MyST target
    (to its own id) and as an HTML id; a section title with curly quotes still matches; a cell
    without a heading (the code cell after the title) answers to the section it belongs to."""
    source = notebook(tmp_path)
    document = new_document("08_x", get_default_settings(Parser))
    parent = document
    for heading in anchors.headings(nbformat.read(source, as_version=4)):
        section = nodes.section(ids=[f"s{len(document.ids)}"])
        document.ids[section["ids"][0]] = section
        section += nodes.title(text=heading.text.replace('"', "\u201c"))
        (document if heading.level <= 2 else parent).append(section)
        parent = section
    env = SimpleNamespace(docname="notebooks/08_x", metadata={"notebooks/08_x": {}},
                          doc2path=lambda docname: source)
    site_anchors.add_cell_id_anchors(SimpleNamespace(env=env), document)

    slugs = env.metadata["notebooks/08_x"]["myst_slugs"]
    assert {slug: target for slug, (_, target, _) in slugs.items()} == {
        "cell-id=title": "s0", "cell-id=code": "s0", "cell-id=bug": "s2", "cell-id=again": "s3",
        "cell-id=cell-061": "s4", "cell-id=fixes": "s6", "cell-id=fix": "s7"}
    sevens = [s for s in document.findall(nodes.section) if s[0].astext().startswith("7")]
    assert [s["ids"] for s in sevens] == [["s4", "cell-id=cell-061"], ["s5"]]
