"""The index data (autograd_pitfalls/index/) cannot drift from the notebooks: every message it
lists is an error that some notebook really raises and stores, word for word (after a PyTorch
upgrade, `make execute` refreshes the notebooks and this test names every message that
changed), and every cause has a fix and names a notebook section that exists. A message whose
full text holds paths of the machine (a compiler error quoting your code) is `printed` by its
cell, as one whole line, instead. A message that needs hardware this collection does not have
(an entry's `needs`, e.g. a CUDA GPU) cannot be raised here: it must instead be found, word for
word, in the installed PyTorch's own files."""

from __future__ import annotations

import importlib.util
import mmap
import re
from functools import cache
from pathlib import Path

import nbformat
import pytest

from autograd_pitfalls import index

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TORCH = Path(importlib.util.find_spec("torch").submodule_search_locations[0])  # not imported: slow
TYPE_PREFIX = re.compile(r"^[A-Za-z_][\w.]*: ")


@cache
def stored_outputs() -> tuple[tuple[str, dict], ...]:
    """(notebook name, output) for every stored output of every notebook."""
    return tuple((path.name, out) for path in sorted(NOTEBOOKS.glob("*.ipynb"))
                 for cell in nbformat.read(path, as_version=4).cells for out in cell.get("outputs", []))


@cache
def stored_errors() -> dict[str, list[str]]:
    """'Type: message' -> the notebooks that store it."""
    found: dict[str, list[str]] = {}
    for name, out in stored_outputs():
        if out.output_type == "error":
            found.setdefault(f"{out.ename}: {out.evalue}", []).append(name)
    return found


@cache
def printed_lines() -> dict[str, list[str]]:
    """Each line the notebooks print (stripped) -> the notebooks that print it."""
    found: dict[str, list[str]] = {}
    for name, out in stored_outputs():
        if out.output_type == "stream" and out.name == "stdout":
            for line in out.text.splitlines():
                found.setdefault(line.strip(), []).append(name)
    return found


def plain(text: str) -> str:
    """Markdown reduced to comparable words: no markup, quotes straightened, spaces collapsed."""
    text = re.sub(r"[`*_]", "", text).replace("’", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.lower().split())


@cache
def notebook_text(name: str) -> tuple[str, tuple[str, ...]]:
    """(all Markdown of a notebook, reduced; its headings' texts, reduced)."""
    cells = nbformat.read(NOTEBOOKS / name, as_version=4).cells
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    headings = tuple(plain(h) for h in re.findall(r"^#+ (.*)$", markdown, re.M))
    return plain(markdown), headings


def section_problems(place: dict) -> list[str]:
    """Why a `shown_in` place does not name a section of an existing notebook ([] if it does)."""
    name, section = place["notebook"], place["section"]
    if not (NOTEBOOKS / name).is_file():
        return [f"{name}: no such notebook"]
    text, headings = notebook_text(name)
    section = re.sub(r"\s\([^)]*\)", "", section)  # a comment in parentheses may cite elsewhere
    problems = [f"{name}: no {words!r} in its text" for words in re.findall(r"\*([^*]+)\*", section)
                if plain(words) not in text]
    problems += [f"{name}: no section §{mark}" for mark in re.findall(r"§(\w+)", section)
                 if not any(h.startswith(f"{mark.lower()} ·") for h in headings)]  # "## 7a · …"
    return problems


def causes() -> list[tuple[str, dict]]:
    rows = [(e["id"], c) for e in index.errors() for c in e["cause"]]
    return rows + [(g["id"], r) for g in index.symptoms() for r in g["row"]]


def torch_files(root: Path):
    """The installed PyTorch's shared libraries (torch/lib), then its Python sources."""
    yield from sorted(p for p in (root / "lib").glob("*.so*") if p.is_file())
    yield from sorted(root.rglob("*.py"))


def file_holding(text: str, root: Path = TORCH) -> Path | None:
    """The first file of the installed PyTorch that holds `text` byte for byte (None if none)."""
    needle = text.encode()
    for path in torch_files(root):
        if path.stat().st_size >= len(needle):
            with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                if m.find(needle) >= 0:
                    return path
    return None


