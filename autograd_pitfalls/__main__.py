"""`python -m autograd_pitfalls diagnose [--code FILE] [FILE | - | MESSAGE]`, also installed as
`autograd-doctor`.

Reads a traceback or an error message from a file, from standard input (`-`, or no argument
when something is piped in) or from the arguments, and prints the matching entry of the index
with its causes ranked by what the traceback shows, and by the code of `--code FILE` (the
script that failed) if given. Exit status: 0 found in the index, 1 not in the index, 2
unreadable input.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from autograd_pitfalls import doctor_answer

USAGE = ("usage: autograd-doctor [--code SCRIPT] [FILE | - | \"RuntimeError: message\"]   "
         "(or python -m autograd_pitfalls diagnose …)")


def _is_file(arg: str) -> bool:
    """Whether ``arg`` names a file; a long message is no file name (the system refuses it)."""
    try:
        return Path(arg).is_file()
    except OSError:
        return False


def read_input(args: list[str]) -> str:
    if not args or args == ["-"]:
        if not args and sys.stdin.isatty():
            raise ValueError(USAGE)
        return sys.stdin.read()
    if len(args) == 1 and _is_file(args[0]):
        return Path(args[0]).read_text(encoding="utf-8", errors="replace")
    if len(args) == 1 and " " not in args[0] and re.search(r"[/\\]|\.(txt|log|out)$", args[0]):
        raise ValueError(f"no such file: {args[0]}")
    return " ".join(args)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["diagnose"]:
        args = args[1:]
    parser = argparse.ArgumentParser(prog="autograd-doctor", usage=USAGE.removeprefix("usage: "), add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--code", help="the script or cell that failed, to rank the causes by")
    parser.add_argument("input", nargs="*")
    try:
        options = parser.parse_args(args)
    except SystemExit:  # argparse has printed its one line
        return 2
    if options.help:
        print(USAGE)
        return 0
    code, label = "", "your code"
    try:
        if options.code is not None:
            code, label = Path(options.code).read_text(encoding="utf-8", errors="replace"), Path(options.code).name
        text = read_input(options.input)
    except (OSError, ValueError) as problem:
        print(f"autograd-doctor: {problem}", file=sys.stderr)
        return 2
    if not text.strip():
        print("autograd-doctor: the input is empty: give a traceback or an error message", file=sys.stderr)
        return 2
    found, answer = doctor_answer.answer(text, code, label)
    try:
        print(answer)
    except BrokenPipeError:  # `autograd-doctor … | head`
        pass
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
