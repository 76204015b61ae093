"""The real backward graph of a tensor, read from its ``grad_fn``: operation nodes, leaf
tensors with their ``.grad``, and each node's saved tensors with their shape and whether they
are alive, freed, or modified in place (``walk_graph``, printed by ``describe_graph``).

Everything printed here is deterministic (no object ids or addresses), so nbval can compare it
word for word.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

# The key under which a node's metadata keeps the shapes of its saved tensors (see
# _saved_tensors); unchanged since this module was part of autograd_tools.
_METADATA_KEY = "autograd_tools.saved_shapes"

@dataclass
class SavedTensor:
    """One tensor a backward node saved during the forward pass."""

    name: str  # the attribute name without "_saved_", e.g. "self", "other", "result"
    shape: tuple[int, ...] | None  # None if it was already unreadable when we first looked
    # "alive"; "FREED" once backward (without retain_graph) has freed it; "MODIFIED" when it
    # was changed in place after it was saved, so that backward would refuse to use it.
    state: str = "alive"

    @property
    def alive(self) -> bool:
        return self.state == "alive"

    def __str__(self) -> str:
        shape = "?" if self.shape is None else f"[{', '.join(map(str, self.shape))}]"
        return f"{self.name} (shape {shape}, {self.state})"


@dataclass
class GraphNode:
    """A node of the backward graph: an operation (``grad_fn``) or a leaf tensor."""

    index: int
    label: str  # "MulBackward0", or a leaf's name such as "w"
    is_leaf: bool
    inputs: list[int] = field(default_factory=list)  # indices of the nodes feeding this one
    saved: list[SavedTensor] = field(default_factory=list)
    grad: torch.Tensor | None = None  # a leaf's .grad
    level: int = 0  # 0 for leaves, growing towards the loss
    fn: Any = field(default=None, repr=False, compare=False)  # the autograd node itself


def _saved_tensors(fn: Any) -> list[SavedTensor]:
    """Read the tensors ``fn`` saved for backward; remember shapes in ``fn.metadata``."""
    names = sorted(a[len("_raw_saved_") :] for a in dir(fn) if a.startswith("_raw_saved_"))
    # fn.metadata is a dict that lives as long as the node: shapes seen while the saved
    # tensors were alive are kept there, so a later drawing can still show them once freed.
    memo: dict[str, tuple[int, ...]] = fn.metadata.setdefault(_METADATA_KEY, {})
    out: list[SavedTensor] = []
    for name in names:
        try:
            value = getattr(fn, "_saved_" + name)
        except RuntimeError as e:  # reading it raises what backward would raise
            state = "MODIFIED" if "inplace operation" in str(e) else "FREED"
            out.append(SavedTensor(name, memo.get(name), state))
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        for i, v in enumerate(values):
            if not isinstance(v, torch.Tensor):
                continue  # an undefined (None) saved tensor
            key = name if len(values) == 1 else f"{name}[{i}]"
            memo[key] = tuple(v.shape)
            out.append(SavedTensor(key, tuple(v.shape)))
    return out


def _leaf_name(t: torch.Tensor, names: Mapping[str, torch.Tensor]) -> str:
    for name, candidate in names.items():
        if candidate is t:
            return name
    return "leaf " + str(list(t.shape))


def walk_graph(
    *roots: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None
) -> list[GraphNode]:
    """All nodes reachable from the ``grad_fn`` of ``roots``, leaves first, root(s) last.

    ``names`` maps a name to a leaf tensor (for example ``dict(model.named_parameters())``),
    so that leaves are labelled by name instead of by shape.
    """
    names = dict(names or {})
    index_of: dict[Any, int] = {}  # node object -> index; nodes are hashable but not weak-referable
    nodes: list[GraphNode] = []

    def inputs_of(fn: Any) -> list[Any]:
        if type(fn).__name__ == "AccumulateGrad":
            return []
        return [nxt for nxt, _ in fn.next_functions if nxt is not None]

    def add(fn: Any, inputs: list[int]) -> int:
        if type(fn).__name__ == "AccumulateGrad":
            leaf = fn.variable
            node = GraphNode(len(nodes), _leaf_name(leaf, names), True, grad=leaf.grad, fn=fn)
        else:
            node = GraphNode(len(nodes), type(fn).__name__, False, inputs=inputs,
                             saved=_saved_tensors(fn), fn=fn)
            node.level = 1 + max((nodes[i].level for i in inputs), default=0)
        index_of[fn] = node.index
        nodes.append(node)
        return node.index

    # Depth-first, inputs before the node that uses them (post-order), with an explicit stack:
    # a long chain (an RNN unrolled over many steps) would exceed Python's recursion limit.
    for root in roots:
        if root.grad_fn is None:
            raise ValueError("this tensor has no grad_fn: it is a leaf or does not require grad")
        if root.grad_fn in index_of:
            continue
        stack = [(root.grad_fn, iter(inputs_of(root.grad_fn)), [])]
        while stack:
            fn, pending, inputs = stack[-1]
            for nxt in pending:
                if nxt in index_of:
                    inputs.append(index_of[nxt])
                else:
                    stack.append((nxt, iter(inputs_of(nxt)), []))
                    break
            else:
                stack.pop()
                index = add(fn, inputs)
                if stack:
                    stack[-1][2].append(index)
    return nodes


def node_labels(nodes: list[GraphNode]) -> list[str]:
    """Node labels, numbered where the same operation occurs more than once."""
    counts: dict[str, int] = {}
    for n in nodes:
        counts[n.label] = counts.get(n.label, 0) + 1
    seen: dict[str, int] = {}
    labels = []
    for n in nodes:
        if counts[n.label] > 1 and not n.is_leaf:
            seen[n.label] = seen.get(n.label, 0) + 1
            labels.append(f"{n.label}#{seen[n.label]}")
        else:
            labels.append(n.label)
    return labels


def format_grad(grad: torch.Tensor | None) -> str:
    if grad is None:
        return "None"
    if grad.numel() <= 4:
        return str([round(v, 4) for v in grad.flatten().tolist()])
    return f"tensor of shape {list(grad.shape)}"


def describe_graph(
    *roots: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None
) -> str:
    """The backward graph as text, one node a line, leaves first (what nbval can compare)."""
    nodes = walk_graph(*roots, names=names)
    labels = node_labels(nodes)
    width = max(len(label) for label in labels)
    lines = []
    for node, label in sorted(zip(nodes, labels), key=lambda p: (p[0].level, p[0].index)):
        if node.is_leaf:
            lines.append(f"{label:<{width}}  leaf, .grad = {format_grad(node.grad)}")
            continue
        inputs = ", ".join(labels[i] for i in node.inputs) or "-"
        saved = "; ".join(map(str, node.saved)) or "nothing"
        lines.append(f"{label:<{width}}  <- {inputs}  | saved: {saved}")
    return "\n".join(lines)
