"""What PyTorch warns, printed without this machine's paths: ``anomaly_report`` (what
``torch.autograd.detect_anomaly`` says, from the notebook's own code on) and
``printed_warnings`` (each warning as ``Category: message``)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch


# A frame of the anomaly traceback, and the file names IPython gives notebook cells.
_FRAME = re.compile(r'^  File "(?P<file>[^"]*)", line \d+, in (?P<func>.*)$')
_CELL_FILE = re.compile(r"ipykernel_\d+[/\\]\d+\.py$|^<ipython-input-|^<IPY-INPUT>")
_INTERNAL = re.compile(r" \(Triggered internally at .*?\)", re.S)


def _where(file: str) -> str:
    if _CELL_FILE.search(file):
        return "cell"
    if re.search(r"[/\\]torch[/\\]", file):
        return "torch"
    return Path(file).name


def _clean_anomaly_message(text: str) -> str:
    """The anomaly warning, from the first notebook-cell frame on, without paths."""
    lines = _INTERNAL.sub("", text).splitlines()
    head, frames = lines[0], []  # frames: [header, code line?] of each stack frame
    for line in lines[1:]:
        m = _FRAME.match(line)
        if m:
            frames.append([f"  {_where(m['file'])}, in {m['func']}"])
        elif frames and line.strip():
            frames[-1].append(line.rstrip())
    # Before the first cell frame come the kernel's own frames (runpy, asyncio, ipykernel):
    # they say nothing about the error and differ between Jupyter front ends.
    cells = [k for k, f in enumerate(frames) if f[0].startswith("  cell,")]
    frames = frames[cells[0]:] if cells else frames
    return "\n".join([head] + [line for frame in frames for line in frame])


@contextmanager
def anomaly_report() -> Iterator[None]:
    """Run the block under ``torch.autograd.detect_anomaly()`` and print what it reports.

    Anomaly mode warns with the traceback of the forward call whose backward failed. That
    traceback starts deep in the Jupyter kernel and names files of this machine, so it is
    printed from the notebook's own code on, each frame as ``cell, in <function>`` (or
    ``torch, in ...`` for PyTorch's code) followed by its line of code. The error itself
    propagates unchanged.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly():
                yield
        finally:
            for w in caught:
                text = str(w.message)
                if text.startswith("Error detected in"):  # not "Anomaly Detection has been enabled"
                    print(_clean_anomaly_message(text))


@contextmanager
def printed_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Catch the warnings raised in the block and print each as ``Category: message``.

    A warning left to Python goes to stderr with the file and line it came from, a path of
    this machine; this prints what it says instead, without the C++ location that PyTorch's
    own warnings end with. The caught warnings are also yielded, for a cell to inspect.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield caught
        finally:
            for w in caught:
                print(f"{w.category.__name__}: {_INTERNAL.sub('', str(w.message))}")
