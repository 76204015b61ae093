"""`make bench`: how long the suite takes, against the floor, and each notebook's own cells.

The floor is the bare cost of starting every kernel the suite starts (nbval's, one per notebook;
nbgrader's, one per synthetic submission graded and per hand-in of the mock class; the tests'
own), each started fresh, as they would be without the kernel pool (classroom/kernel_pool.py):
as many notebooks, each of which only starts a fresh kernel and imports torch and matplotlib,
run by nbval with pytest-xdist's usual workers (one per core). The suite's first run counts its
kernels (the pool's relay writes a line per kernel to KERNEL_LOG_ENV's file). The budget is on
the suite's time over that floor's: the pool must keep the suite faster than starting its
kernels fresh. For information it also prints the ratio to a floor of one kernel per notebook.
The suite and the floors run in turn, RUNS times each; a ratio is the median of the pairwise
ratios, so a machine that slows down for a while affects both sides of a pair alike.

Budgets (the benchmark exits 1 if one is broken; `make test` never fails on time):
each notebook's own cells (every code cell but the setup cell, kernel start excluded; timed in
one more run of the notebooks alone, one at a time, as a learner runs them) under
OWN_CELLS_BUDGET_S on a 2-core CPU, and the suite within SUITE_TO_FLOOR_BUDGET times the floor
of every kernel it starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import nbformat

from classroom.kernel_pool import KERNEL_LOG_ENV
from testsuite.grading import SUBMISSIONS

ROOT = Path(__file__).resolve().parent.parent
OWN_CELLS_BUDGET_S = 3.0
SUITE_TO_FLOOR_BUDGET = 1.0
FLOOR_CELL = "import matplotlib.pyplot\nimport torch"


def _timed(command: list[str], cwd: Path, extra_env: dict[str, str] | None = None) -> float:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0", **(extra_env or {})}
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed (exit {result.returncode}):\n{result.stdout[-2000:]}")
    return elapsed


def _write_floor(folder: Path, count: int) -> None:
    for k in range(count):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOOR_CELL)])
        nbformat.write(nb, folder / f"floor_{k:02d}.ipynb")


def _floor_command(python: str, folder: Path) -> list[str]:
    """nbval on the floor's notebooks, in fresh kernels, with one worker per core."""
    return [python, "-m", "pytest", "--nbval", "--nbval-current-env", "-n", "auto", "--dist", "loadscope",
            "-p", "no:cacheprovider", "-q", "-c", os.devnull, "--rootdir", str(folder), str(folder)]


def _cell_times(report: Path) -> dict[str, dict[str, float]]:
    """Per notebook, from pytest's JUnit XML (call durations): the setup cell, the own cells,
    the student copy and the grading."""
    times: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for case in ET.parse(report).iter("testcase"):
        notebook, name = case.get("classname", ""), case.get("name", "")
        if not notebook.endswith(".ipynb"):
            continue
        seconds = float(case.get("time", 0))
        if name == "Cell 0":
            times[notebook]["setup cell"] += seconds
        elif name.startswith("Cell "):
            times[notebook]["own cells"] += seconds
        elif name.startswith("student copy"):
            times[notebook]["student copy"] += seconds
        elif name == "graded by nbgrader":
            times[notebook]["grading"] += seconds
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of the suite and of the floor (default 3)")
    runs = parser.parse_args().runs
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        kernel_log = Path(tmp) / "kernels.log"
        times: dict[str, list[float]] = defaultdict(list)
        per_notebook = []
        floors: dict[str, tuple[Path, int]] = {}
        for k in range(runs):
            print(f"run {k + 1} of {runs}: suite ...", end=" ", flush=True)
            report = Path(tmp) / f"run{k}.xml"
            counting = {KERNEL_LOG_ENV: str(kernel_log)} if k == 0 else {}
            times["suite"].append(_timed([python, "-m", "pytest", f"--junitxml={report}",
                                          "-o", "junit_duration_report=call", "-o", "junit_family=xunit1"],
                                         ROOT, counting))
            print(f"{times['suite'][-1]:.1f} s", end="", flush=True)
            if k == 0:  # the floors, now that the suite's kernels are counted
                kernels = len(kernel_log.read_text().splitlines())
                floors = {"every-kernel floor": (Path(tmp) / "every_kernel_floor", kernels),
                          "one-kernel-per-notebook floor": (Path(tmp) / "floor", len(notebooks))}
                for folder, count in floors.values():
                    folder.mkdir()
                    _write_floor(folder, count)
            for what, (folder, _) in floors.items():
                print(f"; {what} ...", end=" ", flush=True)
                times[what].append(_timed(_floor_command(python, folder), folder))
                print(f"{times[what][-1]:.1f} s", end="", flush=True)
            print()
            per_notebook.append(_cell_times(report))
        # Own cells are timed alone, one notebook at a time, as a learner runs them: in the
        # suite they share the cores with the other workers' kernels and graders.
        print("own cells, one notebook at a time ...", flush=True)
        alone = Path(tmp) / "alone.xml"
        _timed([python, "-m", "pytest", "-n", "0", "-k", "Cell and not student", f"--junitxml={alone}",
                "-o", "junit_duration_report=call", "-o", "junit_family=xunit1", "notebooks"], ROOT)
        cells_alone = _cell_times(alone)

    print(f"\n{'notebook':<44} {'setup cell':>10} {'own cells':>10} {'student copy':>13} {'grading':>8}")
    broken = []
    for nb in sorted(per_notebook[0]):
        med = {what: statistics.median(run[nb][what] for run in per_notebook)
               for what in ("student copy", "grading")}
        med.update({what: cells_alone[nb][what] for what in ("setup cell", "own cells")})
        flag = ""
        if med["own cells"] > OWN_CELLS_BUDGET_S:
            flag = "  OVER BUDGET"
            broken.append(f"{nb}: own cells {med['own cells']:.2f} s > {OWN_CELLS_BUDGET_S:.0f} s")
        print(f"{nb.split('.')[1]:<44} {med['setup cell']:9.2f}s {med['own cells']:9.2f}s "
              f"{med['student copy']:12.2f}s {med['grading']:7.1f}s{flag}")
    suite = times["suite"]
    ratio, per_notebook_ratio = (statistics.median(s / f for s, f in zip(suite, times[what]))
                                 for what in ("every-kernel floor", "one-kernel-per-notebook floor"))
    print(f"\n(setup cell: imports, and own cells: every other code cell, budget "
          f"{OWN_CELLS_BUDGET_S:.0f} s each on a 2-core CPU, both timed one notebook at a time; "
          f"in the suite, medians of {runs} runs: student copy: its run in the same kernel; "
          f"grading: {len(SUBMISSIONS)} submissions autograded by nbgrader)")
    print(f"suite {statistics.median(suite):.1f} s, floor of every kernel it starts "
          f"{statistics.median(times['every-kernel floor']):.1f} s ({kernels} notebooks that only "
          f"start a fresh kernel and import torch and matplotlib): ratio {ratio:.2f} "
          f"(budget {SUITE_TO_FLOOR_BUDGET:.1f})")
    print(f"for information, one kernel per notebook ({len(notebooks)}, "
          f"{statistics.median(times['one-kernel-per-notebook floor']):.1f} s): ratio {per_notebook_ratio:.2f}")
    if ratio > SUITE_TO_FLOOR_BUDGET:
        broken.append(f"suite/floor ratio {ratio:.2f} > {SUITE_TO_FLOOR_BUDGET:.1f}")
    for line in broken:
        print("BUDGET BROKEN:", line)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
