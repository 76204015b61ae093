"""Generate docs/errors.md and docs/symptoms.md from the index data.

    python -m autograd_pitfalls.pages           # (re)write the pages
    python -m autograd_pitfalls.pages --check   # exit 1 if a committed page is stale

Each "shown in" link opens the notebook at the section it names (anchors.py): the section's
words, "§7a" or "*The bug*", must name exactly one heading of that notebook.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NamedTuple

from autograd_pitfalls import index
from autograd_pitfalls.anchors import section_anchor

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "python -m autograd_pitfalls.pages"
CODE_OR_LINK = re.compile(r"(`[^`]*`|\[[^\]]*\]\([^)]*\))")
# The words that name a section at the start of a "shown in" place: "§7a", or "*The bug*"
# (up to the "*" that ends them: "*Fixes: `x` and *w**" holds one more pair).
SECTION_WORDS = re.compile(r"^(§\w+|\*.+?\*)(?=$|[\s,;(])")


class Style(NamedTuple):
    notebooks: str  # how a link reaches notebooks/ from the page
    links: bool     # issue references as links
    level: int      # heading level of a group


PAGE_STYLE = Style("../notebooks/", True, 2)


def linked(text: str, repo: str | None = None) -> str:
    """Every issue reference outside code and links made a link; a bare `#N` is in the
    repository named last before it (or `repo`, the last one of the row's earlier cells)."""
    parts = CODE_OR_LINK.split(text)
    for i in range(0, len(parts), 2):
        def link(m: re.Match) -> str:
            nonlocal repo
            repo = m.group(1) or repo
            if not repo:
                return m.group(0)
            return f"[{m.group(0)}](https://github.com/{repo}/issues/{m.group(2)})"
        parts[i] = index.REFERENCE.sub(link, parts[i])
    return "".join(parts)


def prose(text: str, style: Style, repo: str | None = None) -> str:
    text = text.replace("](notebooks/", f"]({style.notebooks}")
    return linked(text, repo) if style.links else text


def row(cells: list[str], style: Style) -> list[str]:
    """A table row's cells as prose, a bare `#N` in one taking the repository of an earlier one."""
    out, repo = [], None
    for cell in cells:
        out.append(prose(cell, style, repo))
        repo = next((r for r, _ in reversed(index.references(cell, repo))), repo)
    return out


def shown_in(places: list[dict], style: Style) -> str:
    """Links to the notebooks, each at the section its words name (when they name one)."""
    def link(place: dict) -> str:
        words = SECTION_WORDS.match(place["section"])
        anchor = f"#{section_anchor(ROOT / 'notebooks' / place['notebook'], words.group(1))}" if words else ""
        return f"[{place['notebook'][:2]}]({style.notebooks}{place['notebook']}{anchor}) {place['section']}".rstrip()
    return ", ".join(link(p) for p in places)


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def cause_cells(c: dict, style: Style, first: tuple[str, ...] = ()) -> list[str]:
    """`first` (a symptom), then the cause, fix, shown in and reports cells of a row."""
    cells = row([*first, c["cause"], c["fix"], c["reports"]], style)
    return [*cells[:-1], shown_in(c["shown_in"], style), cells[-1]]


def needs_note(needs: str) -> str:
    """What the page says under a message that needs hardware the collection does not have."""
    return (f"**Not reproduced here (needs {needs}).** No notebook raises this message: this "
            f"collection runs on a CPU. `tests/test_index.py` checks instead that the installed "
            f"PyTorch holds it word for word, and the sections named below run the CPU side of it.")


def error_section(entries, style: Style) -> str:
    out, group = [], None
    for e in entries:
        if e["group"] != group:
            group = e["group"]
            out.append("#" * style.level + " " + group)
        for m in e["message"]:
            if m.get("before"):
                out.append(prose(m["before"], style))
            out.append(f"```text\n{m['text']}\n```")
        if e.get("needs"):
            out.append(needs_note(e["needs"]))
        if e.get("notes"):
            out.append(prose(e["notes"], style))
        out.append(table(["cause", "fix", "shown in", "reported in"],
                         [cause_cells(c, style) for c in e["cause"]]))
        if e.get("after"):
            out.append(prose(e["after"], style))
    return "\n\n".join(out) + "\n"


def symptom_cell(r: dict) -> str:
    """A row's symptom, and the training check's finding that names it, if one does."""
    return r["symptom"] + (f" *(StepCheck names it: `{r['check']}`)*" if r.get("check") else "")


def symptom_section(groups, style: Style) -> str:
    out = []
    for g in groups:
        out.append("#" * style.level + " " + g["heading"])
        if g.get("tell_apart"):
            out.append(prose(g["tell_apart"], style))
        out.append(table(["symptom", "cause", "fix", "shown in", "reported in"],
                         [cause_cells(r, style, (symptom_cell(r),)) for r in g["row"]]))
    return "\n\n".join(out) + "\n"


def pages() -> dict[str, str]:
    """Repository path -> the page's Markdown."""
    texts = index.page_texts()
    bodies = {"errors": error_section(index.errors(), PAGE_STYLE),
              "symptoms": symptom_section(index.symptoms(), PAGE_STYLE)}
    return {texts[k]["path"]: (f"# {texts[k]['title']}\n\n<!-- Generated by `{COMMAND}` from "
                               f"autograd_pitfalls/index/: edit the data, not this page. -->\n\n"
                               f"{texts[k]['intro'].strip()}\n\n{body}")
            for k, body in bodies.items()}


def stale_pages(root: Path = ROOT) -> list[str]:
    return [path for path, text in pages().items()
            if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--check"]:
        stale = stale_pages()
        for path in stale:
            print(f"{path} is not what the index data generates: run `{COMMAND}`")
        return 1 if stale else 0
    for path, text in pages().items():
        (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / path).write_text(text, encoding="utf-8")
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
