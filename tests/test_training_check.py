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
    # the first layer is still held and learns: a replaced layer, not an optimizer for another model
    assert [f.kind for f in check.findings] == ["not-in-optimizer"] and "replaced" in check.findings[0].says


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
    assert [line[column:].split()[0] for line in lines[1:5]] == ["nonzero"] * 4
    assert lines[5] == "2 of 4 tensors changed; not learning: 2.weight, 2.bias"
    assert lines[6] == "Findings over 1 step:"


def test_no_report_when_the_step_raised():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError):
        with StepCheck(model, opt) as check:
            raise ValueError("step failed")
    assert check.rows == [] and str(check) == "(no step recorded)"


# --- over a few iterations of the learner's loop: the findings -----------------------------------

def batches(n: int = 3) -> list[torch.Tensor]:
    return [X + k for k in range(n)]


class BodyHeadAndThird(nn.Module):
    """A body, a head, and a third layer that the tests' forward passes misuse."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.body, self.head, self.third = nn.Linear(3, 4), nn.Linear(4, 1), nn.Linear(4, 1)


def checked_loop(model: nn.Module, opt: torch.optim.Optimizer, steps: int) -> StepCheck:
    """StepCheck around `steps` steps of the ordinary loop (zero_grad, backward, step)."""
    with StepCheck(model, opt) as check:
        for x in batches(steps):
            step(model, opt, x)
    return check


def kinds(check: StepCheck) -> list[str]:
    return [f.kind for f in check.findings]


def test_a_healthy_loop_gets_no_finding():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    losses = []
    with StepCheck(model, opt) as check:
        for x in batches():
            loss = model(x).pow(2).mean()  # the forward first, then the reset: as healthy as the other order
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert check.steps == 3 and check.findings == []
    assert str(check).splitlines()[-1] == "Nothing found over 3 steps that keeps this loop from learning."


def test_a_healthy_gan_loop_gets_no_finding():
    torch.manual_seed(0)
    G, D = nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
    opt_G, opt_D = torch.optim.Adam(G.parameters()), torch.optim.Adam(D.parameters())
    bce = nn.BCELoss()
    with StepCheck(D, opt_D) as d_check, StepCheck(G, opt_G) as g_check:
        for k in range(3):
            real, z = torch.randn(4, 3), torch.randn(4, 2)
            fake = G(z)
            opt_D.zero_grad()
            (bce(D(real), torch.ones(4, 1)) + bce(D(fake.detach()), torch.zeros(4, 1))).backward()
            opt_D.step()
            opt_G.zero_grad()
            bce(D(fake), torch.ones(4, 1)).backward()  # also leaves gradients in D, cleared next time
            opt_G.step()
    assert d_check.findings == [] and g_check.findings == []


def test_accumulation_done_right_gets_no_finding():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for step_batches in (batches(2), batches(2)):
            opt.zero_grad()
            for x in step_batches:
                (model(x).pow(2).mean() / 2).backward()
            opt.step()
    assert check.findings == []


def test_gradients_never_zeroed():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with StepCheck(model, opt) as check:
        for x in batches():
            model(x).pow(2).mean().backward()
            opt.step()
    assert kinds(check) == ["never-zeroed"]
    assert "at steps 2, 3 the step used gradients left from the steps before" in check.findings[0].says


def test_zero_grad_inside_the_accumulation_window():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for x in batches(4):
            opt.zero_grad()  # should be outside the window
            model(x).pow(2).mean().backward()
        opt.step()
    assert kinds(check) == ["zeroed-in-window"]


def test_a_logged_loss_tensor_carries_every_graph():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0
    with StepCheck(model, opt) as check:
        for x in batches():
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            total = total + loss  # not loss.item()
    assert kinds(check) == ["graph-carried"] and "`total`" in check.findings[0].says


def test_a_path_cut_before_the_loss_and_a_layer_never_used():
    class Net(BodyHeadAndThird):
        def forward(self, x):
            return self.head(self.body(x).detach())  # the third layer is never called

    model = Net()
    check = checked_loop(model, torch.optim.SGD(model.parameters(), lr=0.1), steps=2)
    assert kinds(check) == ["off-path", "unused-in-forward"]
    assert "`body.weight`" in check.findings[0].says and "`third` never ran" in check.findings[1].says


def test_a_frozen_part_that_still_moves():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for x in batches(1):  # one step before freezing: momentum buffers exist
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    model[0].requires_grad_(False)
    model[1].requires_grad_(False)
    with StepCheck(model, opt) as check:
        for x in batches(2):
            opt.zero_grad(set_to_none=False)  # zero tensors, not None: momentum still moves them
            model(x).pow(2).mean().backward()
            opt.step()
    assert kinds(check) == ["frozen-moves", "frozen-statistics-move"]
    assert check.findings[0].says.startswith("`0.weight`, `0.bias`, `1.weight`, `1.bias` moved at step 1")
    assert "`1.running_mean`, `1.running_var`" in check.findings[1].says


def test_training_in_eval_mode():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 1)).eval()
    check = checked_loop(model, torch.optim.SGD(model.parameters(), lr=0.1), steps=2)
    assert kinds(check) == ["eval-mode"]


def test_nan_gradients_and_where_they_first_appear():
    torch.manual_seed(0)
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for x in batches(2):
            opt.zero_grad()
            model(x).sqrt().sum().backward()  # sqrt of negative outputs: NaN
            opt.step()
    finding = next(f for f in check.findings if f.kind == "nonfinite-gradients")
    assert "from step 2" in finding.says and "that of `2`'s output" in finding.says


def test_an_optimizer_built_for_another_model():
    model, other = two_layers(), two_layers()
    check = checked_loop(model, torch.optim.SGD(other.parameters(), lr=0.1), steps=2)
    assert kinds(check)[0] == "optimizer-of-another-model"


def test_the_hooks_are_gone_and_change_nothing():
    def run(checked: bool) -> torch.Tensor:
        model = two_layers()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        with (StepCheck(model, opt) if checked else torch.enable_grad()):
            for x in batches():
                opt.zero_grad()
                model(x).pow(2).mean().backward()
                opt.step()
        return torch.cat([p.detach().flatten() for p in model.parameters()])

    assert torch.equal(run(True), run(False))
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt):
        pass
    assert not model[0]._forward_hooks and not opt._optimizer_step_pre_hooks and model[0].weight._backward_hooks in (None, {})


def test_a_parameter_the_optimizer_does_not_hold_is_not_called_never_zeroed():
    # opt.zero_grad() resets only what opt holds, so fc2's .grad sums every backward; but no step
    # reads it, so "the step used gradients left from the steps before" would be false.
    model = two_layers()
    opt = torch.optim.SGD(model[0].parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for x in batches():
            step(model, opt, x)
    assert kinds(check) == ["not-in-optimizer"]


def test_eval_mode_names_the_layers_it_changes():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Dropout(0.5), nn.Linear(4, 1)).eval()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for x in batches(2):
            step(model, opt, x)
    says = check.findings[0].says
    assert says.startswith("the model was in eval mode at steps 1, 2, so its BatchNorm1d and Dropout layers (`1`, `2`)")
    assert "dropout drops nothing" in says and "does not update them" in says


def test_a_frozen_part_in_eval_mode_is_not_training_in_eval_mode():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model[0].requires_grad_(False)
    model[1].requires_grad_(False)
    model[1].eval()  # the fix of frozen-statistics-move
    with StepCheck(model, opt) as check:
        for x in batches(2):
            step(model, opt, x)
    assert check.findings == []


def test_a_module_run_under_no_grad_is_off_path_and_a_frozen_tensor_that_moves_is_noted():
    torch.manual_seed(0)

    class Probe(BodyHeadAndThird):
        def forward(self, x):
            h = self.body(x)
            with torch.no_grad():
                self.logged = self.third(h)  # the probe, only logged
            return self.head(h)

    model = Probe()
    check = checked_loop(model, torch.optim.SGD(model.parameters(), lr=0.1), steps=2)
    assert kinds(check) == ["off-path"] and "`torch.no_grad()`" in check.findings[0].says
    assert by_name(check)["third.weight"].note == "NOT LEARNING: no gradient reached it"
    assert TensorStatus("w", True, True, False, "zero", True, True).note == "FROZEN, yet it changed"


def test_outputs_kept_in_a_list_are_not_called_chained():
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    outputs = []
    with StepCheck(model, opt) as check:
        for x in batches():
            opt.zero_grad()
            out = model(x)
            out.pow(2).mean().backward()
            opt.step()
            outputs.append(out)  # kept for a metric at the end of the epoch
    assert kinds(check) == ["graph-carried"]
    says = check.findings[0].says
    assert says.startswith("a list or dict of the loop holds one more tensor with a graph every step (`outputs`: 1, 2, 3;")
    assert "chained" not in says and "nodes" not in says


def test_a_finding_quotes_its_symptom_row_and_names_its_section():
    model = two_layers()
    opt = torch.optim.SGD(model[0].parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for x in batches(2):
            step(model, opt, x)
    lines = str(check).splitlines()
    quoted = lines[lines.index("Findings over 2 steps:") + 2]
    assert quoted.startswith('  symptom index: "the loss falls, but more slowly than it should')
    assert quoted.endswith('(09 §2)')


def test_every_finding_kind_has_exactly_one_symptom_row():
    import re
    from pathlib import Path

    from autograd_pitfalls import index
    from autograd_pitfalls.training_findings import symptom_row

    source = Path(__file__).resolve().parent.parent / "autograd_pitfalls" / "training_findings.py"
    kinds_made = set(re.findall(r'Finding\("([a-z-]+)"', source.read_text()))
    named = [row["check"] for group in index.symptoms() for row in group["row"] if "check" in row]
    assert len(kinds_made) == 11 and sorted(named) == sorted(kinds_made)
    assert all(symptom_row(kind) for kind in kinds_made)


# --- healthy loops that once drew a finding ------------------------------------------------------

def test_a_second_optimizer_for_the_backbone_is_not_a_missing_parameter():
    # The check is given the head's optimizer; another one steps the first layer. That layer's
    # tensors are not in the optimizer given, but they learn: "no step moves them" would be false.
    model = two_layers()
    backbone, head = torch.optim.SGD(model[0].parameters(), lr=0.01), torch.optim.SGD(model[2].parameters(), lr=0.1)
    with StepCheck(model, head) as check:
        for x in batches():
            backbone.zero_grad()
            head.zero_grad()
            model(x).pow(2).mean().backward()
            backbone.step()
            head.step()
    assert check.findings == [] and check.not_learning() == []


def test_lbfgs_recomputing_gradients_inside_its_step_gets_no_finding():
    # step(closure) zeroes and recomputes the gradient several times inside one step.
    model = two_layers()
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = model(X).pow(2).mean()
        loss.backward()
        return loss

    with StepCheck(model, opt) as check:
        for _ in range(3):
            opt.step(closure)
    assert check.steps == 3 and check.findings == []


def test_a_step_grad_scaler_skips_is_not_a_zero_grad_in_the_window():
    # A GradScaler skips the step whose gradients hold inf (here: a scale far too large at first,
    # as when fp16 calibrates its scale); the next zero_grad() clears those gradients.
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**127)
    with StepCheck(model, opt) as check:
        for x in batches(4):
            opt.zero_grad()
            scaler.scale(model(x * 100).pow(2).mean()).backward()
            scaler.step(opt)
            scaler.update()
    assert check.steps < 4 and check.findings == []


def test_gradients_written_into_grad_by_hand_are_not_off_path():
    # torch.autograd.grad, then p.grad = g (gradient surgery): no backward() accumulates, yet
    # every parameter gets its gradient and learns.
    model = two_layers()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with StepCheck(model, opt) as check:
        for x in batches():
            opt.zero_grad()
            grads = torch.autograd.grad(model(x).pow(2).mean(), list(model.parameters()))
            for p, g in zip(model.parameters(), grads):
                p.grad = g
            opt.step()
    assert check.findings == []


def test_a_trained_layer_moved_by_momentum_with_a_zero_gradient_is_not_frozen_moves():
    # zero_grad(set_to_none=False) and a branch not taken in one step: Adam moves the branch by its
    # momentum. It is not frozen, so the row for "a frozen layer still changes" is not its cause.
    torch.manual_seed(0)
    branches = nn.ModuleList([nn.Linear(3, 1), nn.Linear(3, 1)])
    opt = torch.optim.Adam(branches.parameters(), lr=0.01)
    with StepCheck(branches, opt) as check:
        for k, x in enumerate(batches()):
            opt.zero_grad(set_to_none=False)
            branches[1 if k == 1 else 0](x).pow(2).mean().backward()
            opt.step()
    assert check.findings == []
