"""Trying an exercise's check with other answers, in the notebook's kernel, right after its check cell.

testsuite/answers/<notebook stem>.toml declares, for each exercise (by the graded test cell's
grade_id), more right answers and at least two common wrong ones, each with the words its feedback
must hold (the answer's real cause):

    [exercise-1]
    right = ["4.0"]
    wrong = [{answer = "6", says = "sets an attribute"}, {answer = "2", says = "..."}]

Answers are Python expressions, evaluated in the notebook's namespace after its check cell. The
solution's own answer is tried in every form a number can come in (int, float, NumPy scalars, 0-d
and one-element tensors). Each answer goes through the visible check (the check cell without its
hidden tests) and through the hidden tests (run on the verdict the visible check made): a right
answer must pass both, a wrong one must fail both, with the declared words in the visible
feedback. The namespace, `answer` and `verdict` included, and the random states are put back
afterwards, so the notebook's later cells run as if nothing had happened.

``trial_code`` is what the test item sends to the kernel: ``try_answers`` below, run in a namespace
of its own; the kernel needs only torch, NumPy and autograd_pitfalls.
"""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path
from typing import Any

from testsuite.exercises import BEGIN_HIDDEN, END_HIDDEN, regions, visible_source

ANSWERS = Path(__file__).with_name("answers")


def declared_answers(notebook: Path) -> dict[str, Any]:
    """grade_id -> {"right": [...], "wrong": [{"answer", "says"}]} for the notebook (empty if none)."""
    path = ANSWERS / f"{notebook.stem}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def declaration_problems(notebook: Path, grade_ids: list[str]) -> list[str]:
    """What keeps the declared answers from covering every exercise of the notebook."""
    declared, where = declared_answers(notebook), f"testsuite/answers/{notebook.stem}.toml"
    problems = [f"{where}: no [{g}] (its right and at least two wrong answers)" for g in grade_ids
                if g not in declared]
    problems += [f"{where}: [{g}] is no exercise of the notebook" for g in declared if g not in grade_ids]
    for g, spec in declared.items():
        wrong = spec.get("wrong", [])
        if len(wrong) < 2 or not all(str(w.get("answer", "")).strip() and str(w.get("says", "")).strip()
                                     for w in wrong):
            problems.append(f"{where}: [{g}] needs at least two wrong answers, each with `answer` and `says`")
    return problems


def try_answers(shell: Any, visible: str, hidden: str, right: list[str], wrong: list[dict]) -> list[str]:
    """Run the check cell's visible part and hidden tests on each answer; what went wrong."""
    import random

    import numpy as np
    import torch

    from autograd_pitfalls import exercise_check

    ns = shell.user_ns
    saved = dict(ns)
    states = torch.random.get_rng_state(), random.getstate(), np.random.get_state()

    def number_forms(value: Any) -> list[tuple[str, Any]]:
        x = exercise_check.as_number(value)
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            return [("the solution's answer", value)]
        forms = [("a float", float(x)), ("np.float64", np.float64(x)), ("np.float32", np.float32(x)),
                 ("a 0-d tensor", torch.tensor(float(x))), ("a 0-d float64 tensor", torch.tensor(float(x), dtype=torch.float64)),
                 ("a one-element tensor", torch.tensor([float(x)]))]
        if isinstance(x, int):
            forms = [("an int", x), ("np.int64", np.int64(x)), ("an int tensor", torch.tensor(x)), *forms]
        return forms

    def run(answer: Any) -> tuple[str | None, str | None]:
        """(the visible check's feedback or None, the hidden tests' error or None)."""
        judged = {}

        def recording_check(answer: Any, digest: str, **options: Any) -> Any:
            judged["it"] = exercise_check.judge(answer, digest, **options)
            return judged["it"].verdict

        ns.update(saved)
        ns["answer"], ns["check_answer"] = answer, recording_check
        torch.random.set_rng_state(states[0])
        exec(visible, ns)
        ns["verdict"] = judged["it"].verdict
        ns["check_answer"] = saved["check_answer"]
        try:
            exec(hidden, ns)
            return judged["it"].feedback, None
        except AssertionError as error:
            return judged["it"].feedback, str(error) or "AssertionError"

    problems = []
    try:
        solution = saved["answer"]
        tries = number_forms(solution) + [(expression, eval(expression, ns)) for expression in right]
        wrong_values = [eval(case["answer"], ns) for case in wrong]  # all before any run rebinds names
        for label, answer in tries:
            feedback, hidden_error = run(answer)
            if feedback is not None:
                problems.append(f"right answer ({label}: {answer!r}) rejected by the visible check: {feedback}")
            if hidden_error is not None:
                problems.append(f"right answer ({label}: {answer!r}) rejected by the hidden tests: {hidden_error}")
        for case, value in zip(wrong, wrong_values):
            feedback, hidden_error = run(value)
            if feedback is None:
                problems.append(f"wrong answer {case['answer']!r} accepted by the visible check")
            elif case["says"].casefold() not in feedback.casefold():
                problems.append(f"wrong answer {case['answer']!r}: the feedback does not say "
                                f"{case['says']!r}; it says: {feedback}")
            if hidden_error is None:
                problems.append(f"wrong answer {case['answer']!r} accepted by the hidden tests")
    finally:
        for name in [n for n in ns if n not in saved]:
            del ns[name]
        ns.update(saved)
        torch.random.set_rng_state(states[0])
        random.setstate(states[1])
        np.random.set_state(states[2])
    return problems


def trial_code(check_source: str, spec: dict[str, Any]) -> str:
    """The code the test item runs in the kernel after the check cell: it raises AssertionError
    listing every answer judged wrongly."""
    hidden = "\n".join(regions(check_source, BEGIN_HIDDEN, END_HIDDEN))
    visible = visible_source(check_source)
    call = (f"problems = try_answers(shell, {visible!r}, {hidden!r}, {spec.get('right', [])!r}, "
            f"{spec.get('wrong', [])!r})\n"
            "if problems:\n    raise AssertionError('\\n'.join(problems))\n")
    source = f"from __future__ import annotations\n{inspect.getsource(try_answers)}\n{call}"
    return f"exec({source!r}, {{'shell': get_ipython()}})"
