"""The site's doctor page (site_src/_static/doctor.js) answers as `autograd-doctor` does: its
script, run in Node on the index the site's build exports (site_src/doctor_data.py), gives the
same answer, line for line, on every case of tests/doctor_cases.toml and every message of the
index, with and without the learner's code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from unittest import mock

import pytest

from autograd_pitfalls import doctor_answer, index

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site_src"))
import doctor_data  # noqa: E402

SITE = "https://example.org/pitfalls"
NODE_RUNNER = """
const doctor = require(process.argv[1]);
const {data, cases} = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([text, code]) => doctor.answer(text, code, "your code", data).text)));
"""
NO_GRAD_CELL = "model = torch.nn.Linear(2, 1)\nwith torch.no_grad():\n    out = model(x)\nout.sum().backward()\n"


def cases() -> list[tuple[str, str]]:
    found = tomllib.loads((ROOT / "tests" / "doctor_cases.toml").read_text(encoding="utf-8"))["case"]
    pairs = [(c["text"], c.get("code", "")) for c in found]
    for entry in index.errors():
        for m in entry["message"]:
            pairs += [(m["text"], ""), (m["text"], NO_GRAD_CELL)]
    return pairs + [("ZeroDivisionError: division by zero", ""), ("no error at all", "x = 1")]


def test_the_page_answers_as_the_command_does():
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run the site's doctor page here (apt install nodejs)")
    pairs = cases()
    with mock.patch.dict(os.environ, {doctor_answer.SITE_VARIABLE: SITE}):
        expected = [doctor_answer.answer(text, code)[1] for text, code in pairs]
    payload = json.dumps({"data": doctor_data.exported(SITE), "cases": pairs})
    result = subprocess.run([node, "-e", NODE_RUNNER, str(ROOT / "site_src" / "_static" / "doctor.js")],
                            input=payload, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    answered = json.loads(result.stdout)
    differing = [(text[:80], want, got) for (text, _), want, got in zip(pairs, expected, answered) if want != got]
    assert not differing, f"{len(differing)} of {len(pairs)} answers differ; the first:\n" + "\n---\n".join(map(str, differing[0]))
    assert len(answered) == len(pairs) >= 150


def test_every_pattern_compiles_in_javascript_as_exported():
    data = doctor_data.exported(SITE)
    patterns = [p for e in data["entries"] for p in e["patterns"] + [pt["match"] for c in e["causes"] for pt in c["points"]]
                + ([e["family"]["case"]] if e["family"] else [])]
    script = "const ps = JSON.parse(require('fs').readFileSync(0, 'utf8')); ps.forEach((p) => new RegExp(p));"
    result = subprocess.run([shutil.which("node") or "node", "-e", script], input=json.dumps(patterns),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