def needs_problems(entry: dict, root: Path = TORCH) -> list[str]:
    """Why an entry that `needs` hardware is wrong: a message of it that a notebook stores (then
    `needs` is stale), or that the installed PyTorch does not hold word for word (without its
    'SomeError: ' prefix, which Python adds)."""
    problems = []
    for m in entry["message"]:
        if m["text"] in stored_errors():
            problems.append(f"{entry['id']}: a notebook stores {m['text'][:80]!r}: drop `needs`")
        elif file_holding(TYPE_PREFIX.sub("", m["text"]), root) is None:
            problems.append(f"{entry['id']}: no file of the installed PyTorch holds {m['text'][:150]!r}")
    return problems


def test_every_message_in_the_index_is_raised_by_a_notebook():
    errors = stored_errors()
    missing = [f"{e['id']}: {m['text'][:150]}" for e in index.errors() if not e.get("needs")
               for m in e["message"] if m["text"] not in (printed_lines() if m.get("printed") else errors)]
    assert not missing, ("the index lists messages that no notebook stores (word for word; a `printed`\n"
                         "one as a whole printed line):\n" + "\n".join(f"- {m}" for m in missing))


@pytest.mark.parametrize("entry", [e for e in index.errors() if e.get("needs")], ids=lambda e: e["id"])
def test_a_message_that_needs_hardware_is_in_the_installed_torch(entry):
    assert isinstance(entry["needs"], str) and entry["needs"].strip(), entry["id"]
    if "cuda" in entry["needs"].lower() and not list((TORCH / "lib").glob("libtorch_cuda*")):
        pytest.skip("this PyTorch is a CPU-only build: it holds no CUDA message to check")
    assert not needs_problems(entry)


def test_a_needs_entry_whose_message_is_not_in_torch_fails():
    made_up = {"id": "made-up", "needs": "a CUDA GPU", "message": [
        {"text": "RuntimeError: cudnn RNN backward can only be called in a training mood"}]}
    assert needs_problems(made_up) == [
        "made-up: no file of the installed PyTorch holds "
        "'RuntimeError: cudnn RNN backward can only be called in a training mood'"]
    stored = {"id": "stored", "needs": "a GPU", "message": [
        {"text": "RuntimeError: grad can be implicitly created only for scalar outputs"}]}
    assert needs_problems(stored) == [
        "stored: a notebook stores 'RuntimeError: grad can be implicitly created only for scalar outputs': "
        "drop `needs`"]


def test_every_entry_has_messages_and_causes():
    assert len(index.errors()) > 20 and len(index.symptoms()) > 3
    for entry in index.errors():
        assert entry["message"] and entry["cause"], entry["id"]
    for group in index.symptoms():
        assert group["row"] and all(r["symptom"] for r in group["row"]), group["id"]


def test_every_symptom_group_says_what_to_check_next():
    """Each group of the symptom index starts with the check that tells its causes apart, and
    links the notebook section that shows it (test_links checks that the link leads there)."""
    for group in index.symptoms():
        tell = group.get("tell_apart", "").strip()
        assert tell and "](notebooks/" in tell, f"{group['id']}: no tell_apart with a notebook link"


@pytest.mark.parametrize("where, cause", causes(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_cause_has_a_fix_and_a_section_that_exists(where, cause):
    assert cause["cause"] and cause["fix"] and cause["shown_in"], f"{where}: {cause}"
    problems = [p for place in cause["shown_in"] for p in section_problems(place)]
    assert not problems, f"{where}, cause {cause['cause'][:60]!r}:\n" + "\n".join(problems)


def test_every_variant_belongs_to_an_entry_and_compiles():
    assert not index.unknown_variant_ids()
    for patterns in index.variants().values():
        for pattern in patterns:
            re.compile(pattern)


def test_a_wrong_section_is_caught():
    assert section_problems({"notebook": "08_field_guide.ipynb", "section": "§7a"}) == []
    assert section_problems({"notebook": "08_field_guide.ipynb", "section": "§7z, *No such words*"}) == [
        "08_field_guide.ipynb: no 'No such words' in its text", "08_field_guide.ipynb: no section §7z"]
    assert section_problems({"notebook": "99_x.ipynb", "section": ""}) == ["99_x.ipynb: no such notebook"]
