"""Every public report a notebook or an index row cites has an evidence record (census/evidence/)
that quotes its thread, or names the commit whose code shows what the text says; where the thread
does not settle the cause, every citing text says so (census/citations.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("citations", ROOT / "census" / "citations.py")
citations = sys.modules["citations"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(citations)


def test_the_citations_are_found():
    found = {c.key for c in citations.citations()}
    assert len(found) >= 300
    assert {"pytorch/pytorch#727", "inplace operation changes is_leaf attribute".casefold()} <= {k.casefold() for k in found}


def test_a_citation_is_found_in_every_form_the_texts_use():
    text = ("[pytorch/pytorch#1](https://github.com/pytorch/pytorch/issues/1), pytorch/pytorch#2, #3; "
            "https://github.com/a/b/pull/4; discuss.pytorch.org: \"A title\nover two lines\"")
    assert citations.keys_in(text) == {"pytorch/pytorch#1", "pytorch/pytorch#2", "pytorch/pytorch#3", "a/b#4",
                                       "A title over two lines"}


def test_every_record_is_valid():
    records = {r["file"]: r for r in citations.records().values()}
    problems = [f"{name}: {p}" for name, r in sorted(records.items()) for p in citations.record_problems(r)]
    assert not problems, "\n".join(problems)


def test_a_record_without_a_quote_or_an_unsettled_one_without_its_hedge_fails():
    assert citations.record_problems({"label": "a/b#1", "url": "u", "title": "t", "describes": "d",
                                      "settled": True}) == ["neither a [[quote]] nor a [[commit]]"]
    unsettled = {"file": "a-b-1.toml", "label": "a/b#1", "settled": False, "hedge": "the thread does not show"}
    cite = citations.Citation("a/b#1", "index x", "a/b#1: a cause")
    assert citations.citation_problems([cite], {"a/b#1": unsettled})
    hedged = citations.Citation("a/b#1", "index x", "a/b#1 (the thread does not show the cause)")
    assert not citations.citation_problems([hedged], {"a/b#1": unsettled})


def test_every_cited_report_has_its_evidence():
    problems = citations.citation_problems(citations.citations(), citations.records())
    assert not problems, f"{len(problems)} citations without evidence:\n" + "\n".join(problems[:60])
