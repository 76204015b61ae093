"""Student copies (`make student`): nbgrader's release of every notebook, in a folder to hand out.

``student_copy`` runs the preprocessors of nbgrader's ``generate_assignment`` (all but the one
that writes the gradebook) on one notebook: solution regions become ``# YOUR CODE HERE``,
hidden tests and outputs are removed, check cells are locked. The test suite makes its copies
with the same function. ``python -m classroom.release OUT`` writes OUT/ for students: the
copies and the helper package they import (``autograd_pitfalls``) in ``notebooks/``, ``figures/``, a README and a
requirements.txt with the packages a student needs, pinned as the repository pins them.
"""

from __future__ import annotations

import shutil
import sys
from copy import deepcopy
from functools import lru_cache
from pathlib import Path
from typing import Any

import nbformat

from classroom.course import CODE_STUB, NOTEBOOKS, ROOT

# What a student installs: the repository's pins of these (requirements.txt).
STUDENT_PACKAGES = ("torch", "numpy", "matplotlib", "jupyterlab", "ipykernel")
STUDENT_README = Path(__file__).with_name("student_README.md")


@lru_cache(maxsize=1)
def _preprocessors() -> list[Any]:
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import SaveCells
    from traitlets.config import Config

    config = Config()
    config.ClearSolutions.code_stub = {"python": CODE_STUB}
    pipeline = GenerateAssignment.class_traits()["preprocessors"].default()
    return [step(config=config) for step in pipeline if step is not SaveCells]


def student_copy(nb: Any) -> Any:
    """The student copy of notebook ``nb`` (left unchanged), as nbgrader releases it."""
    copy, resources = deepcopy(nb), {}
    for step in _preprocessors():
        copy, resources = step.preprocess(copy, resources)
    return copy


def student_requirements() -> str:
    """requirements.txt's pins of the packages in STUDENT_PACKAGES."""
    pins = {line.split("==")[0].strip().lower(): line.strip()
            for line in (ROOT / "requirements.txt").read_text().splitlines()
            if "==" in line and not line.lstrip().startswith("#")}
    missing = [name for name in STUDENT_PACKAGES if name not in pins]
    if missing:
        raise SystemExit(f"requirements.txt pins no {', '.join(missing)}")
    return "".join(f"{pins[name]}\n" for name in STUDENT_PACKAGES)


def write_student_folder(out: Path, notebooks: list[Path]) -> None:
    """Write the folder handed to students: with every notebook, ``out`` afresh; with some, only
    their copies are replaced (the other copies are kept), the rest is refreshed."""
    if out.exists() and {p.name for p in notebooks} == {p.name for p in NOTEBOOKS.glob("*.ipynb")}:
        shutil.rmtree(out)
    (out / "notebooks").mkdir(parents=True, exist_ok=True)
    for path in notebooks:
        nbformat.write(student_copy(nbformat.read(path, as_version=4)), out / "notebooks" / path.name)
    # The helper package beside the notebooks, where their `import autograd_pitfalls` finds it
    # without an install.
    shutil.copytree(ROOT / "autograd_pitfalls", out / "notebooks" / "autograd_pitfalls", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "figures", out / "figures", dirs_exist_ok=True)
    requirements = student_requirements()
    torch_pin = next(line for line in requirements.splitlines() if line.startswith("torch=="))
    (out / "README.md").write_text(STUDENT_README.read_text().replace("{torch_pin}", torch_pin))
    (out / "requirements.txt").write_text(requirements)


def main(argv: list[str]) -> None:
    if len(argv) < 1:
        raise SystemExit("usage: python -m classroom.release OUT_DIR [NOTEBOOK.ipynb ...]")
    notebooks = [Path(p) for p in argv[1:]] or sorted(NOTEBOOKS.glob("*.ipynb"))
    write_student_folder(Path(argv[0]), notebooks)
    print(f"{len(notebooks)} student copies in {argv[0]}/notebooks; hand out the whole {argv[0]}/ folder")


if __name__ == "__main__":
    main(sys.argv[1:])
