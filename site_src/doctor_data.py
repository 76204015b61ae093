"""The index as the site's doctor page reads it (site_src/_static/doctor.js): exported when the site
is built, as site/_static/doctor_index.js (a script, so that the page works from file:// offline).

Everything the Python doctor derives from Markdown (plain text, links made from `owner/repo#N`,
the anchors of notebook sections) is derived here once, by the same Python functions, so that
the page only matches, scores and lays out; tests/test_doctor_page.py runs the page's script in
Node on the doctor's test cases and compares its answer with `autograd-doctor`'s, line for line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from autograd_pitfalls import doctor, doctor_answer, index, pasted  # noqa: E402
from autograd_pitfalls.pages import linked  # noqa: E402

# Python's regular expressions, as JavaScript spells the few constructs that differ.
PYTHON_ONLY = [(re.compile(r"\(\?P<"), "(?<"), (re.compile(r"\(\?P=(\w+)\)"), r"\\k<\1>")]


def javascript_pattern(pattern: str) -> str:
    for python, javascript in PYTHON_ONLY:
        pattern = python.sub(javascript, pattern)
    return pattern


def _place(place: dict) -> dict:
    label, address = doctor_answer.section_link(place)
    return {"label": label, "section": place["section"], "address": address}


def _cause(cause: dict) -> dict:
    return {
        "cause": doctor_answer.plain(cause["cause"]),
        "fix": doctor_answer.plain(cause["fix"]),
        "reports": doctor_answer.plain(linked(cause["reports"])),
        "shown_in": [_place(p) for p in cause["shown_in"]],
        "points": [{"in": p["in"], "match": javascript_pattern(p["match"]), "says": p["says"],
                    "weight": p.get("weight", 1)} for p in cause.get("points", [])],
    }


def exported(site: str = "..") -> dict:
    """The doctor's data, with every address on the site under ``site`` (the page's way to the
    site's root: ".." from docs/doctor.html)."""
    with mock.patch.dict(os.environ, {doctor_answer.SITE_VARIABLE: site}):  # addresses as the site serves them
        pages = index.page_texts()
        return {
            "limits": {"MIN_CUT": doctor.MIN_CUT, "MIN_SHARED": doctor.MIN_SHARED, "SNIPPET": doctor.SNIPPET,
                       "TOP": doctor_answer.TOP, "ONE_LINE": doctor_answer.ONE_LINE},
            "pages": {"errors": doctor_answer.page_address(pages["errors"]["path"]),
                      "symptoms": doctor_answer.page_address(pages["symptoms"]["path"])},
            "library": pasted.LIBRARY.pattern,
            "entries": [{
                "id": e["id"],
                "group": e["group"],
                "page": doctor_answer.page_address(pages["errors"]["path"], doctor_answer.heading_anchor(e["group"])),
                "messages": [pasted.no_ticks(pasted.squeeze(doctor.TYPE_PREFIX.sub("", pasted.squeeze(m["text"]))))
                             for m in e["message"]],
                "patterns": [javascript_pattern(p) for p in e["patterns"]],
                "family": e.get("family") and {"case": javascript_pattern(e["family"]["case"]),
                                                "mechanism": doctor_answer.plain(e["family"]["mechanism"])},
                "causes": [_cause(c) for c in e["cause"]],
            } for e in index.errors()],
        }


def script(site: str = "..") -> str:
    return f"window.AUTOGRAD_DOCTOR_INDEX = {json.dumps(exported(site), ensure_ascii=False)};\n"


def write(out_dir: Path, site: str = "..") -> Path:
    target = out_dir / "_static" / "doctor_index.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(script(site), encoding="utf-8")
    return target
