"""``draw_graph``: the backward graph of ``walk_graph`` as a matplotlib figure, leaves at the
bottom and the loss at the top, each box labelled like ``describe_graph``'s lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Patch

from autograd_pitfalls.graphs import GraphNode, format_grad, node_labels, walk_graph


def draw_graph(
    *roots: torch.Tensor,
    names: Mapping[str, torch.Tensor] | None = None,
    title: str = "",
    ax: plt.Axes | None = None,
    legend: bool = True,
    mark: torch.Tensor | None = None,
    mark_label: str = "marked",
    vertical: bool = False,
) -> Figure:
    """Draw the backward graph with matplotlib, leaves on the left and the loss on the right.

    Operation boxes list their saved tensors (green: alive, red: freed, orange: modified in
    place); leaf boxes show ``.grad``. Arrows follow the forward pass; backward runs against
    them. ``legend`` adds a key to the colours under the drawing. ``mark``: the operations
    of this tensor's own graph (a part of the drawn one) get a thick dashed outline,
    called ``mark_label`` in the legend. ``vertical``: leaves at the top and the loss at the
    bottom, for long chains that would be too wide to read.
    """
    nodes = walk_graph(*roots, names=names)
    labels = node_labels(nodes)
    marked = {n.fn for n in walk_graph(mark) if not n.is_leaf} if mark is not None else set()
    # Column of a node: its distance from the loss, counted back from the right, so that
    # each leaf stands just before the first operation that uses it.
    depth = {n.index: 0 for n in nodes}
    for node in reversed(nodes):  # `nodes` is in post-order: consumers come after inputs
        for i in node.inputs:
            depth[i] = max(depth[i], depth[node.index] + 1)
    last = max(depth.values())
    columns: dict[int, list[GraphNode]] = {}
    for node in nodes:
        columns.setdefault(last - depth[node.index], []).append(node)
    n_cols = max(columns) + 1
    n_rows = max(len(c) for c in columns.values())

    boxes: dict[int, tuple[str, str, str, dict[str, Any]]] = {}  # text, face, edge, outline
    half_size: dict[int, tuple[float, float]] = {}  # each box's half width and height, in points
    for node, label in zip(nodes, labels):
        if node.is_leaf:
            text = f"{label}\n.grad = {format_grad(node.grad)}"
        else:
            text = "\n".join([label] + [str(s) for s in node.saved])
        face, edge = _COLOURS[_box_kind(node)]
        outline = dict(linewidth=2.2, linestyle="--") if node.fn in marked else {}
        boxes[node.index] = (text, face, edge, outline)
        lines = text.splitlines()
        half_size[node.index] = (
            (max(map(len, lines)) * _CHAR_EM + 2 * _PAD) * _FONT_PT / 2,
            (len(lines) * _LINE_EM + 2 * _PAD) * _FONT_PT / 2,
        )
    if ax is None:
        # A column is as wide as the widest box plus room for arrows; a row as the tallest.
        column_in = max(2.2, 2 * max(w for w, _ in half_size.values()) / 72 + 0.9)
        row_in = max(1.1, 2 * max(h for _, h in half_size.values()) / 72 + 0.5)
        width, height = column_in * (n_rows if vertical else n_cols), row_in * (n_cols if vertical else n_rows)
        fig, ax = plt.subplots(figsize=(max(4.0, width), max(2.0, height + 0.6)))
        fig.subplots_adjust(left=0.01, right=0.99)  # the sizes above already leave the margins
    else:
        fig = ax.figure
    # Place the columns from the loss back to the leaves; within a column, order the nodes
    # by the height of the nodes they feed, which keeps most arrows from crossing.
    consumers: dict[int, list[int]] = {n.index: [] for n in nodes}
    for node in nodes:
        for i in node.inputs:
            consumers[i].append(node.index)
    pos: dict[int, tuple[float, float]] = {}
    for level in sorted(columns, reverse=True):
        column = columns[level]

        def height(n: GraphNode) -> float:
            ys = [pos[c][1] for c in consumers[n.index] if c in pos]
            return -sum(ys) / len(ys) if ys else 0.0

        column.sort(key=height)  # stable: keeps discovery order among equals
        for row, node in enumerate(column):
            pos[node.index] = (float(level), (len(column) - 1) / 2 - row)

    across, along = (-n_rows / 2 - 0.1, n_rows / 2 + 0.1), (-0.6, n_cols - 0.4)
    if vertical:  # the level runs down the page, the position within a level across it
        pos = {i: (-y, n_cols - 1 - x) for i, (x, y) in pos.items()}
        ax.set_xlim(*across)
        ax.set_ylim(*along)
    else:
        ax.set_xlim(*along)
        ax.set_ylim(*across)
    ax.axis("off")
    for node in nodes:
        text, face, edge, outline = boxes[node.index]
        ax.text(
            *pos[node.index], text, ha="center", va="center", fontsize=_FONT_PT,
            family="monospace", zorder=2,
            bbox=dict(boxstyle=f"round,pad={_PAD}", facecolor=face, edgecolor=edge, **outline),
        )
    for node in nodes:
        for i in node.inputs:
            ax.add_patch(_EdgeArrow(pos[i], pos[node.index], half_size[i], half_size[node.index]))
    if title:
        ax.set_title(title, fontsize=10)
    if legend:
        shown = {_box_kind(n) for n in nodes}
        handles = [
            Patch(facecolor=_COLOURS[k][0], edgecolor=_COLOURS[k][1], label=text)
            for k, text in _LEGEND.items() if k in shown
        ]
        if marked:
            handles.append(Patch(facecolor="white", edgecolor="0.2", linewidth=2.2,
                                 linestyle="--", label=mark_label))
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles),
                  fontsize=7, frameon=False, title="arrows: forward pass; backward runs against them",
                  title_fontsize=7)
    return fig


# Box text: DejaVu Sans Mono (matplotlib's monospace font) at 8 pt; its glyphs are 0.602 em
# wide, matplotlib spaces lines 1.2 em apart, and the box pads 0.4 em on every side.
_FONT_PT, _CHAR_EM, _LINE_EM, _PAD = 8, 0.602, 1.2, 0.4


def _to_edge(direction: np.ndarray, half: tuple[float, float]) -> float:
    """How far (in points) a line leaving a box's centre along ``direction`` runs inside it."""
    dx, dy = np.abs(direction) / np.hypot(*direction)
    return min(half[0] / dx if dx else np.inf, half[1] / dy if dy else np.inf)


