"""`make student` (classroom/release.py): the folder handed to students says which torch to
install, and naming some notebooks refreshes their copies without deleting the others."""

from __future__ import annotations

import re
from pathlib import Path

from classroom.release import write_student_folder
from classroom.selection import select_notebooks
from testsuite.releases import pinned_release


def test_a_student_folder_and_a_partial_refresh(tmp_path: Path) -> None:
    out = tmp_path / "student"
    write_student_folder(out, select_notebooks(["00", "01"]))
    readme = (out / "README.md").read_text()
    assert f"pip install torch=={pinned_release()} --index-url" in readme
    assert not re.search(r"[{<][^}>]*[}>]", readme.replace("<student>", "")), "a placeholder is left"
    assert f"torch=={pinned_release()}\n" in (out / "requirements.txt").read_text()

    first = out / "notebooks" / "00_autograd_basics.ipynb"
    first.write_text("a student's edits")
    write_student_folder(out, select_notebooks(["01"]))
    assert first.read_text() == "a student's edits"  # kept: only 01 was named
    write_student_folder(out, select_notebooks([]))
    assert first.read_text() != "a student's edits"
    assert len(list((out / "notebooks").glob("*.ipynb"))) == len(select_notebooks([]))
