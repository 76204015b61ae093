"""The exercises of a notebook, as nbgrader sees them, and what a student copy must not hold.

An exercise is an nbgrader solution cell (``answer = ...``, then the solution between
``### BEGIN SOLUTION`` and ``### END SOLUTION``) followed by its graded test cell, which calls
``check_answer`` with a digest and confirms the digest against a reference in its hidden tests.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"


def nbgrader_meta(cell: Any) -> dict[str, Any]:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_solution(cell: Any) -> bool:
    return cell.cell_type == "code" and bool(nbgrader_meta(cell).get("solution"))


def is_graded_test(cell: Any) -> bool:
    return cell.cell_type == "code" and bool(nbgrader_meta(cell).get("grade"))


@dataclass
class Exercise:
    """One exercise: its solution cell and its graded test cell (indices among all cells)."""

    solution_index: int
    test_index: int
    grade_id: str
    points: float


def exercises(nb: Any) -> list[Exercise]:
    """Every solution cell with the graded test cell that follows it (raises ValueError if a
    solution cell is not followed by one)."""
    found = []
    for i, cell in enumerate(nb.cells):
        if not is_solution(cell):
            continue
        following = next((k for k in range(i + 1, len(nb.cells)) if nb.cells[k].cell_type == "code"), None)
        if following is None or not is_graded_test(nb.cells[following]):
            raise ValueError(f"solution cell {i} ({nbgrader_meta(cell).get('grade_id')}) is not "
                             "followed by a graded test cell")
        meta = nbgrader_meta(nb.cells[following])
        found.append(Exercise(i, following, meta.get("grade_id", ""), float(meta.get("points", 0))))
    return found


def _region_pattern(begin: str, end: str) -> re.Pattern[str]:
    """A ``begin`` line, what follows it (group 1), and its ``end`` line."""
    return re.compile(rf"^[ \t]*{re.escape(begin)}[^\n]*\n(.*?)^[ \t]*{re.escape(end)}[^\n]*", re.M | re.S)


def regions(source: str, begin: str, end: str) -> list[str]:
    """The text between each ``begin`` line and its ``end`` line."""
    return _region_pattern(begin, end).findall(source)


def secret_lines(nb: Any) -> set[str]:
    """Lines of solutions and hidden tests that appear nowhere else in the notebook."""
    secret, public = set(), set()
    for cell in nb.cells:
        hidden = regions(cell.source, BEGIN_SOLUTION, END_SOLUTION) + regions(cell.source, BEGIN_HIDDEN, END_HIDDEN)
        for region in hidden:
            secret.update(line.strip() for line in region.splitlines())
        public.update(line.strip() for line in visible_source(cell.source).splitlines())
    return {line for line in secret - public if len(line) > 3 and not line.startswith("#")}


def literal_answer(solution_source: str) -> Any:
    """The constant a solution assigns to ``answer`` (``answer = "q"``, ``3 * 1.5 ** 2``), or None."""
    value = None
    for region in regions(solution_source, BEGIN_SOLUTION, END_SOLUTION):
        try:
            tree = ast.parse(region)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "answer"
                                                    for t in node.targets):
                value = _constant(node.value)
    return value


def _constant(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    allowed = (ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop)
    if all(isinstance(n, allowed) for n in ast.walk(node)):  # arithmetic on numbers only
        return eval(compile(ast.Expression(node), "<answer>", "eval"), {"__builtins__": {}})
    return None


def spellings(value: Any) -> set[str]:
    """How a constant answer, or one of its elements, would be written if a copy gave it away.
    Numbers too short to be told apart from any other (one or two digits) are left out."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, str):
        return {json.dumps(value), repr(value)} if value else set()
    if isinstance(value, (int, float)):
        text = repr(value)
        return {text} if len(text.replace("-", "").replace(".", "")) >= 3 else set()
    if isinstance(value, (set, frozenset, list, tuple)):
        return set().union(*(spellings(v) for v in value)) if value else set()
    return set()


def visible_source(source: str) -> str:
    """``source`` without its solution and hidden-test regions (markers included)."""
    for begin, end in ((BEGIN_SOLUTION, END_SOLUTION), (BEGIN_HIDDEN, END_HIDDEN)):
        source = _region_pattern(begin, end).sub("", source)
    return source


def exercise_problems(nb: Any) -> list[str]:
    """What keeps the notebook's exercises from being graded or checked without giving them away."""
    try:
        found = exercises(nb)
    except ValueError as error:
        return [str(error)]
    if not found:
        return ["no exercise (an nbgrader solution cell followed by a graded test cell)"]
    problems = []
    for ex in found:
        solution, test = nb.cells[ex.solution_index].source, nb.cells[ex.test_index].source
        where = f"{ex.grade_id} (cell {ex.test_index})"
        if not regions(solution, BEGIN_SOLUTION, END_SOLUTION):
            problems.append(f"{where}: the solution cell has no {BEGIN_SOLUTION} ... {END_SOLUTION}")
        elif not re.search(r"^answer = \.\.\.", solution.split(BEGIN_SOLUTION)[0], re.M):
            problems.append(f"{where}: the solution cell must set `answer = ...` before {BEGIN_SOLUTION}, "
                            "so that a cell that stops with an error leaves no old answer")
        if not re.search(r"^verdict = check_answer\(answer, \"[0-9a-f]{16}\"", visible_source(test), re.M):
            problems.append(f"{where}: the test cell must start its check with "
                            "`verdict = check_answer(answer, \"<digest>\", ...)`")
        hidden = regions(test, BEGIN_HIDDEN, END_HIDDEN)
        if not hidden or "verdict.confirm(" not in hidden[0]:
            problems.append(f"{where}: the test cell's hidden tests must compute a reference and "
                            "call verdict.confirm(reference)")
        if ex.points <= 0:
            problems.append(f"{where}: a graded test cell needs points")
    return problems


def student_copy_problems(nb: Any, copy: Any) -> list[str]:
    """What in ``copy`` gives an exercise of ``nb`` away: a line of a solution or of hidden tests,
    an output, or the constant answer in its check cell, in the exercise cell beyond the options
    the prompt lists, or in metadata."""
    problems = []
    for i, cell in enumerate(copy.cells):
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count):
            problems.append(f"cell {i}: outputs not cleared")
    secrets = secret_lines(nb)
    for i, cell in enumerate(copy.cells):
        left = [line for line in cell.source.splitlines() if line.strip() in secrets]
        if left:
            problems.append(f"cell {i}: a line of a solution or hidden test is left: {left[0].strip()!r}")
    if len(copy.cells) != len(nb.cells):
        return problems + ["the copy does not have the notebook's cells"]
    prompt_start = 0
    for ex in exercises(nb):
        prompt = "".join(c.source for c in nb.cells[prompt_start:ex.solution_index] if c.cell_type == "markdown")
        prompt_start = ex.test_index + 1
        answer = literal_answer(nb.cells[ex.solution_index].source)
        for spelling in sorted(spellings(answer)):
            places = {"its test cell": copy.cells[ex.test_index].source,
                      "the metadata": json.dumps([c.metadata for c in copy.cells])}
            if spelling not in prompt:
                places["its exercise cell"] = copy.cells[ex.solution_index].source
            for place, text in places.items():
                if spelling in text:
                    problems.append(f"{ex.grade_id}: the answer's {spelling} is in {place}")
    return problems
