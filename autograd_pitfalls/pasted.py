"""What a pasted traceback holds: its exception messages, its frames, and the learner's own code.

People paste tracebacks in every shape: Python's (`File "x.py", line 3, in f` and the code line
under it), IPython's (`Cell In[4], line 2` or `File ~/x.py:3, in f` followed by numbered code lines
with an arrow), inside backticks, after `[rank0]:`, cut short, line-wrapped, with their own code
or sentences around it. Nothing here knows autograd: this module only reads the text.

A frame is *library* code when its path lies in an installed package (site-packages,
dist-packages, a Python's lib folder, a conda or pip installation) or in PyTorch; every other
frame, and every line outside the traceback, is the learner's code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EXCEPTION = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failed|Interrupt)"
                       r"(?:\[[^\]]*\])?: ?(.*)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})  # ‘’“” as pasted from a page
RANK_PREFIX = re.compile(r"^\s*\[(?:rank|default)\d+\]:\s?")
STOP_LINE = re.compile(r"\s*(Traceback \(most recent call last\)|File \"|During handling of|The above exception|"
                       r"Set TORCH_|You can suppress|Exception raised from|frame #\d|-{5,})")
CUT_MARK = re.compile(r"\s*(\.\.\.|…)\s*$")
PYTHON_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)"\s*,?\s*(?:line (?P<line>\d+))?(?:, in (?P<function>.+))?')
IPYTHON_FRAME = re.compile(r"^\s*(?:File (?P<path>\S.*?):(?P<line>\d+), in (?P<function>[^(\s]+)"
                           r"|(?P<cell>Cell In ?\[\d*\]|Input In ?\[\d*\]), line (?P<cell_line>\d+))")
IPYTHON_CODE = re.compile(r"^\s*(?:-*>\s*)?\d+\s(?P<code>.*)$")
CARETS = re.compile(r"^\s*[\^~]+\s*$")
LIBRARY = re.compile(r"site-packages|dist-packages|[/\\]lib[/\\]python\d|[/\\]Lib[/\\]|[/\\]envs?[/\\]|"
                     r"[/\\](?:ana|mini)conda\d?[/\\]|<frozen |(?:^|[/\\])torch[/\\]|\.\.\.[/\\]")


def squeeze(text: str) -> str:
    return " ".join(text.split())


def no_ticks(text: str) -> str:
    """A message without Markdown's code marks: "Can't call `numpy()` on Tensor" as a page shows it
    matches "Can't call numpy() on Tensor"; both sides of a comparison lose them."""
    return text.replace("`", "")


def plain_quotes(text: str) -> str:
    """Curly quotes as straight ones: a page or a word processor curls them (`can’t optimize`)."""
    return text.translate(TYPOGRAPHIC)


@dataclass(frozen=True)
class Frame:
    path: str        # as the traceback names it ("train.py", ".../site-packages/torch/_tensor.py", "Cell In[4]")
    function: str
    code: str        # the code line(s) the traceback quotes under it, joined by newlines
    library: bool    # in an installed package or PyTorch, not the learner's code


@dataclass(frozen=True)
class CodeLine:
    where: str       # "your cell, line 3", "train.py, line 296", "the text you pasted, line 2"
    text: str


@dataclass
class Pasted:
    messages: list[str]                                     # exception messages, last first
    frames: list[Frame] = field(default_factory=list)
    code: list[CodeLine] = field(default_factory=list)      # the learner's own code lines


def clean_lines(text: str) -> list[str]:
    return [RANK_PREFIX.sub("", ANSI.sub("", line)) for line in plain_quotes(text).splitlines()]


def messages_in(text: str) -> list[str]:
    """The exception messages of a pasted text, last first (its type prefix removed)."""
    lines = clean_lines(text)
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


def is_library(path: str) -> bool:
    return bool(LIBRARY.search(path))


def read(text: str, code: str = "", code_label: str = "your code") -> Pasted:
    """Messages, frames and the learner's code lines of a pasted ``text``; ``code`` is more of the
    learner's code (a notebook cell, a file given with --code), labelled ``code_label``."""
    lines = clean_lines(text)
    frames: list[Frame] = []
    own = [CodeLine(f"{code_label}, line {n}", line.strip()) for n, line in enumerate(plain_quotes(code).splitlines(), 1)
           if line.strip()]
    in_message = False
    i = 0
    while i < len(lines):
        line = lines[i]
        header = PYTHON_FRAME.match(line) or IPYTHON_FRAME.match(line)
        if header:
            groups = header.groupdict()
            path = (groups.get("path") or groups.get("cell") or "").strip()
            number = groups.get("line") or groups.get("cell_line")
            quoted, k = [], i + 1
            while k < len(lines) and lines[k].strip() and not (PYTHON_FRAME.match(lines[k]) or IPYTHON_FRAME.match(lines[k])
                                                                or EXCEPTION.search(lines[k])):
                if not CARETS.match(lines[k]):
                    numbered = IPYTHON_CODE.match(lines[k])
                    quoted.append((numbered.group("code") if numbered else lines[k]).strip())
                k += 1
            library = is_library(path)
            frames.append(Frame(path, (groups.get("function") or "").strip(), "\n".join(quoted), library))
            if not library:
                where = f"{path.rsplit('/', 1)[-1].rsplit(chr(92), 1)[-1]}, line {number}" if number else path
                own += [CodeLine(where, q) for q in quoted if q]
            i, in_message = k, False
            continue
        if EXCEPTION.search(line):
            in_message = True
        elif not line.strip() or STOP_LINE.match(line):
            in_message = False
        elif not in_message and line.strip() and not line.strip().startswith("Traceback"):
            own.append(CodeLine(f"the text you pasted, line {i + 1}", line.strip().strip("`")))
        i += 1
    return Pasted(messages_in(text), frames, own)
