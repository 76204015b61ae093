"""StepCheck reports, for one training step, which tensors changed and why the others did not."""

from __future__ import annotations


import pytest
import torch
import torch.nn as nn

from autograd_pitfalls.training_check import StepCheck, TensorStatus


def two_layers() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))


def step(model: nn.Module, opt: torch.optim.Optimizer, x: torch.Tensor) -> None:
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()


X = torch.linspace(-1, 1, 15).reshape(5, 3)


def by_name(check: StepCheck) -> dict[str, TensorStatus]:
    return {r.name: r for r in check.rows}


def test_healthy_step_every_parameter_changes():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        step(model, opt, X)
    assert [r.name for r in check.rows] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(r.registered and r.leaf and r.in_optimizer and r.changed and r.grad == "nonzero"
               for r in check.rows)
    assert check.not_learning() == []
    assert str(check).splitlines()[-1] == "4 of 4 tensors changed"


def test_parameter_missing_from_the_optimizer():
    model = two_layers()
    opt = torch.optim.SGD(model[0].parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        step(model, opt, X)
    rows = by_name(check)
    assert not rows["2.weight"].in_optimizer and not rows["2.weight"].changed
    assert rows["2.weight"].grad == "nonzero"
    assert rows["2.weight"].note == "NOT LEARNING: not in the optimizer"
    assert check.not_learning() == ["2.weight", "2.bias"]


def test_tensors_only_the_optimizer_holds_are_listed():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model[2] = nn.Linear(4, 1)  # replaced after the optimizer was built
    with StepCheck(model, opt) as check:
        step(model, opt, X)
    rows = by_name(check)
    assert rows["param_groups[0][2]"].registered is False
    assert rows["param_groups[0][2]"].grad == "None"
    assert "no gradient" in rows["param_groups[0][2]"].note
    assert not rows["2.weight"].in_optimizer


def test_zero_and_missing_gradients_and_frozen():
    model = two_layers()
    model[0].bias.requires_grad_(False)
    extra_unused = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([*model.parameters(), extra_unused], lr=0.1)
    with StepCheck(model, opt, extra={"unused": extra_unused}) as check:
        opt.zero_grad()
        (model(X).sum() * 0).backward()  # every gradient exactly zero
        opt.step()
    rows = by_name(check)
    assert rows["0.weight"].grad == "zero" and rows["0.weight"].note == "NOT LEARNING: its gradient is zero"
    assert rows["0.bias"].note == "frozen (requires_grad=False)"
    assert rows["unused"].grad == "None" and not rows["unused"].registered
    assert "0.bias" not in check.not_learning()


def test_non_leaf_copy_without_retain_grad_is_not_read(recwarn):
    leaf = torch.ones(2, requires_grad=True)
    copy = leaf.to(torch.float64)
    opt = torch.optim.SGD([leaf], lr=0.1)
    with StepCheck(None, opt, extra={"copy": copy}) as check:
        opt.zero_grad()
        copy.sum().backward()
        opt.step()
    rows = by_name(check)
    assert rows["copy"].grad == "not kept" and not rows["copy"].leaf
    assert not [w for w in recwarn if "not a leaf" in str(w.message)]  # no non-leaf .grad warning


def test_non_leaf_copy_held_by_the_optimizer_is_flagged():
    leaf = torch.ones(2, requires_grad=True)
    copy = leaf.to(torch.float64)
    copy.retain_grad()
    opt = torch.optim.SGD([copy], lr=0.1)
    with StepCheck(None, opt, extra={"leaf": leaf, "copy": copy}) as check:
        opt.zero_grad()
        copy.sum().backward()
        opt.step()
    rows = by_name(check)
    assert rows["copy"].changed and rows["copy"].note.startswith("a non-leaf copy")
    assert rows["leaf"].grad == "nonzero" and not rows["leaf"].changed
    assert check.not_learning() == ["leaf"]


def test_report_is_a_fixed_width_table():
    model = two_layers()
    opt = torch.optim.SGD(model[0].parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        step(model, opt, X)
    lines = str(check).splitlines()
    assert lines[0].split() == ["tensor", "model", "leaf", "grad", "optimizer", "changed", "note"]
    assert lines[3].startswith("2.weight") and lines[3].endswith("NOT LEARNING: not in the optimizer")
    column = lines[0].index("grad")  # every row's grad state starts under the header
    assert [line[column:].split()[0] for line in lines[1:-1]] == ["nonzero"] * 4
    assert lines[-1] == "2 of 4 tensors changed; not learning: 2.weight, 2.bias"


def test_no_report_when_the_step_raised():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError):
        with StepCheck(model, opt) as check:
            raise ValueError("step failed")
    assert check.rows == [] and str(check) == "(no step recorded)"
