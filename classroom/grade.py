"""Grading (`make grade SUBMISSIONS=DIR [NB="01 04 06"]`): nbgrader autogrades a class.

DIR holds one folder per student (its name is the student's id) with the notebooks they hand
in; handins.py finds which file is which notebook, and says what it decided. Each notebook of
the assignment is graded in a temporary nbgrader course of its own (course.py), each student's
hand-in in its own nbgrader run, so that a broken file, a dead kernel or an nbgrader error costs
that one notebook's points and is reported in one line, while every other grade is written.
nbgrader puts back the check cells as the source has them (with their hidden tests, and the
checker guard of checker_guard.py), runs the notebook (a cell that raises does not stop it; one
that runs longer than the timeout is interrupted) and gives each check cell its points if it
raised nothing. Students are graded in parallel, one worker process per core; kernels are forked
from one kernel pool (kernel_pool.py).

Everything goes to OUT (by default DIR-graded, beside DIR): grades.csv (one row per student,
notebook and exercise, appended as grades come in, so an interrupted run keeps what it graded),
summary.csv (one row per student: total, then one column per notebook), feedback/<student>/
(nbgrader's HTML feedback) and autograded/<student>/ (the notebooks as graded, with their
outputs). The exit status is 1 when any hand-in could not be graded.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path

import nbformat

from classroom.course import ASSIGNMENT, Course, course
from classroom.handins import HandIn, find_hand_in, student_folders
from classroom.kernel_pool import kernel_pool, why_no_pool
from classroom.selection import select_notebooks

COLUMNS = ("student", "notebook", "exercise", "points", "max_points")
STUDENTS_PER_TASK = 5  # one course (and one generate_assignment) per task


@dataclass
class Row:
    student: str
    notebook: str
    exercise: str
    points: float
    max_points: float


@dataclass
class Graded:
    """What grading some students' hand-ins of one notebook gave."""

    rows: list[Row] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@lru_cache(maxsize=None)
