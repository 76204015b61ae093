"""A kernel forked by the kernel pool (classroom/kernel_pool.py) is the kernel a fresh start would
give, but for the modules it has already imported; and when a variable read at start-up differs
from the pool's, the pool refuses and a fresh kernel starts instead. The suite's session runs a
pool (conftest.py), which these kernels use. Where the pool cannot run (not Linux), or is turned
off by hand, the same kernel name starts plain fresh kernels, and says so."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from jupyter_client.kernelspec import get_kernel_spec
from jupyter_client.manager import KernelManager

from classroom.kernel_pool import (KERNEL_NAME, NO_POOL_ENV, PRELOADED, QUIET_IMPORT, SOCKET_ENV,
                                   kernel_pool, why_no_pool)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# What a notebook could notice of its kernel once it has imported what the pool imports (as
# the pool imports it); "preloaded" is asked before anything is imported.
PROBE = f"""\
import sys
_preloaded = "torch" in sys.modules
import importlib, json, os, warnings
for _module in {PRELOADED!r}:
    importlib.import_module(_module)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message={QUIET_IMPORT[1]!r}, category=FutureWarning)
    importlib.import_module({QUIET_IMPORT[0]!r})
import matplotlib, torch
print(json.dumps({{"preloaded": _preloaded, "cwd": os.getcwd(), "path": sys.path,
                  "argv0": sys.argv[0], "main": sys.modules["__main__"].__name__,
                  "env": sorted(os.environ), "backend": matplotlib.get_backend(),
                  "threads": torch.get_num_threads(), "filters": len(warnings.filters),
                  "parent_handle": get_ipython().kernel.parent.parent_handle,
                  "names": sorted(n for n in get_ipython().user_ns if not n.startswith("_"))}}))
"""


def _probe(**env: str) -> dict:
    manager = KernelManager(kernel_name=KERNEL_NAME)
    manager.start_kernel(cwd=str(NOTEBOOKS), env={**os.environ, **env})
    client = manager.client()
    client.start_channels()
    printed: list[str] = []
    try:
        client.wait_for_ready(timeout=60)
        client.execute_interactive(PROBE, timeout=60, output_hook=lambda msg: printed.append(
            msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return json.loads("".join(printed))


def test_a_forked_kernel_is_a_fresh_kernel_with_modules_already_imported() -> None:
    assert os.environ.get(SOCKET_ENV), "conftest.py runs a kernel pool for the session"
    forked = _probe()
    fresh = _probe(PYTHONHASHSEED="1")  # differs from the pool's "0": the pool refuses to fork
    assert forked.pop("preloaded") and not fresh.pop("preloaded")
    assert forked["cwd"] == str(NOTEBOOKS)
    assert set(forked["env"]) ^ set(fresh["env"]) == set()
    assert forked == fresh


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_off_linux_the_kernel_name_starts_plain_fresh_kernels(monkeypatch, platform) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    assert platform in why_no_pool() and "starts fresh" in why_no_pool()
    monkeypatch.delenv(SOCKET_ENV)  # as in a process that has no pool yet
    with kernel_pool():
        assert os.environ[SOCKET_ENV] == "off"
        assert get_kernel_spec(KERNEL_NAME).argv[1:3] == ["-m", "ipykernel_launcher"]
        if platform == "darwin":  # one real kernel is enough to show that it runs
            probe = _probe()
            assert not probe["preloaded"] and probe["cwd"] == str(NOTEBOOKS)
        with kernel_pool():  # nested (a course inside the suite): the same kernels, no pool
            assert os.environ[SOCKET_ENV] == "off"
    assert os.environ.get(SOCKET_ENV) is None


def test_the_pool_can_be_turned_off_by_hand(monkeypatch) -> None:
    assert why_no_pool() is None  # the suite runs on Linux with the pool
    monkeypatch.setenv(NO_POOL_ENV, "1")
    assert NO_POOL_ENV in why_no_pool()
    monkeypatch.setenv(NO_POOL_ENV, "0")
    assert why_no_pool() is None
