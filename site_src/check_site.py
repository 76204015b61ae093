"""Check a built site: every notebook has its page, every internal link and image resolves,
nothing is loaded from the network, no exercise is spoiled.

    python site_src/check_site.py site

Each notebooks/*.ipynb of the repository must have its page (site/notebooks/NN_x.html). For
each HTML file under the site folder, every `href` and `src` that points inside the
site (no scheme, no `//host`) must name a file that exists, and a `#fragment` must name an
element id (or anchor name) of that page. No page may load a script or a style sheet from
another host (MathJax from a CDN, say): the site must work offline. No file of the site may
hold a hidden test of a notebook (its markers or its text), and every solution a page shows
must be folded (inside a closed <details>): see no_spoilers.py. Prints each failure and exits 1
if any.
"""

from __future__ import annotations

import functools
import json
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from no_spoilers import HIDDEN_TESTS, SOLUTION, output_text, regions  # noqa: E402

LINK_ATTRIBUTES = {"href", "src"}
ENCLOSING = {"script", "style", "pre", "details"}
# <link rel=...> values whose target the browser loads with the page.
LOADED_LINKS = {"stylesheet", "preload", "modulepreload", "icon"}
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class PageReader(HTMLParser):
    """The ids a page defines, the internal links it makes, what it loads from other hosts,
    and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.remote_loads: list[str] = []
        # The page's text but scripts and styles, piece by piece: (text, in a <pre>, folded),
        # folded meaning inside a closed <details>.
        self.text: list[tuple[str, bool, bool]] = []
        self._open: list[str] = []  # the enclosing script, style, pre and details elements

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ENCLOSING:
            self._open.append("folded" if tag == "details" and "open" not in found else tag)
        if tag == "script":
            loaded = found.get("src")
        elif tag == "link" and LOADED_LINKS & set((found.get("rel") or "").split()):
            loaded = found.get("href")
        else:
            loaded = None
        if loaded and is_remote(loaded):
            self.remote_loads.append(loaded)
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in LINK_ATTRIBUTES and is_internal(value):
                self.links.append(value)

    def handle_endtag(self, tag: str) -> None:
        names = [{"folded": "details"}.get(name, name) for name in self._open]
        if tag in names:  # the innermost element of that kind ends
            del self._open[len(names) - 1 - names[::-1].index(tag)]

    def handle_data(self, data: str) -> None:
        if not {"script", "style"} & set(self._open):
            self.text.append((data, "pre" in self._open, "folded" in self._open))


def is_internal(url: str) -> bool:
    parts = urlsplit(url)
    return not (parts.scheme or parts.netloc or url == "#")


def is_remote(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) or parts.scheme in {"http", "https"}


def read_page(path: Path) -> PageReader:
    """The page at `path`, parsed once however many checks read it (until it changes)."""
    stat = path.stat()
    return _parse_page(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=None)
def _parse_page(path: Path, mtime_ns: int, size: int) -> PageReader:
    reader = PageReader()
    reader.feed(path.read_text(encoding="utf-8"))
    return reader


def pages_of(site: Path) -> list[Path]:
    """The site's pages: every HTML file but the theme's Jinja templates in _static/."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def broken_links(site: Path) -> list[str]:
    """'page: link (why)' for every internal link of the site that does not resolve."""
    broken = []
    site = site.resolve()
    for page in pages_of(site):
        for link in read_page(page).links:
            parts = urlsplit(link)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            where = f"{page.relative_to(site)}: {link}"
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{where} (no such file)")
            elif site.resolve() not in target.parents:
                broken.append(f"{where} (outside the site)")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in read_page(target).ids:
                    broken.append(f"{where} (no such anchor)")
    return broken


def remote_loads(site: Path) -> list[str]:
    """'page: url' for every script or style sheet a page loads from another host."""
    site = site.resolve()
    return [f"{page.relative_to(site)}: {url}" for page in pages_of(site)
            for url in read_page(page).remote_loads]


def words(text: str) -> str:
    return " ".join(text.split())


