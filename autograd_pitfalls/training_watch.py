"""What a few iterations of a training loop did, seen from outside the loop.

``LoopWatch`` installs hooks that only read (they never change a value the loop computes, nor
what autograd records) and removes them when the loop is done:

* on the optimizer's ``step`` (before and after): how many steps ran, the state of each
  gradient at each step (stale, non-finite), which parameters moved without a gradient, whether
  the model was in eval mode, and the size of the graphs the loop's own variables keep;
* on every optimizer's step (a global hook): when any optimizer stepped, so that gradients that
  another optimizer consumed are not mistaken for discarded ones;
* on each watched leaf tensor: a hook before and one after its gradient is accumulated into
  ``.grad``, so that every accumulation is seen together with what ``.grad`` held before it
  (``torch.autograd.grad`` calls the first hook but accumulates nothing, and is ignored). Gradients
  cleared with no step since they arrived count as thrown away, except inside a step that takes a
  closure (LBFGS zeroes and recomputes them there) and when some gradient held NaN or inf since
  the last step (a GradScaler skips that step, and the next ``zero_grad()`` clears it);
* on each module: a forward hook (which modules ran, and, on their outputs, a gradient hook
  that tells where a non-finite gradient first appeared in the backward pass).

training_findings.py turns what it saw into findings; training_check.py reports them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

GRAPH_NODE_LIMIT = 20000  # nodes counted at most in one variable's graph
MODE_DEPENDENT = (torch.nn.modules.dropout._DropoutNd, torch.nn.modules.batchnorm._BatchNorm)


def grad_state(t: torch.Tensor) -> str:
    """None, zero or nonzero: what ``.grad`` of a leaf holds."""
    if t.grad is None:
        return "None"
    return "nonzero" if bool(t.grad.ne(0).any()) else "zero"


def graph_size(t: torch.Tensor) -> int:
    """How many autograd nodes ``t``'s graph holds (up to GRAPH_NODE_LIMIT)."""
    seen, todo = set(), [t.grad_fn]
    while todo and len(seen) < GRAPH_NODE_LIMIT:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        todo.extend(n for n, _ in node.next_functions)
    return len(seen)


def kept_graphs(frame: FrameType) -> dict[str, int]:
    """The loop's variables that keep a graph: a tensor with a history (its graph's node count),
    or a list, tuple or dict of them (how many of its items have one)."""
    kept = {}
    for name, value in list(frame.f_locals.items()):
        if isinstance(value, torch.Tensor):
            if value.grad_fn is not None:
                kept[name] = graph_size(value)
        elif isinstance(value, (list, tuple, dict)) and len(value) < 100000:
            items = value.values() if isinstance(value, dict) else value
            count = sum(1 for v in items if isinstance(v, torch.Tensor) and v.grad_fn is not None)
            if count:
                kept[f"{name} (items with a graph)"] = count
    return kept


@dataclass
class Ledger:
    """The gradient contributions accumulated into one tensor's ``.grad`` since it was last reset:
    for each, the number of this optimizer's steps and of all optimizers' steps when it arrived."""

    arrivals: list[tuple[int, int]] = field(default_factory=list)
    pending_before: str | None = None   # what .grad held when the last gradient was about to arrive
    received: int = 0


@dataclass
class Observations:
    """What the hooks saw, for training_findings.py."""

    steps: int = 0
    stale: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))       # name -> steps using old gradients
    discarded: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))   # name -> steps whose window lost gradients
    nonfinite: dict[str, int] = field(default_factory=dict)                               # name -> first step with NaN/inf .grad
    first_nonfinite_output: str | None = None   # module whose output's gradient was the first non-finite one
    moved_without_gradient: dict[str, tuple[int, str]] = field(default_factory=dict)      # name -> (step, grad state)
    eval_steps: list[int] = field(default_factory=list)                                   # steps with a Dropout or BatchNorm in eval mode
    eval_modules: dict[str, str] = field(default_factory=dict)                            # their names -> class names
    graphs: list[dict[str, int]] = field(default_factory=list)                            # after each step, and at the end
    ran: set[str] = field(default_factory=set)                                             # modules whose forward ran
    received: dict[str, int] = field(default_factory=dict)                                # name -> gradients accumulated
    buffers_before: dict[str, torch.Tensor] = field(default_factory=dict)
    buffers_after: dict[str, torch.Tensor] = field(default_factory=dict)


