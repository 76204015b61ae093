"""site_src/check_site.py, which `make site` runs on the built site, finds every kind of broken
internal link on a tiny hand-made site (no Sphinx build here: the suite stays fast)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_site", ROOT / "site_src" / "check_site.py")
check_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_site)
import no_spoilers  # noqa: E402  (check_site puts site_src/ on sys.path)


def write(path: Path, html: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{html}</body></html>", encoding="utf-8")


def test_broken_links_are_found_and_good_ones_pass(tmp_path: Path) -> None:
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "graph.png").write_bytes(b"png")
    write(tmp_path / "index.html", """
        <a href="notebooks/01.html#why">fine</a> <a href="#">top</a>
        <a href="https://pytorch.org/docs">external</a> <img src="_images/graph.png">
        <a href="notebooks/02.html">missing page</a> <img src="_images/gone.png">
        <a href="notebooks/01.html#how">missing anchor</a> <a href="../outside.html">outside</a>""")
    write(tmp_path / "notebooks" / "01.html", '<h2 id="why">Why</h2><a href="../index.html">back</a>')
    write(tmp_path / "_static" / "template.html", "<a href=\"{{ pathto('x') }}\">a Jinja template</a>")
    (tmp_path.parent / "outside.html").write_text("", encoding="utf-8")

    assert check_site.broken_links(tmp_path) == [
        "index.html: notebooks/02.html (no such file)",
        "index.html: _images/gone.png (no such file)",
        "index.html: notebooks/01.html#how (no such anchor)",
        "index.html: ../outside.html (outside the site)",
    ]
    assert check_site.main(["check_site", str(tmp_path)]) == 1


def test_a_site_without_index_fails(tmp_path: Path) -> None:
    assert check_site.main(["check_site", str(tmp_path)]) == 1


def test_every_notebook_needs_a_page(tmp_path: Path) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for name in ("00_a.ipynb", "01_b.ipynb"):
        (notebooks / name).write_text("{}", encoding="utf-8")
    site = tmp_path / "site"
    write(site / "notebooks" / "00_a.html", "")
    assert check_site.missing_pages(site, notebooks) == ["01_b.ipynb"]


def test_scripts_and_style_sheets_from_the_network_fail(tmp_path: Path, capsys) -> None:
    write(tmp_path / "index.html", """
        <script src="_static/mathjax/tex-chtml.js"></script> <script>inline()</script>
        <link rel="stylesheet" href="_static/site.css"> <a href="https://pytorch.org/docs">a link</a>
        <link rel="canonical" href="https://example.org/index.html">""")
    write(tmp_path / "notebooks" / "05.html", """
        <script defer src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"></script>
        <link rel="stylesheet" href="//fonts.example.org/a.css">""")
    assert check_site.remote_loads(tmp_path) == [
        "notebooks/05.html: https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js",
        "notebooks/05.html: //fonts.example.org/a.css",
    ]
    assert check_site.main(["check_site", str(tmp_path)]) == 1
    assert "loaded from the network: notebooks/05.html: https://cdn" in capsys.readouterr().out


SOLUTION_SOURCE = """answer = ...  # a number
### BEGIN SOLUTION
answer = w.grad.sum().item()  # the gradient of the sum
### END SOLUTION"""
CHECK_SOURCE = """verdict = check_answer(answer, "3d66c5c7")
    ### BEGIN HIDDEN TESTS
    reference = finite_difference(loss, w)
    verdict.confirm(reference)
    ### END HIDDEN TESTS"""


def exercise_notebook() -> nbformat.NotebookNode:
    solution = nbformat.v4.new_code_cell(SOLUTION_SOURCE, id="ex1-solution")
    solution.metadata["nbgrader"] = {"solution": True, "grade": False}
    solution.outputs = [nbformat.v4.new_output("stream", text="6.0\n")]
    check = nbformat.v4.new_code_cell(CHECK_SOURCE, id="ex1-check")
    check.outputs = [nbformat.v4.new_output("stream", text="Correct.\n"),
                     nbformat.v4.new_output("error", ename="NameError", evalue="x",
                                            traceback=["verdict.confirm(reference)"])]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("Exercise 1"),
                                           solution, check])


def test_the_site_reads_notebooks_without_hidden_tests_and_with_solutions_folded() -> None:
    notebook = no_spoilers.read_for_site(nbformat.writes(exercise_notebook()))
    _, solution, check = notebook.cells
    assert check.source == ('verdict = check_answer(answer, "3d66c5c7")\n'
                            "    " + no_spoilers.HIDDEN_TESTS_REMOVED)
    # "Correct." stays; the traceback quoting a hidden line goes.
    assert [out.get("text") for out in check.outputs] == ["Correct.\n"]
    assert "hide-cell" in solution.metadata.tags
    assert solution.metadata.mystnb["code_prompt_show"] == "Show solution"
    assert solution.source == "answer = ...  # a number\nanswer = w.grad.sum().item()  # the gradient of the sum\n"


def test_a_solution_that_is_not_a_code_cell_fails_the_build() -> None:
    notebook = exercise_notebook()
    notebook.cells[0].metadata["nbgrader"] = {"solution": True}
    with pytest.raises(ValueError, match="markdown"):
        no_spoilers.fold_solutions(notebook)


def test_hidden_tests_and_unfolded_solutions_are_found(tmp_path: Path) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nbformat.write(exercise_notebook(), notebooks / "01_x.ipynb")
    site = tmp_path / "site"
    code = "<pre>{}</pre>".format
    write(site / "index.html", "<p>Solutions sit between <code>### BEGIN SOLUTION</code> and "
                               "<code>### END SOLUTION</code>, hidden tests between "
                               "<code>### BEGIN HIDDEN TESTS</code> and the end marker.</p>")
    write(site / "notebooks" / "01_x.html",
          '<details class="hide"><summary>Show solution</summary>'
          + code(no_spoilers.without_solution_markers(SOLUTION_SOURCE))
          + "</details>" + code('verdict = check_answer(answer, "3d66c5c7")'))
    write(site / "notebooks" / "02_open.html",
          '<details open><summary>Hide solution</summary>' + code(SOLUTION_SOURCE) + "</details>")
    write(site / "notebooks" / "03_markers.html", code("### BEGIN SOLUTION\nanswer = 1\n### END SOLUTION"))
    write(site / "notebooks" / "05_folded_markers.html",
          '<details class="hide"><summary>Show solution</summary>' + code(SOLUTION_SOURCE) + "</details>")
    write(site / "notebooks" / "04_hidden.html",  # the text without the markers is still found
          '<details><summary>Show</summary><pre><span>reference</span> = '
          "finite_difference(loss, w)\nverdict.confirm(reference)</pre></details>")
    (site / "_sources").mkdir()
    (site / "_sources" / "01_x.ipynb").write_text(nbformat.writes(exercise_notebook()))
    (site / "_sources" / "teachers.md.txt").write_text("Hidden tests go between `### BEGIN HIDDEN TESTS`"
                                                      " and `### END HIDDEN TESTS`.")
    (site / "searchindex.js").write_text(json.dumps({"terms": ["verdict", "confirm"]}))

    assert check_site.spoilers(site, notebooks) == [
        "_sources/01_x.ipynb: a hidden test",
        "notebooks/02_open.html: a solution not folded",
        "notebooks/03_markers.html: a solution not folded",
        "notebooks/04_hidden.html: a hidden test",
        "notebooks/05_folded_markers.html: a folded solution shows nbgrader's markers",
    ]
