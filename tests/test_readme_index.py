"""README's "Diagnose your error" lists error messages word for word: each one must be an
error that some notebook really raises and stores, so that the index cannot drift from the
installed PyTorch (after an upgrade, `make execute` refreshes the notebooks and this test
names every message of the README that changed)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def stored_errors() -> dict[str, list[str]]:
    """'Type: message' -> the notebooks that store it."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                if out.output_type == "error":
                    found.setdefault(f"{out.ename}: {out.evalue}", []).append(path.name)
    return found


def diagnose_section() -> str:
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^## Diagnose your error\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "README.md has no '## Diagnose your error' section"
    return section.group(1)


def readme_messages() -> list[str]:
    messages = re.findall(r"^```text\n(.*?)\n```", diagnose_section(), re.S | re.M)
    assert messages, "the Diagnose section lists no message in a ```text block"
    return messages


def test_every_message_in_the_readme_is_raised_by_a_notebook():
    errors = stored_errors()
    missing = [m for m in readme_messages() if m not in errors]
    assert not missing, (
        "README.md lists messages that no notebook stores (word for word):\n"
        + "\n".join(f"- {m[:150]}" for m in missing)
    )


def test_every_message_has_causes_with_a_fix_and_a_place():
    """Each message is followed by a table of causes (two messages in a row may share one),
    and every row names the cause, the fix and where a notebook shows it."""
    # the section as a sequence of ("message", text) and ("row", cells) items, in order
    items = []
    for m in re.finditer(r"^```text\n(.*?)\n```$|^\|([^\n]*)\|$", diagnose_section(), re.S | re.M):
        if m.group(1) is not None:
            items.append(("message", m.group(1)))
        elif "---" not in m.group(2):
            items.append(("row", [c.strip() for c in m.group(2).split("|")]))
    pending, covered = [], {}
    for kind, value in items:
        if kind == "message":
            pending.append(value)
            continue
        if value[:3] == ["cause", "fix", "shown in"]:
            continue  # a header row
        assert len(value) >= 3 and all(value[:3]), f"a cause needs what, fix and where: {value}"
        assert re.search(r"\]\(notebooks/\d\d_\w+\.ipynb\)", value[2]), f"'shown in' must link a notebook: {value}"
        for message in pending:
            covered[message] = covered.get(message, 0) + 1
        pending = []
    assert not pending, f"no causes listed under: {pending[0][:80]}"
    assert set(covered) == set(readme_messages())
