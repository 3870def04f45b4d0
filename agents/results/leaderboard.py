"""The leaderboard: one row per distinct policy (per scenario), printed with rich and saved as
Markdown.

* Baselines that run the same native algorithms are one policy and one row, labelled
  ``"CUBIC = minRTT"`` (:mod:`leogym.agents.results.distinct`); a note says so.
* Goodput and the return are shown as ``mean [lo, hi]``: the mean over seeds and its 95 %
  percentile bootstrap interval (:func:`~leogym.agents.results.intervals.mean_ci`, seeded).
* A policy with fewer than :data:`MIN_SEEDS` seeds is flagged: published numbers need at least
  five seeds per policy (docs/evaluation.md).
* With several scenarios, an aggregate section gives each policy's interquartile mean of the
  normalised score with its stratified bootstrap interval (``aggregate.parquet``,
  :mod:`leogym.agents.results.aggregate`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from leogym.agents.results.distinct import merge_identical_rows, merge_notes
from leogym.agents.results.intervals import mean_ci
from leogym.agents.results.table import is_lower_better

__all__ = [
    "COLUMNS",
    "MIN_SEEDS",
    "aggregate_table",
    "leaderboard",
    "notes",
    "print_leaderboard",
    "to_markdown",
]

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
    ("share_of_fair", "share of fair", "{:.2f}"),
    ("return", "return", "{:.1f}"),
)

#: Metrics shown with the bootstrap interval of their mean over seeds.
WITH_INTERVAL = ("goodput_mbps", "return")

#: Fewest seeds per policy for a published number (Agarwal et al., NeurIPS 2021).
MIN_SEEDS = 5

#: Metrics that exist only for some episodes (a file that finished, goodput that settled): the
#: leaderboard shows their mean over those episodes and how many they are.
_COUNTED = ("completion_time_s", "convergence_time_s")

#: Aggregate metrics shown in the aggregate section: (metric, header).
_AGGREGATE_COLUMNS = (
    ("goodput_mbps", "goodput IQM"),
    ("rtt_p95_ms", "RTT p95 IQM"),
    ("return", "return IQM"),
)


def leaderboard(results: pd.DataFrame, sort_by: str = "goodput_mbps") -> pd.DataFrame:
    """Per (scenario, distinct policy): episodes, seeds, the mean of each leaderboard metric,
    and for goodput and the return the 95 % bootstrap interval of the mean over seeds
    (``<metric>_ci_low``, ``<metric>_ci_high``); sorted best first by ``sort_by`` within each
    scenario. Completion and convergence times are means over the episodes that have one,
    with their count in ``<metric>_n``. Identical baselines are merged first
    (:func:`~leogym.agents.results.distinct.merge_identical_rows`)."""
    if sort_by not in results:
        raise ValueError(f"main_job.sort_by: {sort_by!r} is not a results column")
    results = merge_identical_rows(results)
    rows: list[dict[str, Any]] = []
    for (scenario, policy), g in results.groupby(["scenario", "policy"], sort=False):
        row: dict[str, Any] = {
            "scenario": scenario,
            "policy": policy,
            "kind": g["kind"].iloc[0],
            "cc": g["cc"].iloc[0],
            "scheduler": g["scheduler"].iloc[0],
            "episodes": len(g),
            "seeds": int(g["seed"].nunique()),
        }
        for metric, _, _ in COLUMNS:
            if metric in g:
                row[metric] = float(g[metric].mean())
                if metric in _COUNTED:
                    row[f"{metric}_n"] = int(g[metric].notna().sum())
                if metric in WITH_INTERVAL:
                    lo, hi = mean_ci(g[metric].to_numpy(dtype=np.float64))
                    row[f"{metric}_ci_low"], row[f"{metric}_ci_high"] = lo, hi
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


def _with_interval(value: Any, low: Any, high: Any, fmt: str) -> str:
    """``"mean [lo, hi]"``, or the mean alone where the interval is not finite."""
    text = _fmt(value, fmt)
    if text != "–" and all(isinstance(x, float) and math.isfinite(x) for x in (low, high)):
        text += f" [{fmt.format(low)}, {fmt.format(high)}]"
    return text


def _cells(row: pd.Series, board: pd.DataFrame) -> list[str]:
    seeds = int(row.get("seeds", row["episodes"]))
    cells = [
        str(row["policy"]),
        _control(row["cc"]),
        _control(row["scheduler"]),
        f"{seeds} (< {MIN_SEEDS})" if seeds < MIN_SEEDS else str(seeds),
    ]
    for metric, _, fmt in COLUMNS:
        if metric not in board or board[metric].isna().all():
            continue
        if metric in WITH_INTERVAL:
            text = _with_interval(
                row[metric], row.get(f"{metric}_ci_low"), row.get(f"{metric}_ci_high"), fmt
            )
        else:
            text = _fmt(row[metric], fmt)
        if metric in _COUNTED and int(row.get(f"{metric}_n", 0)) < int(row["episodes"]):
            text += f" ({int(row[f'{metric}_n'])}/{int(row['episodes'])})"
        cells.append(text)
    return cells


def _control(name: Any) -> str:
    return "agent" if name == "external" else str(name)


def _headers(board: pd.DataFrame) -> list[str]:
    heads = ["policy", "CC", "scheduler", "seeds"]
    heads += [h for m, h, _ in COLUMNS if m in board and not board[m].isna().all()]
    return heads


#: What the intervals of the per-scenario tables are.
_CAPTION = "goodput and return: mean over seeds [95 % bootstrap CI]"


def notes(board: pd.DataFrame) -> list[str]:
    """The leaderboard's notes: merged baselines, and policies with too few seeds."""
    out = merge_notes(board)
    if "seeds" in board:
        few = board[board["seeds"] < MIN_SEEDS].drop_duplicates("policy")
        if len(few):
            listed = ", ".join(f"{r.policy} ({int(r.seeds)})" for r in few.itertuples())
            out.append(
                f"Fewer than {MIN_SEEDS} seeds: {listed}. Numbers for publication need at "
                f"least {MIN_SEEDS} seeds per policy (docs/evaluation.md)."
            )
    return out


