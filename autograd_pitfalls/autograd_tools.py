"""Small helpers the notebooks import, so that the notebooks show autograd, not plumbing.

* ``describe_graph`` / ``draw_graph``: the real backward graph of a tensor, read from its
  ``grad_fn``: operation nodes, leaf tensors with their ``.grad``, and each node's saved
  tensors with their shape and whether they are alive, freed, or modified in place.
* ``SavedTensorTracker``: how many bytes autograd holds for backward, measured with
  ``torch.autograd.graph.saved_tensors_hooks``.
* ``save_figure``: writes a figure under ``figures/``, or checks it there during the tests.
* ``anomaly_report``: what ``torch.autograd.detect_anomaly`` says, without machine paths;
  ``printed_warnings``: warnings printed as ``Category: message``, without machine paths.

Everything printed here is deterministic (no object ids or addresses), so nbval can
compare it word for word.
"""

from __future__ import annotations

import io
import os
import re
import warnings
import weakref
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Patch

__all__ = [
    "SavedTensor",
    "GraphNode",
    "walk_graph",
    "describe_graph",
    "draw_graph",
    "SavedTensorTracker",
    "save_figure",
    "anomaly_report",
    "printed_warnings",
    "FIGURES_DIR",
]

_CHECKOUT = Path(__file__).resolve().parent.parent
# The repository's figures/ when this package runs from a checkout of it; installed elsewhere
# (pip install of the repository, Colab), a figures/ folder beside the running notebook.
FIGURES_DIR = _CHECKOUT / "figures" if (_CHECKOUT / "notebooks").is_dir() else Path("figures")
# Set by the test suite (conftest.py): "1" compares figures with figures/ instead of writing
# them; "skip" neither compares nor writes (on another PyTorch release than the pinned one).
CHECK_FIGURES_ENV = "AUTOGRAD_PITFALLS_CHECK_FIGURES"
_METADATA_KEY = "autograd_tools.saved_shapes"


# --------------------------------------------------------------------------- the graph


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


def _labels(nodes: list[GraphNode]) -> list[str]:
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


def _format_grad(grad: torch.Tensor | None) -> str:
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
    labels = _labels(nodes)
    width = max(len(label) for label in labels)
    lines = []
    for node, label in sorted(zip(nodes, labels), key=lambda p: (p[0].level, p[0].index)):
        if node.is_leaf:
            lines.append(f"{label:<{width}}  leaf, .grad = {_format_grad(node.grad)}")
            continue
        inputs = ", ".join(labels[i] for i in node.inputs) or "-"
        saved = "; ".join(map(str, node.saved)) or "nothing"
        lines.append(f"{label:<{width}}  <- {inputs}  | saved: {saved}")
    return "\n".join(lines)


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
    labels = _labels(nodes)
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
            text = f"{label}\n.grad = {_format_grad(node.grad)}"
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


# --------------------------------------------------------------------------- memory


class _Saved:
    """What the pack hook returns: the saved tensor, and its version when it was saved."""

    __slots__ = ("tensor", "version", "__weakref__")

    def __init__(self, tensor: torch.Tensor) -> None:
        # detach(): same storage and version counter, but no grad_fn. Keeping the tensor
        # itself would make an output saved by its own node (exp's result) point back at
        # that node: a reference cycle that keeps the graph alive after its last user.
        self.tensor = tensor.detach()
        self.version = tensor._version


class SavedTensorTracker:
    """Measure the bytes autograd keeps for backward, with ``saved_tensors_hooks``.

    Every tensor saved for backward inside ``with tracker:`` is wrapped in a small object
    that autograd holds exactly as long as it would hold the tensor: it is released when
    backward frees the graph, or when the graph itself is garbage. ``held_bytes()`` adds up
    the distinct storages still held, at any time, also after the ``with`` block.

    Under ``saved_tensors_hooks`` PyTorch does not run its own check that a saved tensor was
    not modified in place, so the unpack hook does it instead and raises a ``RuntimeError``
    (with a different message from PyTorch's): demonstrate PyTorch's own in-place error
    outside a tracker.
    """

    def __init__(self) -> None:
        self._held: weakref.WeakSet[_Saved] = weakref.WeakSet()
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def _pack(self, tensor: torch.Tensor) -> _Saved:
        box = _Saved(tensor)
        self._held.add(box)
        return box

    @staticmethod
    def _unpack(box: _Saved) -> torch.Tensor:
        if box.tensor._version != box.version:
            raise RuntimeError(
                "SavedTensorTracker: a tensor saved for backward was modified in place "
                f"(version {box.tensor._version}, saved at version {box.version})"
            )
        return box.tensor

    def __enter__(self) -> SavedTensorTracker:
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._hooks.__exit__(*exc)

    def held_bytes(self, exclude: Iterable[torch.Tensor] = ()) -> int:
        """Bytes of the distinct storages autograd still holds for backward.

        ``exclude``: tensors whose storage exists anyway (a model's parameters, say) and
        should not be counted.
        """
        skip = {t.untyped_storage().data_ptr() for t in exclude}
        storages: dict[int, int] = {}
        for box in list(self._held):
            storage = box.tensor.untyped_storage()
            if storage.data_ptr() not in skip:
                storages[storage.data_ptr()] = storage.nbytes()
        return sum(storages.values())

    def held_count(self) -> int:
        """How many saved-tensor slots autograd still holds (a tensor saved twice counts twice)."""
        return len(self._held)


