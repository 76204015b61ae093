"""Which PyTorch release and Python the suite runs on, and the outputs declared to differ there.

The stored notebooks hold the outputs of the release pinned in requirements.txt, run on the
first Python listed in releases.toml. The same notebooks are validated on the older releases and
the other Pythons listed there; on those, a cell listed in that file must differ from its stored
output and print what the entry says, and every other cell must match (see releases.toml for the
format).
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RELEASES_FILE = ROOT / "releases.toml"


@dataclass(frozen=True)
class Difference:
    """One cell whose output differs from the stored one on some older releases, or on some
    Pythons (an empty tuple: on every one)."""

    notebook: str
    cell: str  # the cell's id
    releases: tuple[str, ...]
    prints: str  # a regular expression the release's output matches
    why: str
    pythons: tuple[str, ...] = ()

    def explains(self, output_text: str) -> bool:
        return re.search(self.prints, output_text, re.M) is not None

    def applies_to(self, release: str, python: str) -> bool:
        return ((not self.releases or release in self.releases)
                and (not self.pythons or python in self.pythons))


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


def running_python() -> str:
    """The Python the suite (and so its kernels) runs on, as "3.13"."""
    return "{}.{}".format(*sys.version_info[:2])


def validated_pythons() -> list[str]:
    """The Pythons the notebooks are validated on; the first one stored their outputs."""
    return list(_load()["pythons"])


def declared_differences() -> list[Difference]:
    """Every entry of releases.toml; raises ValueError on an entry that is incomplete, names a
    release that is not one of the older releases or a Python that is not one of the other
    tested Pythons, or names neither."""
    data = _load()
    older, other_pythons = set(data["older"]), set(data["pythons"][1:])
    differences = []
    for k, entry in enumerate(data.get("difference", [])):
        try:
            d = Difference(entry["notebook"], entry["cell"], tuple(entry.get("releases", ())),
                           entry["prints"], " ".join(entry["why"].split()),
                           tuple(entry.get("pythons", ())))
        except KeyError as e:
            raise ValueError(f"releases.toml, difference {k + 1}: no {e.args[0]!r}") from None
        unknown = (set(d.releases) - older) | (set(d.pythons) - other_pythons)
        if unknown or not (d.releases or d.pythons) or not d.why or not d.prints:
            raise ValueError(f"releases.toml, difference {k + 1} ({d.notebook} {d.cell}): "
                             f"releases must be among {sorted(older)}, pythons among "
                             f"{sorted(other_pythons)} (one of the two given), and prints and why set")
        re.compile(d.prints)
        differences.append(d)
    return differences


def differences_for(release: str, python: str) -> dict[tuple[str, str], Difference]:
    """(notebook, cell id) -> the declared difference, for one release on one Python."""
    return {(d.notebook, d.cell): d for d in declared_differences() if d.applies_to(release, python)}
