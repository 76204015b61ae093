"""`%load_ext autograd_pitfalls`: the doctor's short answer under an autograd error.

After a cell raises, IPython shows its traceback as usual (nothing here touches it, and the
cell still counts as failed); then, if the error is in the index, the answer is printed below
it. Other errors are left alone. `%unload_ext autograd_pitfalls` turns it off.
"""

from __future__ import annotations

from autograd_pitfalls import doctor


def exception_text(error: BaseException) -> str:
    """The error and the ones it was raised from or during, innermost last, as tracebacks print them."""
    chain, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(f"{type(error).__name__}: {error}")
        error = error.__cause__ or error.__context__
    return "\n\n".join(reversed(chain))


def after_cell(result) -> None:
    """post_run_cell: print the answer for the cell's error, if the index knows it."""
    error = getattr(result, "error_in_exec", None)
    if error is None:
        return
    found, answer = doctor.answer(exception_text(error))
    if found:
        print(f"\nautograd-doctor (%load_ext autograd_pitfalls)\n{answer}")


def load(ip) -> None:
    if after_cell not in ip.events.callbacks["post_run_cell"]:
        ip.events.register("post_run_cell", after_cell)


def unload(ip) -> None:
    if after_cell in ip.events.callbacks["post_run_cell"]:
        ip.events.unregister("post_run_cell", after_cell)