class LoopWatch:
    """Hooks on a model, its optimizer and some tensors, for the duration of a loop."""

    def __init__(self, model: torch.nn.Module | None, optimizer: torch.optim.Optimizer,
                 tensors: list[tuple[str, torch.Tensor]], frame: FrameType | None) -> None:
        self.model, self.optimizer, self.frame = model, optimizer, frame
        self.tensors = [(n, t) for n, t in tensors if t.is_leaf]  # frozen ones too: do they move?
        self.seen = Observations()
        self.ledgers = {n: Ledger() for n, t in self.tensors if t.requires_grad}
        self.all_steps = 0
        self.nonfinite_between: set[int] = set()  # values of all_steps when a .grad got NaN or inf
        self._handles: list[Any] = []
        self._backward_order: list[tuple[str, bool]] = []
        self._snapshot: dict[str, tuple[torch.Tensor, str]] = {}
        self._closure_step = False  # inside optimizer.step(closure): the step computes its own gradients

    # --- installing and removing ------------------------------------------------------------
    def start(self) -> None:
        self._handles += [self.optimizer.register_step_pre_hook(self._before_step),
                          self.optimizer.register_step_post_hook(self._after_step),
                          register_optimizer_step_post_hook(self._any_step)]
        for name, t in self.tensors:
            if name in self.ledgers:
                self._handles += [t.register_hook(self._arriving(name, t)),
                                  t.register_post_accumulate_grad_hook(self._accumulated(name))]
        if self.model is not None:
            for name, module in self.model.named_modules():
                self._handles.append(module.register_forward_hook(self._forward_ran(name or "(the model)")))
            self.seen.buffers_before = self._frozen_buffers()

    def stop(self) -> None:
        self.seen.received = {name: ledger.received for name, ledger in self.ledgers.items()}
        if self.frame is not None and self.seen.steps:
            self.seen.graphs.append(kept_graphs(self.frame))  # what the loop keeps at its end
        if self.model is not None:
            self.seen.buffers_after = self._frozen_buffers()
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    # --- gradients arriving -------------------------------------------------------------------
    def _arriving(self, name: str, t: torch.Tensor):
        def hook(grad: torch.Tensor) -> None:
            self.ledgers[name].pending_before = grad_state(t)
        return hook

    def _accumulated(self, name: str):
        def hook(t: torch.Tensor) -> None:
            ledger = self.ledgers[name]
            before, ledger.pending_before = ledger.pending_before, None
            if before in ("None", "zero"):  # .grad was reset since the last accumulation
                # Lost with no step between, unless inside a step that takes a closure (LBFGS
                # recomputes the gradient several times in one step), or some gradient held NaN or
                # inf since the last step (a GradScaler skips such a step; the next zero_grad() clears it).
                if (not self._closure_step and self.all_steps not in self.nonfinite_between
                        and any(all_steps == self.all_steps for _, all_steps in ledger.arrivals)):
                    self.seen.discarded[name].append(self.seen.steps + 1)
                ledger.arrivals.clear()
            ledger.arrivals.append((self.seen.steps, self.all_steps))
            if not bool(torch.isfinite(t.grad).all()):
                self.nonfinite_between.add(self.all_steps)
            ledger.received += 1
        return hook

    # --- steps ---------------------------------------------------------------------------------
    def _before_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        step = self.seen.steps + 1
        self._snapshot = {}
        # optimizer.step(closure) (LBFGS): the closure zeroes and recomputes the gradients inside
        # the step, so what .grad holds now is neither what the step uses nor a sign of the loop.
        # (the hook's args begin with the optimizer itself: step's own arguments follow it)
        self._closure_step = kwargs.get("closure", args[1] if len(args) > 1 else None) is not None
        held = {id(p) for group in optimizer.param_groups for p in group["params"]}
        for name, t in self.tensors:
            ledger, state = self.ledgers.get(name), grad_state(t)
            if ledger is None:
                pass
            elif state in ("None", "zero") or self._closure_step:
                ledger.arrivals.clear()
            elif id(t) in held and any(own < self.seen.steps for own, _ in ledger.arrivals):
                self.seen.stale[name].append(step)  # only a gradient the step reads can be stale
            if self._closure_step:
                continue
            if state != "None" and not bool(torch.isfinite(t.grad).all()):
                self.seen.nonfinite.setdefault(name, step)
            if state != "nonzero":
                self._snapshot[name] = (t.detach().clone(), state)
        if self.model is not None and not self.model.training:  # the model itself: a frozen part in eval is a choice
            in_eval = {name: type(m).__name__ for name, m in self.model.named_modules()
                       if isinstance(m, MODE_DEPENDENT) and not m.training}
            if in_eval:
                self.seen.eval_steps.append(step)
                self.seen.eval_modules.update(in_eval)
        if self.seen.nonfinite and self.seen.first_nonfinite_output is None:
            self.seen.first_nonfinite_output = next((n for n, finite in self._backward_order if not finite), "")
        self._backward_order = []

    def _after_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        self.seen.steps += 1
        self._closure_step = False
        for name, t in self.tensors:
            if name in self._snapshot and name not in self.seen.moved_without_gradient:
                before, state = self._snapshot[name]
                if not torch.equal(before, t.detach()):
                    self.seen.moved_without_gradient[name] = (self.seen.steps, state)
        if self.frame is not None:
            self.seen.graphs.append(kept_graphs(self.frame))

    def _any_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        self.all_steps += 1

    # --- modules --------------------------------------------------------------------------------
    def _forward_ran(self, name: str):
        def hook(module: torch.nn.Module, inputs: Any, output: Any) -> None:
            self.seen.ran.add(name)
            if next(module.children(), None) is None and isinstance(output, torch.Tensor) and output.requires_grad:
                output.register_hook(lambda grad: self._backward_order.append(
                    (name, bool(torch.isfinite(grad).all()))))
        return hook

    def _frozen_buffers(self) -> dict[str, torch.Tensor]:
        """Floating-point buffers (BatchNorm's running statistics) of modules whose parameters
        are all frozen."""
        found = {}
        for name, module in self.model.named_modules():
            params = list(module.parameters(recurse=False))
            if params and not any(p.requires_grad for p in params):
                for b_name, b in module.named_buffers(recurse=False):
                    if b.is_floating_point():
                        found[f"{name}.{b_name}" if name else b_name] = b.detach().clone()
        return found
