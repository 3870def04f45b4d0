"""The docs' figures, generated from the records (``python -m benchmarks --render``).

A full run of the suite leaves one dated record, ``benchmarks/results/records/<UTC time>.csv``.
README.md and docs/benchmarks.md hold blocks between ``<!-- figures:begin NAME -->`` and
``<!-- figures:end NAME -->``; :func:`render_text` rewrites each from the records, so a figure
in the docs is always one of a record's. A figure is taken from the newest record that measured
it (a row with a finite value, not skipped); one that only an older record has keeps that
record's value and says which record it came from. ``tests/docs/test_figures_of_record.py``
re-renders the committed docs and fails when they differ.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import Row, _fmt, format_table, read_csv

__all__ = [
    "Record",
    "load_records",
    "render_text",
    "render_main",
    "BLOCKS",
    "DOC_FILES",
    "BlockError",
]

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = ("README.md", "docs/benchmarks.md")
#: A block: its markers each on a line of their own (a marker quoted inside a line is text).
_BLOCK = re.compile(
    r"^(<!-- figures:begin (?P<name>[\w-]+) -->\n)(?P<body>.*?)^(<!-- figures:end (?P=name) -->)$",
    re.DOTALL | re.MULTILINE,
)
_BEGIN = re.compile(r"^<!-- figures:begin ([\w-]+) -->$", re.MULTILINE)


class BlockError(ValueError):
    """A figure block is unknown, unterminated, or asks for a figure that no record has."""


@dataclass(frozen=True)
class Record:
    """One full run: its name (the file's stem, the UTC start time) and its rows."""

    name: str
    rows: tuple[Row, ...]

    def find(self, section: str, metric: str) -> Row | None:
        """The row ``section``/``metric`` when this run measured it (finite, not skipped)."""
        for r in self.rows:
            if r.section == section and r.metric == metric:
                if r.status in {"skipped", "error"} or not math.isfinite(r.value):
                    return None
                return r
        return None


def load_records(folder: Path) -> list[Record]:
    """Every record in ``folder``, oldest first (the names sort by time)."""
    paths = sorted(folder.glob("*.csv"))
    if not paths:
        raise BlockError(f"{folder}: no records (run `python -m benchmarks` once in full)")
    return [Record(p.stem, tuple(read_csv(p))) for p in paths]


class Figures:
    """Look-ups into the records, newest first; remembers which older records were used."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = list(records)
        self.newest = self.records[-1]

    def row(self, section: str, metric: str) -> tuple[Row, str]:
        """The newest measurement of a figure and the name of the record that holds it."""
        for rec in reversed(self.records):
            r = rec.find(section, metric)
            if r is not None:
                return r, rec.name
        raise BlockError(f"no record has the figure {section}: {metric!r}")

    def value(self, section: str, metric: str) -> str:
        """The figure as text with its unit, and ``[record X]`` when not from the newest."""
        r, name = self.row(section, metric)
        text = _with_unit(r.value, r.unit)
        return text if name == self.newest.name else f"{text} [record {name}]"

    def joined(self, section: str, template: str, keys: Sequence[str]) -> str:
        """``value(section, template.format(k))`` for each key, joined with `` / ``."""
        return " / ".join(self.value(section, template.format(k)) for k in keys)


def _with_unit(value: float, unit: str) -> str:
    if unit == "bool":
        return "yes" if value else "no"
    if unit in {"x", "%"}:
        return f"{_fmt(value)}{unit}"
    if unit == "us":
        return f"{_fmt(value)} µs"
    return f"{_fmt(value)} {unit}".strip()


def _machine_line(rec: Record) -> str:
    """One sentence: when, on what, and how loaded the machine was."""
    f = Figures([rec])

    def get(metric: str) -> Row | None:
        return rec.find("machine", metric)

    host = get("CPUs (nproc)")
    what = (
        f"{int(host.value)} CPUs ({host.note})"
        if host
        else f"{(get('load average (1 min), before') or Row('', '', 0, '')).note}"
    )
    load = [get(f"load average (1 min), {w}") for w in ("before", "after")]
    others = [get(f"CPU used by other processes, {w}") for w in ("before", "after")]
    wall = f.row("machine", "suite wall time")[0].value
    parts = [f"record `{rec.name}`: {what}"]
    if all(load):
        parts.append(
            "load average (1 min) before / after: "
            + " / ".join(f"{r.value:.2f}" for r in load if r)
        )
    if all(others):
        parts.append(
            "CPU used by other processes before / after: "
            + " / ".join(f"{r.value:.0f} %" for r in others if r)
            + " (100 % = one core)"
        )
    parts.append(f"suite wall time {wall / 60:.1f} min")
    return "; ".join(parts) + "."


def _table(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in body]
    return "\n".join(lines)


def _readme(f: Figures) -> str:
    """README.md's headline table."""
    env = f.joined("env", "{} sim_s per wall_s", ("tiny", "default", "highrate"))
    links = ("50mbps_40ms_bdp", "100mbps_100ms_bdp")
    tcp = f.joined("transport", "{} ours_ack2 speed vs ns-3 TCP", links)
    udp = f.joined("transport", "{} ours_ack2 cost per packet vs raw UDP", links)
    udp_link = f.joined("transport", "{} ours_ack2 cost per link packet vs raw UDP", links)
    env_cpu = f.value("vector", "default: 1 async env(s) CPU per step")
    body = [
        ["simulated seconds per wall-clock second, `tiny` / `default` / `highrate`", env],
        ["transport vs ns-3 TCP, same bytes, 50 Mbit/s 40 ms / 100 Mbit/s 100 ms link", tcp],
        [
            "transport CPU per packet vs raw ns-3 UDP, per data packet; per link packet",
            f"{udp}; {udp_link}",
        ],
        [
            "per-step cost: in-process boundary vs ns3-gym ZMQ bridge",
            f"{f.value('overhead', 'in-process boundary: Simulation.step, idle')} vs "
            f"{f.value('overhead', 'ns3-gym bridge env.step (same env)')}, "
            f"{f.value('overhead', 'bridge overhead / in-process boundary')}",
        ],
        ["`default` env, CPU per env step (1 async env, worker and main process)", env_cpu],
        [
            "2 async envs vs 1: wall clock; from CPU time",
            f"{f.value('vector', 'default: scaling at 2 envs')}; "
            f"{f.value('vector', 'default: CPU-bound scaling at 2 envs')}",
        ],
        _training_row(f),
        [
            "fidelity knob `rate_scale` = 4 / 16 on `default`: speed-up; goodput change",
            f"{f.joined('fidelity', 'default rate_scale={}: speed-up', ('4', '16'))}; "
            f"{f.joined('fidelity', 'default rate_scale={}: goodput change', ('4', '16'))}",
        ],
        ["RSS growth over 500 resets", f.value("memory", "tiny RSS growth over 500 resets")],
    ]
    return _table(["figure", "value"], body) + f"\n\nFrom the newest {_machine_line(f.newest)}\n"


def _training_row(f: Figures) -> list[str]:
    ppo = f.value("training", "PPO MlpPolicy default, 1 env: steps per CPU s / env alone")
    lstm = f.value(
        "training", "RecurrentPPO MlpLstmPolicy default, 1 env: steps per CPU s / env alone"
    )
    return [
        "training steps per CPU second / env alone: PPO `MlpPolicy`; RecurrentPPO `MlpLstmPolicy`",
        f"{ppo}; {lstm}",
    ]


def _targets(f: Figures) -> str:
    """docs/benchmarks.md: every figure that has a target, from the newest record having it."""
    seen: dict[tuple[str, str], None] = {}
    for rec in reversed(f.records):
        for r in rec.rows:
            if r.target:
                seen.setdefault((r.section, r.metric), None)
    body = []
    for section, metric in seen:
        try:
            r, name = f.row(section, metric)
        except BlockError:
            continue  # only ever skipped: nothing to report
        body.append(
            [
                f"`{section}`",
                metric,
                _with_unit(r.value, r.unit),
                r.target,
                f"**{r.status}**",
                name,
            ]
        )
    records = "\n".join(f"* {_machine_line(rec)}" for rec in reversed(f.records))
    return (
        _table(["section", "figure", "value", "target", "status", "record"], body)
        + f"\n\nRecords, newest first:\n\n{records}\n"
    )


def _record(f: Figures) -> str:
    """docs/benchmarks.md: every row of the newest record, as ``make bench`` printed it."""
    return f"From the {_machine_line(f.newest)}\n\n" + format_table(f.newest.rows, markdown=True)


BLOCKS: dict[str, Callable[[Figures], str]] = {
    "readme": _readme,
    "targets": _targets,
    "record": _record,
}


def render_text(text: str, records: Sequence[Record]) -> str:
    """``text`` with every figure block rewritten from ``records``.

    :raises BlockError: an unknown block name, or a begin marker without its end marker.
    """
    figures = Figures(records)
    begins = _BEGIN.findall(text)

    def fill(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in BLOCKS:
            raise BlockError(f"unknown figure block {name!r}; known: {sorted(BLOCKS)}")
        body = BLOCKS[name](figures)
        return m.group(1) + body + ("" if body.endswith("\n") else "\n") + m.group(4)

    out, n = _BLOCK.subn(fill, text)
    if n != len(begins):
        raise BlockError(f"figure blocks {begins}: {len(begins) - n} without a matching end")
    return out


def render_main(records_dir: Path, check: bool = False, root: Path = ROOT) -> int:
    """Rewrite (or, with ``check``, only compare) the figure blocks of :data:`DOC_FILES`."""
    records = load_records(records_dir)
    stale = []
    for rel in DOC_FILES:
        path = root / rel
        old = path.read_text()
        new = render_text(old, records)
        if new != old:
            stale.append(rel)
            if not check:
                path.write_text(new)
    verb = "differ from" if check else "rewritten from"
    print(f"{', '.join(stale) or 'no file'} {verb} {records[-1].name}", file=sys.stderr)
    return 1 if (check and stale) else 0
