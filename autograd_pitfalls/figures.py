"""``save_figure``: writes a figure under ``figures/``, or checks it there during the tests."""

from __future__ import annotations

import io
import os
from pathlib import Path

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

_CHECKOUT = Path(__file__).resolve().parent.parent
# The repository's figures/ when this package runs from a checkout of it; installed elsewhere
# (pip install of the repository, Colab), a figures/ folder beside the running notebook.
FIGURES_DIR = _CHECKOUT / "figures" if (_CHECKOUT / "notebooks").is_dir() else Path("figures")
# Set by the test suite (conftest.py): "1" compares figures with figures/ instead of writing
# them; "skip" neither compares nor writes (on another PyTorch release than the pinned one).
CHECK_FIGURES_ENV = "AUTOGRAD_PITFALLS_CHECK_FIGURES"


def _render(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def _pixels(png: bytes) -> np.ndarray:
    return matplotlib.image.imread(io.BytesIO(png), format="png")


def save_figure(fig: Figure, name: str, show: bool = True) -> None:
    """Save ``fig`` as ``figures/<name>``, then show it inline and close it.

    The file is rewritten only when its pixels change, so re-running a notebook leaves the
    work tree clean. Under the test suite (``AUTOGRAD_PITFALLS_CHECK_FIGURES=1``) nothing
    is written: a figure whose pixels differ from the committed one raises AssertionError
    (with ``=skip``, on another PyTorch release, it is neither compared nor written).
    """
    path = FIGURES_DIR / name
    png = _render(fig)
    mode = os.environ.get(CHECK_FIGURES_ENV)
    if mode != "skip" and not _same_picture(path, png):
        if mode == "1":
            raise AssertionError(
                f"figures/{name} is {'different from' if path.exists() else 'not'} what this "
                "cell draws now: run `make execute` and review the change"
            )
        FIGURES_DIR.mkdir(exist_ok=True)
        path.write_bytes(png)
    if show:
        from IPython.display import Image, display

        display(Image(png))
    plt.close(fig)


# A figure drawn from many float32 steps (a GAN's training) can move a few pixels between
# CPUs, whose kernels round differently: up to this share of pixels, by up to this much.
_ROUNDING_PIXELS, _ROUNDING_LEVEL = 0.001, 8 / 255


def _same_picture(path: Path, png: bytes) -> bool:
    """Whether ``path`` holds the picture ``png``: equal bytes settle it quickly; otherwise
    compare pixels, since another zlib or Pillow may encode the same picture differently,
    and allow the few faint pixels that float rounding on another CPU moves."""
    if not path.exists():
        return False
    stored = path.read_bytes()
    if stored == png:
        return True
    old, new = _pixels(stored), _pixels(png)
    if old.shape != new.shape:
        return False
    moved = np.abs(old - new).max(axis=-1)
    return bool(moved.max() <= _ROUNDING_LEVEL and (moved > 0).mean() <= _ROUNDING_PIXELS)
