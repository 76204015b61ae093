"""Sphinx settings for `make site`: the collection as a static HTML book.

The sources are the repository itself (sphinx-build's source directory is the repository root,
this folder only holds the settings): README.md is the front page, every
notebooks/*.ipynb is a chapter, and docs/*.md (the index pages, the teachers' guide) and
CONTRIBUTING.md are pages of their own. The notebooks are rendered from their stored outputs
by myst-nb, never executed.
Links keep the form that works on a code host and in JupyterLab
(`notebooks/NN_x.ipynb`, `03_stored_intermediates.ipynb`); MyST turns them into links
between pages. Everything is written under site/ (see the Makefile's `site` target).

Launch buttons (Binder, Colab) need to know where the repository is hosted: set
SITE_REPOSITORY_URL (and SITE_REPOSITORY_BRANCH if it is not `main`) in the environment,
e.g. `make site SITE_REPOSITORY_URL=https://github.com/you/autograd-pitfalls`.
Without it the site has no launch buttons.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from sphinx.application import Sphinx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cell_id_anchors  # noqa: E402  (site_src/, beside this file)
import doctor_data  # noqa: E402
import no_spoilers  # noqa: E402

project = "Autograd pitfalls, executed"
author = "the autograd-pitfalls authors"
copyright = "the autograd-pitfalls authors"

# sphinx-mathjax-offline ships MathJax 3 in its pip package and copies it into the site's
# _static/: formulas are typeset without a network (Sphinx's default loads MathJax from a CDN).
extensions = ["myst_nb", "sphinx-mathjax-offline"]

# The repository's README is the front page; the chapters are every notebook, found by
# pattern, so that a new notebook needs no change here.
root_doc = "README"
include_patterns = ["README.md", "CONTRIBUTING.md", "docs/*.md", "notebooks/*.ipynb"]
# Not even walked: environments, generated folders, the build itself.
exclude_patterns = [".*", "**/.*", "site", "student", "tests", "testsuite", "site_src"]

# The stored outputs are what the site shows: nbval checks them against the pinned PyTorch.
nb_execution_mode = "off"
# Each notebook is read without its hidden tests and with its solutions folded (no_spoilers.py).
nb_custom_formats = {".ipynb": ["no_spoilers.read_for_site", {}, False]}
# Stored errors are one "Type: message" line (IPython's minimal mode), not tracebacks: shown as
# plain text. The traceback lexer fails on some messages (a backtick in DDP's) and warns.
nb_render_error_lexer = "text"
# Headings get GitHub-style anchors, so that README's `CONTRIBUTING.md#tested-with` works.
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "amsmath"]

html_theme = "sphinx_book_theme"
html_title = project
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_js_files = ["site.js", "doctor.js"]  # doctor.js acts only on docs/doctor.html
html_copy_source = True  # the download button offers the .ipynb
html_show_sourcelink = False

repository_url = os.environ.get("SITE_REPOSITORY_URL", "").strip()
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": True,
    # Search lives in the sidebar; without this an empty top bar holds a second search box.
    "navbar_persistent": [],
}
if repository_url:
    html_theme_options |= {
        "repository_url": repository_url,
        "repository_branch": os.environ.get("SITE_REPOSITORY_BRANCH", "main"),
        "path_to_docs": "",
        "use_repository_button": True,
        "launch_buttons": {
            "binderhub_url": "https://mybinder.org",
            "colab_url": "https://colab.research.google.com",
            "notebook_interface": "jupyterlab",
        },
    }

# README.md cannot hold a toctree (it is also read on the code host and in JupyterLab), so the
# book's navigation is added to it here, at build time: the pages for each audience, then
# every notebook, in file-name order.
NAVIGATION = """

```{toctree}
:hidden:
:caption: Find your answer

docs/errors
docs/symptoms
docs/doctor
docs/teachers
CONTRIBUTING
```

```{toctree}
:hidden:
:glob:
:caption: Notebooks

notebooks/*
```
"""


def add_navigation(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname == root_doc:
        source[0] += NAVIGATION


def keep_outputs_in_build_folder(app: Sphinx) -> None:
    """myst-nb writes the images of notebook outputs to a jupyter_execute/ folder beside the
    output folder, i.e. in the repository: keep them with the doctrees, under site/."""
    folder = Path(app.doctreedir) / "jupyter_execute"
    app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder))


def download_without_hidden_tests(app: Sphinx, exception: Exception | None) -> None:
    """The download button offers the .ipynb that Sphinx copied to _sources/: without hidden
    tests too (the solutions stay: a notebook has no folding)."""
    if exception is not None or app.builder.name != "html":
        return
    for docname in app.env.found_docs:
        copied = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        if copied.is_file():
            notebook = nbformat.read(app.env.doc2path(docname), as_version=4)
            nbformat.write(no_spoilers.without_hidden_tests(notebook), copied)


FRONT_PAGE_REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta http-equiv="refresh" content="0; url={page}"><link rel="canonical" href="{page}"></head>
<body><p><a href="{page}">{title}</a></p></body></html>
"""


def copy_front_page(app: Sphinx, exception: Exception | None) -> None:
    """The front page is README.html; a host serves index.html at the site's root, which sends
    the browser there (one page, served once)."""
    out = Path(app.outdir)
    if exception is None and app.builder.name == "html":
        (out / "index.html").write_text(FRONT_PAGE_REDIRECT.format(title=project, page=f"{root_doc}.html"))


def export_doctor_index(app: Sphinx, exception: Exception | None) -> None:
    """The index, as the doctor page's script reads it (site_src/doctor_data.py)."""
    if exception is None and app.builder.name == "html":
        doctor_data.write(Path(app.outdir))


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", keep_outputs_in_build_folder)  # after myst-nb's own handler
    app.connect("source-read", add_navigation)
    # The index pages' `../notebooks/NN_x.ipynb#cell-id=…` links (JupyterLab's fragment) land on the
    # section that cell opens.
    app.connect("doctree-read", cell_id_anchors.add_cell_id_anchors)
    app.connect("build-finished", download_without_hidden_tests)
    app.connect("build-finished", copy_front_page)
    app.connect("build-finished", export_doctor_index)
