"""The suite must fail on a wrong stored output and on a broken student copy: proved here on
one mutated copy of notebook 01, run by this repository's own suite (conftest.py, testsuite/,
pytest.ini, releases.toml, classroom/) in a separate pytest process, in one kernel.

Seven mutations, each of a kind a regression would cause: a changed number, a changed error
message, an error cell that no longer raises, a control character left in Markdown by an
unescaped backslash, a check cell that needs a name only the solution
defines (fine in the notebook, broken in the student copy), a check cell that gives the
answer away in the student copy, and a check whose feedback no longer names a wrong answer's
cause (testsuite/answers/ declares it). Exactly those seven items must fail, each named by notebook and
cell; everything else passes. Grading by nbgrader is left out: no mutation concerns it, and
testsuite/grading.py grades every real notebook.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "01_double_backward.ipynb"
SUITE_FILES = ["conftest.py", "pytest.ini", "releases.toml", "requirements.txt",
               "nbval-sanitize.cfg"]


def _code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def _change_number(nb) -> str:
    for k, cell in enumerate(_code_cells(nb)):
        for out in cell.outputs:
            if out.output_type == "stream" and "dy/dw = 5.0" in out.text:
                out.text = out.text.replace("dy/dw = 5.0", "dy/dw = 6.0")
                return f"Cell {k}"
    raise AssertionError("notebook 01 no longer prints 'dy/dw = 5.0'")


def _change_error_message(nb) -> str:
    for k, cell in enumerate(_code_cells(nb)):
        for out in cell.outputs:
            if out.output_type == "error":
                out.evalue = out.evalue.replace("a second time", "twice")
                return f"Cell {k}"
    raise AssertionError("notebook 01 stores no error")


def _error_no_longer_raised(nb) -> str:
    tagged = [k for k, c in enumerate(_code_cells(nb)) if "raises-exception" in c.metadata.get("tags", [])]
    assert len(tagged) >= 2, "notebook 01 needs two raises-exception cells (one is mutated above)"
    k = tagged[-1]
    cell = _code_cells(nb)[k]  # the same code, its error caught: what it defines still exists
    cell.source = "try:\n" + textwrap.indent(cell.source, "    ") + "\nexcept Exception:\n    pass"
    return f"Cell {k}"


def _control_character_in_markdown(nb) -> str:
    cell = next(c for c in nb.cells if c.cell_type == "markdown")
    cell.source += "\n\nThe slope is $\x0crac{1}{2}$."  # "\frac" written in a non-raw string
    return "check no control characters in sources"


def _student_copy_needs_the_solution(nb) -> str:
    code = _code_cells(nb)
    k = next(k for k, c in enumerate(code) if c.metadata.get("nbgrader", {}).get("solution"))
    code[k].source = code[k].source.replace(
        "### END SOLUTION", "_defined_only_by_the_solution = 1\n### END SOLUTION")
    code[k + 1].source = "_ = _defined_only_by_the_solution\n" + code[k + 1].source
    return f"student copy Cell {k + 1}"  # nbgrader keeps every cell: the numbers stay


def _check_gives_the_answer_away(nb) -> str:
    test = [c for c in _code_cells(nb) if c.metadata.get("nbgrader", {}).get("grade")][-1]
    test.source = '# in case you wonder: answer = "q"\n' + test.source
    return "check student copy gives nothing away"


def _feedback_loses_the_cause(nb) -> str:
    test = next(c for c in _code_cells(nb) if c.metadata.get("nbgrader", {}).get("grade_id") == "exercise-2")
    assert "problems=choice_problems," in test.source, "notebook 01's exercise 2 no longer names its wrong answers' causes"
    test.source = test.source.replace("problems=choice_problems,", "")
    return "exercise-2: right answers in every form, wrong ones rejected"


MUTATIONS = [_change_number, _change_error_message, _error_no_longer_raised, _control_character_in_markdown,
             _student_copy_needs_the_solution, _check_gives_the_answer_away, _feedback_loses_the_cause]


def test_the_suite_fails_on_each_mutation_and_nothing_else(tmp_path: Path) -> None:
    for name in SUITE_FILES:
        shutil.copy(ROOT / name, tmp_path / name)
    for package in ("testsuite", "classroom"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "figures", tmp_path / "figures")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks",
                    ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))
    nb = nbformat.read(ROOT / "notebooks" / NOTEBOOK, as_version=4)
    expected = {mutate(nb) for mutate in MUTATIONS}
    assert len(expected) == len(MUTATIONS), expected  # seven different items
    nbformat.write(nb, tmp_path / "notebooks" / NOTEBOOK)

    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-rf", f"notebooks/{NOTEBOOK}",
         "--deselect", f"notebooks/{NOTEBOOK}::graded by nbgrader"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    failed = {line.split("::", 1)[1].split(" - ")[0]
              for line in result.stdout.splitlines() if line.startswith("FAILED ")}
    assert result.returncode == 1, result.stdout[-3000:]
    assert failed == expected, (sorted(failed), sorted(expected), result.stdout[-3000:])
