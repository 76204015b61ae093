"""Kernels forked from one process that has already imported torch and matplotlib.

A fresh kernel spends most of its start importing torch (about 3 s on a 2-core machine).
The pool is one process that imports what every notebook imports (PRELOADED) and then waits; each
kernel the test suite or `make grade` starts is a fork of it, which runs ipykernel's own launcher
with the connection file, working directory, environment and output streams the kernel would
have had. A kernel
spec (KERNEL_NAME) runs this file as the "kernel process" jupyter_client manages: it asks the
pool for a kernel, forwards the signals it gets to that kernel, and exits with its exit status;
if it dies, the pool kills the kernel.

A forked kernel is an ordinary ipykernel whose notebook namespace starts empty; what differs is
only that those modules are already imported (tests/test_kernel_pool.py compares one with a
fresh kernel). A kernel is forked only for the pool's own Python, and when every environment
variable read at interpreter start or import (STARTUP_PREFIXES) has the pool's value;
otherwise, or when no pool runs, this file starts an ordinary kernel in its place (``exec``).

The pool needs Linux: fork after importing torch is unsafe on macOS, Windows has no fork, and it
reads /proc and passes file descriptors over AF_UNIX sockets. Elsewhere, or with NO_POOL_ENV set
to 1, ``kernel_pool()`` gives KERNEL_NAME to plain fresh kernels instead (``why_no_pool()`` says
why, in one line for the user).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

KERNEL_NAME = "autograd-pitfalls-pool"
SOCKET_ENV = "AUTOGRAD_PITFALLS_KERNEL_POOL"  # the pool's socket, or OFF when kernels start fresh
NO_POOL_ENV = "AUTOGRAD_PITFALLS_NO_KERNEL_POOL"  # set to 1 to start every kernel fresh
KERNEL_LOG_ENV = "AUTOGRAD_PITFALLS_KERNEL_LOG"  # a file that gets one line per kernel (make bench)
OFF = "off"
# What a kernel imports as it starts, what the notebooks' setup cells import, and the slow parts
# of torch that the notebooks' cells load on first use (torch.optim's constructors and torch.func
# load torch._dynamo, assert_close loads torch.distributed.tensor, gradcheck
# torch.fx.experimental.symbolic_shapes, torch.compile the rest): loaded here once, so that no
# notebook has to import them for speed. Never the project's own modules, which the suite may
# change between runs (the regression meta-test does).
PRELOADED = ("ipykernel.kernelapp", "ipykernel.ipkernel", "sqlite3", "pdb", "psutil",
             "matplotlib_inline.backend_inline", "numpy", "matplotlib.pyplot", "torch", "torch._dynamo",
             "torch._functorch.aot_autograd", "torch._inductor.lowering", "torch.distributed.tensor",
             "torch.fx.experimental.symbolic_shapes", "torch.nn.parallel", "torch.func")
# Imported as notebooks 05 and 12 import it: quietly (on 2.13 to 2.15 it warns that
# torch.jit.script is deprecated).
QUIET_IMPORT = ("torch._decomp.decompositions_for_jvp", "`torch.jit.script` is deprecated")
# Variables an interpreter or one of PRELOADED reads when it starts or is imported.
STARTUP_PREFIXES = ("PYTHON", "OMP_", "MKL_", "OPENBLAS_", "KMP_", "GOMP_", "TORCH", "PYTORCH",
                    "CUDA", "MPL", "LD_", "LC_", "LANG", "HOME", "XDG_", "JUPYTER", "IPYTHON", "TZ")


def _startup_environment(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(STARTUP_PREFIXES)}


# --- the pool --------------------------------------------------------------------------------

def serve(socket_path: str) -> None:
    """Import PRELOADED, then fork a kernel for each request on ``socket_path``, until killed.
    The socket listens before the imports, so requests made meanwhile wait for them."""
    startup = _startup_environment(dict(os.environ))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    set_by_imports = _preload()
    if len(os.listdir("/proc/self/task")) != 1:
        sys.exit("kernel pool: a thread started while importing; forking is not safe")
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    wakeup_read, wakeup_write = os.pipe()
    os.set_blocking(wakeup_write, False)
    signal.set_wakeup_fd(wakeup_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector.register(wakeup_read, selectors.EVENT_READ)
    kernels: dict[int, socket.socket] = {}  # kernel pid -> the relay's connection
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                _fork_on_request(listener, selector, kernels, startup, set_by_imports)
            elif key.fileobj == wakeup_read:
                os.read(wakeup_read, 512)
                _reap(kernels, selector)
            elif kernels.get(key.data) is key.fileobj:  # a relay left: its kernel goes with it
                # (unless the kernel's exit, seen in the same round, already closed the connection)
                del kernels[key.data]
                selector.unregister(key.fileobj)
                key.fileobj.close()
                os.kill(key.data, signal.SIGKILL)


def _fork_on_request(listener: socket.socket, selector: selectors.BaseSelector,
                     kernels: dict[int, socket.socket], startup: dict[str, str],
                     set_by_imports: dict[str, str]) -> None:
    """Accept one relay; fork its kernel, or refuse (its startup environment differs)."""
    connection, _ = listener.accept()
    fds: list[int] = []
    try:
        request, fds = _receive_request(connection)
        theirs = _startup_environment(request["env"])
        for name, value in set_by_imports.items():  # set the same way by what the requester imported
            if theirs.get(name) == value:
                del theirs[name]
        if request["executable"] != sys.executable or theirs != startup:
            raise ValueError("refused")
    except (OSError, ValueError):  # refused, or a relay that left before asking
        _send(connection, "refused")
        connection.close()
    else:
        pid = os.fork()
        if pid == 0:
            _become_kernel(request, fds, set_by_imports)
        _send(connection, str(pid))
        kernels[pid] = connection
        selector.register(connection, selectors.EVENT_READ, pid)
    finally:
        for fd in fds:
            os.close(fd)


def _receive_request(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """A relay's request (one JSON line) and the three standard streams it passed along."""
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    while not data.endswith(b"\n"):
        chunk = connection.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    return json.loads(data), fds


