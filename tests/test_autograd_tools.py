"""Direct tests of autograd_pitfalls/autograd_tools.py (the notebooks test it too, by using it)."""

from __future__ import annotations

import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
import torch

from autograd_pitfalls import autograd_tools as at
from autograd_pitfalls import figures, printed_messages


def small_graph():
    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    return w, x, (w + x) * (w + 1)


def test_walk_graph_finds_leaves_ops_and_saved_tensors():
    w, x, y = small_graph()
    nodes = at.walk_graph(y, names={"w": w, "x": x})
    assert [n.label for n in nodes if n.is_leaf] == ["w", "x"]
    assert sorted(n.label for n in nodes if not n.is_leaf) == ["AddBackward0", "AddBackward0", "MulBackward0"]
    mul = next(n for n in nodes if n.label == "MulBackward0")
    assert [(s.name, s.shape, s.alive) for s in mul.saved] == [("other", (1,), True), ("self", (1,), True)]
    assert mul is nodes[-1] and mul.level == 2  # the root comes last


def test_describe_graph_shows_freed_tensors_and_grads_after_backward():
    w, x, y = small_graph()
    assert "other (shape [1], alive); self (shape [1], alive)" in at.describe_graph(y, names={"w": w, "x": x})
    y.backward()
    text = at.describe_graph(y, names={"w": w, "x": x})
    assert "other (shape [1], FREED); self (shape [1], FREED)" in text  # shapes remembered from the first walk
    assert "w               leaf, .grad = [5.0]" in text
    assert "x               leaf, .grad = [2.0]" in text


def test_describe_graph_unknown_shape_when_freed_before_first_look():
    w, x, y = small_graph()
    y.backward()
    assert "other (shape ?, FREED)" in at.describe_graph(y)


def test_describe_graph_tells_modified_from_freed():
    w = torch.ones(3, requires_grad=True)
    h = w.exp()  # saves its result, h itself
    y = (h * 2).sum()
    h.add_(1)
    assert "ExpBackward0  <- w  | saved: result (shape ?, MODIFIED)" in at.describe_graph(y, names={"w": w})


def test_printed_warnings_prints_category_and_text_without_the_cpp_location(capsys):
    import warnings

    with at.printed_warnings() as caught:
        warnings.warn("careful (Triggered internally at /build/torch/csrc/x.cpp:1.)", FutureWarning)
    assert len(caught) == 1
    assert capsys.readouterr().out == "FutureWarning: careful\n"


def test_describe_graph_rejects_a_leaf():
    with pytest.raises(ValueError, match="no grad_fn"):
        at.describe_graph(torch.ones(1, requires_grad=True))


def test_draw_graph_draws_one_box_per_node_and_one_arrow_per_edge():
    w, x, y = small_graph()
    fig = at.draw_graph(y, names={"w": w, "x": x}, title="t")
    ax = fig.axes[0]
    assert len(ax.texts) == 5  # w, x, two adds, mul
    assert len(ax.patches) == 5  # w->add, x->add, w->add, add->mul, add->mul
    plt.close(fig)


def test_tracker_counts_saved_bytes_until_backward_frees_them():
    tracker = at.SavedTensorTracker()
    w = torch.ones(1000, requires_grad=True)
    with tracker:
        y = (w.exp() * w).sum()  # exp saves its result; mul saves both inputs
    assert tracker.held_bytes() == 2 * 4000  # exp's result and w (saved twice, stored once)
    assert tracker.held_bytes(exclude=[w]) == 4000
    y.backward()
    assert tracker.held_bytes() == 0 and tracker.held_count() == 0


def test_tracker_keeps_bytes_with_retain_graph_until_the_graph_is_gone():
    tracker = at.SavedTensorTracker()
    w = torch.ones(1000, requires_grad=True)
    with tracker:
        y = (w.exp() * 2).sum()
    y.backward(retain_graph=True)
    assert tracker.held_bytes() > 0
    del y
    assert tracker.held_bytes() == 0


def test_tracker_still_refuses_a_saved_tensor_modified_in_place():
    w = torch.ones(3, requires_grad=True)
    with at.SavedTensorTracker():
        h = w.exp()
        y = (h * 2).sum()
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified in place"):
        y.backward()