def exercises_of(notebook: Path) -> tuple[tuple[str, float], ...]:
    """(grade id, points) of every check cell of a notebook, in order (read once per notebook,
    not once per student who did not hand it in)."""
    cells = nbformat.read(notebook, as_version=4).cells
    return tuple((c.metadata["nbgrader"]["grade_id"], float(c.metadata["nbgrader"]["points"])) for c in cells
                 if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution"))


def zero_rows(student: str, notebook: Path) -> list[Row]:
    return [Row(student, notebook.stem, grade_id, 0.0, points) for grade_id, points in exercises_of(notebook)]


def unreadable(path: Path) -> str | None:
    """Why a handed-in file is not a notebook nbgrader can grade, or None."""
    try:
        nbformat.validate(nbformat.read(path, as_version=4))
    except nbformat.reader.NotJSONError:
        return "not JSON: cut off or damaged"
    except Exception as e:  # nbformat's validation errors, unreadable files
        return f"{type(e).__name__}: {str(e).splitlines()[0][:120]}" if str(e) else type(e).__name__
    return None


def shown(path: Path) -> str:
    """``path`` as the teacher named it: relative to the current folder when it is inside it."""
    relative = os.path.relpath(path)
    return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()


def why_it_failed(log: str) -> str:
    """nbgrader's failure, as one reason a teacher can act on."""
    if "DeadKernelError" in log or "Kernel died" in log:
        return "the kernel died while running it (a cell ended Python: os._exit, a crash, out of memory)"
    if "UnresponsiveKernelError" in log or "TimeoutError" in log:
        return "the kernel stopped answering"
    last = [line for line in log.splitlines() if line.strip()][-1:] or ["no message"]
    return f"nbgrader failed: {last[0].strip()[:160]}"


def grade_notebook(notebook: Path, hand_ins: list[tuple[str, Path]], out: Path, timeout: int) -> Graded:
    """Autograde each student's hand-in of ``notebook`` in its own run of nbgrader (in a worker)."""
    graded = Graded()
    with course([notebook], timeout) as c:
        c.generate()
        for student, path in hand_ins:
            try:
                graded.rows += _grade_one(c, notebook, student, path, out, timeout, graded.problems)
            except Exception as e:  # an nbgrader failure outside autograde: this hand-in only
                graded.problems.append(f"{student}, {notebook.stem}: 0 points: nbgrader failed "
                                       f"({type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}); "
                                       "grade it by hand")
                graded.rows += zero_rows(student, notebook)
    return graded


def _grade_one(c: Course, notebook: Path, student: str, path: Path, out: Path, timeout: int,
               problems: list[str]) -> list[Row]:
    """One student's hand-in of ``notebook``, autograded in course ``c``: its rows; feedback
    and the graded notebook kept in ``out``; what went wrong appended to ``problems``."""
    from nbgrader.api import Gradebook

    c.submitted(student).mkdir(parents=True)
    shutil.copy(path, c.submitted(student) / notebook.name)
    failure = c.try_autograde(student)
    if failure:
        problems.append(f"{student}, {notebook.stem}: 0 points: {why_it_failed(failure)}; "
                        "see the student's notebook, or grade it by hand")
        return zero_rows(student, notebook)
    with Gradebook(c.db_url) as gradebook:
        scores = gradebook.find_submission_notebook(notebook.stem, ASSIGNMENT, student).grades
        rows = [Row(student, notebook.stem, g.name, float(g.score or 0), float(g.max_score))
                for g in sorted(scores, key=lambda g: g.name)]
    kept = c.autograded(student) / notebook.name
    if "CellTimeoutError" in kept.read_text():
        problems.append(f"{student}, {notebook.stem}: a cell ran over {timeout} s and was "
                        "stopped (an endless loop?); the rest was graded")
    _keep(kept, out / "autograded" / student / notebook.name)
    _keep(c.feedback(student) / f"{notebook.stem}.html", out / "feedback" / student / f"{notebook.stem}.html")
    return rows


def _keep(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)


@dataclass
class ClassGrades:
    """A graded class: every row, what each student handed in, and the problems found."""

    rows: list[Row]
    hand_ins: list[HandIn]
    problems: list[str]


def grade_class(class_folder: Path, notebooks: list[Path], out: Path, timeout: int = 60,
                jobs: int | None = None, say=print) -> ClassGrades:
    """Grade every student of ``class_folder`` on ``notebooks`` and write OUT's files. Each
    decision and problem is said in one line as soon as it is known."""
    students = student_folders(class_folder)
    if not students:
        raise SystemExit(f"{class_folder} holds no student folder (one folder per student, named by id)")
    collection = [p.stem for p in select_notebooks([])]
    hand_ins = [find_hand_in(folder, [p.stem for p in notebooks], collection) for folder in students]
    problems: list[str] = []

    def problem(line: str) -> None:
        say(line)
        problems.append(line)

    for line in (line for h in hand_ins for line in h.notes):
        say(line)
    for line in (line for h in hand_ins for line in h.problems):
        problem(line)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    with (out / "grades.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)

        def record(new: list[Row]) -> None:
            rows.extend(new)
            writer.writerows(_csv_row(r) for r in new)
            f.flush()

        tasks = []
        for notebook in notebooks:
            todo = []
            for h in hand_ins:
                path = h.files.get(notebook.stem)
                why = path and unreadable(path)
                if why:
                    problem(f"{h.student}, {notebook.stem}: 0 points: {path.relative_to(class_folder).as_posix()} "
                            f"is not a notebook ({why}); ask for the file again")
                if path and not why:
                    todo.append((h.student, path))
                else:
                    record(zero_rows(h.student, notebook))
            size = max(1, min(STUDENTS_PER_TASK, math.ceil(len(todo) / (jobs or os.cpu_count() or 1))))
            tasks += [(notebook, todo[k:k + size]) for k in range(0, len(todo), size)]
        with kernel_pool(), ProcessPoolExecutor(max_workers=jobs or os.cpu_count(), mp_context=get_context("spawn")) as pool:
            running = {pool.submit(grade_notebook, notebook, chunk, out, timeout): (notebook, chunk)
                       for notebook, chunk in tasks}
            for done in as_completed(running):
                try:
                    graded = done.result()
                except Exception as e:  # the worker itself died: its students lose that notebook only
                    notebook, chunk = running[done]
                    graded = Graded([r for student, _ in chunk for r in zero_rows(student, notebook)],
                                    [f"{student}, {notebook.stem}: 0 points: grading stopped ({type(e).__name__}); "
                                     "grade again" for student, _ in chunk])
                record(graded.rows)
                for line in graded.problems:
                    problem(line)
    rows.sort(key=lambda r: (r.student, r.notebook, r.exercise))
    write_csv(rows, out / "grades.csv")
    write_summary(rows, hand_ins, notebooks, out / "summary.csv")
    return ClassGrades(rows, hand_ins, problems)


def _csv_row(r: Row) -> list[str]:
    return [r.student, r.notebook, r.exercise, f"{r.points:g}", f"{r.max_points:g}"]


def write_csv(rows: list[Row], path: Path) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(_csv_row(r) for r in rows)


def write_summary(rows: list[Row], hand_ins: list[HandIn], notebooks: list[Path], path: Path) -> None:
    """One row per student: points, max points, then the points of each notebook."""
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "points", "max_points", *(p.stem for p in notebooks), "not handed in"])
        for h in hand_ins:
            mine = [r for r in rows if r.student == h.student]
            per_notebook = [sum(r.points for r in mine if r.notebook == p.stem) for p in notebooks]
            missing = h.missing([p.stem for p in notebooks])
            writer.writerow([h.student, f"{sum(r.points for r in mine):g}", f"{sum(r.max_points for r in mine):g}",
                             *(f"{x:g}" for x in per_notebook), " ".join(missing)])