def _send(connection: socket.socket, line: str) -> None:
    try:
        connection.sendall(line.encode() + b"\n")
    except OSError:  # the relay is gone; its connection is closed in the loop
        pass


def _reap(kernels: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = kernels.pop(pid, None)
        if connection is not None:
            selector.unregister(connection)
            _send(connection, str(os.waitstatus_to_exitcode(status)))
            connection.close()


def _become_kernel(request: dict[str, Any], fds: list[int], set_by_imports: dict[str, str]) -> None:
    """In the forked child: become the kernel ``python -m ipykernel_launcher ARGS`` would be."""
    try:
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update({**set_by_imports, **request["env"]})
        import ipykernel_launcher

        sys.argv = [ipykernel_launcher.__file__, *request["args"]]
        del sys.path[0]  # this file's folder; IPython puts the working directory on the path
        import random

        import numpy
        import torch

        random.seed()
        numpy.random.seed()
        torch.seed()
        from ipykernel.kernelapp import IPKernelApp

        # Two options ipykernel reads from the environment as kernelapp is imported, which was in
        # the pool, before this kernel's environment: read again here. (With JPY_PARENT_PID the
        # kernel watches its parent, and does not print its connection details on stdout.)
        IPKernelApp.launch_instance(parent_handle=int(os.environ.get("JPY_PARENT_PID") or 0),
                                    interrupt=int(os.environ.get("JPY_INTERRUPT_EVENT") or 0))
    finally:
        os._exit(0)


def _preload() -> dict[str, str]:
    """Import PRELOADED as a kernel would; return the environment variables the imports set
    (torch._inductor sets TORCHINDUCTOR_CACHE_DIR), which a fresh kernel importing them has too.

    A module imported here does not run again in a kernel, so it could not show a warning there:
    the pool serves only if its imports warn of nothing. (Not with warnings.catch_warnings, which
    would also undo the filters the imports add, as they do in a fresh kernel.)"""
    # What ipykernel sets before a kernel's code can import matplotlib (kernelapp.init_gui_pylab).
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    before = dict(os.environ)
    caught: list[Any] = []
    show, warnings.showwarning = warnings.showwarning, lambda message, *_, **__: caught.append(message)
    try:
        for module in PRELOADED:
            with contextlib.suppress(ImportError):  # an older torch may not have it
                importlib.import_module(module)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=QUIET_IMPORT[1], category=FutureWarning)
            importlib.import_module(QUIET_IMPORT[0])
    finally:
        warnings.showwarning = show
    if caught:
        sys.exit(f"kernel pool: its imports warned ({caught[0]}); kernels start fresh instead")
    return {k: v for k, v in os.environ.items() if before.get(k) != v}


