"""A throwaway nbgrader course holding the notebooks: the one path to student copies and grades.

nbgrader works on a course directory (``source/<assignment>/``, ``release/``, ``submitted/``,
``autograded/``) and a gradebook database. Both live in a temporary directory outside the work
tree, and nbgrader's log goes there too. The notebooks are the assignment's source as they are:
their exercises are nbgrader solution cells and graded test cells with hidden tests.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import warnings
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

from classroom.kernel_pool import KERNEL_NAME, kernel_pool

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ASSIGNMENT = "autograd_pitfalls"
# What a student copy's solution region becomes: a comment, so that Run-All goes on.
CODE_STUB = "# YOUR CODE HERE"


class Course:
    """A course directory whose assignment holds some notebooks, and nbgrader working on it.
    A cell that runs longer than ``timeout`` seconds is interrupted (it scores as an error)."""

    def __init__(self, root: Path, notebooks: list[Path], timeout: int = 120) -> None:
        from nbgrader.apps import NbGraderAPI
        from nbgrader.converters import Autograde
        from traitlets.config import Config

        from classroom.checker_guard import GuardTheChecker

        self.root = root
        _new_gradebook(root / "gradebook.db")
        source = root / "source" / ASSIGNMENT
        source.mkdir(parents=True)
        for path in notebooks:  # their kernels import the helper package as installed in .venv
            shutil.copy(path, source / path.name)
        config = Config()
        config.CourseDirectory.root = str(root)
        config.CourseDirectory.db_url = self.db_url
        config.NbGrader.logfile = str(root / "nbgrader.log")
        config.ClearSolutions.code_stub = {"python": CODE_STUB}
        config.Execute.timeout = timeout
        config.Autograde.autograde_preprocessors = [
            GuardTheChecker, *Autograde.class_traits()["autograde_preprocessors"].default()]
        config.Execute.kernel_name = KERNEL_NAME  # see course()
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

    def autograde(self, student: str = "*") -> None:
        """nbgrader autograde of what ``submitted(student)`` holds; by default, of every
        student's submission, in one run of nbgrader."""
        failure = self.try_autograde(student)
        if failure:
            raise RuntimeError(f"nbgrader could not autograde {student}'s notebooks:\n{failure}")

    def try_autograde(self, student: str = "*") -> str | None:
        """nbgrader autograde of a submission; nbgrader's log if it failed, else None."""
        with _nbgrader_environment():
            result = self.api.autograde(ASSIGNMENT, student)
        return None if result.get("success") else f"{result.get('log', '')}\n{result.get('error', '')}"

    def autograded(self, student: str) -> Path:
        return self.root / "autograded" / student / ASSIGNMENT

    def feedback(self, student: str) -> Path:
        """nbgrader generate_feedback for one student: the folder of its HTML files."""
        with _nbgrader_environment():
            _succeeded(self.api.generate_feedback(ASSIGNMENT, student), f"write {student}'s feedback")
        return self.root / "feedback" / student / ASSIGNMENT

    def add_empty_submission(self, student: str) -> None:
        """A submission of nothing: every grade of the assignment stays empty (0 points)."""
        from nbgrader.api import Gradebook

        with _nbgrader_environment(), Gradebook(self.db_url) as gradebook:
            gradebook.update_or_create_student(student)
            gradebook.add_submission(ASSIGNMENT, student)


@contextmanager
def course(notebooks: list[Path], timeout: int = 120) -> Iterator[Course]:
    """A temporary course whose assignment holds ``notebooks`` and the helper modules. nbgrader's
    kernels are forked from a kernel pool (kernel_pool.py): the one already running for this
    process (the test suite's), or one started for the course."""
    with kernel_pool(), tempfile.TemporaryDirectory(prefix="autograd-pitfalls-course-") as tmp:
        yield Course(Path(tmp), notebooks, timeout)


def _new_gradebook(path: Path) -> None:
    """An empty gradebook that records the schema version of nbgrader's own migration scripts.
    nbgrader would ask the `alembic` command for it when it first opens the gradebook, a process
    that imports nbgrader again (4 s); it creates the tables itself."""
    import nbgrader
    from alembic.script import ScriptDirectory

    (head,) = ScriptDirectory(str(Path(nbgrader.__file__).parent / "alembic")).get_heads()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        db.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (head,))


@contextmanager
def _nbgrader_environment() -> Iterator[None]:
    """While nbgrader works: figures neither compared nor written (they are not graded), and no
    SQLAlchemy warnings about nbgrader's own code."""
    from sqlalchemy.exc import SAWarning

    with mock.patch.dict(os.environ, {"AUTOGRAD_PITFALLS_CHECK_FIGURES": "skip"}), warnings.catch_warnings():
        # nbgrader 0.9.6 adds gradebook rows in a way SQLAlchemy 2 warns about (harmless).
        warnings.filterwarnings("ignore", category=SAWarning)
        yield


def _succeeded(result: dict[str, Any], what: str) -> None:
    """Raise with nbgrader's own log when one of its operations failed."""
    if not result.get("success"):
        raise RuntimeError(f"nbgrader could not {what}:\n{result.get('log', '')}\n{result.get('error', '')}")
