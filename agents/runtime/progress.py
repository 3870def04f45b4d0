"""Progress display for long work: a rich bar on a terminal, periodic log lines otherwise
(batch jobs, CI, SLURM logs), so progress is visible either way."""

from __future__ import annotations

import logging
import time
from typing import Any

__all__ = ["ProgressReporter"]

log = logging.getLogger("leogym.agents.runtime.progress")


class ProgressReporter:
    """Progress of ``total`` units of work.

    :param description: what is progressing (``training``, ``evaluating``).
    :param total: units of work in all.
    :param completed: units already done (a resumed run).
    :param enabled: ``False`` shows nothing.
    :param unit: unit name for the log lines.
    :param log_every_s: on a non-terminal, log at most this often (and at the end).
    """

    def __init__(
        self,
        description: str,
        total: int,
        *,
        completed: int = 0,
        enabled: bool = True,
        unit: str = "steps",
        log_every_s: float = 30.0,
    ) -> None:
        from rich.console import Console

        self.description = description
        self.total = int(total)
        self.completed = int(completed)
        self.unit = unit
        self.enabled = enabled
        self.log_every_s = log_every_s
        self._t0 = time.perf_counter()
        self._start = self.completed
        self._last_log = self._t0
        self._note = ""
        self._bar: Any = None
        console = Console(stderr=True)
        if enabled and console.is_terminal:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TextColumn("{task.fields[note]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
            )
            self._bar.start()
            self._task = self._bar.add_task(
                description, total=self.total, completed=self.completed, rate="", note=""
            )

    def rate(self) -> float:
        """Units per second since the start (of this invocation)."""
        return (self.completed - self._start) / max(time.perf_counter() - self._t0, 1e-9)

    def update(self, completed: int, note: str = "") -> None:
        """Set the units done so far, with an optional note (latest reward, last episode)."""
        self.completed = int(completed)
        self._note = note or self._note
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(
                self._task,
                completed=self.completed,
                rate=f"{self.rate():.0f} {self.unit}/s",
                note=self._note,
            )
            return
        now = time.perf_counter()
        if now - self._last_log >= self.log_every_s:
            self._last_log = now
            self._log()

    def advance(self, n: int = 1, note: str = "") -> None:
        """Add ``n`` units done."""
        self.update(self.completed + n, note)

    def _log(self) -> None:
        pct = 100.0 * self.completed / self.total if self.total else 100.0
        log.info(
            "%s: %d/%d %s (%.0f%%), %.3g %s/s, %.0f s elapsed%s",
            self.description,
            self.completed,
            self.total,
            self.unit,
            pct,
            self.rate(),
            self.unit,
            time.perf_counter() - self._t0,
            f"; {self._note}" if self._note else "",
        )

    def close(self) -> None:
        """Stop the bar (or log the final line)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        else:
            self._log()
        self.enabled = False

    def __enter__(self) -> ProgressReporter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
