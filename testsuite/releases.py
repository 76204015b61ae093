"""Which PyTorch release the suite runs on, and the outputs declared to differ on it.

The stored notebooks hold the outputs of the release pinned in requirements.txt. The same
notebooks are validated on the older releases listed in releases.toml; there, a cell listed
in that file must differ from its stored output and print what the entry says, and every
other cell must match (see releases.toml for the format).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RELEASES_FILE = ROOT / "releases.toml"


@dataclass(frozen=True)
class Difference:
    """One cell whose output on some older releases differs from the stored one."""

    notebook: str
    cell: str  # the cell's id
    releases: tuple[str, ...]
    prints: str  # a regular expression the release's output matches
    why: str

    def explains(self, output_text: str) -> bool:
        return re.search(self.prints, output_text, re.M) is not None


def installed_release() -> str:
    """The installed torch release without its build tag ("2.15.0", not "2.15.0+cpu")."""
    return version("torch").split("+")[0]


def pinned_release() -> str:
    pins = re.findall(r"^torch==(\S+)", (ROOT / "requirements.txt").read_text(), re.M)
    if len(pins) != 1:
        raise ValueError("requirements.txt must pin torch exactly once (torch==X.Y.Z)")
    return pins[0]


def _load() -> dict[str, Any]:
    with RELEASES_FILE.open("rb") as f:
        return tomllib.load(f)


def older_releases() -> list[str]:
    return list(_load()["older"])


def declared_differences() -> list[Difference]:
    """Every entry of releases.toml; raises ValueError on an entry that is incomplete or names
    a release that is not one of the older releases."""
    data = _load()
    older = set(data["older"])
    differences = []
    for k, entry in enumerate(data.get("difference", [])):
        try:
            d = Difference(entry["notebook"], entry["cell"], tuple(entry["releases"]),
                           entry["prints"], " ".join(entry["why"].split()))
        except KeyError as e:
            raise ValueError(f"releases.toml, difference {k + 1}: no {e.args[0]!r}") from None
        unknown = set(d.releases) - older
        if unknown or not d.releases or not d.why or not d.prints:
            raise ValueError(f"releases.toml, difference {k + 1} ({d.notebook} {d.cell}): "
                             f"releases must be among {sorted(older)}, and prints and why set")
        re.compile(d.prints)
        differences.append(d)
    return differences


def differences_for(release: str) -> dict[tuple[str, str], Difference]:
    """(notebook, cell id) -> the declared difference, for one release."""
    return {(d.notebook, d.cell): d for d in declared_differences() if release in d.releases}
