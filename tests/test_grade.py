"""`make grade` (classroom/grade.py) on a folder of submissions, with nbgrader: a submission that
raises part-way keeps the points of the exercises that pass, a notebook not handed in scores 0
and is named, and the grades are written to DIR/grades.csv. Notebook 01 (two exercises) stands
for all; testsuite/grading.py grades every notebook's synthetic submissions."""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat

from classroom.grade import COLUMNS, grade, summary, write_csv

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "01_double_backward.ipynb"


def test_grade_a_folder_of_submissions(tmp_path: Path) -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    first = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution"))
    first.source = first.source.replace("### BEGIN SOLUTION", "### BEGIN SOLUTION\nraise RuntimeError('stuck')")
    (tmp_path / "ada" / "notebooks").mkdir(parents=True)  # as handed out: in notebooks/
    nbformat.write(nb, tmp_path / "ada" / "notebooks" / NOTEBOOK.name)
    (tmp_path / "ben").mkdir()  # handed in nothing

    rows = grade(tmp_path, [NOTEBOOK])
    write_csv(rows, tmp_path / "grades.csv")

    with (tmp_path / "grades.csv").open() as f:
        table = list(csv.reader(f))
    assert table == [list(COLUMNS),
                     ["ada", "01_double_backward", "exercise-1", "0", "2"],
                     ["ada", "01_double_backward", "exercise-2", "1", "1"],
                     ["ben", "01_double_backward", "exercise-1", "0", "2"],
                     ["ben", "01_double_backward", "exercise-2", "0", "1"]]
    assert summary(rows, tmp_path) == ["ada: 1/3 points", "ben: 0/3 points; missing: 01_double_backward"]