class _EdgeArrow(FancyArrowPatch):
    """An arrow between two box centres that stops at both boxes' edges.

    The boxes' sizes follow from the monospace font, so the arrow is shortened by plain
    geometry when it is drawn (with the axes' final layout), instead of being clipped against
    the drawn boxes, which costs about a third of a graph's drawing time.
    """

    def __init__(self, start: tuple[float, float], end: tuple[float, float],
                 half_start: tuple[float, float], half_end: tuple[float, float]) -> None:
        super().__init__(start, end, arrowstyle="-|>", mutation_scale=12, color="0.4", zorder=1)
        self._ends = (start, end)
        self._halves = (half_start, half_end)

    def draw(self, renderer: Any) -> None:
        start, end = self.axes.transData.transform(self._ends)
        direction = end - start  # only the angle matters, so pixels will do
        self.shrinkA = _to_edge(direction, self._halves[0]) + 1
        self.shrinkB = _to_edge(direction, self._halves[1]) + 1
        super().draw(renderer)


def _box_kind(node: GraphNode) -> str:
    """Which colour a node's box gets: a leaf; an operation that saved nothing; or the state
    of its saved tensors (the first one that is not alive, else "alive")."""
    if node.is_leaf:
        return "leaf"
    if not node.saved:
        return "none"
    return next((s.state for s in node.saved if not s.alive), "alive")


_COLOURS = {  # (face, edge) of a box
    "leaf": ("#dbe9f6", "#3a6ea5"),
    "none": ("#eeeeee", "0.5"),
    "alive": ("#d9f2d9", "#2e7d32"),
    "FREED": ("#f8d7d3", "#b03a2e"),
    "MODIFIED": ("#fde9c8", "#c77800"),
}
_LEGEND = {
    "leaf": "leaf tensor (its .grad)",
    "none": "operation that saved nothing",
    "alive": "saved tensors alive",
    "FREED": "saved tensors freed by backward",
    "MODIFIED": "saved tensor modified in place",
}
