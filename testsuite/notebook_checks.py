"""The collection's own checks on every notebook *file*, collected next to nbval's cells as
items named ``notebooks/NN_x.ipynb::check <what>``: valid nbformat, executed top to bottom,
``raises-exception`` tags and error outputs agree, nothing machine-specific in stored outputs,
no cell opting out of nbval's comparison, no control character in a cell's source, every image checked through save_figure, the
sections of the notebook template, every heading at the start of its cell, a seed, every exercise in nbgrader's format, and a student
copy that gives no exercise away (testsuite/exercises.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator

import nbformat
import pytest

from autograd_pitfalls.anchors import heading_lines
from testsuite.answer_trial import declaration_problems
from testsuite.exercises import exercise_problems, exercises, student_copy_problems
from testsuite.notebooks import NOTEBOOKS, read_notebook, student_copy_of

COMMON_SECTIONS = ["What you will learn", "Setup", "Exercise", "Summary", "Further reading"]
SCENARIO_SECTIONS = [
    "What you will learn", "Setup", "The bug", "Why", "Fix", "Claims", "Exercise",
    "Summary", "Further reading",
]

# Stored outputs must not depend on the machine: no paths, addresses, times or user names.
_LEAKS = [
    (re.compile(r"(?<![\w.])/(?:root|home|Users|tmp|var|usr|opt|private|work)/"), "an absolute path"),
    (re.compile(r"\b[A-Za-z]:\\[A-Za-z]"), "a Windows path"),
    (re.compile(r"site-packages|dist-packages|ipykernel_\d+"), "an installation path"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "a memory address"),
    (re.compile(r"\bobject at \b"), "an object repr with an address"),
    (re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d"), "a timestamp"),
]


def _fail(message: str) -> None:
    pytest.fail(message, pytrace=False)  # the message names notebook and cell; no traceback


def _code_cells(nb: Any) -> list[tuple[int, Any]]:
    """(index among all cells, cell) for the code cells."""
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def _where(i: int, cell: Any) -> str:
    first = cell.source.strip().splitlines()[0] if cell.source.strip() else "(empty)"
    return f"cell {i} ({first[:60]!r})"


def check_valid(nb: Any, name: str) -> None:
    nbformat.validate(nb)


def check_executed_in_order(nb: Any, name: str) -> None:
    expected = 1
    for i, cell in _code_cells(nb):
        if not cell.source.strip():
            _fail(f"{name} {_where(i, cell)}: empty code cell")
        if cell.execution_count != expected:
            _fail(
                f"{name} {_where(i, cell)}: execution_count is {cell.execution_count}, "
                f"expected {expected}: run `make execute` (one fresh kernel, top to bottom)"
            )
        expected += 1


def check_error_cells_tagged(nb: Any, name: str) -> None:
    for i, cell in _code_cells(nb):
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if tagged and not errors:
            _fail(f"{name} {_where(i, cell)}: tagged raises-exception but stores no error")
        if errors and not tagged:
            _fail(f"{name} {_where(i, cell)}: stores an error but is not tagged raises-exception")


def _output_texts(cell: Any) -> Iterator[str]:
    """The text a stored output shows: stream text, text/* data, error name, message, traceback."""
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            yield out.text
        elif out.output_type == "error":
            yield from [out.ename, out.evalue, *out.traceback]
        else:
            yield from (v for k, v in out.get("data", {}).items() if k.startswith("text/"))


def check_no_machine_details(nb: Any, name: str) -> None:
    leaks = list(_LEAKS)
    home = str(Path.home())
    if home not in ("/", ""):
        leaks.append((re.compile(re.escape(home) + r"(?![\w.-])"), "the home directory"))
    for i, cell in _code_cells(nb):
        for text in _output_texts(cell):
            for pattern, what in leaks:
                m = pattern.search(text)
                if m:
                    _fail(f"{name} {_where(i, cell)}: stored output holds {what}: {m.group(0)!r}")


def _headings(nb: Any) -> list[str]:
    return [
        line.lstrip("#").strip()
        for c in nb.cells if c.cell_type == "markdown"
        for line in c.source.splitlines() if line.startswith("#")
    ]


def check_saved_as_jupyter_saves(nb: Any, name: str) -> None:
    """Stored as Jupyter writes a notebook after a run (nbformat's serialisation, adjacent
    outputs of one stream merged as JupyterLab merges them), so that a learner's Run-All and
    save leaves the file unchanged (nbval checks that the outputs themselves are the same)."""
    for i, cell in _code_cells(nb):
        streams = [o.get("name") if o.output_type == "stream" else None for o in cell.outputs]
        repeated = [a for a, b in zip(streams, streams[1:]) if a is not None and a == b]
        if repeated:
            _fail(f"{name} {_where(i, cell)}: two adjacent {repeated[0]} outputs that JupyterLab "
                  "would merge on save: run `make execute`")
        if "execution" in cell.metadata:
            _fail(f"{name} {_where(i, cell)}: execution timings in the metadata: run `make execute`")
    text = (NOTEBOOKS / name).read_text(encoding="utf-8")
    canonical = nbformat.writes(nb)
    if text.rstrip("\n") != canonical.rstrip("\n"):
        _fail(f"{name}: not stored as nbformat writes it (JSON layout): run `make execute`")


def check_sections(nb: Any, name: str) -> None:
    headings = _headings(nb)
    if not headings or nb.cells[0].cell_type != "markdown" or not nb.cells[0].source.startswith("# "):
        _fail(f"{name} cell 0: the notebook must open with a '# Title' markdown cell")
    template = nb.metadata.get("autograd_pitfalls", {}).get("template", "scenario")
    if template not in ("scenario", "guide"):
        _fail(f"{name}: metadata autograd_pitfalls.template is {template!r}, not 'scenario' or 'guide'")
    required = COMMON_SECTIONS if template == "guide" else SCENARIO_SECTIONS
    position = 0
    for section in required:
        found = [k for k, h in enumerate(headings) if h.lower().startswith(section.lower())]
        after = [k for k in found if k >= position]
        if not after:
            _fail(
                f"{name}: no heading starting with {section!r} "
                f"{'after the earlier sections' if found else ''} (the notebook template); "
                f"headings are {headings}"
            )
        position = after[0]


def check_headings_start_cells(nb: Any, name: str) -> None:
    """A heading is the first line of its Markdown cell, so that a link to the cell (the index's
    "shown in", JupyterLab's #cell-id=) lands on the heading it names, not on text above it."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for k, heading in heading_lines(cell.source):
            if k > 0:
                _fail(f"{name} cell {i} (id {cell.get('id')}), line {k + 1}: the heading "
                      f"{heading.group(0).strip()[:60]!r} does not start its cell; split the cell there")


def check_setup_seeds(nb: Any, name: str) -> None:
    if not any("torch.manual_seed(" in c.source for _, c in _code_cells(nb)):
        _fail(f"{name}: no code cell calls torch.manual_seed (the notebook template, Setup)")


def check_exercises(nb: Any, name: str) -> None:
    problems = exercise_problems(nb)
    if problems:
        _fail(f"{name}: " + "; ".join(problems))


_OPT_OUTS = re.compile(r"^\s*#\s*NBVAL_(IGNORE_OUTPUT|SKIP|RAISES_EXCEPTION|CHECK_OUTPUT)", re.M)


def check_every_output_compared(nb: Any, name: str) -> None:
    """nbval compares every output unless a cell opts out: no cell may."""
    for i, cell in _code_cells(nb):
        tags = [t for t in cell.metadata.get("tags", []) if t.startswith("nbval-")]
        if tags or _OPT_OUTS.search(cell.source):
            _fail(f"{name} {_where(i, cell)}: opts out of nbval's comparison ({tags or 'NBVAL_ comment'})")


# A backslash escape written in a Python string that was not raw ("\frac" -> form feed + "rac")
# leaves a control character in a cell: Markdown then shows garbage and LaTeX fails to render.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def check_no_control_characters(nb: Any, name: str) -> None:
    for i, cell in enumerate(nb.cells):
        found = _CONTROL.search(cell.source)
        if found:
            line = cell.source[:found.start()].count("\n") + 1
            _fail(f"{name} cell {i} (id {cell.get('id')}), line {line}: control character "
                  f"{found.group()!r} in the source (a backslash escape such as \\f or \\v in a non-raw string?)")


def check_figures_saved(nb: Any, name: str) -> None:
    """nbval does not compare images; save_figure compares them with figures/. So every cell
    that shows an image must do it through save_figure."""
    for i, cell in _code_cells(nb):
        shows_image = any("image/png" in out.get("data", {}) for out in cell.outputs)
        if shows_image and "save_figure(" not in cell.source:
            _fail(f"{name} {_where(i, cell)}: shows an image without save_figure, so nothing checks it")


def check_answers_declared(nb: Any, name: str) -> None:
    """Every exercise has its right and wrong answers declared, for the trial after its check cell."""
    problems = declaration_problems(NOTEBOOKS / name, [nb.cells[ex.test_index].metadata["nbgrader"]["grade_id"]
                                                       for ex in exercises(nb)])
    if problems:
        _fail(f"{name}: " + "; ".join(problems))


def check_student_copy(nb: Any, name: str) -> None:
    """The copy gives no exercise away. (It is run in the notebook's kernel: testsuite/notebook_run.py.)"""
    problems = student_copy_problems(nb, student_copy_of(NOTEBOOKS / name))
    if problems:
        _fail(f"{name} student copy: " + "; ".join(problems))


CHECKS: dict[str, Callable[[Any, str], None]] = {
    "valid nbformat": check_valid,
    "no control characters in sources": check_no_control_characters,
    "executed top to bottom": check_executed_in_order,
    "raises-exception tags match error outputs": check_error_cells_tagged,
    "no machine details in outputs": check_no_machine_details,
    "every output compared": check_every_output_compared,
    "figures checked": check_figures_saved,
    "saved as Jupyter saves it": check_saved_as_jupyter_saves,
    "sections of the notebook template": check_sections,
    "every heading starts its cell": check_headings_start_cells,
    "fixed seed": check_setup_seeds,
    "exercises gradable by nbgrader": check_exercises,
    "every exercise's answers declared": check_answers_declared,
    "student copy gives nothing away": check_student_copy,
}


class NotebookCheck(pytest.Item):
    def __init__(self, *, check: Callable[[Any, str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check

    def runtest(self) -> None:
        self.check(read_notebook(self.path), self.path.name)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: {self.name}"


def check_items(parent: pytest.Collector) -> Iterator[NotebookCheck]:
    """One item per check, for the notebook file ``parent`` collects."""
    for what, check in CHECKS.items():
        yield NotebookCheck.from_parent(parent, name=f"check {what}", check=check)