# --------------------------------------------------------------------------- figures


def _render(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def _pixels(png: bytes) -> np.ndarray:
    return matplotlib.image.imread(io.BytesIO(png), format="png")


def save_figure(fig: Figure, name: str, show: bool = True) -> None:
    """Save ``fig`` as ``figures/<name>``, then show it inline and close it.

    The file is rewritten only when its pixels change, so re-running a notebook leaves the
    work tree clean. Under the test suite (``AUTOGRAD_PITFALLS_CHECK_FIGURES=1``) nothing
    is written: a figure whose pixels differ from the committed one raises AssertionError
    (with ``=skip``, on another PyTorch release, it is neither compared nor written).
    """
    path = FIGURES_DIR / name
    png = _render(fig)
    mode = os.environ.get(CHECK_FIGURES_ENV)
    if mode != "skip" and not _same_picture(path, png):
        if mode == "1":
            raise AssertionError(
                f"figures/{name} is {'different from' if path.exists() else 'not'} what this "
                "cell draws now: run `make execute` and review the change"
            )
        FIGURES_DIR.mkdir(exist_ok=True)
        path.write_bytes(png)
    if show:
        from IPython.display import Image, display

        display(Image(png))
    plt.close(fig)


# A figure drawn from many float32 steps (a GAN's training) can move a few pixels between
# CPUs, whose kernels round differently: up to this share of pixels, by up to this much.
_ROUNDING_PIXELS, _ROUNDING_LEVEL = 0.001, 8 / 255


def _same_picture(path: Path, png: bytes) -> bool:
    """Whether ``path`` holds the picture ``png``: equal bytes settle it quickly; otherwise
    compare pixels, since another zlib or Pillow may encode the same picture differently,
    and allow the few faint pixels that float rounding on another CPU moves."""
    if not path.exists():
        return False
    stored = path.read_bytes()
    if stored == png:
        return True
    old, new = _pixels(stored), _pixels(png)
    if old.shape != new.shape:
        return False
    moved = np.abs(old - new).max(axis=-1)
    return bool(moved.max() <= _ROUNDING_LEVEL and (moved > 0).mean() <= _ROUNDING_PIXELS)


# --------------------------------------------------------------------------- anomaly mode

# A frame of the anomaly traceback, and the file names IPython gives notebook cells.
_FRAME = re.compile(r'^  File "(?P<file>[^"]*)", line \d+, in (?P<func>.*)$')
_CELL_FILE = re.compile(r"ipykernel_\d+[/\\]\d+\.py$|^<ipython-input-|^<IPY-INPUT>")
_INTERNAL = re.compile(r" \(Triggered internally at .*?\)", re.S)


def _where(file: str) -> str:
    if _CELL_FILE.search(file):
        return "cell"
    if re.search(r"[/\\]torch[/\\]", file):
        return "torch"
    return Path(file).name


def _clean_anomaly_message(text: str) -> str:
    """The anomaly warning, from the first notebook-cell frame on, without paths."""
    lines = _INTERNAL.sub("", text).splitlines()
    head, frames = lines[0], []  # frames: [header, code line?] of each stack frame
    for line in lines[1:]:
        m = _FRAME.match(line)
        if m:
            frames.append([f"  {_where(m['file'])}, in {m['func']}"])
        elif frames and line.strip():
            frames[-1].append(line.rstrip())
    # Before the first cell frame come the kernel's own frames (runpy, asyncio, ipykernel):
    # they say nothing about the error and differ between Jupyter front ends.
    cells = [k for k, f in enumerate(frames) if f[0].startswith("  cell,")]
    frames = frames[cells[0]:] if cells else frames
    return "\n".join([head] + [line for frame in frames for line in frame])


@contextmanager
def anomaly_report() -> Iterator[None]:
    """Run the block under ``torch.autograd.detect_anomaly()`` and print what it reports.

    Anomaly mode warns with the traceback of the forward call whose backward failed. That
    traceback starts deep in the Jupyter kernel and names files of this machine, so it is
    printed from the notebook's own code on, each frame as ``cell, in <function>`` (or
    ``torch, in ...`` for PyTorch's code) followed by its line of code. The error itself
    propagates unchanged.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly():
                yield
        finally:
            for w in caught:
                text = str(w.message)
                if text.startswith("Error detected in"):  # not "Anomaly Detection has been enabled"
                    print(_clean_anomaly_message(text))


@contextmanager
def printed_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Catch the warnings raised in the block and print each as ``Category: message``.

    A warning left to Python goes to stderr with the file and line it came from, a path of
    this machine; this prints what it says instead, without the C++ location that PyTorch's
    own warnings end with. The caught warnings are also yielded, for a cell to inspect.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield caught
        finally:
            for w in caught:
                print(f"{w.category.__name__}: {_INTERNAL.sub('', str(w.message))}")
