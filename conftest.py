"""The collection's test suite, beside nbval.

For every notebook in notebooks/ pytest collects:

* ``notebooks/NN_x.ipynb::check <what>``: checks on the stored file (testsuite/notebook_checks.py);
* ``notebooks/NN_x.ipynb::Cell N``: nbval re-runs each code cell in one fresh kernel and
  compares its outputs with the stored ones; then, in the same kernel,
  ``student copy Cell N``: the student copy runs top to bottom (testsuite/notebook_run.py);
* ``notebooks/NN_x.ipynb::graded by nbgrader``: three synthetic submissions autograded by
  nbgrader get the points they should (testsuite/grading.py), on the pinned release.

It also sets the environment the kernels need for reproducible outputs, and applies
releases.toml: the suite runs on the pinned PyTorch release or on one of the older releases
listed there, whose declared differences are expected (testsuite/releases.py).
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

import pytest

from classroom.kernel_pool import kernel_pool, why_no_pool
from testsuite.notebook_run import NotebookRun, judge_declared_difference
from testsuite.notebooks import NOTEBOOKS
from testsuite.releases import (differences_for, installed_release, older_releases, pinned_release,
                               running_python, validated_pythons)

_POOL = pytest.StashKey[ExitStack]()


def pytest_configure(config: pytest.Config) -> None:
    release, pinned = installed_release(), pinned_release()
    if release != pinned and release not in older_releases():
        raise pytest.UsageError(
            f"PyTorch {release} is installed; the notebooks are validated on {pinned} (pinned in "
            f"requirements.txt) and on {', '.join(older_releases())} (releases.toml). Use `make "
            "test`, or `make test TORCH=<one of those>`.")
    NotebookRun.differences = differences_for(release, running_python())
    NotebookRun.graded_by_nbgrader = release == pinned  # grading does not depend on the release
    # Kernels inherit this process's environment (also under pytest-xdist, whose workers
    # start after this hook). Figures are compared with figures/ on the pinned release (they
    # are drawn from that release's results); on an older one they are neither compared nor
    # written. One intra-op thread per kernel: the examples are tiny, two kernels run side by
    # side on the cores, and `make execute` uses the same setting (Makefile).
    os.environ["AUTOGRAD_PITFALLS_CHECK_FIGURES"] = "1" if release == pinned else "skip"
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["PYTHONHASHSEED"] = "0"
    # Every kernel (nbval's, nbgrader's) is forked from one process that has imported torch
    # (pytest.ini names its kernel spec): started here, before the workers, which use it too.
    config.stash[_POOL] = ExitStack()
    config.stash[_POOL].enter_context(kernel_pool())
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if (off := why_no_pool()) and reporter and not hasattr(config, "workerinput"):
        reporter.write_line(off)  # one line, even under -q


def pytest_unconfigure(config: pytest.Config) -> None:
    if _POOL in config.stash:
        config.stash[_POOL].close()


def pytest_report_header(config: pytest.Config) -> str:
    release, pinned = installed_release(), pinned_release()
    python, pythons = running_python(), validated_pythons()
    declared = len(NotebookRun.differences)
    tested = "" if python in pythons else f", which is not among the tested Pythons {', '.join(pythons)}"
    return (f"PyTorch {release}" + (" (pinned)" if release == pinned else " (older release)")
            + f" on Python {python}{tested}; {declared} cells declared to differ here in releases.toml")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".ipynb" and file_path.parent == NOTEBOOKS:
        return NotebookRun.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    judge_declared_difference(item, outcome.get_result())
