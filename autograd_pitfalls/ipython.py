"""`%load_ext autograd_pitfalls`: the doctor's answer under an autograd error, rendered.

After a cell raises, IPython shows its traceback as usual (nothing here touches it, and the
cell still counts as failed); then, if the error is in the index, the answer is displayed below
it: HTML in JupyterLab (the causes the cell's code and the traceback point to, the others
folded), plain text elsewhere. The doctor reads the failed cell's source and the traceback's
frames (their paths and code lines), so it can rank the causes. Other errors are left alone.
`%unload_ext autograd_pitfalls` turns it off.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from IPython.display import display

from autograd_pitfalls import doctor, doctor_answer


def exception_text(error: BaseException) -> str:
    """The error and the ones it was raised from or during, with their frames, as Python prints them."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def after_cell(result) -> None:
    """post_run_cell: display the answer for the cell's error, if the index knows it."""
    error = getattr(result, "error_in_exec", None)
    if error is None:
        return
    cell = getattr(getattr(result, "info", None), "raw_cell", "") or ""
    found = doctor.diagnose(exception_text(error), cell, "your cell")
    if found[0].entry is None:
        return
    text = "\n\n".join("\n".join(doctor_answer.text_lines(d)) for d in found)
    display({"text/plain": f"autograd-doctor (%load_ext autograd_pitfalls)\n{text}",
             "text/html": doctor_answer.html_answer(found, relative_to=Path.cwd())}, raw=True)


def load(ip) -> None:
    if after_cell not in ip.events.callbacks["post_run_cell"]:
        ip.events.register("post_run_cell", after_cell)


def unload(ip) -> None:
    if after_cell in ip.events.callbacks["post_run_cell"]:
        ip.events.unregister("post_run_cell", after_cell)
