"""Which tensors learned in a few steps of your own training loop, why the others did not, and
the silent causes the loop shows.

Wrap one step, or a few iterations, of your own training loop in ``StepCheck``::

    with StepCheck(model, optimizer) as check:
        for x, y in batches:                      # two or more iterations: the loop's own habits
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
    print(check)

and it prints one line per tensor: every parameter the model registers, then the extra
tensors you name (``extra={"w": w}``: layers kept in a plain list, a tensor made outside the
model), then any tensor the optimizer holds that neither of those is. Each line says whether
the tensor is registered by the model, whether it is a leaf, what its ``.grad`` holds after
the block (``None``, ``zero``, ``nonzero``, or ``not kept`` for a non-leaf that did not call
``retain_grad()``), whether the optimizer holds it, whether the block changed it, and, if it
did not change, the first reason that explains why. Then the findings (training_findings.py)
over the steps the block ran: a parameter the optimizer does not hold or an optimizer built for
other tensors, gradients never reset or reset inside an accumulation window, a graph carried from
one iteration to the next, a path that reaches no parameter, a frozen part that still moves,
training in eval mode, NaN or inf gradients and where they first appear; each with the symptom
index's row for it. The hooks that watch the loop (training_watch.py) change nothing it computes.
The text is deterministic, so a notebook can store it and nbval can compare it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType

import torch

from autograd_pitfalls.training_findings import Finding, findings, symptom_row
from autograd_pitfalls.training_watch import LoopWatch

__all__ = ["TensorStatus", "StepCheck", "Finding"]


@dataclass(frozen=True)
class TensorStatus:
    """What one training step did to one tensor."""

    name: str
    registered: bool  # model.parameters() yields it
    leaf: bool
    requires_grad: bool
    grad: str  # "None", "zero", "nonzero", or "not kept" (a non-leaf without retain_grad)
    in_optimizer: bool
    changed: bool

    @property
    def note(self) -> str:
        """Why the tensor did not change (the first reason that applies), or what to watch."""
        if self.changed:
            if not self.requires_grad:
                return "FROZEN, yet it changed"
            return "" if self.leaf else "a non-leaf copy: the tensor it was made from stays"
        if not self.requires_grad:
            return "frozen (requires_grad=False)"
        if not self.in_optimizer:
            return "NOT LEARNING: not in the optimizer"
        if self.grad in ("None", "not kept"):
            return "NOT LEARNING: no gradient reached it"
        if self.grad == "zero":
            return "NOT LEARNING: its gradient is zero"
        return "NOT LEARNING: the step left it unchanged"


def _grad_state(t: torch.Tensor) -> str:
    # .grad of a non-leaf that does not retain it is never filled; reading it only warns.
    if not (t.is_leaf or t.retains_grad):
        return "not kept"
    if t.grad is None:
        return "None"
    return "nonzero" if bool(t.grad.ne(0).any()) else "zero"


class StepCheck:
    """Record which tensors one training step changed; ``str()`` of it is the report.

    ``model``: the module being trained (None for bare tensors); ``optimizer``: the optimizer that steps it;
    ``extra``: more tensors to report on, by name. Use it as a ``with`` block around one step
    (zero_grad, forward, backward, step) or, to see the loop's habits, two or more iterations
    of your loop: the report reads ``.grad`` after the block, ``findings`` what the steps showed.
    """

    def __init__(
        self,
        model: torch.nn.Module | None,
        optimizer: torch.optim.Optimizer,
        extra: Mapping[str, torch.Tensor] | None = None,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self.extra = dict(extra or {})
        self.rows: list[TensorStatus] = []
        self.findings: list[Finding] = []
        self.steps = 0
        self._watched: list[tuple[str, torch.Tensor, bool]] = []  # name, tensor, registered
        self._before: list[torch.Tensor] = []
        self._watch: LoopWatch | None = None

    def _tensors(self) -> list[tuple[str, torch.Tensor, bool]]:
        """Model parameters, then extra tensors, then tensors only the optimizer holds."""
        found: list[tuple[str, torch.Tensor, bool]] = []
        seen: set[int] = set()

        def add(name: str, t: torch.Tensor, registered: bool) -> None:
            if id(t) not in seen:
                seen.add(id(t))
                found.append((name, t, registered))

        if self.model is not None:
            for name, p in self.model.named_parameters():
                add(name, p, True)
        for name, t in self.extra.items():
            add(name, t, False)
        for g, group in enumerate(self.optimizer.param_groups):
            for i, t in enumerate(group["params"]):
                add(f"param_groups[{g}][{i}]", t, False)
        return found

    def __enter__(self) -> StepCheck:
        self._watched = self._tensors()
        with torch.no_grad():
            self._before = [t.detach().clone() for _, t, _ in self._watched]
        self._watch = LoopWatch(self.model, self.optimizer, [(n, t) for n, t, _ in self._watched], sys._getframe(1))
        self._watch.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._watch.stop()
        if exc_type is not None:
            return
        held = {id(t) for group in self.optimizer.param_groups for t in group["params"]}
        self.rows = [
            TensorStatus(
                name=name,
                registered=registered,
                leaf=t.is_leaf,
                requires_grad=t.requires_grad,
                grad=_grad_state(t),
                in_optimizer=id(t) in held,
                changed=not torch.equal(before, t.detach()),
            )
            for (name, t, registered), before in zip(self._watched, self._before)
        ]
        self.steps = self._watch.seen.steps
        self.findings = findings(self.rows, self._watch.seen)

    def not_learning(self) -> list[str]:
        """Names of the tensors that require grad and did not change."""
        return [r.name for r in self.rows if r.requires_grad and not r.changed]

    def __str__(self) -> str:
        if not self.rows:
            return "(no step recorded)"
        yes = {True: "yes", False: "no"}
        header = ("tensor", "model", "leaf", "grad", "optimizer", "changed", "note")
        lines = [
            (r.name, yes[r.registered], yes[r.leaf], r.grad, yes[r.in_optimizer], yes[r.changed], r.note)
            for r in self.rows
        ]
        widths = [max(len(row[k]) for row in [header, *lines]) for k in range(len(header) - 1)]
        text = [
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]
            for row in [header, *lines]
        ]
        stuck = self.not_learning()
        text.append(
            f"{len(self.rows) - len(stuck)} of {len(self.rows)} tensors changed"
            + (f"; not learning: {', '.join(stuck)}" if stuck else "")
        )
        text += self._findings_text()
        return "\n".join(line.rstrip() for line in text)

    def _findings_text(self) -> list[str]:
        """The findings, each with the symptom index's words and section; for a healthy loop of
        two or more steps, one line that says nothing was found (one step: nothing added)."""
        over = f"over {self.steps} step{'s' if self.steps != 1 else ''}"
        if not self.findings:
            return [f"Nothing found {over} that keeps this loop from learning."] if self.steps > 1 else []
        lines = [f"Findings {over}:"]
        for f in self.findings:
            lines.append(f"- {f.says}")
            row = symptom_row(f.kind)
            if row:
                symptom, place = row
                section = re.sub(r"\s\([^)]*\)", "", place["section"])  # without its comment in parentheses
                lines.append(f"  symptom index: \"{symptom}\" ({place['notebook'][:2]} {section})")
        return lines