def test_save_figure_writes_once_then_checks(tmp_path, monkeypatch):
    monkeypatch.setattr(figures, "FIGURES_DIR", tmp_path)  # where save_figure reads it
    monkeypatch.delenv(at.CHECK_FIGURES_ENV, raising=False)

    def figure(value):
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, value])
        return fig

    at.save_figure(figure(1), "f.png", show=False)
    first = (tmp_path / "f.png").stat().st_mtime_ns
    at.save_figure(figure(1), "f.png", show=False)  # same pixels: not rewritten
    assert (tmp_path / "f.png").stat().st_mtime_ns == first

    monkeypatch.setenv(at.CHECK_FIGURES_ENV, "1")
    at.save_figure(figure(1), "f.png", show=False)  # same pixels: passes
    with pytest.raises(AssertionError, match="different from what this cell draws"):
        at.save_figure(figure(2), "f.png", show=False)
    with pytest.raises(AssertionError, match="figures/g.png is not what"):
        at.save_figure(figure(1), "g.png", show=False)
    assert not (tmp_path / "g.png").exists()

    monkeypatch.setenv(at.CHECK_FIGURES_ENV, "skip")  # another release: neither compared nor written
    at.save_figure(figure(2), "f.png", show=False)
    at.save_figure(figure(1), "g.png", show=False)
    assert (tmp_path / "f.png").stat().st_mtime_ns == first
    assert not (tmp_path / "g.png").exists()


def test_anomaly_report_prints_the_forward_line_without_paths(capsys):
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        with at.anomaly_report():
            h = w.exp()
            h.add_(1)
            h.sum().backward()
    out = capsys.readouterr().out
    assert out.startswith("Error detected in ExpBackward0.")
    assert "h = w.exp()" in out
    assert "/" not in out.replace("//", "")


def test_anomaly_message_starts_at_the_first_cell_frame():
    raw = (
        "Error detected in MulBackward0. Traceback of forward call that caused the error:\n"
        '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
        '  File "/x/site-packages/ipykernel/kernelapp.py", line 768, in start\n'
        "    self.io_loop.start()\n"
        '  File "/tmp/ipykernel_15169/2870744025.py", line 4, in <module>\n'
        "    h = f(x)\n"
        '  File "/tmp/ipykernel_15169/232470873.py", line 4, in f\n'
        "    return lin(x)\n"
        '  File "/x/site-packages/torch/nn/modules/linear.py", line 134, in forward\n'
        "    return F.linear(input, self.weight, self.bias)\n"
        " (Triggered internally at /__w/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)"
    )
    assert printed_messages._clean_anomaly_message(raw).splitlines() == [
        "Error detected in MulBackward0. Traceback of forward call that caused the error:",
        "  cell, in <module>", "    h = f(x)",
        "  cell, in f", "    return lin(x)",
        "  torch, in forward", "    return F.linear(input, self.weight, self.bias)",
    ]


def test_draw_graph_marks_the_operations_of_a_sub_graph():
    w, x, y = small_graph()
    part = w + 1
    z = y * part
    fig = at.draw_graph(z, names={"w": w, "x": x}, mark=part, mark_label="part")
    dashed = [t.get_text() for t in fig.axes[0].texts if t.get_bbox_patch().get_linestyle() == "--"]
    assert dashed == ["AddBackward0#3"]
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()][-1] == "part"
    plt.close(fig)


def test_draw_graph_vertical_puts_leaves_on_top_and_the_root_at_the_bottom():
    w, x, y = small_graph()
    fig = at.draw_graph(y, names={"w": w, "x": x}, vertical=True)
    heights = {t.get_text().split("\n")[0]: t.get_position()[1] for t in fig.axes[0].texts}
    assert heights["w"] > heights["AddBackward0#1"] > heights["MulBackward0"]
    assert fig.get_figheight() > fig.get_figwidth() / 2
    plt.close(fig)


def test_walk_graph_handles_chains_longer_than_the_recursion_limit():
    w = torch.ones(1, requires_grad=True)
    h = w
    for _ in range(sys.getrecursionlimit() + 100):
        h = h * 1.0
    nodes = at.walk_graph(h, names={"w": w})
    assert nodes[0].label == "w" and len(nodes) == sys.getrecursionlimit() + 101
    assert nodes[-1].level == sys.getrecursionlimit() + 100


def test_save_figure_allows_the_faint_pixels_float_rounding_moves(tmp_path, monkeypatch):
    """On another CPU a figure drawn from many float32 steps can differ by a few faint pixels
    (notebook 02's GAN: 10 pixels by 1/255); a real change of the drawing cannot hide in that."""
    monkeypatch.setattr(figures, "FIGURES_DIR", tmp_path)  # where save_figure reads it
    monkeypatch.setenv(at.CHECK_FIGURES_ENV, "1")

    def figure():
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, 1])
        return fig

    def committed(changed_pixels):
        pixels = figures._pixels(figures._render(figure())).copy()
        rows = pixels.reshape(-1, pixels.shape[-1])
        rows[:changed_pixels, 0] = np.clip(rows[:changed_pixels, 0] - 1 / 255, 0, 1)
        plt.imsave(tmp_path / "f.png", pixels)

    committed(5)  # 5 pixels of 40,000, by 1/255: float rounding
    at.save_figure(figure(), "f.png", show=False)
    committed(2000)  # 5% of the pixels: a change of the drawing
    with pytest.raises(AssertionError, match="different from what this cell draws"):
        at.save_figure(figure(), "f.png", show=False)
