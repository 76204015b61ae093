"""A throwaway nbgrader course holding the notebooks: the one path to student copies and grades.

nbgrader works on a course directory (``source/<assignment>/``, ``release/``, ``submitted/``,
``autograded/``) and a gradebook database. Both live in a temporary directory outside the work
tree, and nbgrader's log goes there too. The notebooks are the assignment's source as they are:
their exercises are nbgrader solution cells and graded test cells with hidden tests.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ASSIGNMENT = "autograd_pitfalls"
# What a student copy's solution region becomes: a comment, so that Run-All goes on.
CODE_STUB = "# YOUR CODE HERE"


@dataclass
class Course:
    """A course directory and the nbgrader API working on it."""

    root: Path
    api: object  # nbgrader.apps.NbGraderAPI

    @property
    def release(self) -> Path:
        return self.root / "release" / ASSIGNMENT

    def submitted(self, student: str) -> Path:
        return self.root / "submitted" / student / ASSIGNMENT

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.root / 'gradebook.db'}"


@contextmanager
def course(notebooks: list[Path]) -> Iterator[Course]:
    """A temporary course whose assignment holds ``notebooks`` and the helper modules they import.

    Figures are neither compared nor written while nbgrader runs notebooks (they are not graded).
    """
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="autograd-pitfalls-course-") as tmp:
        root = Path(tmp)
        source = root / "source" / ASSIGNMENT
        source.mkdir(parents=True)
        for path in [*notebooks, *sorted(NOTEBOOKS.glob("*.py"))]:
            shutil.copy(path, source / path.name)
        config = Config()
        config.CourseDirectory.root = str(root)
        config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
        config.NbGrader.logfile = str(root / "nbgrader.log")
        config.ClearSolutions.code_stub = {"python": CODE_STUB}
        config.Execute.timeout = 120
        saved_env = dict(os.environ)
        # nbgrader runs `alembic` (installed beside it) to set up its gradebook.
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        os.environ["AUTOGRAD_PITFALLS_CHECK_FIGURES"] = "skip"
        try:
            yield Course(root, NbGraderAPI(config=config))
        finally:
            os.environ.clear()
            os.environ.update(saved_env)


def run(result: dict, what: str) -> None:
    """Raise with nbgrader's own log when one of its operations failed."""
    if not result.get("success"):
        raise RuntimeError(f"nbgrader could not {what}:\n{result.get('log', '')}\n{result.get('error', '')}")
