"""Check a built site: every notebook has its page, every internal link and image resolves,
nothing is loaded from the network.

    python site_src/check_site.py site

Each notebooks/*.ipynb of the repository must have its page (site/notebooks/NN_x.html). For
each HTML file under the site folder, every `href` and `src` that points inside the
site (no scheme, no `//host`) must name a file that exists, and a `#fragment` must name an
element id (or anchor name) of that page. No page may load a script or a style sheet from
another host (MathJax from a CDN, say): the site must work offline. Prints each failure and
exits 1 if any.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

LINK_ATTRIBUTES = {"href", "src"}
# <link rel=...> values whose target the browser loads with the page.
LOADED_LINKS = {"stylesheet", "preload", "modulepreload", "icon"}
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class PageReader(HTMLParser):
    """The ids a page defines and the internal links it makes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.remote_loads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
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


def is_internal(url: str) -> bool:
    parts = urlsplit(url)
    return not (parts.scheme or parts.netloc or url == "#")


def is_remote(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) or parts.scheme in {"http", "https"}


def read_page(path: Path, cache: dict[Path, PageReader]) -> PageReader:
    if path not in cache:
        reader = PageReader()
        reader.feed(path.read_text(encoding="utf-8"))
        cache[path] = reader
    return cache[path]


def pages_of(site: Path) -> list[Path]:
    """The site's pages: every HTML file but the theme's Jinja templates in _static/."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def broken_links(site: Path) -> list[str]:
    """'page: link (why)' for every internal link of the site that does not resolve."""
    pages: dict[Path, PageReader] = {}
    broken = []
    site = site.resolve()
    for page in pages_of(site):
        for link in read_page(page, pages).links:
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
                if unquote(parts.fragment) not in read_page(target, pages).ids:
                    broken.append(f"{where} (no such anchor)")
    return broken


def remote_loads(site: Path) -> list[str]:
    """'page: url' for every script or style sheet a page loads from another host."""
    site = site.resolve()
    return [f"{page.relative_to(site)}: {url}" for page in pages_of(site)
            for url in read_page(page, {}).remote_loads]


def missing_pages(site: Path, notebooks: Path = NOTEBOOKS) -> list[str]:
    """The notebooks that have no page in the site."""
    return [nb.name for nb in sorted(notebooks.glob("*.ipynb"))
            if not (site / "notebooks" / f"{nb.stem}.html").is_file()]


def main(argv: list[str]) -> int:
    site = Path(argv[1] if len(argv) > 1 else "site")
    if not (site / "index.html").is_file():
        print(f"{site}/index.html is missing: build the site first (make site)")
        return 1
    missing = missing_pages(site)
    for name in missing:
        print("no page for", name)
    broken = broken_links(site)
    for line in broken:
        print("broken link:", line)
    remote = remote_loads(site)
    for line in remote:
        print("loaded from the network:", line)
    pages = len(pages_of(site.resolve()))
    print(f"{pages} pages checked, {len(broken)} broken internal links or images, "
          f"{len(remote)} scripts or style sheets from the network")
    return 1 if broken or missing or remote else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
