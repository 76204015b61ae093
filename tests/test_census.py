"""The census of real reports (census/): every report judged covered still lands on an index
entry, heading and row that exist and name the notebook, and the figures in census/COVERAGE.md
are the ones census/check_coverage.py computes from census.toml, so they cannot drift."""

from __future__ import annotations

import importlib.util
import tomllib
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("check_coverage", ROOT / "census" / "check_coverage.py")
check_coverage = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_coverage)


def test_every_report_judged_covered_lands_on_an_existing_row():
    reports = tomllib.loads(check_coverage.CENSUS.read_text())["report"]
    assert len([r for r in reports if r["sample"] == "main"]) >= 150
    stale = [f"{r['id']}: {p}" for r in reports for p in check_coverage.problems(r)]
    assert not stale, "census entries to judge again:\n" + "\n".join(stale)


def test_coverage_md_states_the_figures_the_census_gives():
    printed = StringIO()
    with redirect_stdout(printed):
        assert check_coverage.main(["--strict"]) == 0
    stated = (ROOT / "census" / "COVERAGE.md").read_text()
    figures = [line for line in printed.getvalue().splitlines()
               if line.startswith(("| main", "| fresh", "| families", "| family (not yes)"))]
    assert figures and all(line in stated for line in figures), "run census/check_coverage.py and update COVERAGE.md"
