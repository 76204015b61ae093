"""Small helpers the notebooks import, so that the notebooks show autograd, not plumbing.
Each lives in a module of its own; this one gathers them under the name the notebooks import.

* ``describe_graph`` / ``walk_graph`` (graphs.py) and ``draw_graph`` (graph_drawing.py): the
  real backward graph of a tensor, read from its ``grad_fn``: operation nodes, leaf tensors with
  their ``.grad``, and each node's saved tensors with their shape and whether they are alive,
  freed, or modified in place.
* ``SavedTensorTracker`` (saved_memory.py): how many bytes autograd holds for backward.
* ``save_figure`` (figures.py): writes a figure under ``figures/``, or checks it there during
  the tests.
* ``anomaly_report`` and ``printed_warnings`` (printed_messages.py): what anomaly mode and
  PyTorch's warnings say, without machine paths.

Everything printed is deterministic (no object ids or addresses), so nbval can compare it word
for word.
"""

from autograd_pitfalls.figures import CHECK_FIGURES_ENV, FIGURES_DIR, save_figure
from autograd_pitfalls.graph_drawing import draw_graph
from autograd_pitfalls.graphs import GraphNode, SavedTensor, describe_graph, walk_graph
from autograd_pitfalls.printed_messages import anomaly_report, printed_warnings
from autograd_pitfalls.saved_memory import SavedTensorTracker

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
    "CHECK_FIGURES_ENV",
]
