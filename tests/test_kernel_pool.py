"""A kernel forked by the kernel pool (classroom/kernel_pool.py) is the kernel a fresh start would
give, but for the modules it has already imported; and when a variable read at start-up differs
from the pool's, the pool refuses and a fresh kernel starts instead. The suite's session runs a
pool (conftest.py), which these kernels use."""

from __future__ import annotations

import json
import os
from pathlib import Path

from jupyter_client.manager import KernelManager

from classroom.kernel_pool import KERNEL_NAME, PRELOADED, QUIET_IMPORT, SOCKET_ENV

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
