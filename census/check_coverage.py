"""Check census.toml against the index as it is in this checkout, and print the figures.

    .venv/bin/python census/check_coverage.py            # check, then print COVERAGE figures
    .venv/bin/python census/check_coverage.py --strict   # exit 1 on any stale reference

For every report judged "yes", "partly" or "not-reproducible-here", `entry` must name an error entry
(autograd_pitfalls/index/errors/<id>.toml) or a symptom group (symptoms/<id>.toml), `index`
must be that entry's heading as docs/errors.md or docs/symptoms.md shows it, `row` must be the
start of one of its causes (or symptoms), and `shown_in` must name the notebook(s) that row
names. So a figure in COVERAGE.md cannot silently outlive the index it was measured on: when a
row is reworded or removed, this script says which reports to judge again.

With --doctor it also runs the doctor (autograd_pitfalls.doctor) on each reported message as
`seen` holds it (often shortened, with context in parentheses cut off, so a "-" there is not a
finding about the doctor) and lists the entry it lands on beside the census's own.
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from autograd_pitfalls import doctor, index  # noqa: E402

CENSUS = Path(__file__).with_name("census.toml")
LEVELS = ("yes", "partly", "no", "not-reproducible-here")
SAMPLES = ("main", "fresh", "fresh-2", "fresh-3", "families-4")  # fresh-2: METHOD.md, amendment 9; fresh-3: amendment 11; families-4: amendment 14


def rows_of(entry_id: str):
    for e in index.errors():
        if e["id"] == entry_id:
            return e["group"], [(c["cause"], c["shown_in"]) for c in e["cause"]]
    for s in index.symptoms():
        if s["id"] == entry_id:
            return s["heading"], [(r["symptom"], r["shown_in"]) for r in s["row"]]
    return None, []


def problems(r: dict) -> list[str]:
    if r["covered"] not in ("yes", "partly", "not-reproducible-here"):
        return []
    heading, rows = rows_of(r.get("entry", ""))
    if heading is None:
        return [f"entry {r.get('entry')!r} is not in the index"]
    out = []
    if r["index"] != heading:
        out.append(f"index {r['index']!r} is not the heading {heading!r}")
    if not r["row"]:
        return out  # "partly": the learner reaches the heading, no row names the cause (see note)
    match = [shown for text, shown in rows if text.startswith(r["row"])]
    if not match:
        out.append(f"no row of {r['entry']} starts with {r['row'][:60]!r}")
    else:
        notebooks = {s["notebook"][:2] for s in match[0]}
        named = {n for n in notebooks if n in r["shown_in"]}
        if not named:
            out.append(f"shown_in {r['shown_in']!r} names none of {sorted(notebooks)}")
    return out


def doctor_entry(r: dict) -> str:
    if r["saw"] != "message":
        return ""
    text = r["seen"].split(" (")[0]
    d = doctor.diagnose(text)
    return d[0].entry["id"] if d and d[0].entry else "-"


def share(counter: Counter, total: int) -> str:
    cells = [f"{counter[k]} ({100 * counter[k] / total:.0f}%)" if total else "0" for k in LEVELS]
    return " | ".join(cells)


def figure_row(label: str, saw: str, group: list[dict]) -> str:
    """One line of the figures table. "covered" is what the issue counts: a row that leads to a
    section proving the fix (yes), or a row that names the cause and fix of what needs hardware
    this collection does not have (not-reproducible-here)."""
    c, n = Counter(r["covered"] for r in group), len(group)
    pct = (lambda k: f"{100 * k / n:.0f}%") if n else (lambda k: "-")
    return (f"| {label} | {saw} | {n} | {share(c, n)} | "
            f"{pct(c['yes'] + c['not-reproducible-here'])} | {pct(c['yes'] + c['partly'])} |")


def main(argv: list[str]) -> int:
    reports = tomllib.loads(CENSUS.read_text())["report"]
    bad = 0
    for r in reports:
        for p in problems(r):
            bad += 1
            print(f"STALE {r['id']}: {p}")
    print()
    print("| sample | saw | reports | yes | partly | no | not-reproducible-here | covered | yes + partly |")
    print("|---|---|---|---|---|---|---|---|---|")
    for sample in SAMPLES:
        for saw in ("message", "symptom", "all"):
            print(figure_row(sample, saw, [r for r in reports
                                           if r["sample"] == sample and saw in ("all", r["saw"])]))
    for sample, cited in ((s, c) for s in ("main", "fresh-2", "fresh-3") for c in (False, True)):
        label = f"{sample}, {'cited' if cited else 'not cited'} by the index"
        print(figure_row(label, "all", [r for r in reports if r["sample"] == sample and r["cited"] == cited]))
    msgs = [r for r in reports if r["saw"] == "message"]
    fams = {}
    for r in reports:
        if r["covered"] != "yes":
            fams.setdefault(r.get("family") or "(no family)", []).append(r)
    heads = " | ".join(f"{s}: no or not-reproducible-here | {s}: partly" for s in SAMPLES)
    print(f"\n| family (not yes) | {heads} | total | examples |")
    print("|---" * (2 * len(SAMPLES) + 3) + "|")
    for fam, rs in sorted(fams.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        def n(sample, levels):
            return sum(1 for r in rs if r["sample"] == sample and r["covered"] in levels)
        cells = " | ".join(f"{n(s, ('no', 'not-reproducible-here'))} | {n(s, ('partly',))}" for s in SAMPLES)
        ex = ", ".join(r["label"] for r in rs[:2])
        print(f"| {fam} | {cells} | {len(rs)} | {ex} |")
    if "--doctor" in argv:
        for r in msgs:
            print(f"  {r['id']:28} {r['covered']:8} census={r.get('entry', ''):40} doctor={doctor_entry(r)}")
    return 1 if bad and "--strict" in argv else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
