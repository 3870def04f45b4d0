"""Shared machinery of the reliability tests: run size, the figures files, worker subprocesses.

Size: ``LEOGYM_RELIABILITY_SIZE=ci`` (default; a few minutes on two cores) or ``full`` (the
figures of docs/reliability.md). Every test records what it tried and what happened in
``$LEOGYM_RELIABILITY_DIR/<id>.json`` (default ``build/reliability/``);
``tests/reliability/make_table.py`` renders those files as the table of docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SIZE = os.environ.get("LEOGYM_RELIABILITY_SIZE", "ci")
if SIZE not in ("ci", "full"):
    raise ValueError(f"LEOGYM_RELIABILITY_SIZE must be 'ci' or 'full' (got {SIZE!r})")
FIGURES = Path(os.environ.get("LEOGYM_RELIABILITY_DIR", ROOT / "build" / "reliability"))


def sized(ci: int, full: int) -> int:
    """The count for the current run size."""
    return full if SIZE == "full" else ci


@dataclass
class Figure:
    """One row of the reliability table.

    :param id: unique key (file name), e.g. ``bad_input/scenario``.
    :param category: ``bad input``, ``corrupt file``, ``fault`` or ``long run``.
    :param what: the class of input or fault, in words.
    :param cases: how many cases were tried.
    :param outcomes: counts per outcome (``clear_error``, ``accepted``, ``handled``, ...).
    :param aborts: interpreter aborts (SIGABRT, SIGSEGV, ...) observed.
    :param lost: results lost (episodes, rows, checkpoints).
    :param notes: anything the table should say besides the counts.
    :param test: the pytest node id that produced the row.
    """

    id: str
    category: str
    what: str
    cases: int
    outcomes: dict[str, int]
    aborts: int = 0
    lost: int = 0
    notes: str = ""
    test: str = ""
    size: str = SIZE
    extra: dict[str, Any] = field(default_factory=dict)


def write_figure(fig: Figure) -> Path:
    """Write ``fig`` to ``FIGURES/<id>.json`` atomically."""
    path = FIGURES / f"{fig.id.replace('/', '__')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(fig), indent=1, default=str) + "\n")
    os.replace(tmp, path)
    return path


@dataclass
class WorkerResult:
    """What a worker subprocess did."""

    returncode: int
    report: dict[str, Any] | None
    last_input: str | None
    stderr: str

    @property
    def died(self) -> str | None:
        """The signal that killed the worker (``"SIGABRT"``), or ``None``."""
        if self.returncode < 0:
            return signal.Signals(-self.returncode).name
        return None


def run_fuzz_worker(
    target: str,
    examples: int,
    seed: int,
    tmp: Path,
    timeout_s: float,
    extra: list[str] | None = None,
) -> WorkerResult:
    """Run ``fuzz_worker.py`` in a subprocess; an abort or a hang is reported, not fatal."""
    out = tmp / f"{target}.json"
    log = tmp / f"{target}.log.jsonl"
    cmd = [
        sys.executable,
        str(HERE / "fuzz_worker.py"),
        target,
        "--examples",
        str(examples),
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--log",
        str(log),
        *(extra or []),
    ]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT, check=False
        )
        rc, err = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc, err = -int(signal.SIGKILL), f"timeout after {timeout_s} s (a hang)\n{exc.stderr!r}"
    last = None
    if log.is_file():
        lines = log.read_text(encoding="utf-8").splitlines()
        if lines:
            last = json.loads(lines[-1])["input"]
    report = json.loads(out.read_text()) if out.is_file() and rc == 0 else None
    return WorkerResult(rc, report, last, err[-4000:])