def summary(rows: list[Row], hand_ins: list[HandIn]) -> list[str]:
    """One line per student: points out of the assignment's maximum, and what is missing."""
    lines = []
    for h in hand_ins:
        mine = [r for r in rows if r.student == h.student]
        missing = h.missing(sorted({r.notebook for r in mine}))
        line = f"{h.student}: {sum(r.points for r in mine):g}/{sum(r.max_points for r in mine):g} points"
        lines.append(line + (f"; not handed in: {', '.join(missing)}" if missing else ""))
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path, help="the class folder: one folder per student")
    parser.add_argument("--notebooks", nargs="*", default=[], help="the assignment (numbers); default: all")
    parser.add_argument("--out", type=Path, help="where grades and feedback go (default: SUBMISSIONS-graded)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds a cell may run (default 60)")
    parser.add_argument("--jobs", type=int, help="students graded at once (default: one per core)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        raise SystemExit(f"make grade: no such folder: {args.submissions}")
    notebooks = select_notebooks(args.notebooks)
    out = args.out or args.submissions.resolve().with_name(args.submissions.resolve().name + "-graded")
    # One intra-op thread per kernel, as in the test suite: the notebooks' examples are tiny, and
    # the kernel pool forks only a process without threads.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if off := why_no_pool():
        print(off)
    print(f"grading {len(notebooks)} notebook(s): {' '.join(p.stem for p in notebooks)}")
    graded = grade_class(args.submissions, notebooks, out, args.timeout, args.jobs)
    print("\n".join(summary(graded.rows, graded.hand_ins)))
    print(f"grades, one row per exercise: {shown(out / 'grades.csv')}\n"
          f"summary, one row per student: {shown(out / 'summary.csv')}\n"
          f"feedback (HTML) and graded notebooks: {shown(out / 'feedback')}/<student>/, "
          f"{shown(out / 'autograded')}/<student>/")
    if graded.problems:
        print(f"{len(graded.problems)} hand-in(s) could not be graded in full: the lines above name them")
    return 1 if graded.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
