"""One kernel per notebook: nbval's run of the notebook, and its student copy in that kernel.

nbval starts a kernel, runs every code cell and compares its outputs with the stored ones
(items ``Cell N``). The student copy (nbgrader's release: solutions and hidden tests removed,
outputs cleared; the `make student` path) must run top to bottom (items ``student copy Cell
N``): no cell may raise unless tagged raises-exception, and every graded test cell must print
"Not answered yet".

The copy is the notebook itself up to the first solution cell, so that part is not run twice:
when nbval reaches the first solution, the namespace and torch's random state are saved, the
rest of the copy runs (exactly as it would in a fresh kernel), then namespace and random state
are put back and nbval goes on with the solutions, whose outputs are still compared, so that
anything else the copy changed would fail there rather than pass unseen. A notebook whose last
cells change state outside the namespace (notebook 15 closes its process group) says so in its
metadata ("autograd_pitfalls": {"student_copy": "after"}): its copy runs whole after the
notebook, once every name the notebook defined is deleted.

After each graded test cell, in the same kernel, its check is tried with other answers
(testsuite/answer_trial.py): the solution's answer in every number form and the right and wrong
answers testsuite/answers/ declares, each through the visible check and the hidden tests.

Last, on the pinned release, the notebook is graded by nbgrader (testsuite/grading.py).

Cells declared in releases.toml for the installed release get the outcome of their
declaration (see ``judge_declared_difference``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterator

import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile, NbCellError, find_metadata_tags

from testsuite.answer_trial import declared_answers, trial_code
from testsuite.exercises import is_graded_test, is_solution, nbgrader_meta
from testsuite.grading import GradedByNbgrader
from testsuite.notebook_checks import check_items
from testsuite.notebooks import output_text, student_copy_of
from testsuite.releases import Difference

NOT_ANSWERED = "Not answered yet"
# Deletes every name a new kernel would not have (IPython's own names are in user_ns_hidden).
RESET_NAMESPACE = """\
for name in [n for n in get_ipython().user_ns if n not in get_ipython().user_ns_hidden]:
    del get_ipython().user_ns[name]
del name"""
# Run in a namespace of its own, so that saving and restoring bind no name in the notebook's;
# the restoring function is kept on the shell object.
_SAVE_STATE_CODE = """
import torch
saved, rng = dict(shell.user_ns), torch.random.get_rng_state()
def restore():
    for name in [n for n in shell.user_ns if n not in saved]:
        del shell.user_ns[name]
    shell.user_ns.update(saved)
    torch.random.set_rng_state(rng)
