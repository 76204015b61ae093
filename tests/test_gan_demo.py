"""Direct tests of autograd_pitfalls/gan_demo.py (notebook 02 uses it too)."""

from __future__ import annotations


import torch

from autograd_pitfalls import gan_demo as gd


def test_articles_setup_is_seeded_and_separates_the_optimizers():
    first, second = gd.articles_setup(), gd.articles_setup()
    assert torch.equal(first[0], second[0]) and torch.equal(first[1], torch.tensor([0, 1, 1, 0]))
    _, _, model1, model2, optimizer1, optimizer2 = first
    held = {id(p) for g in optimizer2.param_groups for p in g["params"]}
    assert held == {id(p) for p in model2.parameters()}
    _, _, model1, model2, _, optimizer2 = gd.articles_setup(shared_optimizer=True, deeper_model1=True)
    held = {id(p) for g in optimizer2.param_groups for p in g["params"]}
    assert held == {id(p) for p in [*model1.parameters(), *model2.parameters()]}
    assert len(list(model1.parameters())) == 4


def test_shared_nodes_sees_the_chain_and_nothing_after_detach():
    data, label, model1, model2, *_ = gd.articles_setup()
    names = gd.names_of(model1=model1, model2=model2)
    loss = torch.nn.CrossEntropyLoss()
    a = model1(data)
    l1 = loss(a, label)
    assert gd.shared_nodes(l1, loss(model2(a), label), names) == \
        "AddmmBackward0, TBackward0, model1.bias, model1.weight"
    assert gd.shared_nodes(l1, loss(model2(a.detach()), label), names) == "nothing"


def test_graph_lines_shortens_saved_tensors_and_filters():
    data, label, model1, model2, *_ = gd.articles_setup()
    names = gd.names_of(model1=model1)
    l1 = torch.nn.CrossEntropyLoss()(model1(data), label)
    lines = gd.graph_lines(l1, names=names)
    assert not any(" leaf, " in line for line in lines)
    assert any(line.endswith("saved: mat1 alive") for line in lines)
    l1.backward()
    assert gd.graph_lines(l1, names=names, only="FREED") == \
        ["AddmmBackward0  <- model1.bias, TBackward0  | saved: mat1 FREED",
         "LogSoftmaxBackward0  <- AddmmBackward0  | saved: result FREED",
         "NllLossBackward0  <- LogSoftmaxBackward0  | saved: self FREED; target FREED; total_weight FREED"]


def test_param_copies_are_detached_copies():
    model = torch.nn.Linear(2, 1)
    copies = gd.param_copies(model)
    assert all(not c.requires_grad for c in copies)
    with torch.no_grad():
        model.weight.add_(1)
    assert not torch.equal(copies[0], model.weight)
