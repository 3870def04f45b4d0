"""Shared pieces of the benchmark suite: result rows, repeated measurements, machine load, output.

Every figure of ``python -m benchmarks`` is a :class:`Row`: a median over ``runs`` repeated
measurements (with their minimum and maximum), its unit, and, where the project has set one, the
target and whether it was met. Rows are printed as one table and written as CSV.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

__all__ = [
    "Row",
    "live_rss",
    "rss_over_cycles",
    "rss_growth_row",
    "run_json_child",
    "measure",
    "ratio_row",
    "load_snapshot",
    "cpu_model",
    "write_csv",
    "read_csv",
    "format_table",
    "CSV_COLUMNS",
]


@dataclass
class Row:
    """One figure of the benchmark table.

    :param section: which benchmark produced it (``env``, ``transport``, ``overhead``, ...).
    :param metric: what was measured, e.g. ``tiny sim_s_per_wall_s``.
    :param value: the median over ``runs`` measurements (or the single value).
    :param unit: unit of ``value``.
    :param runs: number of measurements behind ``value``.
    :param lo: smallest measurement.
    :param hi: largest measurement.
    :param target: the target, as text (e.g. ``>= 3``); empty when there is none.
    :param status: ``met``, ``missed``, ``skipped`` or empty (no target).
    :param note: anything needed to read the figure.
    """

    section: str
    metric: str
    value: float
    unit: str
    runs: int = 1
    lo: float = float("nan")
    hi: float = float("nan")
    target: str = ""
    status: str = ""
    note: str = ""


CSV_COLUMNS = [f.name for f in fields(Row)]


def measure(
    section: str,
    metric: str,
    unit: str,
    samples: Sequence[float],
    *,
    target: str = "",
    note: str = "",
) -> Row:
    """A row holding the median (and range) of ``samples``, checked against ``target``.

    :param target: ``">= x"`` or ``"<= x"`` (or empty); the median decides ``status``.
    """
    values = [float(s) for s in samples]
    med = statistics.median(values) if values else float("nan")
    return Row(
        section,
        metric,
        med,
        unit,
        len(values),
        min(values, default=float("nan")),
        max(values, default=float("nan")),
        target,
        check_target(med, target),
        note,
    )


def ratio_row(
    section: str,
    metric: str,
    num: Sequence[float],
    den: Sequence[float],
    *,
    target: str = "",
    note: str = "",
    unit: str = "x",
) -> Row:
    """Ratio of paired measurements ``num[i] / den[i]`` (median and range over the pairs).

    Pairs were measured back to back in the same run, so a change of machine load between
    pairs moves both sides of a pair alike.
    """
    ratios = [a / b for a, b in zip(num, den, strict=True) if b]
    return measure(section, metric, unit, ratios, target=target, note=note)


def check_target(value: float, target: str) -> str:
    """``met`` / ``missed`` for a target ``">= x"`` or ``"<= x"``; empty without a target."""
    if not target:
        return ""
    op, _, num = target.partition(" ")
    bound = float(num)
    if value != value:  # NaN
        return "missed"
    if op == ">=":
        return "met" if value >= bound else "missed"
    if op == "<=":
        return "met" if value <= bound else "missed"
    raise ValueError(f"target must be '>= x' or '<= x', got {target!r}")


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """``(wall seconds, result)`` of ``fn()``."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def load_snapshot() -> dict[str, Any]:
    """How busy the machine is: load averages, CPU count, and the CPU share used by processes
    other than this one and its children over one second (psutil)."""
    import psutil

    me = os.getpid()
    mine = {me} | {c.pid for c in psutil.Process(me).children(recursive=True)}
    procs = []
    for p in psutil.process_iter(["pid"]):
        if p.info["pid"] in mine:
            continue
        try:
            p.cpu_percent(None)
            procs.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    time.sleep(1.0)
    busy = 0.0
    for p in procs:
        try:
            busy += p.cpu_percent(None)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    la = os.getloadavg()
    return {
        "load1": la[0],
        "load5": la[1],
        "load15": la[2],
        "cpus": os.cpu_count() or 1,
        "others_cpu_percent": busy,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; ``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def write_csv(rows: Iterable[Row], path: Path) -> None:
    """Write ``rows`` as CSV (columns :data:`CSV_COLUMNS`), creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for r in rows:
            d = asdict(r)
            for k in ("value", "lo", "hi"):
                d[k] = _fmt(d[k], plain=True)
            w.writerow(d)


def read_csv(path: Path) -> list[Row]:
    """Rows written by :func:`write_csv` (e.g. a record in ``benchmarks/results/records/``)."""
    with open(path, newline="") as fh:
        out = []
        for d in csv.DictReader(fh):
            for k in ("value", "lo", "hi"):
                d[k] = float(d[k]) if d[k] else float("nan")
            d["runs"] = int(d["runs"])
            out.append(Row(**d))
        return out


def _fmt(x: float, plain: bool = False) -> str:
    if x != x:
        return "" if plain else "-"
    if plain:
        return repr(float(x))
    ax = abs(x)
    if ax >= 1e5:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 0.01 or ax == 0:
        return f"{x:.2f}"
    return f"{x:.2e}"


def format_table(rows: Sequence[Row], markdown: bool = False) -> str:
    """The rows as an aligned text table (or a Markdown table)."""
    head = ["section", "metric", "value", "unit", "runs", "range", "target", "status", "note"]
    body = []
    for r in rows:
        rng = "" if r.runs < 2 else f"{_fmt(r.lo)}..{_fmt(r.hi)}"
        body.append(
            [
                r.section,
                r.metric,
                _fmt(r.value),
                r.unit,
                str(r.runs),
                rng,
                r.target,
                r.status,
                r.note,
            ]
        )
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "/") for c in b) + " |" for b in body]
        return "\n".join(lines)
    width = [
        max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)
    ]
    width[-1] = len(head[-1])  # the note is left unpadded
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, width, strict=True)).rstrip()  # noqa: E731
    return "\n".join([fmt(head), fmt(["-" * w for w in width])] + [fmt(b) for b in body])


def live_rss(proc: Any) -> int:
    """RSS of ``proc`` (this process) after a garbage collection and, on glibc, after
    ``malloc_trim(0)`` hands the freed heap back to the system: the memory still in use, which a
    leak grows. Without the trim, glibc's retained free pages show as growth that is not a
    leak."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: the RSS as it is
    return int(proc.memory_info().rss)


def rss_over_cycles(cycle: Callable[[int], None], n: int, warm: int) -> dict[str, Any]:
    """RSS of this process over ``n`` calls of ``cycle(seed)`` after ``warm`` warm-up calls.

    :return: ``r0`` and ``r1`` (bytes, before and after the measured calls, each
        :func:`live_rss`), ``held`` (the RSS after the calls and a garbage collection, before
        the trim: what the allocator kept), ``samples`` (:func:`live_rss` after every tenth of
        the calls) and ``wall`` (s, the samples' trims included).
    """
    import gc

    import psutil

    proc = psutil.Process()
    for i in range(warm):
        cycle(i)
    r0 = live_rss(proc)
    t0 = time.perf_counter()
    samples = []
    for i in range(n):
        cycle(1000 + i)
        if (i + 1) % max(n // 10, 1) == 0:
            samples.append(live_rss(proc))
    wall = time.perf_counter() - t0
    gc.collect()
    held = proc.memory_info().rss
    r1 = live_rss(proc)
    return {"r0": r0, "r1": r1, "held": held, "samples": samples, "wall": wall}


def rss_growth_row(
    section: str, metric: str, r: dict[str, Any], n: int, note: str, target: str
) -> Row:
    """The row of one :func:`rss_over_cycles` result ``r`` of ``n`` cycles: ``metric``, the live
    RSS growth, with ``target``; in its note the samples, and what the allocator held."""
    live = ", ".join(f"{(s - r['r0']) / 2**20:.1f}" for s in r["samples"])
    return measure(
        section,
        metric,
        "MiB",
        [(r["r1"] - r["r0"]) / 2**20],
        target=target,
        note=f"{note}; live RSS (gc, malloc_trim) every {max(n // 10, 1)}: {live} MiB; "
        f"held before the last trim: {(r['held'] - r['r0']) / 2**20:.1f} MiB; "
        f"{1e3 * r['wall'] / n:.0f} ms per cycle",
    )


def run_json_child(script: str, args: Sequence[str], what: str) -> dict[str, Any]:
    """Run ``python -c script *args`` in a fresh process in the repository root (so on its path)
    and return the JSON object its last output line holds.

    :raises RuntimeError: the child failed (its stderr's end in the message, named ``what``).
    """
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=Path(__file__).resolve().parents[1],  # ``-c`` puts the working folder on the path
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def section_main(
    rows: Callable[[bool, int], list[Row]],
    doc: str | None,
    argv: list[str] | None = None,
    default_repeats: int = 5,
    single_when_quick: bool = True,
) -> int:
    """``python -m benchmarks.bench_X [--quick] [--repeats N]``: one section's table on stdout
    (with ``single_when_quick``, ``--quick`` runs a single repeat at the quick sizes)."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=default_repeats)
    args = ap.parse_args(argv)
    repeats = 1 if (args.quick and single_when_quick) else args.repeats
    print(format_table(rows(args.quick, repeats)))
    return 0
