"""Write the index's TOML files: strings, integers, lists and inline tables of strings, and
arrays of tables; enough for the data files and stable, so that a re-run changes nothing."""

from __future__ import annotations

import json


def value(v: object) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def document(top: dict[str, object], tables: list[tuple[str, dict[str, object]]],
             comment: str = "") -> str:
    """`top`'s keys, then each (name, table) as a [[name]] array-of-tables entry."""
    lines = [f"# {l}" if l else "#" for l in comment.splitlines()]
    lines += [f"{k} = {value(v)}" for k, v in top.items() if v not in ("", [], None)]
    for name, table in tables:
        lines += ["", f"[[{name}]]"]
        lines += [f"{k} = {value(v)}" for k, v in table.items() if v not in ("", [], None)]
    return "\n".join(lines) + "\n"