def aggregate_table(agg: pd.DataFrame | None) -> pd.DataFrame:
    """Per policy, the IQM of the normalised score with its interval, as text, for the
    aggregate section; empty unless the evaluation covered several scenarios.

    :param agg: ``aggregate.parquet`` (:mod:`leogym.agents.results.aggregate`) or ``None``.
    """
    if agg is None or not len(agg) or int(agg["n_scenarios"].max()) < 2:
        return pd.DataFrame()
    iqm = agg[agg["statistic"] == "iqm"]
    rows: list[dict[str, Any]] = []
    order = (
        iqm[iqm["metric"] == iqm["metric"].iloc[0]]
        .sort_values("value", ascending=False, kind="stable")["policy"]
        .tolist()
    )
    order += [p for p in dict.fromkeys(iqm["policy"]) if p not in order]
    for policy in order:
        sub = iqm[iqm["policy"] == policy].set_index("metric")
        row: dict[str, Any] = {"policy": policy}
        for metric, head in _AGGREGATE_COLUMNS:
            if metric in sub.index:
                r = sub.loc[metric]
                row[head] = _with_interval(
                    float(r["value"]), float(r["ci_low"]), float(r["ci_high"]), "{:.2f}"
                )
        row["scenarios"] = int(sub["n_scenarios"].max())
        row["seeds"] = int(sub["n_seeds"].min())
        rows.append(row)
    return pd.DataFrame(rows).fillna("–")


_AGGREGATE_CAPTION = (
    "interquartile mean of the score normalised per scenario (0 = worst baseline, 1 = best; "
    "a smaller RTT is better) [95 % stratified bootstrap CI]"
)


def print_leaderboard(
    board: pd.DataFrame,
    *,
    console: Any = None,
    title: str = "leaderboard",
    aggregate: pd.DataFrame | None = None,
) -> None:
    """Print the leaderboard as rich tables (one per scenario), its notes, and with several
    scenarios the aggregate section (``aggregate``: ``aggregate.parquet``)."""
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
        table.caption = _CAPTION
        console.print(table)
    agg = aggregate_table(aggregate)
    if len(agg):
        table = Table(title=f"{title}: aggregate over {int(agg['scenarios'].max())} scenarios")
        for i, head in enumerate(agg.columns):
            table.add_column(str(head), justify="left" if i == 0 else "right")
        for _, row in agg.iterrows():
            table.add_row(*(str(v) for v in row))
        table.caption = _AGGREGATE_CAPTION
        console.print(table)
    for note in notes(board):
        console.print(f"note: {note}", markup=False)


def to_markdown(board: pd.DataFrame, *, aggregate: pd.DataFrame | None = None) -> str:
    """The leaderboard as Markdown tables (one per scenario), its notes, and with several
    scenarios the aggregate section (``aggregate``: ``aggregate.parquet``)."""
    out: list[str] = []
    heads = _headers(board)
    for scenario, sub in board.groupby("scenario", sort=False):
        out.append(f"### scenario `{scenario}`\n")
        out.append("| " + " | ".join(heads) + " |")
        out.append("|" + "|".join(["---"] * 3 + ["---:"] * (len(heads) - 3)) + "|")
        for _, row in sub.iterrows():
            out.append("| " + " | ".join(_cells(row, board)) + " |")
        out.append(f"\n{_CAPTION[0].upper()}{_CAPTION[1:]}.\n")
    agg = aggregate_table(aggregate)
    if len(agg):
        out.append(f"### aggregate over {int(agg['scenarios'].max())} scenarios\n")
        out.append(f"{_AGGREGATE_CAPTION[0].upper()}{_AGGREGATE_CAPTION[1:]}.\n")
        out.append("| " + " | ".join(str(c) for c in agg.columns) + " |")
        out.append("|---|" + "|".join(["---:"] * (len(agg.columns) - 1)) + "|")
        for _, row in agg.iterrows():
            out.append("| " + " | ".join(str(v) for v in row) + " |")
        out.append("")
    for note in notes(board):
        out.append(f"- {note}")
    if notes(board):
        out.append("")
    return "\n".join(out)
