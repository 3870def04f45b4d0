"""Render the figures written by the reliability tests as the Markdown tables of
docs/reliability.md: every class, then the edge classes of issue 33 (``fuzz_edges.py``),
whose inputs carry their verdict, with columns for hangs and silently accepted inputs.

Usage::

    LEOGYM_RELIABILITY_SIZE=full python -m pytest tests/reliability     # writes the figures
    python tests/reliability/make_table.py [FIGURES_DIR]                # prints the tables

``FIGURES_DIR`` defaults to ``$LEOGYM_RELIABILITY_DIR`` or ``build/reliability``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ORDER = ("bad input", "corrupt file", "fault", "long run")
#: How outcome keys read in the table.
LABELS = {
    "accepted": "accepted (valid or clipped) and run",
    "clear_error": "clear error naming the field (or file)",
    "clear_error_late": "clear error naming the field, raised at the first step",
    "upstream_error": "Gymnasium's own error (upstream)",
    "unclear_error": "UNCLEAR ERROR",
    "late_error": "LATE ERROR (validation gap)",
    "wrongly_rejected": "VALID INPUT REJECTED",
    "not_recovered": "NOT RECOVERED",
    "accepted_with_warning": "accepted with a warning",
    "worker_failed": "WORKER FAILED",
    "clear_error_relation": "valid by its range, refused by a check across fields (named)",
    "silently_accepted": "SILENTLY ACCEPTED",
    "slow": "SLOW (a reset or step over its bound)",
    "frozen_time": "FROZEN TIME (episode past its timeline)",
    "code_from_a_name": "CODE RUN FROM A NAME",
}
#: Outcomes of the edge targets (fuzz_edges.py) that are defects, by column of the edge table.
SILENT = ("silently_accepted", "frozen_time", "code_from_a_name")
UNCLEAR = ("unclear_error", "late_error", "wrongly_rejected")


def load(folder: Path) -> list[dict[str, Any]]:
    rows = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    return sorted(
        rows,
        key=lambda r: (
            ORDER.index(r["category"]) if r["category"] in ORDER else len(ORDER),
            r["id"],
        ),
    )


def _outcome(row: dict[str, Any]) -> str:
    parts = []
    for key, n in sorted(row["outcomes"].items(), key=lambda kv: -kv[1]):
        parts.append(f"{LABELS.get(key, key.replace('_', ' '))}: {n}")
    return "; ".join(parts)


def _timing(t: dict[str, float]) -> str:
    """``slowest reset / slowest step`` in seconds, or a dash for a class that runs nothing."""
    if not any(t.values()):
        return "-"
    return f"{t.get('reset_s', 0):.2f} / {t.get('step_s', 0):.2f}"


def render_edges(rows: list[dict[str, Any]]) -> str:
    """The table of the edge targets (rows whose ``extra.oracle`` is set): each input generated
    with its verdict, so silent acceptance and hangs have their own columns."""
    out = [
        "| class | cases | clear errors | valid, run | aborts | hangs | silently accepted | "
        "unclear errors | slowest reset / step (s) | wall / CPU (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total = dict.fromkeys(("cases", "aborts", "hangs", "silent", "unclear"), 0)
    for r in rows:
        o, x = r["outcomes"], r.get("extra", {})
        t = x.get("timings") or {}
        row = {
            "cases": r["cases"],
            "aborts": r["aborts"],
            "hangs": x.get("hangs", 0) + o.get("slow", 0),
            "silent": sum(o.get(k, 0) for k in SILENT),
            "unclear": sum(o.get(k, 0) for k in UNCLEAR) + o.get("worker_failed", 0),
        }
        for k in total:
            total[k] += row[k]
        clear = o.get("clear_error", 0) + o.get("clear_error_relation", 0)
        out.append(
            f"| {r['what']} | {row['cases']:,} | {clear} | {o.get('accepted', 0)} | "
            f"{row['aborts']} | {row['hangs']} | {row['silent']} | {row['unclear']} | "
            f"{_timing(t)} | "
            f"{x.get('wall_s') or 0:.0f} / {x.get('cpu_s') or 0:.0f} |"
        )
    where = sorted({f"{x.get('date', '?')} on {x.get('machine', '?')}" for r in rows
                    for x in [r.get("extra", {})]})  # fmt: skip
    out.append("")
    out.append(
        f"{len(rows)} classes, {total['cases']:,} cases: {total['aborts']} aborts, "
        f"{total['hangs']} hangs, {total['silent']} silently accepted, {total['unclear']} "
        f"unclear errors (run size: {', '.join(sorted({r.get('size', '?') for r in rows}))}; "
        f"{'; '.join(where)})."
    )
    return "\n".join(out)


def render(rows: list[dict[str, Any]]) -> str:
    out = [
        "| category | input or fault | cases | outcome | aborts | lost | notes |",
        "|---|---|---:|---|---:|---:|---|",
    ]
    for r in rows:
        notes = r.get("notes", "").replace("|", "\\|")
        out.append(
            f"| {r['category']} | {r['what']} | {r['cases']:,} | {_outcome(r)} | "
            f"{r['aborts']} | {r['lost']} | {notes} |"
        )
    total = sum(r["cases"] for r in rows)
    aborts = sum(r["aborts"] for r in rows)
    lost = sum(r["lost"] for r in rows)
    sizes = sorted({r.get("size", "?") for r in rows})
    out.append("")
    out.append(
        f"{len(rows)} classes, {total:,} cases, {aborts} aborts, {lost} results lost "
        f"(run size: {', '.join(sizes)})."
    )
    return "\n".join(out)


def main(argv: list[str]) -> int:
    folder = (
        Path(argv[1])
        if len(argv) > 1
        else Path(os.environ.get("LEOGYM_RELIABILITY_DIR", ROOT / "build" / "reliability"))
    )
    rows = load(folder)
    if not rows:
        print(f"no figures in {folder}; run the tests in tests/reliability first", file=sys.stderr)
        return 1
    edges = [r for r in rows if r.get("extra", {}).get("oracle")]
    others = [r for r in rows if r not in edges]
    if others:
        print(render(others))
    if edges:
        print("\n" if others else "", end="")
        print(render_edges(edges))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
