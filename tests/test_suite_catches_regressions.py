"""The suite must fail on a wrong stored output: proved here on mutated copies of notebook 01.

Three copies are each broken in one way that a regression would cause (a changed number, a
changed error message, an error cell that no longer raises). nbval runs them in a separate
pytest process; each must fail, and the failure must name the notebook and the cell.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks" / "01_double_backward.ipynb"


def _code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def _change_number(nb) -> int:
    for k, cell in enumerate(_code_cells(nb)):
        for out in cell.outputs:
            if out.output_type == "stream" and "dy/dw = 5.0" in out.text:
                out.text = out.text.replace("dy/dw = 5.0", "dy/dw = 6.0")
                return k
    raise AssertionError("notebook 01 no longer prints 'dy/dw = 5.0'")


def _change_error_message(nb) -> int:
    for k, cell in enumerate(_code_cells(nb)):
        for out in cell.outputs:
            if out.output_type == "error":
                out.evalue = out.evalue.replace("a second time", "twice")
                return k
    raise AssertionError("notebook 01 stores no error")


def _error_no_longer_raised(nb) -> int:
    for k, cell in enumerate(_code_cells(nb)):
        if "raises-exception" in cell.metadata.get("tags", []):
            cell.source = "y.detach()  # the error this cell stores is no longer raised"
            return k
    raise AssertionError("notebook 01 has no raises-exception cell")


MUTATIONS = {
    "changed_number": _change_number,
    "changed_error_message": _change_error_message,
    "error_not_raised": _error_no_longer_raised,
}


def test_nbval_fails_on_each_wrong_stored_output(tmp_path: Path) -> None:
    # Same layout as the repository, so that the copies import the helper and find figures/.
    shutil.copytree(ROOT / "figures", tmp_path / "figures")
    (tmp_path / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / "autograd_tools.py", tmp_path / "notebooks")
    expected = {}
    for name, mutate in MUTATIONS.items():
        nb = nbformat.read(SOURCE, as_version=4)
        expected[name] = mutate(nb)
        nbformat.write(nb, tmp_path / "notebooks" / f"{name}.ipynb")

    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-q", "-rf", "--rootdir", str(tmp_path), "-c", os.devnull, "notebooks"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "AUTOGRAD_PITFALLS_CHECK_FIGURES": "1"},
    )
    summary = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert result.returncode == 1, result.stdout[-3000:]
    for name, cell in expected.items():
        wanted = f"FAILED notebooks/{name}.ipynb::Cell {cell} "  # the space: Cell 1 is not Cell 10
        assert any(line.startswith(wanted) for line in summary), (wanted, summary)
    assert len(summary) == len(MUTATIONS), summary
