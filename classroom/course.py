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
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ASSIGNMENT = "autograd_pitfalls"
# What a student copy's solution region becomes: a comment, so that Run-All goes on.
CODE_STUB = "# YOUR CODE HERE"


class Course:
    """A course directory whose assignment holds some notebooks, and nbgrader working on it."""

    def __init__(self, root: Path, notebooks: list[Path]) -> None:
        from nbgrader.apps import NbGraderAPI
        from traitlets.config import Config

        self.root = root
        source = root / "source" / ASSIGNMENT
        source.mkdir(parents=True)
        for path in [*notebooks, *sorted(NOTEBOOKS.glob("*.py"))]:
            shutil.copy(path, source / path.name)
        config = Config()
        config.CourseDirectory.root = str(root)
        config.CourseDirectory.db_url = self.db_url
        config.NbGrader.logfile = str(root / "nbgrader.log")
        config.ClearSolutions.code_stub = {"python": CODE_STUB}
        config.Execute.timeout = 120
        # Kernels talk over local sockets in the course directory: private, and without the
        # warning ipykernel prints on stderr for every kernel that uses unencrypted TCP.
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(root / "kernel")
        self.api = NbGraderAPI(config=config)

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.root / 'gradebook.db'}"

    @property
    def release(self) -> Path:
        return self.root / "release" / ASSIGNMENT

    def submitted(self, student: str) -> Path:
        return self.root / "submitted" / student / ASSIGNMENT

    def generate(self) -> None:
        """nbgrader generate_assignment: the gradebook learns the test cells; release/ is written."""
        with _nbgrader_environment():
            _succeeded(self.api.generate_assignment(ASSIGNMENT), "make the assignment from the notebooks")

    def autograde(self, student: str) -> None:
        """nbgrader autograde of what ``submitted(student)`` holds."""
        with _nbgrader_environment():
            _succeeded(self.api.autograde(ASSIGNMENT, student), f"autograde {student}'s notebooks")

    def add_empty_submission(self, student: str) -> None:
        """A submission of nothing: every grade of the assignment stays empty (0 points)."""
        from nbgrader.api import Gradebook

        with _nbgrader_environment(), Gradebook(self.db_url) as gradebook:
            gradebook.update_or_create_student(student)
            gradebook.add_submission(ASSIGNMENT, student)


@contextmanager
def course(notebooks: list[Path]) -> Iterator[Course]:
    """A temporary course whose assignment holds ``notebooks`` and the helper modules."""
    with tempfile.TemporaryDirectory(prefix="autograd-pitfalls-course-") as tmp:
        yield Course(Path(tmp), notebooks)


@contextmanager
def _nbgrader_environment() -> Iterator[None]:
    """While nbgrader works: `alembic` (installed beside it) on PATH, figures neither compared
    nor written (they are not graded), and no SQLAlchemy warnings about nbgrader's own code."""
    from sqlalchemy.exc import SAWarning

    saved = {name: os.environ.get(name) for name in ("PATH", "AUTOGRAD_PITFALLS_CHECK_FIGURES")}
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{saved['PATH'] or ''}"
    os.environ["AUTOGRAD_PITFALLS_CHECK_FIGURES"] = "skip"
    try:
        with warnings.catch_warnings():
            # nbgrader 0.9.6 adds gradebook rows in a way SQLAlchemy 2 warns about (harmless).
            warnings.filterwarnings("ignore", category=SAWarning)
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _succeeded(result: dict[str, Any], what: str) -> None:
    """Raise with nbgrader's own log when one of its operations failed."""
    if not result.get("success"):
        raise RuntimeError(f"nbgrader could not {what}:\n{result.get('log', '')}\n{result.get('error', '')}")
