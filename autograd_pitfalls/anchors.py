"""Links that land: the anchor of a notebook section, for the index pages' "shown in" links.

    section_anchor("notebooks/08_field_guide.ipynb", "§7a")      -> "cell-id=cell-061"
    section_anchor("notebooks/05_higher_order_grad.ipynb", "Why") -> "cell-id=cell-005"

so that docs/errors.md links `[08](../notebooks/08_field_guide.ipynb#cell-id=cell-061) §7a`
(autograd_pitfalls/pages.py).

Why the id of the heading's cell, not the heading's text: JupyterLab 4.6 gives a rendered
heading the id "its text, spaces made '-'" ("7a-·-A-tensor-precomputed-…"), but a link with
that fragment does not land. Opening a notebook at a fragment, JupyterLab looks the heading up
among the rendered cells, and the notebook renders only the cells in view, so a section further
down is not found (tried: "#Exercises" stops part-way); and the browser percent-encodes a
non-ASCII fragment ("·", curly quotes) before JupyterLab compares it with the raw id, so a
numbered section ("7a · …") is never found. `#heading=<id>` fails the same ways. JupyterLab's
`#cell-id=<id>` fragment finds the cell in the notebook's model instead, and scrolls to it:
that lands, from a link clicked in a notebook or in the Markdown preview of a page, and from a
typed URL. Cell ids are stable (CONVENTIONS: never change one; releases.toml names them), and
ASCII. A cell that holds two headings ("7 · …" then "7a · …") lands at the first, the second
just below it.

On the site: `add_cell_id_anchors` (site_src/cell_id_anchors.py, a Sphinx handler) makes the same
links land on the section: MyST resolves `08_field_guide.ipynb#cell-id=cell-061` to the page
and the id of the section that the cell's first heading opens, and that section also carries
the id "cell-id=cell-061" for a fragment typed by hand. On GitHub, whose notebook view is drawn
in a frame of its own, the link opens the notebook at its top (no fragment lands there).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A section number ("7a", "A2", "1") and the rest of the title: "7a · A tensor precomputed …".
NUMBERED = re.compile(r"^(\w+) · ")
# What may follow the words that name a section at the start of its title: "The bug" names
# "The bug: a second backward()", not "The bug again: two losses".
INLINE = re.compile(r"(?P<tick>`+)(?P<code>.+?)(?P=tick)"
                    r"|!?\[(?P<link>[^\]]*)\]\([^)]*\)"
                    r"|(?<!\w)(?P<mark>\*{1,2}|_{1,2})(?P<emphasised>\S(?:.*?\S)?)(?P=mark)(?!\w)"
                    r"|\\(?P<escaped>.)")
AFTER_WORDS = re.compile(r"^(?:$|[:;,.?!]|\s+[·—(])")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str  # as plain text: "7a · A tensor precomputed from parameters, before the loop"
    cell_id: str


def plain(markdown: str) -> str:
    """A heading's Markdown as the text it shows: code, emphasis, links and escapes reduced to
    their text (code first: `grad_tensors=` keeps its underscore)."""
    def shown(m: re.Match) -> str:
        if m["code"] is not None:
            return m["code"].strip()
        if m["link"] is not None:
            return plain(m["link"])
        if m["emphasised"] is not None:
            return plain(m["emphasised"])
        return m["escaped"]
    return INLINE.sub(shown, markdown).strip()


def headings(notebook: dict) -> list[Heading]:
    """Every ATX heading of the notebook's Markdown cells, in order (not those in code blocks).
    The notebook as nbformat reads it, or as plain JSON (a cell's source a list of lines)."""
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        for _, heading in heading_lines(source):
            found.append(Heading(len(heading.group(1)), plain(heading.group(2)), cell["id"]))
    return found


def heading_lines(markdown: str) -> list[tuple[int, re.Match]]:
    """(line number from 0, match of ATX_HEADING) of every heading of a Markdown text, outside
    fenced code blocks."""
    found, fence = [], None
    for k, line in enumerate(markdown.splitlines()):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)[0]
        elif fence is not None:
            if opening and opening.group(1)[0] == fence:
                fence = None
        elif heading := ATX_HEADING.match(line):
            found.append((k, heading))
    return found


def find_heading(found: list[Heading], section_words: str) -> Heading:
    """The heading that the index's words name: "§7a" (its number), or "*The bug*" (the words
    its title is or begins with). Raises ValueError if none or several match."""
    words = section_words.strip()
    if len(words) > 1 and words[0] == words[-1] == "*":  # the index's *italic* words
        words = words[1:-1]
    words = plain(words)
    if words.startswith("§"):
        number = words.removeprefix("§").strip()
        matches = [h for h in found if (m := NUMBERED.match(h.text)) and m.group(1) == number]
    else:
        matches = [h for h in found if h.text.casefold() == words.casefold()]
        if not matches:
            matches = [h for h in found if h.text.casefold().startswith(words.casefold())
                       and AFTER_WORDS.match(h.text[len(words):])]
    if len(matches) != 1:
        titles = "; ".join(h.text for h in matches) or "none"
        raise ValueError(f"{section_words!r} names {len(matches)} headings ({titles})")
    return matches[0]


def cell_anchor(cell_id: str) -> str:
    return f"cell-id={cell_id}"


def section_anchor(notebook_path: str | Path, section_words: str) -> str:
    """The fragment (without '#') that opens `notebook_path` at the section `section_words`
    names, in JupyterLab and on the site: "cell-id=<id of the heading's cell>"."""
    path = Path(notebook_path)
    return cell_anchor(find_heading(_headings_of(path, path.stat().st_mtime_ns), section_words).cell_id)


@lru_cache(maxsize=64)
def _headings_of(path: Path, mtime_ns: int) -> list[Heading]:
    """The headings of the notebook stored at ``path`` (read once per file version; standard
    library only, so that the doctor needs no nbformat)."""
    return headings(json.loads(path.read_text(encoding="utf-8")))