def exercise_regions(notebooks: Path, markers: tuple[str, str]) -> set[str]:
    """The text (as words) of every region between `markers` in the notebooks' cells."""
    found = set()
    for path in sorted(notebooks.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
            source = "".join(cell.get("source", ""))
            found |= {words(body) for body in regions(source, markers) if words(body)}
    return found


def shown_text(path: Path) -> tuple[str, str, str]:
    """A site file's text, its code, and its code shown unfolded, as words. A marker quoted in
    prose is no spoiler: an HTML page's code is the text of its <pre> blocks, a notebook's its
    code cells and their outputs; other files (sources, the search index) have none."""
    if path.suffix == ".html":
        pieces = read_page(path).text
        return (words("".join(text for text, _, _ in pieces)),
                words("".join(text for text, pre, _ in pieces if pre)),
                words("".join(text for text, pre, folded in pieces if pre and not folded)))
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return words(text), "", ""
    cells = json.loads(text).get("cells", [])
    shown = ["".join(cell.get("source", "")) + "\n".join(
        output_text(out) for out in cell.get("outputs", [])) for cell in cells]
    code = [text for cell, text in zip(cells, shown) if cell.get("cell_type") == "code"]
    return words("\n".join(shown)), words("\n".join(code)), words("\n".join(code))


# The files to search for spoilers; _static/ holds only the theme's and MathJax's files.
TEXT_FILES = {".html", ".ipynb", ".txt", ".js", ".json", ".md"}


def spoilers(site: Path, notebooks: Path = NOTEBOOKS) -> list[str]:
    """'file: what' for every file of the site that shows a hidden test of a notebook (its text
    anywhere, or its markers in code), or a solution not folded in a page's code (its markers,
    or its text if long enough not to be a common line), or a folded solution that shows
    nbgrader's marker lines instead of only the solution."""
    hidden = exercise_regions(notebooks, HIDDEN_TESTS)
    solutions = {body for body in exercise_regions(notebooks, SOLUTION) if len(body) >= 20}
    found = []
    site = site.resolve()
    for path in sorted(site.rglob("*")):
        parts = path.relative_to(site).parts
        if path.suffix not in TEXT_FILES or {".doctrees", "_static"} & set(parts):
            continue
        text, code, unfolded = shown_text(path)
        if any(marker in code for marker in HIDDEN_TESTS) or any(body in text for body in hidden):
            found.append(f"{path.relative_to(site)}: a hidden test")
        if path.suffix == ".html" and (any(marker in unfolded for marker in SOLUTION)
                                       or any(body in unfolded for body in solutions)):
            found.append(f"{path.relative_to(site)}: a solution not folded")
        elif path.suffix == ".html" and any(marker in code for marker in SOLUTION):
            found.append(f"{path.relative_to(site)}: a folded solution shows nbgrader's markers")
    return found


def missing_pages(site: Path, notebooks: Path = NOTEBOOKS) -> list[str]:
    """The notebooks that have no page in the site."""
    return [nb.name for nb in sorted(notebooks.glob("*.ipynb"))
            if not (site / "notebooks" / f"{nb.stem}.html").is_file()]


def main(argv: list[str]) -> int:
    site = Path(argv[1] if len(argv) > 1 else "site")
    if not (site / "index.html").is_file():
        print(f"{site}/index.html is missing: build the site first (make site)")
        return 1
    failures = {}  # what each check prints before a failure: its failures
    for label, check in [("no page for", missing_pages), ("broken link:", broken_links),
                         ("loaded from the network:", remote_loads), ("spoiler:", spoilers)]:
        failures[label] = check(site)
        for line in failures[label]:
            print(label, line)
    pages = len(pages_of(site.resolve()))
    print(f"{pages} pages checked, {len(failures['broken link:'])} broken internal links or "
          f"images, {len(failures['loaded from the network:'])} scripts or style sheets from "
          f"the network, {len(failures['spoiler:'])} spoilers")
    return 1 if any(failures.values()) else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))
