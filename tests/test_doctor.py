"""The doctor on real messages from public reports (tests/doctor_cases.toml), on every message
of the index, and its command line: a match names the right entry, anything else is "not in
the index", never a wrong entry; then the causes of the entry are ranked by the evidence of the
traceback and the code, and a family's unknown case is said to be unknown."""

from __future__ import annotations

import io
import re
import tomllib
from pathlib import Path

import pytest

from autograd_pitfalls import doctor, doctor_answer, index
from autograd_pitfalls.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
CASES = tomllib.loads((Path(__file__).with_name("doctor_cases.toml")).read_text(encoding="utf-8"))["case"]
SETTLED = [c for c in CASES if "cause" in c]
NOT_IN_INDEX = "not in the index"
FIRST, TOP_THREE = 0.60, 0.90  # the least share of settled cases whose cause is ranked first, in the top three


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


NO_GRAD_CELL = "model = torch.nn.Linear(2, 1)\nwith torch.no_grad():\n    out = model(x)\nout.sum().backward()\n"
ELEMENT_0 = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"


def test_the_answer_names_causes_fixes_places_and_links(monkeypatch):
    monkeypatch.delenv(doctor_answer.SITE_VARIABLE, raising=False)
    found, answer = doctor_answer.answer("RuntimeError: grad can be implicitly created only for scalar outputs")
    assert found
    assert "fix: pass `gradient=` (the weights), or reduce to a scalar [04 *The bug*]" in answer
    _, answer = doctor_answer.answer(ELEMENT_0, NO_GRAD_CELL)
    assert f"shown in: {doctor_answer.ROOT / 'notebooks' / '08_field_guide.ipynb'}#cell-id=" in answer
    monkeypatch.setenv(doctor_answer.SITE_VARIABLE, "https://example.org/pitfalls/")
    _, answer = doctor_answer.answer("RuntimeError: grad can be implicitly created only for scalar outputs",
                                     "loss = model(x)\nloss.backward()")
    assert "https://example.org/pitfalls/docs/errors.html#grad-can-be-implicitly-created-only-for-scalar-outputs" in answer


def test_the_code_ranks_the_causes_and_says_why():
    (d,) = doctor.diagnose(ELEMENT_0, NO_GRAD_CELL, "your cell")
    assert d.ranked[0].cause["cause"].startswith("the forward pass ran under `no_grad`")
    assert d.ranked[0].because == ("your code runs under `no_grad`/`inference_mode` or detaches: your cell, "
                                   "line 2: `with torch.no_grad():`",)
    lines = doctor_answer.text_lines(d)
    assert lines[2] == "Most likely, from your traceback and code:" and len(lines) <= 30  # one screen


def test_nothing_ranks_when_nothing_points_to_a_cause():
    (d,) = doctor.diagnose(ELEMENT_0)
    assert not d.ranked and len(d.others) == len(d.entry["cause"])
    assert "Nothing in the traceback or the code points to one of its" in "\n".join(doctor_answer.text_lines(d))


def test_a_library_frame_is_evidence_but_its_code_is_not_the_learners():
    text = ('Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    loss.backward()\n'
            '  File "/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py", line 319, in backward\n'
            '    with torch.no_grad():\n' f"{ELEMENT_0}\n")
    (d,) = doctor.diagnose(text)
    assert d.ranked[0].cause["cause"].startswith("reentrant gradient checkpointing")
    assert all("no_grad" not in line for r in d.ranked for line in r.because)


def test_a_family_case_the_index_does_not_know_is_said_to_be_unknown():
    (known,) = doctor.diagnose("RuntimeError: derivative for aten::heaviside is not implemented")
    assert known.unknown_case is None and "heaviside" in known.ranked[0].cause["cause"]
    (other,) = doctor.diagnose("RuntimeError: derivative for aten::bucketize is not implemented")
    assert other.entry["id"] == known.entry["id"] and other.unknown_case == "aten::bucketize" and not other.ranked
    answer = "\n".join(doctor_answer.text_lines(other))
    assert "Your case, aten::bucketize, is none of the cases the index knows" in answer
    assert "Most likely" not in answer


