"""Every public report the collection cites, where, and the evidence record it needs.

A citation is a GitHub reference (`owner/repo#N`, a bare `#N` after one, or an issue or pull
request link) or a forum thread named by its title (`discuss.pytorch.org: "title"`, `PyTorch
forums, "title"`, `Q&A: "title"`, `Stack Overflow: "title"`) or by its link, in one of two
places: a Markdown cell of a notebook, or an index row (its cause, fix and reports). Each cited
report needs an evidence record in census/evidence/ (the layout is in census/evidence/README.md).

    .venv/bin/python census/citations.py              # what is cited without a valid record
    .venv/bin/python census/citations.py --all        # every citation and where it is
    .venv/bin/python census/citations.py --notebook 19   # only the reports notebook 19 cites
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = Path(__file__).with_name("evidence")
sys.path.insert(0, str(ROOT))
from autograd_pitfalls import index  # noqa: E402

GITHUB_LINK = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(\d+)")
FORUM_TITLE = re.compile(r"(?:discuss\.pytorch\.org|PyTorch forums|Q&A|Stack Overflow)[,:] \\?\"(.+?)\\?\"", re.S)
FORUM_LINK = re.compile(r"https?://(?:discuss\.pytorch\.org/t/[\w%.-]+/\d+|stackoverflow\.com/(?:questions|q)/\d+)")
SHA = re.compile(r"[0-9a-f]{7,40}")
WHO = re.compile(r"^(reporter|maintainer|commenter|answer|merged PR|PR|commit|docs)\b")


@dataclass(frozen=True)
class Citation:
    key: str     # owner/repo#N in lower case, a forum thread's squeezed title, or its link
    place: str   # "notebooks/19_x.ipynb cell <id>" or "index errors/<id>.toml cause 3"
    text: str    # the whole text of that place (the cell, or the row's fields)


def squeeze(text: str) -> str:
    return " ".join(text.split())


def github_key(repo: str, number: str) -> str:
    return f"{repo.lower()}#{number}"


def keys_in(text: str) -> set[str]:
    """The reports a text cites."""
    keys = {github_key(repo, n) for repo, n in GITHUB_LINK.findall(text)}
    keys |= {github_key(repo, url.rsplit("/", 1)[-1]) for repo, url in index.references(text)}
    keys |= {squeeze(t) for t in FORUM_TITLE.findall(text)}
    keys |= {m.group(0) for m in FORUM_LINK.finditer(text)}
    return keys


def index_places() -> list[tuple[str, str]]:
    """(place, text) of every index row: an error entry's cause or a symptom row."""
    places = []
    for entry in index.errors():
        for n, cause in enumerate(entry["cause"], 1):
            places.append((f"index errors/{entry['id']}.toml cause {n}",
                           " ".join(str(cause.get(k, "")) for k in ("cause", "fix", "reports"))))
    for group in index.symptoms():
        for n, row in enumerate(group["row"], 1):
            places.append((f"index symptoms/{group['id']}.toml row {n}",
                           " ".join(str(row.get(k, "")) for k in ("symptom", "cause", "fix", "reports"))))
    return places


def notebook_places(notebooks: list[Path] | None = None) -> list[tuple[str, str]]:
    """(place, text) of every Markdown cell of the notebooks."""
    places = []
    for path in notebooks or sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for k, cell in enumerate(cells):
            if cell["cell_type"] == "markdown":
                places.append((f"notebooks/{path.name} cell {cell.get('id', k)}", "".join(cell["source"])))
    return places


def citations(places: list[tuple[str, str]] | None = None) -> list[Citation]:
    if places is None:
        places = notebook_places() + index_places()
    return [Citation(key, place, text) for place, text in places for key in sorted(keys_in(text))]


def records() -> dict[str, dict]:
    """Evidence records by every key they answer to: their label's and each of `cited_as`."""
    found = {}
    for path in sorted(EVIDENCE.glob("*.toml")):
        record = {"file": path.name, **tomllib.loads(path.read_text(encoding="utf-8"))}
        for alias in [record.get("label", ""), record.get("url", ""), *record.get("cited_as", [])]:
            for key in keys_in(alias) or ({squeeze(alias)} if alias else set()):
                found[key] = record
    return found


def record_problems(record: dict) -> list[str]:
    """What keeps an evidence record from backing what the texts say."""
    problems = []
    for field in ("label", "url", "title", "describes"):
        if not str(record.get(field, "")).strip():
            problems.append(f"no {field}")
    quotes, commits = record.get("quote", []), record.get("commit", [])
    if not quotes and not commits:
        problems.append("neither a [[quote]] nor a [[commit]]")
    for q in quotes:
        if not (str(q.get("says", "")).strip() and WHO.match(str(q.get("who", "")))):
            problems.append(f"a quote needs `says` and a `who` that starts with reporter, maintainer, "
                            f"commenter, answer, merged PR, PR, commit or docs: {q}")
    for c in commits:
        if not (str(c.get("repo", "")).count("/") == 1 and SHA.fullmatch(str(c.get("sha", "")))
                and str(c.get("shows", "")).strip()):
            problems.append(f"a commit needs `repo` (owner/name), `sha` (hex) and `shows`: {c}")
    if "settled" not in record:
        problems.append("no `settled` (true: the quotes establish the cause the texts give)")
    elif not record["settled"] and not str(record.get("hedge", "")).strip():
        problems.append("settled = false needs `hedge`: the words every citing text uses to say the "
                        "thread does not settle the cause")
    return problems


def citation_problems(cites: list[Citation], known: dict[str, dict]) -> list[str]:
    problems = []
    for c in cites:
        record = known.get(c.key)
        if record is None:
            problems.append(f"{c.key}: no evidence record (cited in {c.place})")
        elif record.get("settled") is False and squeeze(record.get("hedge", "")).lower() not in squeeze(c.text).lower():
            problems.append(f"{c.key}: {record['file']} says the thread does not settle the cause, but "
                            f"{c.place} does not say {record['hedge']!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every citation and where it is")
    parser.add_argument("--notebook", help="only what this notebook (number) and the index rows "
                                           "that show a section of it cite")
    args = parser.parse_args(argv)
    places = notebook_places() + index_places()
    if args.notebook:
        shown = {f"index errors/{e['id']}.toml cause {n}" for e in index.errors()
                 for n, c in enumerate(e["cause"], 1) if any(p["notebook"].startswith(args.notebook) for p in c["shown_in"])}
        shown |= {f"index symptoms/{g['id']}.toml row {n}" for g in index.symptoms()
                  for n, r in enumerate(g["row"], 1) if any(p["notebook"].startswith(args.notebook) for p in r["shown_in"])}
        places = [(p, t) for p, t in places if p in shown or p.startswith(f"notebooks/{args.notebook}_")]
    cites, known = citations(places), records()
    if args.all:
        for c in cites:
            print(f"{c.key}\t{c.place}\t{known[c.key]['file'] if c.key in known else '-'}")
        return 0
    problems = citation_problems(cites, known)
    problems += [f"{r['file']}: {p}" for r in {id(r): r for r in known.values()}.values() for p in record_problems(r)]
    print("\n".join(problems) or "every cited report has a valid evidence record")
    print(f"{len({c.key for c in cites})} reports cited in {len({c.place for c in cites})} places; "
          f"{len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
