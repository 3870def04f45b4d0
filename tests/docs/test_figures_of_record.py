"""The benchmark figures in README.md and docs/benchmarks.md are the records' figures.

The docs' figure blocks (``<!-- figures:begin NAME -->`` .. ``<!-- figures:end NAME -->``) are
generated from ``benchmarks/results/records/*.csv`` by ``python -m benchmarks --render``. Here
they are re-rendered and compared with the committed text: a figure edited by hand, or a new
record without ``--render``, fails.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from docs_helpers import ROOT

from benchmarks.render import (
    DOC_FILES,
    BlockError,
    Record,
    load_records,
    render_text,
)

RECORDS = ROOT / "benchmarks" / "results" / "records"


@pytest.fixture(scope="module")
def records() -> list[Record]:
    return load_records(RECORDS)


@pytest.mark.parametrize("doc", DOC_FILES)
def test_doc_figures_are_those_of_the_records(doc: str, records: list[Record]) -> None:
    text = (ROOT / doc).read_text()
    assert "<!-- figures:begin " in text, f"{doc} has no figure block"
    assert render_text(text, records) == text, (
        f"{doc}: a figure block differs from the records; run "
        "`.venv/bin/python -m benchmarks --render` (never edit the blocks by hand)"
    )


def _changed(rec: Record, section: str, metric: str, value: float) -> Record:
    rows = tuple(
        replace(r, value=value) if (r.section, r.metric) == (section, metric) else r
        for r in rec.rows
    )
    assert rows != rec.rows, f"{section}: {metric} not in record {rec.name}"
    return Record(rec.name, rows)


def test_a_figure_that_disagrees_with_the_record_is_caught(records: list[Record]) -> None:
    text = (ROOT / "README.md").read_text()
    metric = "bridge overhead / in-process boundary"
    edited = [*records[:-1], _changed(records[-1], "overhead", metric, 12345.0)]
    assert render_text(text, edited) != text
    assert "12345x" in render_text(text, edited)


def test_a_figure_the_newest_record_lacks_names_its_record(records: list[Record]) -> None:
    metric = "tiny RSS growth over 500 resets"
    newest = Record("2099-01-01T0000Z", tuple(r for r in records[-1].rows if r.metric != metric))
    block = "<!-- figures:begin readme -->\n<!-- figures:end readme -->"
    out = render_text(block, [*records, newest])
    holder = next(rec.name for rec in reversed(records) if rec.find("memory", metric))
    assert f"[record {holder}]" in out and "record `2099-01-01T0000Z`" in out


@pytest.mark.parametrize(
    "text",
    [
        "<!-- figures:begin nosuch -->\n<!-- figures:end nosuch -->",
        "<!-- figures:begin readme -->\nno end marker",
    ],
)
def test_bad_blocks_are_errors(text: str, records: list[Record]) -> None:
    with pytest.raises(BlockError):
        render_text(text, records)


def test_no_records_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(BlockError, match="no records"):
        load_records(tmp_path)
