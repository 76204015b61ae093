"""Match an autograd error message, or a traceback holding one, against the index.

The message is found in what people paste: every `SomeError: message` in a traceback (the
last one first, wherever it starts on its line: after `[rank0]:`, pytest's `E   `, a backtick
or a sentence), with its continuation lines. An entry matches when one of its patterns
(index/variants.toml) matches from the start of the message, or when the message and one of
the entry's texts agree on their whole beginning: the whole text of the shorter one (a
cut-short paste at least MIN_CUT characters long), or at least MIN_SHARED characters. Only if
no exception is recognised that way are the patterns searched anywhere in the text (a message
pasted without its type). Anything less is "not in the index": a wrong answer costs a learner
more than none.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from autograd_pitfalls import index
from autograd_pitfalls.pages import linked

MIN_CUT = 40
MIN_SHARED = 60
ROOT = Path(__file__).resolve().parent.parent
SITE_VARIABLE = "AUTOGRAD_PITFALLS_SITE"

EXCEPTION = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failed|Interrupt)"
                       r"(?:\[[^\]]*\])?: ?(.*)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
STOP_LINE = re.compile(r"\s*(Traceback \(most recent call last\)|File \"|During handling of|The above exception|"
                       r"Set TORCH_|You can suppress|Exception raised from|frame #\d|-{5,})")
CUT_MARK = re.compile(r"\s*(\.\.\.|…)\s*$")
TYPE_PREFIX = re.compile(r"^[A-Z]\w*(?:Error|Exception): ")


def squeeze(text: str) -> str:
    return " ".join(text.split())


def messages_in(text: str) -> list[str]:
    """The exception messages of a pasted text, last first (its type prefix removed)."""
    lines = [ANSI.sub("", line) for line in text.splitlines()]
    found = []
    for i, line in enumerate(lines):
        head = EXCEPTION.search(line)
        if not head:
            continue
        body = [head.group(1)]
        for more in lines[i + 1:]:
            if not more.strip() or STOP_LINE.match(more) or EXCEPTION.search(more):
                break
            body.append(more)
        found.append(CUT_MARK.sub("", squeeze(" ".join(body))))
    return [m for m in reversed(found) if m]


def shared_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def evidence(message: str, entry: dict) -> int:
    """How many characters of `message` the entry accounts for (0: no match)."""
    best = 0
    for pattern in entry["patterns"]:
        m = re.match(pattern, message)
        best = max(best, m.end() if m else 0, 1 if m else 0)
    for m in entry["message"]:
        known = TYPE_PREFIX.sub("", squeeze(m["text"]))
        n = shared_start(message, known)
        if n == len(known) or (n == len(message) and n >= MIN_CUT) or n >= MIN_SHARED:
            best = max(best, n)
    return best


@dataclass
class Diagnosis:
    message: str        # the message as found in the text
    entry: dict | None  # the index entry it matches, or None


def best_entry(message: str, score) -> dict | None:
    """The one entry with the most evidence for the message (None if none, or a tie)."""
    scores = sorted(((score(message, e), e["id"], e) for e in index.errors()), key=lambda s: s[0],
                    reverse=True)
    if scores[0][0] > 0 and (len(scores) == 1 or scores[1][0] < scores[0][0]):
        return scores[0][2]
    return None


def anywhere(text: str, entry: dict) -> int:
    """Evidence for a message pasted without its type: a pattern or a text found anywhere."""
    found = [m.end() - m.start() for p in entry["patterns"] if (m := re.search(p, text))]
    found += [len(t) for m in entry["message"] if (t := TYPE_PREFIX.sub("", squeeze(m["text"]))) in text]
    return max(found, default=0)


def diagnose(text: str) -> list[Diagnosis]:
    """One diagnosis per distinct entry matched (the last exception's first); or, if none
    matches, one unmatched diagnosis for the last exception."""
    found: list[Diagnosis] = []
    messages = messages_in(text)
    for message in messages:
        entry = best_entry(message, evidence)
        if entry and all(d.entry["id"] != entry["id"] for d in found):
            found.append(Diagnosis(message, entry))
    if not found and not messages:
        whole = CUT_MARK.sub("", squeeze(ANSI.sub("", text)))
        entry = best_entry(whole, anywhere)
        return [Diagnosis(whole, entry)]
    return found or [Diagnosis(messages[0], None)]


def site() -> str:
    return os.environ.get(SITE_VARIABLE, "").strip().rstrip("/")


def heading_anchor(heading: str) -> str:
    """The anchor GitHub and the site give a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def page_address(page: str, anchor: str = "") -> str:
    """Where to read a page of the repository (docs/errors.md, notebooks/x.ipynb)."""
    fragment = f"#{anchor}" if anchor else ""
    if site():
        return f"{site()}/{Path(page).with_suffix('.html').as_posix()}{fragment}"
    return f"{ROOT / page if (ROOT / page).exists() else page}{fragment}"


def plain(markdown: str) -> str:
    """Markdown links as their text (a notebook's link as its path)."""
    return re.sub(r"\[([^\]]*)\]\(([^)]*)\)", lambda m: m.group(1) if "notebooks/" in m.group(2)
                  else f"{m.group(1)} ({m.group(2)})", markdown)


def explain(d: Diagnosis) -> str:
    """The short answer for one diagnosis."""
    pages = index.page_texts()
    if d.entry is None:
        return (f"Not in the index: no message of \"Diagnose your error\" matches\n  {d.message[:200]}\n"
                f"If your code raises nothing but does not learn, see Diagnose a symptom: "
                f"{page_address(pages['symptoms']['path'])}\n"
                f"All messages: {page_address(pages['errors']['path'])}")
    e = d.entry
    first = e["message"][0]["text"]
    lines = [f"In the index: {first[:160]}{' …' if len(first) > 160 else ''}",
             f"  {page_address(pages['errors']['path'], heading_anchor(e['group']))} ({e['group']})",
             "Causes people hit, each with its fix and where a notebook shows it:"]
    for n, c in enumerate(e["cause"], 1):
        where = "; ".join(f"{page_address('notebooks/' + p['notebook'])} {p['section']}".rstrip()
                          for p in c["shown_in"])
        lines += [f"{n}. {plain(c['cause'])}", f"   fix: {plain(c['fix'])}", f"   shown in: {where}"]
        lines.append(f"   reports: {plain(linked(c['reports']))}")
    return "\n".join(lines)


def answer(text: str) -> tuple[bool, str]:
    """(whether the text's error is in the index, the answer to print)."""
    found = diagnose(text)
    return found[0].entry is not None, "\n\n".join(explain(d) for d in found)
