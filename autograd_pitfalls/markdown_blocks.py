"""Split Markdown into the blocks the index is written in: headings, ```text messages, tables
and prose paragraphs (what the README migration reads and what its round-trip check compares)."""

from __future__ import annotations

from typing import NamedTuple


class Block(NamedTuple):
    kind: str  # "heading", "message", "table" or "prose"
    text: str  # a heading's line, a message's text, a table's lines, a paragraph


def blocks(markdown: str) -> list[Block]:
    """The blocks of `markdown`, in order (blank lines separate prose paragraphs)."""
    out: list[Block] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            out.append(Block("message" if line.strip() == "```text" else "code",
                             "\n".join(lines[i + 1:end])))
            i = end + 1
        elif line.startswith("#"):
            out.append(Block("heading", line.rstrip()))
            i += 1
        else:
            kind = "table" if line.startswith("|") else "prose"
            j = i
            while (j < len(lines) and lines[j].strip() and not lines[j].startswith(("```", "#"))
                   and lines[j].startswith("|") == (kind == "table")):
                j += 1
            out.append(Block(kind, "\n".join(l.rstrip() for l in lines[i:j])))
            i = j
    return out


def table_rows(table: str) -> list[list[str]]:
    """A table's body rows as lists of cells (the header and the --- line left out)."""
    rows = [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in table.splitlines()]
    return rows[2:]


def section(markdown: str, heading: str) -> str:
    """The text under `## heading` (the line that starts with it), up to the next `## `."""
    lines = markdown.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith(f"## {heading}")), None)
    if start is None:
        raise ValueError(f"no '## {heading}' section")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start + 1:end])
