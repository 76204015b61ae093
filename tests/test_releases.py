"""releases.toml: every declared difference names a real cell and a real difference, and a
declared cell is judged strictly both ways (it must differ, and differ as declared)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from testsuite.notebook_run import judge_declared_difference
from testsuite.notebooks import NOTEBOOKS, output_text, read_notebook
from testsuite.releases import (Difference, declared_differences, older_releases, pinned_release,
                               validated_pythons)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("difference", declared_differences(), ids=lambda d: f"{d.notebook}:{d.cell}")
def test_each_declared_cell_exists_and_its_stored_output_is_not_what_it_declares(difference):
    path = NOTEBOOKS / difference.notebook
    assert path.exists(), f"releases.toml names {difference.notebook}, which does not exist"
    cells = [c for c in read_notebook(path).cells if c.get("id") == difference.cell]
    assert len(cells) == 1 and cells[0].cell_type == "code", \
        f"{difference.notebook} has no code cell with id {difference.cell}"
    stored = output_text(cells[0].outputs)
    assert not difference.explains(stored), (
        f"{difference.notebook} {difference.cell}: the stored output (pinned release) already "
        f"matches {difference.prints!r}, so it does not describe a difference")


def test_the_contributors_guide_lists_every_tested_release():
    guide = (ROOT / "CONTRIBUTING.md").read_text()
    section = re.search(r"^## Tested with\n(.*?)(?=^## )", guide, re.S | re.M)
    assert section, "CONTRIBUTING.md has no '## Tested with' section"
    listed = re.findall(r"^\| (\d+\.\d+\.\d+)\b", section.group(1), re.M)
    assert listed == [pinned_release(), *older_releases()], listed
    pythons = re.findall(r"^\| (3\.\d+)\b", section.group(1), re.M)
    assert pythons == validated_pythons(), pythons


DIFFERENCE = Difference("00_x.ipynb", "cell-001", ("2.13.0",), r"^old name", "renamed in 2.15")


def _judge(outcome: str, printed: str) -> pytest.TestReport:
    item = SimpleNamespace(declared_difference=DIFFERENCE,
                           test_outputs=[{"output_type": "stream", "name": "stdout", "text": printed}])
    report = pytest.TestReport("nb::Cell 1", ("nb", 0, "Cell 1"), {}, outcome,
                               "Cell outputs differ" if outcome == "failed" else None, "call")
    judge_declared_difference(item, report)
    return report


def test_a_declared_cell_that_differs_as_declared_is_an_expected_failure():
    report = _judge("failed", "old name <- x\n")
    assert report.skipped and "renamed in 2.15" in report.wasxfail


def test_a_declared_cell_that_no_longer_differs_fails():
    report = _judge("passed", "new name <- x\n")
    assert report.failed and "remove the entry" in str(report.longrepr)


def test_a_declared_cell_that_differs_otherwise_fails():
    report = _judge("failed", "something else\n")
    assert report.failed and "does not match" in str(report.longrepr)


def test_an_undeclared_cell_is_left_as_it_is():
    report = pytest.TestReport("nb::Cell 2", ("nb", 0, "Cell 2"), {}, "failed", "differs", "call")
    judge_declared_difference(SimpleNamespace(), report)
    assert report.failed and report.longrepr == "differs"
