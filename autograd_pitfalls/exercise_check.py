"""Checking an exercise's answer without showing the expected value.

A check cell compares the learner's answer with a stored digest of the right answer: the
student copy holds the digest, never the value. Numbers are rounded to ``decimals`` before
hashing; an answer that lies within float noise of a rounding boundary is tried both ways,
so a right answer computed in another order still matches. In the notebook itself, the
check cell's hidden tests (nbgrader removes them from the student copy and restores them
for grading) compute the reference independently and ``Verdict.confirm`` it: the digest
must be the reference's, and the answer must round as the reference does: so the hidden test
accepts exactly what the visible check accepts.

Under nbgrader (``NBGRADER_EXECUTION`` is ``autograde`` or ``validate``) an unanswered
exercise raises, so that its test cell scores 0; for a learner it only prints
"Not answered yet", so that Run-All on a student copy reaches the last cell.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Callable

import torch

NOT_ANSWERED = "Not answered yet"
# Within this fraction of a rounding step from a boundary, a number is tried rounded both ways.
_NOISE = 0.1
_MAX_AMBIGUOUS = 14  # 2**14 digests at most for one answer


def answer_digest(value: Any, decimals: int = 4) -> str:
    """The digest a check cell stores for the right answer ``value`` (run it on the reference)."""
    skeleton, numbers = _canonical(value)
    return _digest(skeleton, [_roundings(x, decimals)[0] for x in numbers])


def matches_digest(value: Any, digest: str, decimals: int = 4) -> bool:
    """Whether ``value`` rounds (either way, where float noise could tip it) to ``digest``."""
    skeleton, numbers = _canonical(value)
    options = [_roundings(x, decimals) for x in numbers]
    if sum(len(o) > 1 for o in options) > _MAX_AMBIGUOUS:
        options = [o[:1] for o in options]
    return any(_digest(skeleton, list(combo)) == digest for combo in itertools.product(*options))


@dataclass
class Verdict:
    """What ``check_answer`` judged; ``confirm`` proves the stored digest against a reference."""

    answer: Any
    value: Any
    digest: str
    decimals: int

    def confirm(self, reference: Any) -> None:
        """Raise AssertionError unless ``digest`` is ``reference``'s and the answer rounds as the
        reference does (the visible check's own rule, so that the two never disagree)."""
        if not matches_digest(reference, self.digest, self.decimals):
            raise AssertionError(f"the stored digest is not the reference's: it is "
                                 f"{answer_digest(reference, self.decimals)!r}")
        if self.answer is ...:
            return
        try:
            right = matches_digest(self.value, answer_digest(reference, self.decimals), self.decimals)
        except (TypeError, ValueError):  # an answer that cannot be compared at all
            right = False
        if not right:
            raise AssertionError("Not right yet: the answer is not the reference's value.")


def as_number(answer: Any) -> Any:
    """The one rule every check applies to numbers before judging them: a Python int or float,
    a NumPy scalar, and a 0-d or one-element tensor or array are all the number they hold, as
    an ``int`` when it is whole (``26.0``, ``np.int64(26)`` and ``torch.tensor(26)`` are all
    ``26``) and a ``float`` otherwise. Anything else (a bool, a string, a tensor of several
    values, a model) is returned as it is."""
    if isinstance(answer, (bool, str)) or answer is None:
        return answer
    if isinstance(answer, torch.Tensor) or hasattr(answer, "__array__"):
        try:
            flat = torch.as_tensor(answer).detach()
        except (TypeError, ValueError, RuntimeError):
            return answer
        if flat.numel() != 1 or flat.dtype == torch.bool or flat.is_complex():
            return answer
        answer = flat.cpu().reshape(()).item()
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        return int(answer) if math.isfinite(answer) and float(answer).is_integer() else float(answer)
    return answer


@dataclass
class Judgement:
    """What ``judge`` found: ``feedback`` is None for a right answer, else what the learner reads."""

    verdict: Verdict
    feedback: str | None


def judge(answer: Any, digest: str, *, hint: str,
          measure: Callable[[Any], Any] | None = None,
          problems: Callable[[Any], dict[str, bool]] | None = None,
          decimals: int = 4) -> Judgement:
    """Judge ``answer`` as ``check_answer`` does, without printing or raising (``answer`` must
    not be ``...``). Numbers first go through ``as_number``, for ``problems``, ``measure`` and
    the digest alike."""
    answer = as_number(answer)
    verdict = Verdict(answer, None, digest, decimals)
    try:
        found = [message for message, is_found in (problems(answer) if problems else {}).items() if is_found]
        if found:
            return Judgement(verdict, "Not right yet:\n" + "\n".join(f"- {m}" for m in found))
        verdict.value = measure(answer) if measure else answer
        right = matches_digest(verdict.value, digest, decimals)
    except Exception as error:  # the answer's own code may raise anything
        return Judgement(verdict, f"Not right yet: the answer cannot be checked "
                                  f"({type(error).__name__}: {error}). Hint: {hint}")
    return Judgement(verdict, None if right else f"Not right yet. Hint: {hint}")


def check_answer(answer: Any, digest: str, *, hint: str,
                 measure: Callable[[Any], Any] | None = None,
                 problems: Callable[[Any], dict[str, bool]] | None = None,
                 decimals: int = 4) -> Verdict:
    """Tell the learner whether ``answer`` is right, without the expected value.

    ``answer is ...`` (the placeholder in a student copy) prints "Not answered yet" (raises
    under nbgrader). A number is first made a plain number (``as_number``). ``problems(answer)``
    maps a message about a concept to whether it is found; each one found is listed and the
    answer is wrong. Then ``measure(answer)`` (the answer itself by default) must match
    ``digest``; if not, the error gives ``hint``. A right answer prints "Correct.".
    """
    if answer is ...:
        message = (f"{NOT_ANSWERED}: `answer` is still `...`. Write your code in the exercise "
                   "cell (if it stopped with an error, fix that first), run it, then this cell.")
        if os.environ.get("NBGRADER_EXECUTION") in ("autograde", "validate"):
            raise AssertionError(message)
        print(message)
        return Verdict(answer, None, digest, decimals)
    judgement = judge(answer, digest, hint=hint, measure=measure, problems=problems, decimals=decimals)
    if judgement.feedback is not None:
        raise AssertionError(judgement.feedback)
    print("Correct.")
    return judgement.verdict


def _canonical(value: Any) -> tuple[str, list[float]]:
    """A JSON skeleton of ``value`` with its numbers replaced by how many there are, and the numbers."""
    numbers: list[float] = []

    def walk(v: Any) -> Any:
        # Numbers are numbers however they come: 5, tensor([5.]), [0.5, 1.5] or a numpy array
        # count only by how many there are.
        if isinstance(v, torch.Tensor) or hasattr(v, "__array__"):
            flat = torch.as_tensor(v).detach().to("cpu", torch.float64).flatten().tolist()
            numbers.extend(flat)
            return f"#{len(flat)}"
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, (int, float)):
            numbers.append(float(v))
            return "#1"
        if isinstance(v, (list, tuple)):
            if v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
                return walk(torch.tensor([float(x) for x in v]))
            return [walk(x) for x in v]
        if isinstance(v, (set, frozenset)):
            return ["#set", sorted((walk(x) for x in v), key=json.dumps)]
        if isinstance(v, dict):
            return ["#dict", sorted(([walk(k), walk(x)] for k, x in v.items()), key=json.dumps)]
        raise TypeError(f"an answer of type {type(v).__name__} cannot be compared")

    skeleton = json.dumps(walk(value), sort_keys=True)
    return skeleton, numbers


def _roundings(x: float, decimals: int) -> tuple[int, ...]:
    """The rounded value of ``x``, and the other one when ``x`` is within noise of the boundary."""
    scaled = x * 10**decimals if math.isfinite(x) else math.nan
    if not math.isfinite(scaled):
        raise ValueError(f"the answer holds {x}")
    nearest = math.floor(scaled + 0.5)
    distance = scaled - math.floor(scaled) - 0.5  # 0 on the boundary between two roundings
    if abs(distance) >= _NOISE:
        return (nearest,)
    return (nearest, nearest - 1) if distance >= 0 else (nearest, nearest + 1)


def _digest(skeleton: str, rounded: list[int]) -> str:
    return hashlib.sha256(f"{skeleton}|{rounded}".encode()).hexdigest()[:16]
