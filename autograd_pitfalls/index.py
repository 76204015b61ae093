"""Read the index data (index/errors/*.toml, index/symptoms/*.toml, index/variants.toml,
index/pages.toml): the layout is described in index/README.md."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

INDEX_DIR = Path(__file__).with_name("index")
REFERENCE = re.compile(r"(?<![\w/\[#.-])(?:([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*))?#(\d+)\b")


def _read(path: Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


def _folder(name: str) -> list[dict]:
    items = [{"id": p.stem, **_read(p)} for p in (INDEX_DIR / name).glob("*.toml")]
    return sorted(items, key=lambda item: (item["order"], item["id"]))


@cache
def variants() -> dict[str, list[str]]:
    """Entry id -> the hand-written regular expressions for the message's other wordings."""
    return {k: v["patterns"] for k, v in _read(INDEX_DIR / "variants.toml").items()}


@cache
def errors() -> tuple[dict, ...]:
    """The error entries in page order, each with its variant `patterns` (possibly none). The
    entries of a group stay together, under one heading, where its first entry's `order` puts
    them."""
    entries = _folder("errors")
    first = {}
    for e in entries:
        first.setdefault(e["group"], e["order"])
    entries.sort(key=lambda e: (first[e["group"]], e["order"], e["id"]))
    return tuple({**e, "patterns": variants().get(e["id"], [])} for e in entries)


@cache
def symptoms() -> tuple[dict, ...]:
    return tuple(_folder("symptoms"))


@cache
def page_texts() -> dict[str, dict[str, str]]:
    """The generated pages' titles, paths and intros (index/pages.toml)."""
    return _read(INDEX_DIR / "pages.toml")


def unknown_variant_ids() -> list[str]:
    known = {e["id"] for e in _folder("errors")}
    return [f"index/variants.toml names {k!r}, which is no error entry's id"
            for k in variants() if k not in known]


def references(text: str, repo: str | None = None) -> list[tuple[str, str]]:
    """The issue references in a text as (owner/repo, URL): `owner/repo#N`, and a bare `#N` in
    the repository named last before it (or `repo`). GitHub sends an issue URL of a pull
    request to the pull request."""
    out = []
    for m in REFERENCE.finditer(text):
        repo = m.group(1) or repo
        if repo:
            out.append((repo, f"https://github.com/{repo}/issues/{m.group(2)}"))
    return out
