"""The collection's test suite, beside nbval.

nbval (``--nbval`` in pytest.ini) re-runs every notebook in a fresh kernel and compares
every stored output with what the installed PyTorch prints now. This file adds:

* the collection's own checks on every notebook *file* (collected next to nbval's cells,
  as items named ``notebooks/NN_x.ipynb::check <what>``): valid nbformat, executed top to
  bottom, ``raises-exception`` tags and error outputs agree, nothing machine-specific in
  stored outputs, no cell opting out of nbval's comparison, every image checked through
  save_figure, the sections of the notebook template present, every exercise with a
  solution and a check, and the student copy running top to bottom;
* the environment the kernels need for reproducible outputs (set before any kernel starts);
* a per-notebook time table at the end of the run, with the cells' own time.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent
NOTEBOOKS = ROOT / "notebooks"
# A notebook's own cells must run well under this, on a 2-core CPU (kernel start excluded).
CELL_TIME_BUDGET_S = 3.0

# A notebook is one reproduced scenario (bug, why, fix, claims) unless its metadata says it is a
# guide: several cases, or the basics ("autograd_pitfalls": {"template": "guide"}).
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


def pytest_configure(config: pytest.Config) -> None:
    # Kernels inherit this process's environment (also under pytest-xdist, whose workers
    # start after this hook). Figures are compared with figures/ instead of being written.
    # One intra-op thread per kernel: the examples are tiny, two kernels run side by side on
    # the cores, and `make execute` uses the same setting (Makefile).
    os.environ["AUTOGRAD_PITFALLS_CHECK_FIGURES"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"  # set, not defaulted: the time budget assumes it
    os.environ["PYTHONHASHSEED"] = "0"


# --------------------------------------------------------------------------- file checks


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


def check_setup_seeds(nb: Any, name: str) -> None:
    if not any("torch.manual_seed(" in c.source for _, c in _code_cells(nb)):
        _fail(f"{name}: no code cell calls torch.manual_seed (the notebook template, Setup)")


def check_exercises(nb: Any, name: str) -> None:
    code = _code_cells(nb)
    solutions = [k for k, (_, c) in enumerate(code) if "solution" in c.metadata.get("tags", [])]
    if not solutions:
        _fail(f"{name}: no exercise solution (a code cell tagged 'solution')")
    for k in solutions:
        i, cell = code[k]
        nxt = code[k + 1][1] if k + 1 < len(code) else None
        if nxt is None or "check" not in nxt.metadata.get("tags", []):
            _fail(f"{name} {_where(i, cell)}: the code cell after a solution must be tagged 'check'")
        if "check_answer(" not in nxt.source:
            _fail(f"{name} {_where(code[k + 1][0], nxt)}: a check cell must call check_answer(...)")


_OPT_OUTS = re.compile(r"^\s*#\s*NBVAL_(IGNORE_OUTPUT|SKIP|RAISES_EXCEPTION|CHECK_OUTPUT)", re.M)


def check_every_output_compared(nb: Any, name: str) -> None:
    """nbval compares every output unless a cell opts out: no cell may."""
    for i, cell in _code_cells(nb):
        tags = [t for t in cell.metadata.get("tags", []) if t.startswith("nbval-")]
        if tags or _OPT_OUTS.search(cell.source):
            _fail(f"{name} {_where(i, cell)}: opts out of nbval's comparison ({tags or 'NBVAL_ comment'})")


def check_figures_saved(nb: Any, name: str) -> None:
    """nbval does not compare images; save_figure compares them with figures/. So every cell
    that shows an image must do it through save_figure."""
    for i, cell in _code_cells(nb):
        shows_image = any("image/png" in out.get("data", {}) for out in cell.outputs)
        if shows_image and "save_figure(" not in cell.source:
            _fail(f"{name} {_where(i, cell)}: shows an image without save_figure, so nothing checks it")


def student_copy(nb: Any) -> Any:
    """The student copy of a notebook, made by nbconvert with student_copies.py (as `make student`)."""
    from nbconvert.exporters import NotebookExporter
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("student_copies.py", path=str(ROOT)).load_config()
    body, _ = NotebookExporter(config=config).from_notebook_node(nb)
    return nbformat.reads(body, as_version=4)


def check_student_copy(nb: Any, name: str) -> None:
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    copy = student_copy(nb)
    for i, cell in enumerate(copy.cells):
        if "solution" in cell.metadata.get("tags", []):
            _fail(f"{name} student copy cell {i}: a solution cell is left")
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count):
            _fail(f"{name} student copy cell {i}: outputs not cleared")
    solutions = [c.source for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    left = [s for s in solutions if any(s in c.source for c in copy.cells)]
    if left:
        _fail(f"{name} student copy: solution code is left: {left[0][:80]!r}")
    # Top to bottom in a fresh kernel, next to the real helper module and figures/;
    # only cells tagged raises-exception may raise (nbclient's own rule).
    client = NotebookClient(copy, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except CellExecutionError as e:
        _fail(f"{name} student copy does not run top to bottom: {str(e)[-600:]}")
    for i, cell in enumerate(copy.cells):
        if "check" in cell.metadata.get("tags", []):
            text = "".join(o.get("text", "") for o in cell.outputs)
            if "Not answered yet" not in text:
                _fail(f"{name} student copy cell {i}: the check does not say 'Not answered yet' "
                      f"for an unanswered exercise; it printed {text!r}")


CHECKS: dict[str, Callable[[Any, str], None]] = {
    "valid nbformat": check_valid,
    "executed top to bottom": check_executed_in_order,
    "raises-exception tags match error outputs": check_error_cells_tagged,
    "no machine details in outputs": check_no_machine_details,
    "every output compared": check_every_output_compared,
    "figures checked": check_figures_saved,
    "sections of the notebook template": check_sections,
    "fixed seed": check_setup_seeds,
    "exercises have solution and check": check_exercises,
    "student copy runs, without solutions": check_student_copy,
}


class NotebookCheck(pytest.Item):
    def __init__(self, *, check: Callable[[Any, str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check

    def runtest(self) -> None:
        nb = nbformat.read(self.path, as_version=nbformat.NO_CONVERT)
        self.check(nb, self.path.name)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: {self.name}"


class NotebookChecks(pytest.File):
    def collect(self) -> Iterator[NotebookCheck]:
        for what, check in CHECKS.items():
            yield NotebookCheck.from_parent(self, name=f"check {what}", check=check)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".ipynb" and file_path.parent == NOTEBOOKS:
        return NotebookChecks.from_parent(parent, path=file_path)
    return None


# --------------------------------------------------------------------------- timing

# Per notebook: the setup cell (imports: mostly `import torch`), the other cells, and all
# phases together (kernel start is in the first cell's setup, kernel stop in the last teardown).
_times: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path, _, cell = report.nodeid.partition("::")
    if not path.endswith(".ipynb") or cell.startswith("check "):
        return
    _times[path]["total"] += report.duration
    if report.when == "call":
        _times[path]["imports" if cell == "Cell 0" else "cells"] += report.duration


def _over_budget() -> list[str]:
    return [p for p, t in _times.items() if t["cells"] > CELL_TIME_BUDGET_S]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _times:
        return
    tr = terminalreporter
    tr.section("notebook durations")
    tr.write_line(f"{'notebook':<54} {'setup cell':>10} {'own cells':>10} {'total':>8}")
    for path in sorted(_times):
        t = _times[path]
        flag = "  OVER BUDGET" if path in _over_budget() else ""
        tr.write_line(
            f"{path:<54} {t['imports']:9.2f}s {t['cells']:9.2f}s {t['total']:7.2f}s{flag}"
        )
    tr.write_line(
        f"(setup cell: imports; own cells: the rest, budget {CELL_TIME_BUDGET_S:.0f} s each; "
        "total: with kernel start and stop)"
    )
    for path in _over_budget():
        tr.write_line(
            f"FAILED {path}: its own cells took {_times[path]['cells']:.2f} s, "
            f"over the {CELL_TIME_BUDGET_S:.0f} s budget", red=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _over_budget() and exitstatus == 0:
        session.exitstatus = 1
