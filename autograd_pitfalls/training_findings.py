"""From what a loop did (training_watch.Observations, and the per-tensor rows) to findings that
name a silent cause, each tied to the symptom index's row for it (a row's `check` field names its
finding's kind: index/README.md). A finding is made only from what was seen, never from a guess:
a healthy loop gets none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograd_pitfalls import index
from autograd_pitfalls.training_watch import Observations

CONTAINER = " (items with a graph)"  # how training_watch.kept_graphs names a list or dict
GROWTH = 1.5  # a kept graph counts as growing when it ends at least this many times its first size


@dataclass(frozen=True)
class Finding:
    kind: str   # the `check` a symptom row names
    says: str   # what was seen, with the tensors' names and the steps


def names(items: Any) -> str:
    items = list(items)
    shown = ", ".join(f"`{n}`" for n in items[:4])
    return shown + (f" and {len(items) - 4} more" if len(items) > 4 else "")


def steps(numbers: list[int]) -> str:
    numbers = sorted(set(numbers))
    return ("step " if len(numbers) == 1 else "steps ") + ", ".join(map(str, numbers))


def owner(name: str) -> str:
    """The module a parameter's name belongs to ("head.0.weight" -> "head.0"; a parameter of the
    model itself -> "(the model)")."""
    return name.rpartition(".")[0] or "(the model)"


def findings(rows: list[Any], seen: Observations) -> list[Finding]:
    """The findings, in the order a learner should read them."""
    found = []
    # a registered tensor this optimizer does not hold, and that nothing else moved (a second
    # optimizer for the backbone, say, is not this mistake)
    missing = [r.name for r in rows if r.registered and r.requires_grad and not r.in_optimizer and not r.changed]
    strangers = [r.name for r in rows if r.in_optimizer and not r.registered and r.name.startswith("param_groups[")]
    held = [r.name for r in rows if r.registered and r.requires_grad and r.in_optimizer]
    if missing and strangers and not held:
        found.append(Finding("optimizer-of-another-model", (
            f"the optimizer holds {len(strangers)} tensor(s) that are not this model's parameters "
            f"({names(strangers)}), and none of the model's: it was built for other tensors (another model, "
            "or the model built again after the optimizer was made)")))
    elif missing and strangers:
        found.append(Finding("not-in-optimizer", (
            f"{names(missing)} are not in the optimizer, which holds {len(strangers)} other tensor(s) "
            f"({names(strangers)}) instead: layers replaced after the optimizer was made keep their old "
            "tensors in it, and no step moves the new ones")))
    elif missing:
        got = [n for n in missing if seen.received.get(n)]
        if got:
            found.append(Finding("not-in-optimizer", (
                f"{names(got)} get gradients, but the optimizer does not hold them: no step moves them")))
    order = {r.name: k for k, r in enumerate(rows)}  # names in the report's order
    stale = {n: seen.stale[n] for n in sorted(seen.stale, key=lambda n: order.get(n, len(order)))}
    discarded = {n: seen.discarded[n] for n in sorted(seen.discarded, key=lambda n: order.get(n, len(order)))}
    if stale:
        found.append(Finding("never-zeroed", (
            f"at {steps([s for v in stale.values() for s in v])} the step used gradients left from the steps before "
            f"({names(stale)}): nothing reset `.grad` between steps (no `optimizer.zero_grad()`), so each step "
            "applies the running sum of every gradient so far")))
    if discarded:
        found.append(Finding("zeroed-in-window", (
            f"gradients of {names(discarded)} were reset before any step used them (before "
            f"{steps([s for v in discarded.values() for s in v])}): a `zero_grad()` inside an accumulation "
            "window keeps only the last micro-batch's gradient")))
    found += _carried(seen.graphs)
    # no gradient arrived through backward(), and none was written into .grad by hand either
    # (gradients from torch.autograd.grad assigned to p.grad reach it without backward)
    no_gradient = [r for r in rows if r.registered and r.requires_grad and seen.steps
                   and not seen.received.get(r.name) and r.grad != "nonzero"]
    off_path = [r.name for r in no_gradient if owner(r.name) in seen.ran or owner(r.name) == "(the model)"]
    unused = [r.name for r in no_gradient if r.name not in off_path]
    if off_path:
        found.append(Finding("off-path", (
            f"no gradient reached {names(off_path)}, though {names(sorted({owner(n) for n in off_path}))} ran in "
            "the forward pass: the path from there to the loss is cut (`.detach()`, `.item()`, `torch.tensor(...)`, "
            "NumPy, a comparison, an integer cast, `torch.no_grad()`) or its output is not used in the loss")))
    if unused:
        found.append(Finding("unused-in-forward", (
            f"{names(unused)} got no gradient: {names(sorted({owner(n) for n in unused}))} never ran in the "
            "forward pass")))
    frozen = {r.name for r in rows if not r.requires_grad}
    # a frozen tensor (requires_grad=False at the end) that a zero gradient let the optimizer move
    moved = {n: v for n, v in seen.moved_without_gradient.items() if v[1] == "zero" and n in frozen}
    if moved:
        found.append(Finding("frozen-moves", (
            f"{names(moved)} moved at {steps([v[0] for v in moved.values()])} although their gradient was zero: "
            "the optimizer's momentum or weight decay moves a parameter whose gradient is a zero tensor "
            "(only a `.grad` of `None` is skipped)")))
    statistics = [n for n, b in seen.buffers_before.items()
                  if n in seen.buffers_after and not b.equal(seen.buffers_after[n])]
    if statistics:
        found.append(Finding("frozen-statistics-move", (
            f"{names(statistics)} changed, though the parameters of {names(sorted({owner(n) for n in statistics}))} "
            "are frozen: in train mode BatchNorm updates its running statistics; `.eval()` on the frozen part "
            "(again after every `model.train()`) keeps them")))
    if seen.eval_steps:
        classes = set(seen.eval_modules.values())
        effects = (["dropout drops nothing"] if any("Dropout" in c for c in classes) else []) + (
            ["BatchNorm normalises with its running statistics, not the batch's, and does not update them"]
            if any("BatchNorm" in c for c in classes) else [])
        found.append(Finding("eval-mode", (
            f"the model was in eval mode at {steps(seen.eval_steps)}, so its {' and '.join(sorted(classes))} layers "
            f"({names(seen.eval_modules)}) ran as at inference: {'; '.join(effects)}; call `model.train()` "
            "before training (again after every evaluation)")))
    if seen.nonfinite:
        first = min(seen.nonfinite.values())
        where = (f"; in the backward pass, the first non-finite gradient is that of `{seen.first_nonfinite_output}`'s "
                 "output, so it was made by what uses that output (the next layer, or the loss)"
                 if seen.first_nonfinite_output else
                 "; every module's output got a finite gradient, so it appears in the backward of the parameters' "
                 "own use")
        found.append(Finding("nonfinite-gradients", (
            f"NaN or inf in the gradients of {names(seen.nonfinite)} from step {first}{where}; "
            "`torch.autograd.set_detect_anomaly(True)` names the operation")))
    return found


def _carried(graphs: list[dict[str, int]]) -> list[Finding]:
    """A variable whose graph is bigger at every observation since it first had one."""
    growing = []
    for name in dict.fromkeys(n for g in graphs for n in g):
        first = next(k for k, g in enumerate(graphs) if name in g)
        sizes = [g.get(name) for g in graphs[first:]]
        if (len(sizes) >= 2 and None not in sizes and all(b > a for a, b in zip(sizes, sizes[1:]))
                and sizes[-1] >= GROWTH * sizes[0]):
            growing.append((name, sizes))
    if not growing:
        return []
    chained = [(n, sizes) for n, sizes in growing if not n.endswith(CONTAINER)]
    kept = [(n.removesuffix(CONTAINER), sizes) for n, sizes in growing if n.endswith(CONTAINER)]
    parts = []
    if chained:
        shown = "; ".join(f"`{name}`: {', '.join(map(str, sizes))} nodes" for name, sizes in chained[:3])
        parts.append(f"a variable of the loop holds a graph that grows every step ({shown}; counted after each "
                     "step and at the end, from the first time it held one): each step's graph is chained to the last")
    if kept:
        shown = "; ".join(f"`{name}`: {', '.join(map(str, sizes))}" for name, sizes in kept[:3])
        parts.append(f"a list or dict of the loop holds one more tensor with a graph every step ({shown}; "
                     "counted after each step and at the end, from the first time it held one): each keeps its "
                     "step's graph alive")
    return [Finding("graph-carried", (
        "; ".join(parts) + "; the memory autograd holds grows with it. Keep numbers (`.item()`), or `.detach()` "
        "what is kept or carried to the next iteration"))]


def symptom_row(kind: str) -> tuple[str, dict] | None:
    """(the symptom's words, its first "shown in" place) of the index row that names this finding."""
    for group in index.symptoms():
        for row in group["row"]:
            if row.get("check") == kind:
                return row["symptom"], row["shown_in"][0]
    return None
