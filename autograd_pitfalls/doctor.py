"""Match an autograd error message against the index, then rank the entry's causes by what the
traceback and the learner's code show.

The message is found in what people paste (autograd_pitfalls/pasted.py: every `SomeError:
message` of a traceback, the last one first). An entry matches when one of its patterns
(index/variants.toml) matches from the start of the message, or when the message and one of the
entry's texts agree on their whole beginning: the whole text of the shorter one (a cut-short paste
at least MIN_CUT characters long), or at least MIN_SHARED characters. Only if no exception is
recognised that way are the patterns searched anywhere in the text (a message pasted without its
type). Anything less is "not in the index": a wrong answer costs a learner more than none.

Then each cause of the entry is scored by its `points` (index/README.md): patterns looked for in
the message's details (`in = "message"`), in the learner's own code lines (`"code"`: the cell, a
file, the code lines the traceback quotes from the learner's frames, the lines pasted around it)
and in the traceback's library frames (`"frames"`: their paths, functions and quoted lines). A
cause with evidence is ranked, best first, with the line of evidence that ranked it; the others
keep the index's order. When nothing points to a cause, nothing is ranked, and the answer says so.

An entry whose message names an operation or a node that varies (a *family*: "derivative for
aten::OP is not implemented") has a `family` table: its `case` pattern finds the learner's
operation in the message, and when none of the entry's known cases points to it, the answer gives
the family's `mechanism` and the known cases, and says that the learner's operation is not one of
them, rather than presenting the nearest case's cause as theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autograd_pitfalls import index, pasted

MIN_CUT = 40
MIN_SHARED = 60
TYPE_PREFIX = re.compile(r"^[A-Z]\w*(?:Error|Exception): ")
SNIPPET = 90  # characters of a matched line shown as evidence


def match_length(message: str, entry: dict) -> int:
    """How many characters of `message` the entry accounts for (0: no match)."""
    best = 0
    for pattern in entry["patterns"]:
        m = re.match(pattern, message)
        best = max(best, m.end() if m else 0, 1 if m else 0)
    plain = pasted.no_ticks(message)
    for m in entry["message"]:
        known = pasted.no_ticks(TYPE_PREFIX.sub("", pasted.squeeze(m["text"])))
        n = _shared_start(plain, known)
        if n == len(known) or (n == len(plain) and n >= MIN_CUT) or n >= MIN_SHARED:
            best = max(best, n)
    return best


def _shared_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def match_anywhere(text: str, entry: dict) -> int:
    """Evidence for a message pasted without its type: a pattern or a text found anywhere."""
    found = [m.end() - m.start() for p in entry["patterns"] if (m := re.search(p, text))]
    plain = pasted.no_ticks(text)
    found += [len(t) for m in entry["message"]
              if (t := pasted.no_ticks(TYPE_PREFIX.sub("", pasted.squeeze(m["text"])))) in plain]
    return max(found, default=0)


def best_entry(message: str, score) -> dict | None:
    """The one entry with the most evidence for the message (None if none, or a tie)."""
    scores = sorted(((score(message, e), e["id"], e) for e in index.errors()), key=lambda s: s[0], reverse=True)
    if scores[0][0] > 0 and (len(scores) == 1 or scores[1][0] < scores[0][0]):
        return scores[0][2]
    return None


@dataclass(frozen=True)
class Ranked:
    position: int                # the cause's place in its entry, from 1
    cause: dict
    score: int = 0
    because: tuple[str, ...] = ()  # one line per piece of evidence found


@dataclass
class Diagnosis:
    message: str                              # the message as found in the text
    entry: dict | None                        # the index entry it matches, or None
    ranked: list[Ranked] = field(default_factory=list)   # causes with evidence, best first
    others: list[Ranked] = field(default_factory=list)   # the rest, in the index's order
    unknown_case: str | None = None           # a family's case (the operation) none of its causes knows


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[:SNIPPET - 1] + "…"


def point_found(point: dict, message: str, seen: pasted.Pasted) -> str | None:
    """The line of evidence for one point of a cause, or None if the point is not found."""
    pattern = re.compile(point["match"])
    says = point["says"]
    if point["in"] == "message":
        m = pattern.search(message)
        return says if m else None
    if point["in"] == "code":
        for line in seen.code:
            if pattern.search(line.text):
                return f"{says}: {line.where}: `{_snippet(line.text)}`"
        return None
    for frame in seen.frames:  # "frames"
        if frame.library and (pattern.search(frame.path) or pattern.search(frame.function)
                              or pattern.search(frame.code)):
            return f"{says}: `{_snippet(short_path(frame.path))}`"
    return None


def short_path(path: str) -> str:
    """A library frame's path from its package on (no machine's folders)."""
    parts = re.split(r"site-packages[/\\]|dist-packages[/\\]|[/\\]lib[/\\]python[\d.]+[/\\]", path)
    return parts[-1].replace("\\", "/")


def rank(entry: dict, message: str, seen: pasted.Pasted) -> tuple[list[Ranked], list[Ranked]]:
    """(causes with evidence, best first; the others in index order)."""
    ranked, others = [], []
    for position, cause in enumerate(entry["cause"], 1):
        found = [(p.get("weight", 1), line) for p in cause.get("points", [])
                 if (line := point_found(p, message, seen))]
        score = sum(weight for weight, _ in found)
        item = Ranked(position, cause, score, tuple(line for weight, line in found if weight > 0))
        (ranked if score > 0 else others).append(item)
    ranked.sort(key=lambda r: (-r.score, r.position))
    return ranked, others


def diagnose(text: str, code: str = "", code_label: str = "your code") -> list[Diagnosis]:
    """One diagnosis per distinct entry matched (the last exception's first); or, if none
    matches, one unmatched diagnosis for the last exception. ``code`` is the learner's code
    around the error (a notebook cell, a file), labelled ``code_label`` in the evidence."""
    seen = pasted.read(text, code, code_label)
    found: list[Diagnosis] = []
    for message in seen.messages:
        entry = best_entry(message, match_length)
        if entry and all(d.entry["id"] != entry["id"] for d in found):
            found.append(_ranked(message, entry, seen))
    if not found and not seen.messages:
        whole = pasted.CUT_MARK.sub("", pasted.squeeze(pasted.ANSI.sub("", pasted.plain_quotes(text))))
        entry = best_entry(whole, match_anywhere)
        return [_ranked(whole, entry, seen) if entry else Diagnosis(whole, None)]
    return found or [Diagnosis(seen.messages[0], None)]


def _ranked(message: str, entry: dict, seen: pasted.Pasted) -> Diagnosis:
    ranked, others = rank(entry, message, seen)
    unknown = None
    family = entry.get("family")
    if family and not ranked and (case := re.search(family["case"], message)):
        unknown = case.group(1)
    return Diagnosis(message, entry, ranked, others, unknown)
