"""The two-model setup of notebook 02 and three small readers of its backward graphs.

Articles 000/001 chain two models, each with its own optimizer and loss: the shape of a GAN.
``articles_setup`` builds that setup; the other functions print or compare the graphs the
notebook reads, so that its cells show the lesson rather than the bookkeeping.
"""

from __future__ import annotations

import collections
import itertools
import re

import torch
from torch import nn

from autograd_pitfalls.autograd_tools import describe_graph, walk_graph

__all__ = ["articles_setup", "names_of", "param_copies", "shared_nodes", "show_graph"]


def articles_setup(shared_optimizer: bool = False, deeper_model1: bool = False) -> tuple:
    """The articles' setup, seeded: ``data, label, model1, model2, optimizer1, optimizer2``.

    ``model1 = Linear(10, 2)`` feeds ``model2 = Linear(2, 2)``; each has its own Adam
    (lr 0.001, betas (0.5, 0.999)). ``data`` is drawn twice, as in the articles, so the numbers
    follow the same random stream. ``shared_optimizer``: ``optimizer2`` holds both models'
    parameters. ``deeper_model1``: ``model1`` gets a hidden layer of 8 (Linear, ReLU, Linear).
    """
    torch.manual_seed(0)
    data = torch.randn(4, 10)
    if deeper_model1:
        model1: nn.Module = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 2))
    else:
        model1 = nn.Linear(10, 2)
    model2 = nn.Linear(2, 2)
    optimizer1 = torch.optim.Adam(model1.parameters(), lr=0.001, betas=(0.5, 0.999))
    params2 = (itertools.chain(model1.parameters(), model2.parameters()) if shared_optimizer
               else model2.parameters())
    optimizer2 = torch.optim.Adam(params2, lr=0.001, betas=(0.5, 0.999))
    data = torch.randn(4, 10)
    label = torch.tensor([0, 1, 1, 0])
    return data, label, model1, model2, optimizer1, optimizer2


def names_of(**models: nn.Module) -> dict[str, torch.Tensor]:
    """``{"model1.weight": tensor, ...}``: names for the parameters in printed graphs."""
    return {f"{m}.{k}": p for m, model in models.items() for k, p in model.named_parameters()}


def param_copies(*models: nn.Module) -> list[torch.Tensor]:
    """Detached copies of every parameter of ``models``, in order."""
    return [p.detach().clone() for m in models for p in m.parameters()]


def graph_lines(*roots: torch.Tensor, names: dict[str, torch.Tensor], only: str = "") -> list[str]:
    """``describe_graph``'s operation lines (no leaves), saved tensors shortened to their state
    ("mat1 (shape [4, 10], FREED)" -> "mat1 FREED"); with ``only``: the lines containing it."""
    text = re.sub(r" \(shape (?:\?|\[[^]]*\]), (\w+)\)", r" \1", describe_graph(*roots, names=names))
    lines = [line for line in text.splitlines() if " leaf, " not in line and only in line]
    return [re.sub(r" {2,}<-", "  <-", line) for line in lines] if only else lines


def show_graph(*roots: torch.Tensor, names: dict[str, torch.Tensor], only: str = "") -> None:
    """Print ``graph_lines``."""
    print("\n".join(graph_lines(*roots, names=names, only=only)))


def shared_nodes(loss_a: torch.Tensor, loss_b: torch.Tensor, names: dict[str, torch.Tensor]) -> str:
    """The nodes (operations and parameters) in both losses' backward graphs, e.g.
    "AddmmBackward0, model1.weight", or "nothing"."""
    in_b = {node.fn for node in walk_graph(loss_b, names=names)}
    counts = collections.Counter(n.label for n in walk_graph(loss_a, names=names) if n.fn in in_b)
    return ", ".join(f"{k}x {label}" if k > 1 else label for label, k in sorted(counts.items())) \
        or "nothing"
