"""A class folder as a real class hands it in, to grade (`make grade`) in tests and benchmarks.

``python -m testsuite.mock_class DIR [--students 40] [--notebooks 01 04 06]`` writes DIR with one
folder per student; student k hands in CASES[k % len(CASES)] for every notebook. The cases are
what a teacher meets: correct, blank, partly wrong, a file cut off mid-way (invalid JSON), a cell
that kills the kernel, an endless loop, misnamed and nested hand-ins, two different files for
one notebook, a cheat that redefines the checker or patches its module, and a macOS zip's
``__MACOSX`` folder beside the students. ``expected_points`` says what each case should score.
"""

from __future__ import annotations

import argparse
from copy import deepcopy
from pathlib import Path
from typing import Any

import nbformat

from classroom.selection import select_notebooks
from testsuite.exercises import BEGIN_SOLUTION, END_SOLUTION, exercises
from testsuite.grading import synthetic_submissions
from testsuite.notebooks import read_notebook, student_copy_of

FAKE_VERDICT = "type('Verdict', (), {'confirm': lambda self, *a, **k: None})()"
# A line added at the end of the first exercise's solution (with a wrong answer, for the cheats),
# or at its start (the endless loop, so that no answer is set).
CHEATS = {
    "cheat-redefines": f"answer = None\ncheck_answer = lambda *a, **k: {FAKE_VERDICT}",
    "cheat-patches": ("answer = None\nimport autograd_pitfalls.exercise_check as exercise_check\n"
                      "exercise_check.Verdict.confirm = lambda self, *a, **k: None\n"
                      "exercise_check.check_answer = lambda *a, **k: exercise_check.Verdict(None, None, '', 4)\n"
                      "check_answer = exercise_check.check_answer"),
    "dead-kernel": "import os; os._exit(1)",
    "endless-loop": "while True: pass",
}
CASES = ("correct", "blank", "one-wrong", "invalid-json", "dead-kernel", "endless-loop", "browser-copy",
         "renamed", "nested-zip", "two-versions", "cheat-redefines", "cheat-patches", "nothing")


def _with_line_in_first_solution(nb: Any, line: str) -> Any:
    changed = deepcopy(nb)
    first = changed.cells[exercises(nb)[0].solution_index]
    if line.startswith("while"):
        first.source = first.source.replace(BEGIN_SOLUTION, f"{BEGIN_SOLUTION}\n{line}")
    else:
        first.source = first.source.replace(END_SOLUTION, f"{line}\n{END_SOLUTION}")
    return changed


def hand_in(case: str, path: Path) -> dict[str, Any]:
    """The files (relative name -> notebook, or text for a broken file) of ``case``."""
    nb = read_notebook(path)
    full, untouched, wrong = synthetic_submissions(nb, student_copy_of(path)).values()
    name = path.name
    if case in CHEATS:
        return {name: _with_line_in_first_solution(full, CHEATS[case])}
    return {
        "correct": {name: full},
        "blank": {name: untouched},
        "one-wrong": {name: wrong},
        "invalid-json": {name: nbformat.writes(full)[:2000]},
        "browser-copy": {f"{path.stem} (1).ipynb": full},
        "renamed": {f"{path.stem[:2]}_{path.stem[3:].title()}-eve.ipynb": full},
        "nested-zip": {f"student/notebooks/{name}": full},
        "two-versions": {name: full, f"{path.stem} (1).ipynb": wrong},
        "nothing": {},
    }[case]


def expected_points(case: str, path: Path) -> float:
    """What ``case`` should score on the notebook at ``path``."""
    found = exercises(read_notebook(path))
    if case in ("correct", "browser-copy", "renamed", "nested-zip"):
        return sum(ex.points for ex in found)
    if case in ("one-wrong", "cheat-redefines", "cheat-patches", "endless-loop"):
        return sum(ex.points for ex in found[1:])
    return 0.0


def write_class(folder: Path, students: int, notebooks: list[Path]) -> dict[str, str]:
    """Write the class folder; return student -> case."""
    cases = {}
    for k in range(students):
        student = f"student{k + 1:02d}"
        cases[student] = CASES[k % len(CASES)]
        (folder / student).mkdir(parents=True)
        for path in notebooks:
            for relative, content in hand_in(cases[student], path).items():
                target = folder / student / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, str):
                    target.write_text(content)
                else:
                    nbformat.write(content, target)
    (folder / "__MACOSX" / "student01").mkdir(parents=True)
    (folder / "__MACOSX" / "student01" / f"._{notebooks[0].name}").write_bytes(b"\x00\x05\x16\x07")
    return cases


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--notebooks", nargs="*", default=["01", "04", "06"])
    args = parser.parse_args(argv)
    cases = write_class(args.folder, args.students, select_notebooks(args.notebooks))
    print(f"{len(cases)} students in {args.folder}: " + ", ".join(f"{s} {c}" for s, c in cases.items()))


if __name__ == "__main__":
    main()
