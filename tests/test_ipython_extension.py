"""`%load_ext autograd_pitfalls` in an IPython shell (in-process) and in a real kernel: the
traceback is IPython's own, unchanged, the error still fails the cell, the answer follows it
for errors in the index only (ranked by the cell's code, rendered as HTML with a plain-text
twin, short enough for one screen), and `%unload_ext` turns it off."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell
from nbclient import NotebookClient

from autograd_pitfalls import index

ROOT = Path(__file__).resolve().parent.parent
KNOWN = "element 0 of tensors does not require grad and does not have a grad_fn"
RAISE_KNOWN = f"raise RuntimeError({KNOWN!r})"
RAISE_OTHER = "raise KeyError('not autograd')"


@pytest.fixture
def shell():
    InteractiveShell.clear_instance()
    ip = InteractiveShell.instance(colors="nocolor")
    ip.run_line_magic("xmode", "Minimal")
    yield ip
    ip.run_line_magic("unload_ext", "autograd_pitfalls") if "autograd_pitfalls" in ip.extension_manager.loaded else None
    InteractiveShell.clear_instance()


def run(ip, code: str, capsys) -> tuple[str, BaseException | None]:
    capsys.readouterr()
    result = ip.run_cell(code)
    return capsys.readouterr().out, result.error_in_exec


def test_the_answer_follows_the_unchanged_traceback(shell, capsys):
    plain, _ = run(shell, RAISE_KNOWN, capsys)
    other, _ = run(shell, RAISE_OTHER, capsys)
    shell.run_line_magic("load_ext", "autograd_pitfalls")
    shell.run_line_magic("load_ext", "autograd_pitfalls")  # twice: still one answer
    out, error = run(shell, RAISE_KNOWN, capsys)
    assert isinstance(error, RuntimeError) and str(error) == KNOWN  # not swallowed
    assert plain.strip() and out.startswith(plain)  # IPython's traceback first, as it was
    assert out.count("autograd-doctor") == 1 and "Your error: " + KNOWN in out
    assert "fix: `create_graph=True` on the first derivative" in out
    ranked, _ = run(shell, f"import torch\nwith torch.no_grad():\n    y = 2 * torch.ones(1)\n{RAISE_KNOWN}", capsys)
    assert "because: your code runs under `no_grad`/`inference_mode` or detaches: your cell, line 2" in ranked
    assert run(shell, RAISE_OTHER, capsys)[0] == other  # not in the index: left alone
    assert run(shell, "1 + 1", capsys)[1] is None
    shell.run_line_magic("unload_ext", "autograd_pitfalls")
    assert run(shell, RAISE_KNOWN, capsys)[0] == plain


def test_in_a_real_kernel(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"import sys; sys.path.insert(0, {str(ROOT)!r})\n%load_ext autograd_pitfalls"),
        nbformat.v4.new_code_cell(RAISE_KNOWN),
        nbformat.v4.new_code_cell(f"import torch\nwith torch.no_grad():\n    y = 2 * torch.ones(1)\n{RAISE_KNOWN}"),
    ])
    client = NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.km = client.create_kernel_manager()
    client.km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    client.execute()
    outputs = nb.cells[1].outputs
    kinds = [o.output_type for o in outputs]
    assert kinds == ["error", "display_data"] and outputs[0].evalue == KNOWN, kinds  # the error, as it was
    shown = outputs[1].data
    assert "Your error: " + KNOWN in shown["text/plain"]
    page = shown["text/html"]
    causes = len(next(e for e in index.errors() if e["group"] == KNOWN)["cause"])
    assert f"<details><summary>Its {causes} causes, in the index's order</summary>" in page
    ranked = nb.cells[2].outputs[1].data["text/html"]
    visible = ranked.split("<details>")[0]
    assert "Most likely" in visible and 'notebooks/08_field_guide.ipynb#cell-id=' in visible
    assert visible.count("<br>") + visible.count("<p>") + visible.count("<li>") <= 16  # fits one screen
