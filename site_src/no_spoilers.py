"""No spoilers on the site: notebooks are read for `make site` without their hidden tests and
with their solutions folded.

The exercises are nbgrader cells (docs/teachers.md, "Exercises, student copies and grading"): a solution
cell (metadata `nbgrader.solution: true`, the answer between `### BEGIN SOLUTION` and
`### END SOLUTION`), then a test cell whose hidden tests sit between `### BEGIN HIDDEN TESTS`
and `### END HIDDEN TESTS`. The notebooks themselves are not changed: myst-nb reads each one
through `read_for_site` (conf.py's `nb_custom_formats`), which

- removes every hidden-test region (one comment line says where it was), and any stored output
  of that cell that quotes a line of it;
- folds every solution cell, source and output, under "Show solution" (myst-nb's `hide-cell`
  tag: a closed <details> element), its nbgrader marker lines removed: a reader who unfolds it
  sees the solution, as a learner would write it.

The notebook the page's download button offers is rewritten the same way, without the folding
(`without_hidden_tests`). check_site.py proves the result on the built site (`spoilers`).
"""

from __future__ import annotations

import copy
import re

import nbformat

HIDDEN_TESTS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
SOLUTION = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TESTS_REMOVED = "# hidden tests: run by `make grade`, not shown here"
SHOW_SOLUTION = {"code_prompt_show": "Show solution", "code_prompt_hide": "Hide solution"}


def regions(source: str, markers: tuple[str, str]) -> list[str]:
    """The text between each begin and end marker line of `source` (markers excluded)."""
    begin, end = (re.escape(m) for m in markers)
    return re.findall(rf"^[^\n]*{begin}[^\n]*\n(.*?)^[^\n]*{end}[^\n]*$", source, re.M | re.S)


def strip_hidden_tests(source: str) -> str:
    """`source` with each hidden-test region, markers included, replaced by one comment line."""
    begin, end = (re.escape(m) for m in HIDDEN_TESTS)
    return re.sub(rf"^([ \t]*)[^\n]*{begin}.*?^[^\n]*{end}[^\n]*$",
                  lambda m: m.group(1) + HIDDEN_TESTS_REMOVED, source, flags=re.M | re.S)


def output_text(output: dict) -> str:
    """Everything an output shows as text: a stream, an error, a result's plain text."""
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    if output.get("output_type") == "error":
        return "\n".join([output.get("ename", ""), output.get("evalue", ""),
                          *output.get("traceback", [])])
    return "".join(output.get("data", {}).get("text/plain", ""))


def without_hidden_tests(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `notebook` with no hidden test in any cell's source or stored output."""
    notebook = copy.deepcopy(notebook)
    for cell in notebook.cells:
        hidden = regions(cell.source, HIDDEN_TESTS)
        if not hidden:
            continue
        cell.source = strip_hidden_tests(cell.source)
        shown = {line.strip() for line in cell.source.splitlines()}
        revealing = {line.strip() for body in hidden for line in body.splitlines()
                     if len(line.strip()) >= 8} - shown
        cell.outputs = [out for out in cell.get("outputs", [])
                        if not any(line in output_text(out) for line in revealing)]
    return notebook


def without_solution_markers(source: str) -> str:
    """`source` without nbgrader's `### BEGIN SOLUTION` and `### END SOLUTION` lines."""
    begin, end = (re.escape(m) for m in SOLUTION)
    return re.sub(rf"^[ \t]*#+ *(?:{begin}|{end})[^\n]*(?:\n|$)", "", source, flags=re.M)


def fold_solutions(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `notebook` whose solution cells are shown folded under "Show solution", without
    nbgrader's marker lines."""
    notebook = copy.deepcopy(notebook)
    for cell in notebook.cells:
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        if cell.cell_type != "code":
            # Only code cells can be folded by a tag; fold any other kind here before using it.
            raise ValueError(f"solution cell {cell.get('id')} is a {cell.cell_type} cell: "
                             "no_spoilers.py folds only code cells")
        cell.source = without_solution_markers(cell.source)
        tags = cell.metadata.setdefault("tags", [])
        if "hide-cell" not in tags:
            tags.append("hide-cell")
        cell.metadata.setdefault("mystnb", {}).update(SHOW_SOLUTION)
    return notebook


def read_for_site(text: str) -> nbformat.NotebookNode:
    """myst-nb's reader for the site's notebooks (conf.py: `nb_custom_formats`)."""
    return fold_solutions(without_hidden_tests(nbformat.reads(text, as_version=4)))
