"""Which file a student handed in for which notebook, found the way a teacher would find it.

A class folder holds one folder per student (its name is the student's id). In it, a notebook
counts as handed in for ``NN_slug.ipynb`` when its name starts with the same number
(``01_Double_Backward (1).ipynb``, ``06_inplace_on_leaf-eve.ipynb``) or, without a number,
holds the slug (``double_backward.ipynb``), case aside. Notebooks may sit up to two folders
deep (``notebooks/``, ``student/notebooks/`` from a zipped copy). Hidden and system folders
(``.ipynb_checkpoints``, ``__MACOSX``, ``__pycache__``) are never looked in, nor taken as a student.
Every decision that a teacher might not expect is said in a line: a file taken under another
name, a notebook file that was left out, two different files for one notebook (neither graded).
"""

from __future__ import annotations

import filecmp
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 3  # the student's folder, and two folders below it


def ignored(path: Path) -> bool:
    """A hidden or system folder or file, never a student's work."""
    return path.name.startswith((".", "__")) or path.name in ("Thumbs.db", "desktop.ini")


def student_folders(class_folder: Path) -> list[Path]:
    return sorted((p for p in class_folder.iterdir() if p.is_dir() and not ignored(p)), key=lambda p: p.name)


@dataclass
class HandIn:
    """What one student handed in: notebook stem -> file, and lines for the teacher."""

    student: str
    files: dict[str, Path] = field(default_factory=dict)
    unresolved: set[str] = field(default_factory=set)  # notebooks with several different files
    notes: list[str] = field(default_factory=list)  # decisions the teacher should see
    problems: list[str] = field(default_factory=list)  # notebooks that cannot be graded, and why

    def missing(self, notebooks: list[str]) -> list[str]:
        """The notebooks of ``notebooks`` for which no file was found at all."""
        return [stem for stem in notebooks if stem not in self.files and stem not in self.unresolved]


def _number_and_words(stem: str) -> tuple[str | None, str]:
    """("01", "double_backward") for "01_Double_Backward (1)"; (None, ...) without a number."""
    stem = re.sub(r"\s*\(\d+\)$", "", stem.strip()).lower()  # a browser's " (1)" duplicate
    match = re.match(r"(\d\d)(?!\d)", stem)
    words = re.sub(r"[^a-z0-9]+", "_", stem).strip("_")
    return (match.group(1) if match else None), words


def which_notebook(path: Path, notebooks: list[str]) -> str | None:
    """The notebook (stem) that ``path`` is a hand-in of, or None."""
    number, words = _number_and_words(path.stem)
    for stem in notebooks:
        own_number, slug = stem[:2], stem[3:].lower()
        if number == own_number or (number is None and slug in words):
            return stem
    return None


def _notebook_files(folder: Path) -> list[Path]:
    found, todo = [], [(folder, 1)]
    while todo:
        current, depth = todo.pop()
        for p in sorted(current.iterdir()):
            if ignored(p):
                continue
            if p.is_dir() and depth < MAX_DEPTH:
                todo.append((p, depth + 1))
            elif p.is_file() and p.suffix.lower() == ".ipynb":
                found.append(p)
    return sorted(found)


def find_hand_in(folder: Path, assignment: list[str], collection: list[str]) -> HandIn:
    """The files in a student's ``folder`` for the notebooks of ``assignment`` (stems); files for
    other notebooks of the ``collection`` are left out with a note."""
    hand_in = HandIn(folder.name)
    candidates: dict[str, list[Path]] = {}
    for path in _notebook_files(folder):
        shown = path.relative_to(folder).as_posix()
        stem = which_notebook(path, collection)
        if stem is None:
            hand_in.notes.append(f"{folder.name}: {shown} left out: its name matches no notebook")
        elif stem not in assignment:
            hand_in.notes.append(f"{folder.name}: {shown} left out: {stem} is not in this assignment")
        else:
            candidates.setdefault(stem, []).append(path)
    for stem, paths in sorted(candidates.items()):
        distinct = [p for k, p in enumerate(paths) if not any(filecmp.cmp(p, q, shallow=False) for q in paths[:k])]
        shown = [p.relative_to(folder).as_posix() for p in paths]
        if len(distinct) > 1:
            hand_in.unresolved.add(stem)
            hand_in.problems.append(
                f"{folder.name}, {stem}: not graded: {len(distinct)} different files could be it "
                f"({', '.join(shown)}); keep one and grade again")
            continue
        hand_in.files[stem] = paths[0]
        if shown[0] not in (f"{stem}.ipynb", f"notebooks/{stem}.ipynb") or len(paths) > 1:
            hand_in.notes.append(f"{folder.name}: {shown[0]} taken for {stem}"
                                 + (f" ({len(paths) - 1} identical copies beside it)" if len(paths) > 1 else ""))
    return hand_in
