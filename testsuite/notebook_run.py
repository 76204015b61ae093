"""One kernel per notebook: nbval's run of the notebook, then its student copy.

nbval starts a kernel, runs every code cell and compares its outputs with the stored ones
(items ``Cell N``). In the same kernel, once every name the notebook defined is deleted
(``%reset -f`` would do it too, but spends 0.5 s in two full garbage collections, and
``%reset -f -s`` keeps names that start with an underscore), the student copy (solutions
removed, outputs cleared: the `make student` path) runs top to bottom (items
``student copy Cell N``): no cell may raise unless tagged raises-exception, and every check
cell must print "Not answered yet". Reusing the kernel saves a kernel start and
``import torch`` per notebook; the modules stay imported, nothing else is kept.

Cells declared in releases.toml for the installed release get the outcome of their
declaration (see ``judge_declared_difference``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterator

import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile, NbCellError, find_metadata_tags

from testsuite.notebook_checks import check_items
from testsuite.notebooks import output_text, read_notebook, student_copy
from testsuite.releases import Difference

NOT_ANSWERED = "Not answered yet"
# Deletes every name a new kernel would not have (IPython's own names are in user_ns_hidden).
RESET_NAMESPACE = """\
for name in [n for n in get_ipython().user_ns if n not in get_ipython().user_ns_hidden]:
    del get_ipython().user_ns[name]
del name"""


class NotebookRun(IPyNbFile):
    """The checks on a notebook file, nbval's items for its cells, then its student copy's."""

    differences: dict[tuple[str, str], Difference] = {}  # set by conftest for the installed release

    def collect(self) -> Iterator[pytest.Item]:
        yield from check_items(self)
        name = self.path.name
        ids = set()
        for item in super().collect():
            ids.add(item.cell.get("id"))
            item.declared_difference = self.differences.get((name, item.cell.get("id")))
            yield item
        missing = sorted(cell for nb, cell in self.differences if nb == name and cell not in ids)
        if missing:
            raise pytest.UsageError(f"releases.toml names cells {missing} that {name} does not have")

        reset = nbformat.v4.new_code_cell(RESET_NAMESPACE)
        yield StudentCopyCell.from_parent(self, name="student copy: fresh namespace", cell_num=0,
                                          cell=reset, options=defaultdict(bool))
        copy = student_copy(read_notebook(self.path))
        for k, cell in enumerate(c for c in copy.cells if c.cell_type == "code"):
            options = defaultdict(bool, find_metadata_tags(cell.metadata))
            yield StudentCopyCell.from_parent(self, name=f"student copy Cell {k}", cell_num=k,
                                              cell=cell, options=options)


class StudentCopyCell(IPyNbCell):
    """A cell of the student copy: it has no stored output, so nbval only requires that it does
    not raise (unless tagged raises-exception); a check cell must say "Not answered yet"."""

    def runtest(self) -> None:
        super().runtest()
        if "check" in self.cell.metadata.get("tags", []):
            printed = output_text(self.test_outputs or [])
            if NOT_ANSWERED not in printed:
                raise NbCellError(
                    self.cell_num, f"the check does not say {NOT_ANSWERED!r} for an unanswered "
                    f"exercise; it printed {printed!r}", self.cell.source)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.fspath, 0, f"{self.fspath.relto(self.config.rootdir)}::{self.name}"


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
