"""Grading (`make grade SUBMISSIONS=DIR`): nbgrader autogrades every student's notebooks.

DIR holds one folder per student (its name is the student's id) with the notebooks they hand
in, directly or in a ``notebooks/`` folder inside it. In a temporary nbgrader course (see
course.py) the notebooks of this repository are the assignment's source; each submission is
autograded: nbgrader puts back the test cells as the source has them (with their hidden
tests), runs the notebook (a cell that raises does not stop it) and gives each test cell its
points if it raised nothing. Each notebook runs in a fresh kernel forked from a process that
has already imported torch (kernel_pool.py), which saves seconds per notebook. The grades go to
DIR/grades.csv, one row per student, notebook and exercise; a notebook not handed in scores 0
and is named in the student's summary line.
"""

from __future__ import annotations

import csv
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from classroom.course import ASSIGNMENT, NOTEBOOKS, course
from classroom.kernel_pool import why_no_pool

COLUMNS = ("student", "notebook", "exercise", "points", "max_points")


@dataclass
class Row:
    student: str
    notebook: str
    exercise: str
    points: float
    max_points: float


def submitted_notebooks(folder: Path) -> list[Path]:
    """The notebooks a student's folder holds (in it, or in its notebooks/ folder)."""
    inner = folder / "notebooks"
    return sorted((inner if inner.is_dir() else folder).glob("*.ipynb"))


def grade(submissions: Path, notebooks: list[Path]) -> list[Row]:
    """Autograde every student folder in ``submissions`` against ``notebooks``."""
    from nbgrader.api import Gradebook

    students = sorted(p.name for p in submissions.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise SystemExit(f"{submissions} holds no student folder (one folder per student)")
    names = {p.stem for p in notebooks}
    rows = []
    with course(notebooks) as c:
        c.generate()
        for student in students:
            target = c.submitted(student)
            target.mkdir(parents=True)
            handed_in = [p for p in submitted_notebooks(submissions / student) if p.stem in names]
            for path in handed_in:
                shutil.copy(path, target / path.name)
            if handed_in:
                c.autograde(student)
            else:
                c.add_empty_submission(student)
        with Gradebook(c.db_url) as gradebook:
            for student in students:  # every notebook of the assignment, handed in or not
                submission = gradebook.find_submission(ASSIGNMENT, student)
                for notebook in sorted(submission.notebooks, key=lambda n: n.name):
                    for g in sorted(notebook.grades, key=lambda g: g.name):
                        rows.append(Row(student, notebook.name, g.name, float(g.score or 0), float(g.max_score)))
    return rows


def write_csv(rows: list[Row], path: Path) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for r in rows:
            writer.writerow([r.student, r.notebook, r.exercise, f"{r.points:g}", f"{r.max_points:g}"])


def summary(rows: list[Row], submissions: Path) -> list[str]:
    """One line per student: points out of the maximum, and the notebooks not handed in."""
    lines = []
    for student in sorted({r.student for r in rows}):
        mine = [r for r in rows if r.student == student]
        handed_in = {p.stem for p in submitted_notebooks(submissions / student)}
        missing = sorted({r.notebook for r in mine} - handed_in)
        line = f"{student}: {sum(r.points for r in mine):g}/{sum(r.max_points for r in mine):g} points"
        lines.append(line + (f"; missing: {', '.join(missing)}" if missing else ""))
    return lines


def main(argv: list[str]) -> None:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        raise SystemExit("usage: python -m classroom.grade SUBMISSIONS_DIR  (one folder per student)")
    submissions = Path(argv[0])
    # One intra-op thread per kernel, as in the test suite: the notebooks' examples are tiny, and
    # the kernel pool forks only a process without threads.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if why_no_pool():
        print(why_no_pool())
    rows = grade(submissions, sorted(NOTEBOOKS.glob("*.ipynb")))
    write_csv(rows, submissions / "grades.csv")
    print("\n".join(summary(rows, submissions)))
    print(f"grades of every exercise: {submissions / 'grades.csv'}")


if __name__ == "__main__":
    main(sys.argv[1:])
