"""``SavedTensorTracker``: how many bytes autograd holds for backward, measured with
``torch.autograd.graph.saved_tensors_hooks``."""

from __future__ import annotations

import weakref
from collections.abc import Iterable

import torch


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
