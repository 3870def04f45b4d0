"""Shared helpers of the documentation tests: the repository's text files and Markdown anchors."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Top-level folders that are not the project's own text (environments, build and run outputs).
EXCLUDED_DIRS = {
    ".git",
    ".venv",
    "build",
    "outputs",
    "runs",
    "multirun",
    ".pytest_cache",
    ".ruff_cache",
    "__pycache__",
    ".ipynb_checkpoints",
}
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".yaml", ".yml", ".toml", ".h", ".cc", ".cpp", ".txt"}
TEXT_NAMES = {"Makefile", "CMakeLists.txt"}


def text_files() -> Iterator[Path]:
    """Every source, config and documentation file of the repository (sorted)."""
    found = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if any(part in EXCLUDED_DIRS for part in rel.parts) or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES:
            found.append(path)
    yield from sorted(found)


_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text in lower case, punctuation other than
    ``-`` and ``_`` removed, spaces turned into ``-``."""
    text = _LINK.sub(r"\1", heading).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "-_ ")
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors a Markdown file defines (headings outside code blocks, numbered like GitHub
    when they repeat, plus explicit ``<a id=...>`` / ``<a name=...>``)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        out.update(_HTML_ID.findall(line))
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def rel(path: Path) -> str:
    """``path`` relative to the repository root, with forward slashes."""
    return path.relative_to(ROOT).as_posix()
