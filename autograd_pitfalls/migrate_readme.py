"""Turn README.md's "Diagnose your error" and "Diagnose a symptom" tables into the index data.

    python -m autograd_pitfalls.migrate_readme path/to/README.md

(Re)writes autograd_pitfalls/index/errors/*.toml and index/symptoms/*.toml from that README,
deterministically, deleting the files it wrote before. Hand-written additions live apart and
are never touched: the variant patterns (index/variants.toml) and the pages' intros
(index/pages.toml). Before writing, the data is rendered back into README's form and compared
with the README's blocks, so that a README the parser misreads fails instead of losing text.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from autograd_pitfalls import index, pages
from autograd_pitfalls.markdown_blocks import Block, blocks, section, table_rows
from autograd_pitfalls.toml_writer import document

GENERATED = "Generated from README.md by `python -m autograd_pitfalls.migrate_readme README.md`.\n" \
    "Edit freely once the README no longer holds the index; see index/README.md."
NOTEBOOK_LINK = re.compile(r"\[(\d\d)\]\(notebooks/(\d\d_\w+\.ipynb)\)")


def slug(text: str, words: int = 6) -> str:
    """An id from the first words of a message or heading: 'trying-to-backward-through-the-graph'."""
    body = re.sub(r"^\w+(Error|Exception): ", "", text)
    # without the example's own names ('a_hook', SoftplusBackward, aten::op), which vary
    body = re.sub(r"'[^']*'|\b\w*[a-z][A-Z]\w*|aten::\w+", " ", body)
    return "-".join(re.findall(r"[a-z0-9]+", body.lower())[:words])


def places(cell: str) -> list[dict[str, str]]:
    """A 'shown in' cell as [{notebook, section}]: the words after each notebook's link."""
    links = list(NOTEBOOK_LINK.finditer(cell))
    if not links or links[0].start() != 0:
        raise ValueError(f"a 'shown in' cell must start with a notebook link: {cell!r}")
    out = []
    for link, following in zip(links, [*links[1:], None]):
        words = cell[link.end():following.start() if following else len(cell)].strip()
        out.append({"notebook": link.group(2), "section": words.removesuffix(",").strip()})
    return out


def cause_of(cells: list[str]) -> dict[str, object]:
    if len(cells) != 4:
        raise ValueError(f"a row needs its cause | fix | shown in | reported in cells: {cells}")
    cause, fix, shown, reports = cells
    return {"cause": cause, "fix": fix, "shown_in": places(shown), "reports": reports}


def symptom_of(cells: list[str]) -> dict[str, object]:
    return {"symptom": cells[0], **cause_of(cells[1:])}


def error_entries(markdown: str) -> list[dict]:
    """The error section's entries: messages sharing one table of causes, with their prose."""
    entries: list[dict] = []
    group, prose, entry = "", [], None
    for block in blocks(markdown):
        if block.kind == "heading":
            if entry and prose:
                entry["after"] = "\n\n".join(prose)
            group, prose, entry = block.text.lstrip("#").strip(), [], None
        elif block.kind == "prose":
            prose.append(block.text)
        elif block.kind == "message":
            if entry is None or entry["cause"]:
                if entry and len(prose) > 1:  # the last paragraph leads in, the others close
                    entry["after"], prose = "\n\n".join(prose[:-1]), prose[-1:]
                entry = {"group": group, "message": [], "cause": []}
                entries.append(entry)
            entry["message"].append({"before": "\n\n".join(prose), "text": block.text})
            prose = []
        elif block.kind == "table":
            if entry is None or entry["cause"]:
                raise ValueError(f"a table of causes without a message above it, under {group!r}")
            entry["notes"] = "\n\n".join(prose)
            entry["cause"] = [cause_of(row) for row in table_rows(block.text)]
            prose = []
        else:
            raise ValueError(f"unexpected {block.kind} block under {group!r}: {block.text[:80]!r}")
    if entry and prose:
        entry["after"] = "\n\n".join(prose)
    if entries and not entries[0]["group"]:
        raise ValueError("the error section must start with a ### heading after its intro")
    return entries


def split_intro(markdown: str) -> tuple[str, str]:
    """(the section's intro paragraphs, the rest from its first ### heading)."""
    head, _, rest = markdown.partition("\n### ")
    return head.strip(), "### " + rest


def symptom_groups(markdown: str) -> list[dict]:
    groups: list[dict] = []
    for block in blocks(markdown):
        if block.kind == "heading":
            groups.append({"heading": block.text.lstrip("#").strip(), "row": []})
        elif block.kind == "table" and groups and not groups[-1]["row"]:
            groups[-1]["row"] = [symptom_of(row) for row in table_rows(block.text)]
        else:
            raise ValueError(f"unexpected {block.kind} block in the symptom index: {block.text[:80]!r}")
    return groups


def with_ids(items: list[dict], text_of) -> list[dict]:
    """Each item with a unique id (its file name) and its position as `order`."""
    seen: set[str] = set()
    for n, item in enumerate(items, 1):
        base = slug(text_of(item))
        item["id"] = next(f"{base}-{k}" if k else base for k in range(99) if
                          (f"{base}-{k}" if k else base) not in seen)
        seen.add(item["id"])
        item["order"] = n * 10
    return items


def read_readme(path: Path) -> tuple[list[dict], list[dict]]:
    """(error entries, symptom groups) of a README, checked to render back to its blocks."""
    text = path.read_text(encoding="utf-8")
    errors_md = split_intro(section(text, "Diagnose your error"))[1]
    symptoms_md = split_intro(section(text, "Diagnose a symptom"))[1]
    errors = with_ids(error_entries(errors_md), lambda e: e["message"][0]["text"])
    symptoms = with_ids(symptom_groups(symptoms_md), lambda g: g["heading"])
    for original, data, render in ((errors_md, errors, pages.error_section),
                                   (symptoms_md, symptoms, pages.symptom_section)):
        again = render(data, pages.README_STYLE)
        if blocks(again) != blocks(original):
            first = next(i for i, (a, b) in enumerate(zip(blocks(again), blocks(original)))
                         if a != b) if blocks(again)[:1] else 0
            raise ValueError(f"the data would not render back to README's text; first difference "
                             f"at block {first}: {blocks(original)[first]!r}")
    return errors, symptoms


def write(errors: list[dict], symptoms: list[dict], root: Path = index.INDEX_DIR) -> None:
    for folder, items, top_keys, table in (
            (root / "errors", errors, ("group", "order", "notes", "after"), ("message", "cause")),
            (root / "symptoms", symptoms, ("heading", "order"), ("row",))):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.toml"):
            old.unlink()
        for item in items:
            top = {k: item.get(k, "") for k in top_keys}
            tables = [(name, t) for name in table for t in item[name]]
            (folder / f"{item['id']}.toml").write_text(document(top, tables, GENERATED), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m autograd_pitfalls.migrate_readme path/to/README.md")
        return 2
    errors, symptoms = read_readme(Path(argv[0]))
    write(errors, symptoms)
    print(f"wrote {len(errors)} error entries and {len(symptoms)} symptom groups to {index.INDEX_DIR}")
    for problem in index.unknown_variant_ids():
        print("warning:", problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
