"""The doctor's answer, as plain text (a terminal) and as HTML (a notebook): the message, then the
causes the evidence ranks (at most TOP, each with the line of evidence that ranked it, its fix and
where a notebook shows it), then the other causes, one line each (folded in a notebook).

Links: a notebook section opens at its heading's cell (`#cell-id=`, anchors.py). From a notebook,
the link is relative to the kernel's folder, which JupyterLab resolves to the collection's
notebook; with AUTOGRAD_PITFALLS_SITE set, every link goes to that site's pages instead.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

from autograd_pitfalls import index
from autograd_pitfalls.anchors import section_anchor
from autograd_pitfalls.doctor import Diagnosis, Ranked, diagnose
from autograd_pitfalls.pages import SECTION_WORDS, linked

ROOT = Path(__file__).resolve().parent.parent
SITE_VARIABLE = "AUTOGRAD_PITFALLS_SITE"
TOP = 3
ONE_LINE = 110  # characters of an other cause's text in its one line
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")


def site() -> str:
    return os.environ.get(SITE_VARIABLE, "").strip().rstrip("/")


def heading_anchor(heading: str) -> str:
    """The anchor GitHub and the site give a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def page_address(page: str, anchor: str = "", relative_to: Path | None = None) -> str:
    """Where to read a page of the repository (docs/errors.md, notebooks/x.ipynb): on the site
    when one is set; else its path, relative to ``relative_to`` when given."""
    fragment = f"#{anchor}" if anchor else ""
    if site():
        return f"{site()}/{Path(page).with_suffix('.html').as_posix()}{fragment}"
    path = ROOT / page
    if not path.exists():
        return f"{page}{fragment}"
    if relative_to is not None:
        return f"{Path(os.path.relpath(path, relative_to)).as_posix()}{fragment}"
    return f"{path}{fragment}"


def section_link(place: dict, relative_to: Path | None = None) -> tuple[str, str]:
    """(the words, e.g. "08 §3c", the address) of a "shown in" place."""
    notebook = ROOT / "notebooks" / place["notebook"]
    words = SECTION_WORDS.match(place["section"])
    anchor = section_anchor(notebook, words.group(1)) if words and notebook.exists() else ""
    label = f"{place['notebook'][:2]} {place['section']}".strip()
    return label, page_address(f"notebooks/{place['notebook']}", anchor, relative_to)


def plain(markdown: str) -> str:
    """Markdown links as their text (a notebook's link as its path)."""
    return MARKDOWN_LINK.sub(lambda m: m.group(1) if "notebooks/" in m.group(2) else f"{m.group(1)} ({m.group(2)})",
                             markdown)


def one_line(text: str, width: int = ONE_LINE) -> str:
    """``text`` on one line, cut at ``width`` characters; a code span cut open is closed."""
    text = " ".join(plain(text).split())
    if len(text) <= width:
        return text
    cut = text[:width - 1].rstrip()
    return cut + ("`…" if cut.count("`") % 2 else "…")


def _errors_page(entry: dict, relative_to: Path | None = None) -> str:
    return page_address(index.page_texts()["errors"]["path"], heading_anchor(entry["group"]), relative_to)


def _not_in_index(d: Diagnosis, relative_to: Path | None = None) -> list[str]:
    pages = index.page_texts()
    return [f"Not in the index: no message of \"Diagnose your error\" matches",
            f"  {d.message[:200]}",
            f"If your code raises nothing but does not learn, see Diagnose a symptom: "
            f"{page_address(pages['symptoms']['path'], relative_to=relative_to)}",
            f"All messages: {page_address(pages['errors']['path'], relative_to=relative_to)}"]


def _full(n: int, r: Ranked) -> list[str]:
    """A cause in full: its text, the evidence that ranked it, its fix, where it is shown, its reports."""
    c = r.cause
    where = "; ".join(f"{address} {words}".rstrip() for words, address in
                      ((p["section"], section_link(p)[1]) for p in c["shown_in"]))
    return ([f"{n}. {plain(c['cause'])}"] + [f"   because: {line}" for line in r.because]
            + [f"   fix: {plain(c['fix'])}", f"   shown in: {where}", f"   reports: {plain(linked(c['reports']))}"])


