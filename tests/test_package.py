"""The repository installs as a package that a notebook needs and nothing else: the wheel
`pip install` of the repository builds holds the helper modules the notebooks import and the
index data, and they import from the wheel alone, outside the checkout (as on Colab)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORTS = """
import sys
sys.path.insert(0, sys.argv[1])
import autograd_pitfalls
assert autograd_pitfalls.__file__.startswith(sys.argv[1]), autograd_pitfalls.__file__
from autograd_pitfalls.autograd_tools import FIGURES_DIR, describe_graph, save_figure
from autograd_pitfalls.exercise_check import check_answer
from autograd_pitfalls.gan_demo import articles_setup
from autograd_pitfalls.training_check import StepCheck
from autograd_pitfalls import doctor, index
assert str(FIGURES_DIR) == "figures", FIGURES_DIR  # beside the notebook, not in site-packages
assert index.errors() and doctor.diagnose("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
print("ok")
"""


def test_the_wheel_holds_what_a_notebook_imports(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(ROOT)], check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("autograd_pitfalls-*.whl")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path / "installed")
    away = tmp_path / "elsewhere"
    away.mkdir()
    done = subprocess.run([sys.executable, "-I", "-c", IMPORTS, str(tmp_path / "installed")], cwd=away,
                          capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
