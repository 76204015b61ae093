"""Sphinx `doctree-read` handler for the site (conf.py): the index pages' links into notebook
sections, `NN_x.ipynb#cell-id=<id>` (autograd_pitfalls/anchors.py), land on the section."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograd_pitfalls.anchors import cell_anchor, headings


def add_cell_id_anchors(app, doctree) -> None:
    """Sphinx `doctree-read` handler: each section of a notebook's page that a cell's first
    heading opens answers to "cell-id=<that cell's id>", as a MyST link target (the index pages'
    `notebooks/NN_x.ipynb#cell-id=…` resolves to the section's own id) and as an HTML id."""
    from docutils import nodes

    env = app.env
    source = Path(env.doc2path(env.docname))
    if source.suffix != ".ipynb":
        return
    found = headings(nbformat.read(source, as_version=4))
    sections = list(doctree.findall(nodes.section))
    titles = [section[0].astext() if section.children else "" for section in sections]
    # Compared by their letters and digits: Sphinx makes "…" quotes curly.
    if [re.sub(r"\W+", "", t) for t in titles] != [re.sub(r"\W+", "", h.text) for h in found]:
        raise ValueError(f"{source}: its headings and its page's sections differ; "
                         "autograd_pitfalls.anchors.headings needs to read them as MyST does")
    slugs = env.metadata[env.docname].setdefault("myst_slugs", {})
    section_of = {}  # a heading cell's id -> (its first heading's section, title)
    for heading, section, title in zip(found, sections, titles):
        anchor = cell_anchor(heading.cell_id)
        if anchor not in slugs:  # the cell's first heading
            slugs[anchor] = (section.line, section["ids"][0], title)
            section["ids"].append(anchor)
            section_of[heading.cell_id] = (section, title)
    # A link to a cell that holds no heading (a paragraph, a code cell) lands on the section it
    # belongs to: the one the last heading before it opens.
    current = None
    for cell in nbformat.read(source, as_version=4).cells:
        current = section_of.get(cell.get("id"), current)
        anchor = cell_anchor(cell.get("id", ""))
        if current is not None and anchor not in slugs:
            section, title = current
            slugs[anchor] = (section.line, section["ids"][0], title)
