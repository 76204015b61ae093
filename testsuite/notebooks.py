"""Reading a notebook once per run, and its student copy (made as `make student` makes it)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def read_notebook(path: Path) -> Any:
    """The notebook as stored (read once per run and file version; callers must not modify it)."""
    return _read(Path(path), Path(path).stat().st_mtime_ns)


@lru_cache(maxsize=None)
def _read(path: Path, mtime_ns: int) -> Any:
    return nbformat.read(path, as_version=nbformat.NO_CONVERT)


def student_copy_of(path: Path) -> Any:
    """The student copy of the notebook stored at ``path`` (made once per run and file version)."""
    return _student_copy_of(Path(path), Path(path).stat().st_mtime_ns)


@lru_cache(maxsize=None)
def _student_copy_of(path: Path, mtime_ns: int) -> Any:
    from classroom.release import student_copy

    return student_copy(_read(path, mtime_ns))


def output_text(outputs: list[Any]) -> str:
    """What a list of outputs shows as text: stream text, text/plain, and errors as 'Type: message'."""
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}\n")
        else:
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)
