"""Autograd pitfalls, executed: the index of autograd errors and symptoms as data
(`autograd_pitfalls/index/`), the pages generated from it, and the doctor that matches an
error message against it (`python -m autograd_pitfalls diagnose`, `%load_ext autograd_pitfalls`)."""


def load_ipython_extension(ip) -> None:
    """`%load_ext autograd_pitfalls` (see autograd_pitfalls/ipython.py)."""
    from autograd_pitfalls.ipython import load
    load(ip)


def unload_ipython_extension(ip) -> None:
    from autograd_pitfalls.ipython import unload
    unload(ip)