# --- the relay: the process jupyter_client starts for a kernel -----------------------------

def relay(args: list[str]) -> None:
    """Ask the pool for a kernel with ``args``; forward signals to it; exit as it exits."""
    if os.environ.get(KERNEL_LOG_ENV):
        with open(os.environ[KERNEL_LOG_ENV], "a") as log:
            log.write("kernel\n")
    socket_path = os.environ.get(SOCKET_ENV)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if not socket_path:
            raise ConnectionRefusedError
        connection.connect(socket_path)
        request = {"args": args, "cwd": os.getcwd(), "env": dict(os.environ), "executable": sys.executable}
        socket.send_fds(connection, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        reply = connection.makefile()
        answer = reply.readline().strip()
        if not answer.isdigit():
            raise ConnectionRefusedError
    except (ConnectionRefusedError, FileNotFoundError):
        connection.close()
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *args])
    pid = int(answer)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
        signal.signal(signum, lambda signum, _: os.kill(pid, signum))
    status = reply.readline().strip()
    sys.exit(int(status) if status.lstrip("-").isdigit() else 1)


# --- starting and stopping the pool ------------------------------------------------------------

def why_no_pool() -> str | None:
    """Why kernels start fresh here instead of from a pool, in one line; None where a pool runs."""
    if os.environ.get(NO_POOL_ENV, "0") != "0":
        return f"kernel pool off ({NO_POOL_ENV} is set): every kernel starts fresh"
    if not sys.platform.startswith("linux"):
        return (f"kernel pool off (it needs Linux; this is {sys.platform}): every kernel starts fresh, "
                "which is slower but gives the same results")
    if not (hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")
            and Path("/proc/self/task").is_dir()):
        return "kernel pool off (no fork, AF_UNIX sockets or /proc here): every kernel starts fresh"
    return None


@contextmanager
def kernel_pool() -> Iterator[None]:
    """While the block runs, ``KERNEL_NAME`` is a kernel of a pool (or, where ``why_no_pool()``
    says so, a plain fresh kernel), for this process and the processes it starts (environment
    variables). A pool already set up for the parent process is used as it is."""
    running = os.environ.get(SOCKET_ENV)
    if running == OFF or (running and Path(running).exists()):
        yield
        return
    pooled = why_no_pool() is None
    with tempfile.TemporaryDirectory(prefix="autograd-pitfalls-kernels-") as tmp:
        spec = Path(tmp) / "kernels" / KERNEL_NAME
        spec.mkdir(parents=True)
        this_file = str(Path(__file__).resolve())
        argv = [this_file] if pooled else ["-m", "ipykernel_launcher"]
        (spec / "kernel.json").write_text(json.dumps(
            {"argv": [sys.executable, *argv, "-f", "{connection_file}"],
             "display_name": "Python 3 (kernel pool)" if pooled else "Python 3", "language": "python", "interrupt_mode": "signal"}))
        socket_path = str(Path(tmp) / "pool.sock") if pooled else OFF
        jupyter_path = os.pathsep.join(filter(None, [tmp, os.environ.get("JUPYTER_PATH")]))
        with mock.patch.dict(os.environ, {SOCKET_ENV: socket_path, "JUPYTER_PATH": jupyter_path}):
            if not pooled:
                yield
                return
            pool = subprocess.Popen([sys.executable, this_file, "--serve", socket_path],
                                    start_new_session=True, stdin=subprocess.DEVNULL)
            try:
                yield
            finally:
                os.killpg(pool.pid, signal.SIGKILL)  # the pool and any kernel still running
                pool.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        relay(sys.argv[1:])