def test_not_in_the_index_points_to_the_symptoms(monkeypatch):
    monkeypatch.delenv(doctor_answer.SITE_VARIABLE, raising=False)
    found, answer = doctor_answer.answer("ZeroDivisionError: division by zero")
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
    (tmp_path / "train.py").write_text(NO_GRAD_CELL)
    capsys.readouterr()
    assert main(["--code", str(tmp_path / "train.py"), str(tmp_path / "error.txt")]) == 0
    assert "train.py, line 2: `with torch.no_grad():`" in capsys.readouterr().out
    capsys.readouterr()
    assert main([str(tmp_path / "missing.txt")]) == 2
    assert main(["--code", str(tmp_path / "missing.py"), message]) == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("  \n"))
    assert main(["-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 3 and "no such file" in err and "missing.py" in err and "empty" in err


def github_record(source: str) -> Path:
    owner, repo, _, number = source.removeprefix("https://github.com/").split("/")[:4]
    return ROOT / "census" / "evidence" / f"{owner}-{repo}-{number}.toml"


def wanted(case: dict, entry: dict) -> int:
    """The position (from 1) of the case's cause in its entry; the start must name one cause."""
    found = [n for n, c in enumerate(entry["cause"], 1) if c["cause"].startswith(case["cause"])]
    assert len(found) == 1, f"{case['source']}: `cause` must start exactly one cause of {entry['id']}: {found}"
    return found[0]


def place(case: dict) -> int | None:
    """Where the doctor puts the case's cause: 1 first, 2 or 3 among the top three it ranks, 4 lower
    or unranked, None if it names another entry (or none). An entry with a single cause answers
    with it ("Its cause:"), first; otherwise only the causes the evidence ranks count."""
    (d, *_) = doctor.diagnose(case["text"], case.get("code", ""))
    if d.entry is None or d.entry["id"] != case["expect"]:
        return None
    n = wanted(case, d.entry)
    if len(d.entry["cause"]) == 1:
        return 1
    ranked = [r.position for r in d.ranked]
    return ranked.index(n) + 1 if n in ranked[:3] else 4


def figures(cases: list[dict]) -> str:
    """The sentence README.md states: how often the settled cause comes first, in the top three."""
    places = [place(c) for c in cases]
    first, top = places.count(1), len([p for p in places if p is not None and p <= 3])
    wrong = places.count(None)
    return (f"on the {len(cases)} cases whose thread settles the cause, the right cause is first in {first} "
            f"({first / len(cases):.0%}) and in the top three in {top} ({top / len(cases):.0%}); "
            f"{'no' if not wrong else wrong} answer names another entry")


def test_every_settled_case_has_its_code_its_cause_and_its_evidence():
    assert len(SETTLED) >= 45
    entries = {e["id"]: e for e in index.errors()}
    for case in SETTLED:
        assert case["code"].strip() and case["source"].startswith("https://github.com/"), case["source"]
        wanted(case, entries[case["expect"]])
        record = tomllib.loads(github_record(case["source"]).read_text(encoding="utf-8"))
        assert record["settled"] is True and record["url"] == case["source"], case["source"]


@pytest.mark.parametrize("case", SETTLED, ids=lambda c: c["source"].removeprefix("https://github.com/"))
def test_a_settled_case_never_gets_another_entry(case):
    assert place(case) is not None, case["kind"]


def test_the_doctor_ranks_the_settled_cause_and_readme_says_how_often():
    places = [place(c) for c in SETTLED]
    assert None not in places
    assert places.count(1) >= FIRST * len(places) and len([p for p in places if p <= 3]) >= TOP_THREE * len(places)
    stated = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert figures(SETTLED) in stated, f"README.md's doctor section should say: {figures(SETTLED)}"


def test_every_point_is_well_formed():
    for entry in index.errors():
        for n, cause in enumerate(entry["cause"], 1):
            for point in cause.get("points", []):
                where = f"{entry['id']} cause {n}: {point}"
                assert set(point) <= {"in", "match", "says", "weight"} and point["in"] in {"code", "frames", "message"}, where
                assert point["says"].strip() and isinstance(point.get("weight", 1), int), where
                re.compile(point["match"])
                assert "(?P" not in point["match"] and "(?i" not in point["match"] and "\\Z" not in point["match"], where
        if "family" in entry:
            assert set(entry["family"]) == {"case", "mechanism"} and re.compile(entry["family"]["case"]).groups >= 1


@pytest.mark.parametrize(("message", "case"), [
    ("RuntimeError: Function 'SolveBackward' returned nan values in its 0th output.", "SolveBackward"),
    ("RuntimeError: derivative for aten::grid_sampler_2d_backward is not implemented", "grid_sampler_2d_backward"),
])
def test_a_node_the_index_does_not_know_gets_the_familys_mechanism(message, case):
    (d,) = doctor.diagnose(message)
    assert d.unknown_case == case and not d.ranked
    answer = "\n".join(doctor_answer.text_lines(d))
    assert f"Your case, {case}, is none of the cases" in answer and d.entry["family"]["mechanism"][:40] in answer


def test_a_known_node_ranks_its_cause():
    (d,) = doctor.diagnose("RuntimeError: Function 'PowBackward1' returned nan values in its 1th output.")
    assert d.unknown_case is None and d.ranked[0].cause["cause"].startswith("the gradient of `torch.pow(b, e)`")
    (d,) = doctor.diagnose("RuntimeError: derivative for aten::_scaled_dot_product_efficient_attention_backward is not implemented")
    assert d.ranked[0].cause["cause"].startswith("a gradient penalty (any loss on a gradient) through `F.scaled_dot_product_attention`")


TRAINING_CELL = """\
model.train()
for x, y in loader:
    with torch.no_grad():
        logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
"""


def test_the_answer_to_element_0_with_a_cells_code(monkeypatch):
    monkeypatch.delenv(doctor_answer.SITE_VARIABLE, raising=False)
    (d,) = doctor.diagnose(ELEMENT_0, TRAINING_CELL, "your cell")
    lines = doctor_answer.text_lines(d)
    assert lines[:3] == [f"Your error: {ELEMENT_0.removeprefix('RuntimeError: ')}",
                         f"In the index under \"{d.entry['group']}\": {doctor_answer._errors_page(d.entry)}",
                         "Most likely, from your traceback and code:"]
    assert lines[3].startswith("1. the forward pass ran under `no_grad`, `inference_mode` or on detached inputs")
    assert lines[4] == "   because: your code runs under `no_grad`/`inference_mode` or detaches: your cell, line 3: `with torch.no_grad():`"
    assert any(line.startswith("Other causes (") for line in lines) and len(lines) <= 40
    html = doctor_answer.html_answer([d])
    assert "<i>because</i> your code runs under <code>no_grad</code>" in html and "<details>" in html