shell.restore_student_copy_state = restore
"""
SAVE_STATE = f"exec({_SAVE_STATE_CODE!r}, {{'shell': get_ipython()}})"
RESTORE_STATE = "get_ipython().restore_student_copy_state()"


class NotebookRun(IPyNbFile):
    """The checks on a notebook file, then nbval's items for its cells with the student copy's
    items run between the last cell before the first solution and that solution."""

    differences: dict[tuple[str, str], Difference] = {}  # set by conftest for the installed release
    graded_by_nbgrader = True  # set by conftest: on the pinned release only

    def collect(self) -> Iterator[pytest.Item]:
        yield from check_items(self)
        name = self.path.name
        cells = list(super().collect())
        for item in cells:
            item.declared_difference = self.differences.get((name, item.cell.get("id")))
        ids = {item.cell.get("id") for item in cells}
        missing = sorted(cell for nb, cell in self.differences if nb == name and cell not in ids)
        if missing:
            raise pytest.UsageError(f"releases.toml names cells {missing} that {name} does not have")

        copy = [c for c in student_copy_of(self.path).cells if c.cell_type == "code"]
        if self.nb.metadata.get("autograd_pitfalls", {}).get("student_copy") == "after":
            yield from self._with_trials(cells)
            yield self._extra_cell("student copy: fresh namespace", RESET_NAMESPACE)
            yield from self._copy_cells(copy, start=0)
            yield from self._grading()
            return
        first_solution = next((k for k, item in enumerate(cells) if is_solution(item.cell)), len(cells))
        if [c.source for c in copy[:first_solution]] != [i.cell.source for i in cells[:first_solution]]:
            raise pytest.UsageError(f"the student copy of {name} differs from the notebook before the "
                                    "first solution: its run cannot start from the notebook's state")
        yield from cells[:first_solution]
        yield self._extra_cell("student copy: save the state", SAVE_STATE)
        yield from self._copy_cells(copy, start=first_solution)
        yield self._extra_cell("student copy: restore the state", RESTORE_STATE)
        yield from self._with_trials(cells[first_solution:])
        yield from self._grading()

    def _with_trials(self, cells: list[IPyNbCell]) -> Iterator[pytest.Item]:
        """The cells, each graded test cell followed by the trial of its declared answers."""
        declared = declared_answers(self.path)
        for item in cells:
            yield item
            grade_id = nbgrader_meta(item.cell).get("grade_id")
            if is_graded_test(item.cell) and grade_id in declared:
                yield AnswerTrial.from_parent(
                    self, name=f"{grade_id}: right answers in every form, wrong ones rejected", cell_num=0,
                    cell=nbformat.v4.new_code_cell(trial_code(item.cell.source, declared[grade_id])),
                    options=defaultdict(bool))

    def _grading(self) -> Iterator[pytest.Item]:
        if self.graded_by_nbgrader:
            yield GradedByNbgrader.from_parent(self, name="graded by nbgrader")

    def _copy_cells(self, copy: list[Any], start: int) -> Iterator[StudentCopyCell]:
        for k in range(start, len(copy)):
            options = defaultdict(bool, find_metadata_tags(copy[k].metadata))
            yield StudentCopyCell.from_parent(self, name=f"student copy Cell {k}", cell_num=k,
                                              cell=copy[k], options=options)

    def _extra_cell(self, name: str, source: str) -> StudentCopyCell:
        return StudentCopyCell.from_parent(self, name=name, cell_num=0, options=defaultdict(bool),
                                           cell=nbformat.v4.new_code_cell(source))


class StudentCopyCell(IPyNbCell):
    """A cell of the student copy: it has no stored output, so nbval only requires that it does
    not raise (unless tagged raises-exception); a check cell must say "Not answered yet"."""

    def runtest(self) -> None:
        super().runtest()
        if is_graded_test(self.cell):
            printed = output_text(self.test_outputs or [])
            if NOT_ANSWERED not in printed:
                raise NbCellError(
                    self.cell_num, f"the check does not say {NOT_ANSWERED!r} for an unanswered "
                    f"exercise; it printed {printed!r}", self.cell.source)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.fspath, 0, f"{self.fspath.relto(self.config.rootdir)}::{self.name}"


class AnswerTrial(StudentCopyCell):
    """The trial of an exercise's declared answers (testsuite/answer_trial.py): on failure, only
    what was judged wrongly (its code is generated, not worth reading)."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        error = excinfo.value
        return str(getattr(error, "inner_traceback", None) or error)


def judge_declared_difference(item: pytest.Item, report: pytest.TestReport) -> None:
    """A declared cell must differ, and print what its declaration says: then it counts as an
    expected failure (xfailed); if it passes, or differs otherwise, it fails."""
    difference: Difference | None = getattr(item, "declared_difference", None)
    if difference is None or report.when != "call":
        return
    where = f"releases.toml: {difference.notebook} {difference.cell}"
    if report.passed:
        report.outcome = "failed"
        report.longrepr = (f"{where} is declared to differ on this release, but its output now "
                           "equals the stored one: remove the entry (or this release from it)")
    elif report.failed:
        if difference.explains(output_text(item.test_outputs or [])):
            report.outcome = "skipped"
            report.wasxfail = f"{where}: {difference.why}"
        else:
            report.longrepr = (f"{report.longrepr}\n\n{where} is declared to differ on this release, "
                               f"but its output does not match {difference.prints!r}")
