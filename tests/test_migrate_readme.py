"""The README migration reads the index's old Markdown form into data without losing a word,
and refuses a README it would misread."""

from __future__ import annotations

import tomllib

import pytest

from autograd_pitfalls import migrate_readme

README = """# Title

## Diagnose your error

Intro, not migrated (index/pages.toml holds the page's intro).

### First group

```text
RuntimeError: first message
```

Also, for a view:

```text
RuntimeError: a view of the first message
```

Older PyTorch said "…".

| cause | fix | shown in | reported in |
| --- | --- | --- | --- |
| a cause | a fix | [01](notebooks/01_x.ipynb) *The bug*, [02](notebooks/02_y.ipynb) §3a (same) | owner/repo#1, #2 |

Not a fix: this.

A related mistake:

```text
TypeError: second message
```

| cause | fix | shown in | reported in |
| --- | --- | --- | --- |
| c2 | f2 | [03](notebooks/03_z.ipynb) | — |

## Diagnose a symptom (no error)

Intro.

### A group of symptoms

| symptom | cause | fix | shown in | reported in |
| --- | --- | --- | --- | --- |
| s | c | f | [09](notebooks/09_w.ipynb) §1 | article 002 |

## Next section
"""


def test_a_readme_becomes_entries_without_losing_text(tmp_path):
    (tmp_path / "README.md").write_text(README)
    errors, symptoms = migrate_readme.read_readme(tmp_path / "README.md")
    first, second = errors
    assert first["id"] == "first-message" and first["group"] == "First group"
    assert [m["text"] for m in first["message"]] == ["RuntimeError: first message",
                                                     "RuntimeError: a view of the first message"]
    assert first["message"][1]["before"] == "Also, for a view:" and first["after"] == "Not a fix: this."
    assert first["notes"] == 'Older PyTorch said "…".'
    assert first["cause"][0]["shown_in"] == [{"notebook": "01_x.ipynb", "section": "*The bug*"},
                                             {"notebook": "02_y.ipynb", "section": "§3a (same)"}]
    assert second["message"][0]["before"] == "A related mistake:" and second["group"] == "First group"
    assert symptoms[0]["row"][0]["symptom"] == "s"
    migrate_readme.write(errors, symptoms, tmp_path / "index")
    data = tomllib.loads((tmp_path / "index" / "errors" / "first-message.toml").read_text())
    assert data["cause"][0]["reports"] == "owner/repo#1, #2" and data["order"] == 10


def test_a_row_it_cannot_read_is_refused(tmp_path):
    (tmp_path / "README.md").write_text(README.replace("| c2 | f2 |", "| c2 | f2 | extra |"))
    with pytest.raises(ValueError, match="a row needs its cause"):
        migrate_readme.read_readme(tmp_path / "README.md")
    (tmp_path / "README.md").write_text(README.replace("[03](notebooks/03_z.ipynb)", "notebook 03"))
    with pytest.raises(ValueError, match="must start with a notebook link"):
        migrate_readme.read_readme(tmp_path / "README.md")
