"""Grading with the checker as shipped, whatever a submission redefined.

A check cell calls ``check_answer`` from the student's namespace, and its hidden tests call
``confirm`` on what that returned. A submission could redefine ``check_answer`` (``check_answer =
lambda *a, **k: None``) or patch the module (``autograd_pitfalls.exercise_check.Verdict.confirm = ...``) so that a
wrong answer passes. Before nbgrader runs a graded notebook, this preprocessor puts one line at
the top of every check cell that reloads the checker's module from its file and takes
``check_answer`` from it: patches to the module are undone and a redefinition is replaced. It is
a guard against cheap cheats only: the student's code runs in the same kernel as the checks (as
in any nbgrader course) and could still defeat them with more effort.
"""

from __future__ import annotations

from typing import Any

from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution

CHECKER_MODULE = "autograd_pitfalls.exercise_check"
GUARD = ("# graded with the checker as shipped (classroom/checker_guard.py)\n"
         "check_answer = __import__('importlib').reload(__import__('importlib').import_module("
         f"{CHECKER_MODULE!r})).check_answer\n")


class GuardTheChecker(NbGraderPreprocessor):
    """Prepend GUARD to every check cell (graded, not a solution) that calls check_answer."""

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        if cell.cell_type == "code" and is_grade(cell) and not is_solution(cell) and "check_answer(" in cell.source:
            cell.source = GUARD + cell.source
        return cell, resources
