"""The leaderboard: one row per policy (per scenario), printed with rich and saved as Markdown."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from leogym.agents.results.table import is_lower_better

__all__ = ["COLUMNS", "leaderboard", "print_leaderboard", "to_markdown"]

#: (metric, header, format) of the leaderboard columns, when present.
COLUMNS = (
    ("goodput_mbps", "goodput Mbit/s", "{:.2f}"),
    ("utilization", "util.", "{:.0%}"),
    ("rtt_p50_ms", "RTT p50 ms", "{:.1f}"),
    ("rtt_p95_ms", "RTT p95 ms", "{:.1f}"),
    ("completion_time_s", "completion s", "{:.2f}"),
    ("convergence_time_s", "converge s", "{:.1f}"),
    ("loss_outage_pkts", "lost: outage", "{:.0f}"),
    ("loss_random_pkts", "random", "{:.0f}"),
    ("loss_overflow_pkts", "overflow", "{:.0f}"),
    ("jain_flows", "Jain (flows)", "{:.2f}"),
    ("return", "return", "{:.1f}"),
)


#: Metrics that exist only for some episodes (a file that finished, goodput that settled): the
#: leaderboard shows their mean over those episodes and how many they are.
_COUNTED = ("completion_time_s", "convergence_time_s")


def leaderboard(results: pd.DataFrame, sort_by: str = "goodput_mbps") -> pd.DataFrame:
    """Per (scenario, policy): episodes, mean of each leaderboard metric, and the 95 % CI half
    width of goodput; sorted best first by ``sort_by`` within each scenario. Completion and
    convergence times are means over the episodes that have one, with their count in
    ``<metric>_n``."""
    from scipy import stats

    if sort_by not in results:
        raise ValueError(f"main_job.sort_by: {sort_by!r} is not a results column")
    rows: list[dict[str, Any]] = []
    for (scenario, policy), g in results.groupby(["scenario", "policy"], sort=False):
        row: dict[str, Any] = {
            "scenario": scenario,
            "policy": policy,
            "kind": g["kind"].iloc[0],
            "cc": g["cc"].iloc[0],
            "scheduler": g["scheduler"].iloc[0],
            "episodes": len(g),
        }
        for metric, _, _ in COLUMNS:
            if metric in g:
                row[metric] = float(g[metric].mean())
                if metric in _COUNTED:
                    row[f"{metric}_n"] = int(g[metric].notna().sum())
        v = g["goodput_mbps"].dropna().to_numpy(dtype=float)
        row["goodput_ci95"] = (
            float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
            if v.size > 1
            else math.nan
        )
        if sort_by not in row:
            row[sort_by] = float(g[sort_by].mean())
        rows.append(row)
    board = pd.DataFrame(rows)
    ascending = is_lower_better(sort_by)
    board = board.sort_values(
        ["scenario", sort_by], ascending=[True, ascending], na_position="last", kind="stable"
    ).reset_index(drop=True)
    return board


def _fmt(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return fmt.format(value)


def _cells(row: pd.Series, board: pd.DataFrame) -> list[str]:
    cells = [str(row["policy"]), _control(row["cc"]), _control(row["scheduler"])]
    for metric, _, fmt in COLUMNS:
        if metric not in board or board[metric].isna().all():
            continue
        text = _fmt(row[metric], fmt)
        if metric == "goodput_mbps" and math.isfinite(row.get("goodput_ci95", math.nan)):
            text += f" ± {row['goodput_ci95']:.2f}"
        if metric in _COUNTED and int(row.get(f"{metric}_n", 0)) < int(row["episodes"]):
            text += f" ({int(row[f'{metric}_n'])}/{int(row['episodes'])})"
        cells.append(text)
    return cells


def _control(name: Any) -> str:
    return "agent" if name == "external" else str(name)


def _headers(board: pd.DataFrame) -> list[str]:
    heads = ["policy", "CC", "scheduler"]
    heads += [h for m, h, _ in COLUMNS if m in board and not board[m].isna().all()]
    return heads


def print_leaderboard(
    board: pd.DataFrame, *, console: Any = None, title: str = "leaderboard"
) -> None:
    """Print the leaderboard as rich tables (one per scenario)."""
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        if not console.is_terminal:  # logs and pipes: do not squeeze the table into 80 columns
            console = Console(width=160)
    for scenario, sub in board.groupby("scenario", sort=False):
        table = Table(
            title=f"{title}: scenario {scenario}, {int(sub['episodes'].max())} episodes each"
        )
        for i, head in enumerate(_headers(board)):
            table.add_column(head, justify="left" if i < 3 else "right")
        for _, row in sub.iterrows():
            style = "bold red" if row["kind"] == "agent" else None
            table.add_row(*_cells(row, board), style=style)
        console.print(table)


def to_markdown(board: pd.DataFrame) -> str:
    """The leaderboard as Markdown tables (one per scenario)."""
    out: list[str] = []
    heads = _headers(board)
    for scenario, sub in board.groupby("scenario", sort=False):
        out.append(f"### scenario `{scenario}`\n")
        out.append("| " + " | ".join(heads) + " |")
        out.append("|" + "|".join(["---"] * 3 + ["---:"] * (len(heads) - 3)) + "|")
        for _, row in sub.iterrows():
            out.append("| " + " | ".join(_cells(row, board)) + " |")
        out.append("")
    return "\n".join(out)
