"""Render the figures written by the reliability tests as the Markdown table of
docs/reliability.md.

Usage::

    LEOGYM_RELIABILITY_SIZE=full python -m pytest tests/reliability     # writes the figures
    python tests/reliability/make_table.py [FIGURES_DIR]                # prints the table

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
}


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
    print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
