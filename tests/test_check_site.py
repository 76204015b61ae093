"""site_src/check_site.py, which `make site` runs on the built site, finds every kind of broken
internal link on a tiny hand-made site (no Sphinx build here: the suite stays fast)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_site", ROOT / "site_src" / "check_site.py")
check_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_site)


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
