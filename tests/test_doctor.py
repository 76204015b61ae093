"""The doctor on real messages from public reports (tests/doctor_cases.toml), on every message
of the index, and its command line: a match names the right entry, anything else is "not in
the index", never a wrong entry."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest

from autograd_pitfalls import doctor, index
from autograd_pitfalls.__main__ import main

CASES = tomllib.loads((Path(__file__).with_name("doctor_cases.toml")).read_text(encoding="utf-8"))["case"]
NOT_IN_INDEX = "not in the index"


def entry_id(text: str) -> str:
    found = doctor.diagnose(text)[0].entry
    return found["id"] if found else NOT_IN_INDEX


def test_the_cases_are_real_and_enough():
    public = [c for c in CASES if c["source"].startswith("https://")]
    assert len(public) >= 30 and all(c["text"].strip() for c in CASES)
    assert len([c for c in public if c["expect"] == NOT_IN_INDEX]) >= 5
    known = {e["id"] for e in index.errors()} | {NOT_IN_INDEX}
    assert not [c["expect"] for c in CASES if c["expect"] not in known]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["source"].removeprefix("https://github.com/"))
def test_a_real_message_gets_its_entry_or_not_in_the_index(case):
    assert entry_id(case["text"]) == case["expect"], case["kind"]


@pytest.mark.parametrize("entry", index.errors(), ids=lambda e: e["id"])
def test_every_message_of_the_index_finds_its_own_entry(entry):
    for message in entry["message"]:
        text = message["text"]
        assert entry_id(text) == entry["id"]
        assert entry_id("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                        f"    y.backward()\n{text}\n") == entry["id"]
        assert entry_id(text[:60]) == entry["id"] if len(text) >= 60 else True  # cut short


def test_the_answer_names_causes_fixes_places_and_links(monkeypatch):
    monkeypatch.delenv(doctor.SITE_VARIABLE, raising=False)
    found, answer = doctor.answer("RuntimeError: grad can be implicitly created only for scalar outputs")
    assert found
    assert "fix: pass `gradient=`" in answer
    assert f"{doctor.ROOT / 'notebooks' / '04_grad_tensors_weighting.ipynb'} *The bug*" in answer
    assert "https://github.com/caogang/wgan-gp/issues/28" in answer
    monkeypatch.setenv(doctor.SITE_VARIABLE, "https://example.org/pitfalls/")
    _, answer = doctor.answer("RuntimeError: grad can be implicitly created only for scalar outputs")
    assert "https://example.org/pitfalls/notebooks/04_grad_tensors_weighting.html *The bug*" in answer
    assert "https://example.org/pitfalls/docs/errors.html#grad-can-be-implicitly-created-only-for-scalar-outputs" in answer


def test_not_in_the_index_points_to_the_symptoms(monkeypatch):
    monkeypatch.delenv(doctor.SITE_VARIABLE, raising=False)
    found, answer = doctor.answer("ZeroDivisionError: division by zero")
    assert not found and answer.startswith("Not in the index") and "docs/symptoms.md" in answer


def test_the_command_line(tmp_path, monkeypatch, capsys):
    message = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    (tmp_path / "error.txt").write_text(message)
    assert main(["diagnose", str(tmp_path / "error.txt")]) == 0
    assert main([message]) == 0 and main(message.split()) == 0
    long_message = ("RuntimeError: one of the variables needed for gradient computation has been modified by "
                    "an inplace operation: [torch.cuda.FloatTensor [64, 128]], which is output 0 of "
                    "ReluBackward0, is at version 3; expected version 2 instead. " + "Hint: " * 40)
    assert main([long_message]) == 0  # longer than a file name may be: still a message
    monkeypatch.setattr("sys.stdin", io.StringIO(message))
    assert main(["-"]) == 0
    assert main(["KeyError: 'x'"]) == 1
    capsys.readouterr()
    assert main([str(tmp_path / "missing.txt")]) == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("  \n"))
    assert main(["-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "no such file" in err and "empty" in err
