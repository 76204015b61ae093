"""Autograd pitfalls, executed: the index of autograd errors and symptoms as data
(`autograd_pitfalls/index/`), the pages generated from it, and the doctor that matches an
error message against it (`python -m autograd_pitfalls diagnose`, `%load_ext autograd_pitfalls`)."""
