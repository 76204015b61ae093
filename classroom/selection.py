"""Naming notebooks on the command line: `make grade NB="01 04 06"`, `make student NB=03`."""

from __future__ import annotations

from pathlib import Path

from classroom.course import NOTEBOOKS


def select_notebooks(names: list[str]) -> list[Path]:
    """The notebooks named by number ("1", "01"), stem or file name (with or without a folder);
    every notebook when ``names`` is empty. Raises SystemExit with one line for a name that
    matches none."""
    every = sorted(NOTEBOOKS.glob("*.ipynb"))
    if not names:
        return every
    chosen = []
    for name in names:
        key = Path(name).stem
        found = [p for p in every if key in (p.stem, p.stem[:2]) or (key.isdigit() and int(key) == int(p.stem[:2]))]
        if not found:
            raise SystemExit(f"no notebook {name!r}: name notebooks by number ({every[0].stem[:2]} to "
                             f"{every[-1].stem[:2]}) or by file name, e.g. NB=\"01 04\"")
        chosen += [p for p in found if p not in chosen]
    return chosen
