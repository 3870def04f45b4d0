"""Every reference to a documentation file resolves, and nothing points outside the repository.

Scanned: every source, config and documentation file (``docs_helpers.text_files``). Checked:

* a path ``docs/...`` or ``cpp/doc/...`` names an existing file or folder (globs must match), and
  a ``#anchor`` after a Markdown file is one of its headings (GitHub's anchor rules);
* relative Markdown links (``[text](target#anchor)``) in ``.md`` files resolve the same way
  (``[quick start](specs/maco.md#quick-start)`` in ``docs/`` is how docs link the pages);
* no reference to the specifications names them without their folder (``specs/...``,
  ``maco.md 1.4``, "spec section 2"), or points at ``../shared`` / ``shared/specs``: those were
  reference notes outside the repository; the project's own pages are ``docs/specs/*.md``.

``cpp/`` is checked by its own test: it is edited on another branch, and its references to the
old specification notes are rewritten when that branch merges (the test names what is left).
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest
from docs_helpers import ROOT, anchors, rel, text_files

#: A path into the documentation, with an optional heading anchor.
PATH_REF = re.compile(r"(?<![\w./-])((?:docs|cpp/doc)/[\w./*-]*)(#[\w-]+)?")
#: A relative Markdown link target.
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: Names of specification pages; outside docs/specs/ they must be written with their folder
#: (or be the text of a Markdown link, ``[maco.md](specs/maco.md#quick-start)``).
SPEC_PAGES = (
    "maco",
    "freeze",
    "alcs",
    "scenarios",
    "ns3gym-protocol",
    "leotp",
    "starlink-dynamics",
    "testbed-transports",
    r"notes-[\w-]+",
)
BARE_SPEC_PAGE = re.compile(r"(?<![\w/.-])(?:" + "|".join(SPEC_PAGES) + r")\.md\b(?!\]\()")
#: "specs/" not preceded by "docs/"; references outside the repository.
OUTSIDE = re.compile(r"\.\./shared|shared/specs|/work/shared|shared/seeds")
#: Sections of "the spec" cited without naming the page.
SPEC_SECTION = re.compile(
    r"\bspecs?(?:'s)?\s+(?:sections?\s*\d|§\s*\d|[AF]\d+\b|\d+\.\d)"  # "spec A3", "spec 2.6"
    r"|\[(?:REC|R)\]?[ ,]*[AF]\d+\b"  # "[REC A5]", "[REC] A5": the old notes' item numbers
)

THIS_FILE = Path(__file__).resolve()
FILES = [p for p in text_files() if p.resolve() != THIS_FILE]


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _check_target(target: Path, anchor: str | None, where: str, shown: str) -> str | None:
    if "*" in str(target):
        if not glob.glob(str(target)):
            return f"{where}: {shown}: no file matches"
        return None
    if not target.exists():
        return f"{where}: {shown}: no such file"
    if anchor and target.suffix == ".md" and anchor not in anchors(target):
        return f"{where}: {shown}: no heading #{anchor} in {rel(target)}"
    return None


def problems(path: Path, text: str | None = None) -> list[str]:
    """Everything wrong with the documentation references of one file (``text``: its content,
    read from ``path`` when not given)."""
    if text is None:
        text = path.read_text(encoding="utf-8", errors="replace")
    name = rel(path)
    out: list[str] = []
    for m in PATH_REF.finditer(text):
        shown = m.group(1).rstrip(".")
        anchor = m.group(2)[1:] if m.group(2) else None
        if not shown.rstrip("/") or shown.endswith("/*"):
            continue
        err = _check_target(
            ROOT / shown, anchor, f"{name}:{_line(text, m.start())}", m.group(0).rstrip(".")
        )
        if err:
            out.append(err)
    link_spans: list[tuple[int, int]] = []
    if path.suffix == ".md":
        for m in MD_LINK.finditer(text):
            link_spans.append(m.span(1))
            target = m.group(1)
            if re.match(r"^[a-z]+:", target) or target.startswith("<"):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (path.parent / file_part).resolve() if file_part else path
            err = _check_target(
                resolved, anchor or None, f"{name}:{_line(text, m.start())}", f"({target})"
            )
            if err:
                out.append(err)
    for m in re.finditer(r"specs/", text):
        in_link = any(a <= m.start() < b for a, b in link_spans)  # resolved above
        if not in_link and text[max(0, m.start() - 5) : m.start()] != "docs/":
            out.append(
                f"{name}:{_line(text, m.start())}: bare 'specs/' "
                "(write docs/specs/<page>.md#<anchor>)"
            )
    for m in OUTSIDE.finditer(text):
        out.append(f"{name}:{_line(text, m.start())}: {m.group(0)!r} is outside the repository")
    in_specs = path.parent == ROOT / "docs" / "specs"
    if not in_specs:
        for m in BARE_SPEC_PAGE.finditer(text):
            out.append(
                f"{name}:{_line(text, m.start())}: {m.group(0)!r} without its folder "
                "(write docs/specs/<page>.md#<anchor>)"
            )
        for m in SPEC_SECTION.finditer(text):
            out.append(
                f"{name}:{_line(text, m.start())}: {m.group(0)!r} cites a section without the page"
            )
    return out


def _collect(in_cpp: bool) -> list[str]:
    found = []
    for path in FILES:
        if rel(path).startswith("cpp/") == in_cpp:
            found.extend(problems(path))
    return found


def test_scanned_files_include_code_docs_and_configs():
    names = {rel(p) for p in FILES}
    for expected in ("README.md", "docs/reproduction.md", "baselines/maco.py", "Makefile"):
        assert expected in names
    assert any(n.startswith("conf/scenario/") for n in names)
    assert not any(n.startswith(".venv/") for n in names)


def test_references_resolve():
    found = _collect(in_cpp=False)
    assert not found, "\n".join(found)


def test_cpp_references_resolve():
    found = _collect(in_cpp=True)
    assert not found, "\n".join(found)


def test_spec_pages_exist_and_are_indexed():
    index = (ROOT / "docs" / "specs" / "README.md").read_text(encoding="utf-8")
    for page in ("maco", "freeze", "alcs", "scenarios", "ns3gym-protocol"):
        path = ROOT / "docs" / "specs" / f"{page}.md"
        assert path.is_file(), path
        assert f"]({page}.md)" in index, f"docs/specs/README.md does not list {page}.md"
        assert len(anchors(path)) >= 5, f"{page}.md has too few sections to cite"


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Starlink's handover schedule", "starlinks-handover-schedule"),
        ("MACO (Yang et al., IEEE TMC 2024)", "maco-yang-et-al-ieee-tmc-2024"),
        ("ALCS (`MpAlcsScheduler`)", "alcs-mpalcsscheduler"),
        ("StarQUIC freeze (Kamel et al., LEO-NET '24)", "starquic-freeze-kamel-et-al-leo-net-24"),
        ("Fidelity knobs: `step_ms`, [rate scale](x.md)", "fidelity-knobs-step_ms-rate-scale"),
    ],
)
def test_slug_follows_github(heading, expected):
    from docs_helpers import slug

    assert slug(heading) == expected


def test_checker_catches_broken_references():
    """The checker itself: a missing file, a missing anchor and bare spec names are caught."""
    probe = ROOT / "docs" / "probe.md"  # not written: its text is given
    found = problems(
        probe,
        "see docs/nothing-here.md and docs/specs/maco.md#no-such-heading,\n"
        "specs/alcs.md 4.6, ../shared/specs/x.md, freeze.md 1.2, the spec section 2, [REC A5].\n"
        "[fine](specs/maco.md#quick-start) [broken](specs/maco.md#quick-stop)\n"
        "docs/specs/maco.md#quick-start and cpp/doc/transport.md are fine.\n",
    )
    text = "\n".join(found)
    assert "docs/nothing-here.md: no such file" in text
    assert "no heading #no-such-heading" in text
    assert "no heading #quick-stop" in text
    assert "outside the repository" in text
    assert "'freeze.md' without its folder" in text
    assert "cites a section without the page" in text
    assert "bare 'specs/'" in text
    assert "#quick-start" not in text
    assert len(found) == 9, text