def text_lines(d: Diagnosis) -> list[str]:
    """The answer for one diagnosis, as lines of plain text."""
    if d.entry is None:
        return _not_in_index(d)
    e = d.entry
    lines = [f"Your error: {one_line(d.message, 160)}", f"In the index under \"{e['group']}\": {_errors_page(e)}"]
    if d.unknown_case:
        lines += [f"Your case, {d.unknown_case}, is none of the cases the index knows for this message.",
                  f"What the message means: {plain(e['family']['mechanism'])}",
                  "The known cases:"]
        lines += [f"  {r.position}. {one_line(r.cause['cause'])}" for r in d.others]
        return lines
    if d.ranked:
        lines.append("Most likely, from your traceback and code:")
        for n, r in enumerate(d.ranked[:TOP], 1):
            lines += _full(n, r)
        rest = sorted(d.ranked[TOP:] + d.others, key=lambda r: r.position)
        if rest:
            lines.append(f"Other causes ({len(rest)}):")
            lines += [f"  {r.position}. {one_line(r.cause['cause'])}" for r in rest]
        return lines
    if len(d.others) <= TOP:
        lines.append("Its cause:" if len(d.others) == 1 else
                     "Its causes (nothing in the traceback or the code tells them apart):")
        for r in d.others:
            lines += _full(r.position, r)
        return lines
    lines.append(f"Nothing in the traceback or the code points to one of its {len(d.others)} causes; each, "
                 "in the index's order, with its fix (give the doctor your code to rank them):")
    for r in d.others:
        lines += [f"  {r.position}. {one_line(r.cause['cause'])}",
                  f"     fix: {one_line(r.cause['fix'])} [{section_link(r.cause['shown_in'][0])[0]}]"]
    return lines


def _inline_html(markdown: str, relative_to: Path | None) -> str:
    """Inline Markdown (code, links, emphasis) as HTML; links to notebooks made openable."""
    out = []
    for part in re.split(r"(`[^`]*`)", markdown):
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        text = html.escape(part, quote=False)
        text = MARKDOWN_LINK.sub(lambda m: f'<a href="{html.escape(_address(m.group(2), relative_to))}" '
                                           f'target="_blank">{m.group(1)}</a>', text)
        out.append(re.sub(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])", r"<em>\1</em>", text))
    return "".join(out)


def _address(url: str, relative_to: Path | None) -> str:
    if url.startswith("notebooks/"):
        return page_address(url, relative_to=relative_to)
    return url


def html_answer(diagnoses: list[Diagnosis], relative_to: Path | None = None) -> str:
    """The answer as HTML for a notebook: ranked causes open, the others folded."""
    md = lambda text: _inline_html(text, relative_to)  # noqa: E731

    def link(place: dict) -> str:
        label, address = section_link(place, relative_to)
        return f'<a href="{html.escape(address)}" target="_blank">{html.escape(label)}</a>'

    parts = ['<div class="autograd-doctor" style="border-left: 3px solid #d9822b; padding: 0.2em 0.8em; '
             'margin-top: 0.5em">', "<b>autograd-doctor</b>"]
    for d in diagnoses:
        if d.entry is None:
            parts.append(f"<p>{'<br>'.join(html.escape(line) for line in _not_in_index(d, relative_to))}</p>")
            continue
        e = d.entry
        page = _errors_page(e, relative_to)
        parts.append(f'<p>Your error: <code>{html.escape(one_line(d.message, 160))}</code><br>In the index under '
                     f'<a href="{html.escape(page)}" target="_blank">{html.escape(e["group"])}</a></p>')
        if d.unknown_case:
            parts.append(f"<p>Your case, <code>{html.escape(d.unknown_case)}</code>, is none of the cases the index "
                         f"knows for this message. What it means: {md(e['family']['mechanism'])}</p>")
            parts.append("<p>The known cases:</p><ul>" + "".join(
                f"<li>{md(r.cause['cause'])} ({link(r.cause['shown_in'][0])})</li>" for r in d.others) + "</ul>")
            continue
        if d.ranked:
            parts.append("<p>Most likely, from your traceback and code:</p><ol>")
            for r in d.ranked[:TOP]:
                because = "".join(f"<br><i>because</i> {md(line)}" for line in r.because)
                shown = ", ".join(link(p) for p in r.cause["shown_in"])
                parts.append(f"<li>{md(r.cause['cause'])}{because}<br><i>fix</i>: {md(r.cause['fix'])}"
                             f"<br><i>shown in</i> {shown}</li>")
            parts.append("</ol>")
            rest = sorted(d.ranked[TOP:] + d.others, key=lambda r: r.position)
            summary = f"Other causes ({len(rest)})"
        else:
            rest = d.others
            parts.append(f"<p>Nothing in the traceback or the cell points to one of its {len(rest)} causes.</p>")
            summary = f"Its {len(rest)} causes, in the index's order"
        if rest:
            parts.append(f"<details><summary>{summary}</summary><ul>" + "".join(
                f"<li>{md(r.cause['cause'])}; <i>fix</i>: {md(r.cause['fix'])} ({link(r.cause['shown_in'][0])})</li>"
                for r in rest) + "</ul></details>")
    parts.append("</div>")
    return "\n".join(parts)


def answer(text: str, code: str = "", code_label: str = "your code") -> tuple[bool, str]:
    """(whether the text's error is in the index, the answer to print)."""
    found = diagnose(text, code, code_label)
    return found[0].entry is not None, "\n\n".join("\n".join(text_lines(d)) for d in found)
