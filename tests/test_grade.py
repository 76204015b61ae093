"""`make grade` (classroom/grade.py) on a class as it really hands in (testsuite/mock_class.py):
every case once, on notebook 01. Every valid hand-in gets the points it should, each problem is
one line naming the student and the notebook, nothing is lost, and the files a teacher opens
are written. Matching hand-ins to notebooks and naming notebooks are tested on their own."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import classroom.grade
from classroom.grade import grade_notebook, main
from classroom.handins import find_hand_in, student_folders, which_notebook
from classroom.selection import select_notebooks
from testsuite.mock_class import expected_points, write_class

NOTEBOOK = select_notebooks(["01"])[0]
TEACHERS = Path(__file__).resolve().parent.parent / "docs" / "teachers.md"
COLLECTION = [p.stem for p in select_notebooks([])]


def test_grade_a_class_that_breaks_things(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = write_class(tmp_path / "class", 13, [NOTEBOOK])
    assert len(set(cases.values())) == 13  # every case once

    status = main([str(tmp_path / "class"), "--notebooks", "01", "--timeout", "5"])
    printed = capsys.readouterr().out.splitlines()
    # docs/teachers.md shows this run (make grade SUBMISSIONS=class NB=01 TIMEOUT=5) as it is;
    # the problem lines come as grading finds them, so the order is not compared
    documented = re.search(r"TIMEOUT=5`.*?```text\n(.*?)```", TEACHERS.read_text(), re.S).group(1).splitlines()
    assert sorted(documented) == sorted(line.replace(f"{tmp_path}/", "") for line in printed)

    out = tmp_path / "class-graded"
    with (out / "summary.csv").open() as f:
        table = list(csv.DictReader(f))
    assert [row["student"] for row in table] == sorted(cases)  # __MACOSX is no student
    got = {row["student"]: float(row["points"]) for row in table}
    assert got == {s: expected_points(case, NOTEBOOK) for s, case in cases.items()}
    assert all(row["max_points"] == "3" and row[NOTEBOOK.stem] == row["points"] for row in table)

    by_case = {case: student for student, case in cases.items()}
    problems = {case: [line for line in printed if line.startswith(f"{by_case[case]}, {NOTEBOOK.stem}: ")]
                for case in ("invalid-json", "dead-kernel", "endless-loop", "two-versions")}
    assert "is not a notebook (not JSON: cut off or damaged)" in problems["invalid-json"][0]
    assert "the kernel died" in problems["dead-kernel"][0]
    assert "ran over 5 s" in problems["endless-loop"][0]
    assert "2 different files" in problems["two-versions"][0]
    for case in ("browser-copy", "renamed", "nested-zip"):
        assert any(line.startswith(f"{by_case[case]}: ") and "taken for" in line for line in printed), case
    assert f"{by_case['nothing']}: 0/3 points; not handed in: {NOTEBOOK.stem}" in printed
    assert status == 1 and "4 hand-in(s) could not be graded in full" in printed[-1]

    with (out / "grades.csv").open() as f:
        assert len(list(csv.reader(f))) == 1 + 2 * 13  # two exercises per student, none lost
    graded = [s for s, case in cases.items() if case not in ("invalid-json", "dead-kernel", "two-versions", "nothing")]
    for student in graded:
        assert (out / "feedback" / student / f"{NOTEBOOK.stem}.html").is_file()
        assert (out / "autograded" / student / NOTEBOOK.name).is_file()


@pytest.mark.parametrize("name, notebook", [
    ("01_double_backward.ipynb", "01_double_backward"),
    ("01_double_backward (2).ipynb", "01_double_backward"),
    ("01_Double_Backward-eve.ipynb", "01_double_backward"),
    ("1_double_backward.ipynb", "01_double_backward"),  # one digit is no number; the name matches
    ("double_backward_final.ipynb", "01_double_backward"),
    ("Untitled.ipynb", None),
])
def test_which_notebook_a_file_is(name: str, notebook: str | None) -> None:
    assert which_notebook(Path(name), COLLECTION) == notebook


def test_what_a_student_folder_holds(tmp_path: Path) -> None:
    ada = tmp_path / "ada"
    for relative in ("student/notebooks/01_double_backward.ipynb", ".ipynb_checkpoints/04_x.ipynb",
                     "04_grad_tensors_weighting.ipynb", "Untitled.ipynb", "a/b/c/06_inplace_on_leaf.ipynb"):
        (ada / relative).parent.mkdir(parents=True, exist_ok=True)
        (ada / relative).write_text("{}")
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / ".git").mkdir()
    assert [p.name for p in student_folders(tmp_path)] == ["ada"]
    hand_in = find_hand_in(ada, ["01_double_backward", "06_inplace_on_leaf"], COLLECTION)
    assert hand_in.files == {"01_double_backward": ada / "student/notebooks/01_double_backward.ipynb"}
    assert hand_in.missing(["01_double_backward", "06_inplace_on_leaf"]) == ["06_inplace_on_leaf"]  # too deep
    assert sorted(hand_in.notes) == [
        "ada: 04_grad_tensors_weighting.ipynb left out: 04_grad_tensors_weighting is not in this assignment",
        "ada: Untitled.ipynb left out: its name matches no notebook",
        "ada: student/notebooks/01_double_backward.ipynb taken for 01_double_backward"]


def test_naming_notebooks() -> None:
    assert [p.stem for p in select_notebooks(["1", "04", "06_inplace_on_leaf.ipynb"])] == [
        "01_double_backward", "04_grad_tensors_weighting", "06_inplace_on_leaf"]
    with pytest.raises(SystemExit, match="no notebook 'one'"):
        select_notebooks(["one"])


def test_an_nbgrader_failure_costs_one_hand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception while grading one hand-in (here: writing its feedback) is one problem line and
    0 points for that hand-in; the next student of the same task is still graded."""
    grade_one = classroom.grade._grade_one

    def failing_for_ada(c, notebook, student, *rest):
        if student == "ada":
            raise RuntimeError("nbgrader could not write ada's feedback")
        return grade_one(c, notebook, student, *rest)

    monkeypatch.setattr(classroom.grade, "_grade_one", failing_for_ada)
    write_class(tmp_path / "class", 1, [NOTEBOOK])  # student01: a correct hand-in
    hand_in = tmp_path / "class" / "student01" / NOTEBOOK.name
    graded = grade_notebook(NOTEBOOK, [("ada", hand_in), ("ben", hand_in)], tmp_path / "out", timeout=30)
    assert graded.problems == [f"ada, {NOTEBOOK.stem}: 0 points: nbgrader failed (RuntimeError: nbgrader "
                               "could not write ada's feedback); grade it by hand"]
    assert sum(r.points for r in graded.rows if r.student == "ada") == 0
    assert sum(r.points for r in graded.rows if r.student == "ben") == 3
