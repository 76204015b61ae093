"""Direct tests of autograd_pitfalls/exercise_check.py (every graded test cell uses it too)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from autograd_pitfalls.exercise_check import (NOT_ANSWERED, answer_digest, as_number, check_answer, judge,
                                             matches_digest)


def test_a_number_is_a_number_however_it_comes():
    digest = answer_digest(torch.tensor([0.25, 1.5]))
    for same in ([0.25, 1.5], (0.25, 1.5), np.array([0.25, 1.5]), torch.tensor([[0.25], [1.5]])):
        assert matches_digest(same, digest)
    assert answer_digest(5) == answer_digest(torch.tensor([5.0])) == answer_digest(5.0000001)
    assert not matches_digest(torch.tensor([0.25, 1.6]), digest)
    assert not matches_digest(torch.tensor([0.25]), digest)


def test_float_noise_at_a_rounding_boundary_still_matches():
    reference = 0.12345  # exactly on the boundary between 0.1234 and 0.1235
    digest = answer_digest(reference)
    assert matches_digest(reference + 3e-6, digest) and matches_digest(reference - 3e-6, digest)
    assert not matches_digest(reference + 2e-4, digest)  # next to a boundary, one step either way


def test_strings_sets_and_structure():
    assert matches_digest({"b", "a"}, answer_digest({"a", "b"}))
    assert not matches_digest({"a"}, answer_digest({"a", "b"}))
    assert not matches_digest("Q", answer_digest("q"))
    assert not matches_digest(None, answer_digest("q"))
    pair = (torch.tensor([1.0, 2.0]), torch.tensor([3.0]))
    assert matches_digest([torch.tensor([1.0, 2.0]), torch.tensor([3.0])], answer_digest(pair))
    assert not matches_digest(torch.tensor([1.0, 2.0, 3.0]), answer_digest(pair))


def test_unanswered_prints_for_a_learner_and_raises_under_nbgrader(capsys, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    check_answer(..., answer_digest(1), hint="h")
    assert NOT_ANSWERED in capsys.readouterr().out
    for mode in ("autograde", "validate"):
        monkeypatch.setenv("NBGRADER_EXECUTION", mode)
        with pytest.raises(AssertionError, match=NOT_ANSWERED):
            check_answer(..., answer_digest(1), hint="h")


def test_a_wrong_answer_gets_the_hint_and_never_the_value(capsys):
    digest = answer_digest(torch.tensor([0.8125]))
    with pytest.raises(AssertionError) as wrong:
        check_answer(torch.tensor([0.5]), digest, hint="gradients add up in .grad")
    assert "gradients add up in .grad" in str(wrong.value) and "0.8125" not in str(wrong.value)
    with pytest.raises(AssertionError, match="- the graph is still held"):
        check_answer(1, answer_digest(1), hint="h", problems=lambda a: {"the graph is still held": True})
    with pytest.raises(AssertionError, match="cannot be checked.*ZeroDivisionError"):
        check_answer(1, answer_digest(1), hint="h", measure=lambda a: a / 0)
    check_answer(torch.tensor([0.8125]), digest, hint="h")
    assert capsys.readouterr().out == "Correct.\n"


def test_confirm_proves_the_digest_and_the_answer_against_a_reference():
    verdict = check_answer(2.0, answer_digest(4.0), hint="h", measure=lambda a: a * 2)
    verdict.confirm(4.0)
    with pytest.raises(AssertionError, match="not the reference's"):
        verdict.confirm(5.0)  # the digest was made from something else
    wrong = judge(2.5, answer_digest(4.0), hint="h", measure=lambda a: a * 2)
    with pytest.raises(AssertionError, match="not the reference's value"):
        wrong.verdict.confirm(4.0)  # the hidden test rejects what the visible check rejects


@pytest.mark.parametrize("answer", [1.22104, 1.2210449, 1.22096, 1.22106, 1.2209])
def test_the_hidden_test_accepts_exactly_what_the_visible_check_accepts(answer):
    reference = 1.221
    judged = judge(answer, answer_digest(reference), hint="h")
    visible_accepts = judged.feedback is None
    try:
        judged.verdict.confirm(reference)
        hidden_accepts = True
    except AssertionError:
        hidden_accepts = False
    assert visible_accepts == hidden_accepts


@pytest.mark.parametrize("form", [26, 26.0, np.int64(26), np.float32(26.0), torch.tensor(26),
                                  torch.tensor([26.0]), np.array([26]), torch.tensor(26.0, requires_grad=True)])
def test_one_rule_for_numbers_before_problems_are_judged(form):
    assert as_number(form) == 26 and type(as_number(form)) is int
    whole = lambda ans: {"answer is not a whole number": not isinstance(ans, int)}
    assert judge(form, answer_digest(26), hint="h", problems=whole).feedback is None


def test_what_is_not_one_number_stays_as_it_is():
    assert type(as_number(np.float64(0.1))) is float and as_number(torch.tensor(0.1)) == pytest.approx(0.1)
    for other in (True, "AC", None, [26], torch.tensor([1.0, 2.0]), torch.tensor([True])):
        assert as_number(other) is other
    assert judge(26.5, answer_digest(26), hint="h",
                 problems=lambda a: {"answer is not a whole number": not isinstance(a, int)}).feedback \
        == "Not right yet:\n- answer is not a whole number"
