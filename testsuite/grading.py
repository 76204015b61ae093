"""Each notebook graded by nbgrader, as a teacher grades it (`make grade`): three synthetic
submissions, autograded in one run of nbgrader in a course made from the notebook
(classroom/course.py), whose kernels come from the session's kernel pool.

* the full solutions (the notebook itself, outputs cleared): every exercise gets its points;
* the untouched student copy: every exercise gets 0;
* the full solutions but for one wrong answer (the first exercise's solution ends with
  ``answer = None``): exactly that exercise loses its points.

nbgrader's own release of each notebook must also equal the student copy the rest of the suite
runs (classroom/release.py), so that both are made the same way. Each notebook is graded in a
course of its own, which holds only that notebook: nbgrader's gradebook work grows with the
notebooks an assignment holds (a submission gets rows for every one of them).
"""

from __future__ import annotations

from copy import deepcopy
from pathlib import Path
from typing import Any

import nbformat
import pytest

from classroom.course import ASSIGNMENT, course
from testsuite.exercises import END_SOLUTION, exercises
from testsuite.notebooks import read_notebook, student_copy_of

SUBMISSIONS = ("full", "untouched", "one-wrong")


def synthetic_submissions(nb: Any, copy: Any) -> dict[str, Any]:
    """The three submissions of notebook ``nb`` whose student copy is ``copy``."""
    full = deepcopy(nb)
    for cell in full.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    wrong = deepcopy(full)
    first = wrong.cells[exercises(nb)[0].solution_index]
    first.source = first.source.replace(END_SOLUTION, f"answer = None\n{END_SOLUTION}")
    return dict(zip(SUBMISSIONS, (full, copy, wrong)))


def expected_points(nb: Any, label: str) -> dict[str, float]:
    found = exercises(nb)
    if label == "untouched":
        return {ex.grade_id: 0.0 for ex in found}
    return {ex.grade_id: 0.0 if (label == "one-wrong" and k == 0) else ex.points for k, ex in enumerate(found)}


class GradedByNbgrader(pytest.Item):
    """nbgrader's release and autograde of one notebook give the expected points."""

    def runtest(self) -> None:
        from nbgrader.api import Gradebook

        name, nb = self.path.name, read_notebook(self.path)
        problems = []
        with course([self.path]) as graded_course:
            graded_course.generate()
            if nbformat.read(graded_course.release / name, as_version=4) != student_copy_of(self.path):
                raise AssertionError(f"nbgrader's release of {name} differs from the student copy "
                                     "classroom/release.py makes")
            for label, submission in synthetic_submissions(nb, student_copy_of(self.path)).items():
                graded_course.submitted(label).mkdir(parents=True)
                nbformat.write(submission, graded_course.submitted(label) / name)
            graded_course.autograde()
            with Gradebook(graded_course.db_url) as gradebook:
                for label in SUBMISSIONS:
                    graded = gradebook.find_submission_notebook(self.path.stem, ASSIGNMENT, label)
                    got = {g.name: float(g.score or 0) for g in graded.grades}
                    want = expected_points(nb, label)
                    if got != want:
                        problems.append(f"{label}: nbgrader gave {got}, expected {want}")
        if problems:
            raise AssertionError(f"{name} graded by nbgrader:\n" + "\n".join(problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: graded by nbgrader"
