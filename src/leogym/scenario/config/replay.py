"""The schema of a replayed measured trace: :class:`ReplayConfig` (data only; the readers and
the replay are :mod:`leogym.scenario.links.replay`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.schema import bounded, choice, fail

__all__ = ["ReplayConfig"]


@dataclass
class ReplayConfig:
    """A measured trace that replaces a satellite path's geometric arrays
    (``docs/scenario.md``, "Replaying measured traces"). ``format: off`` = none.

    ``leoreplayer`` replaces the delays (both directions) and rates and keeps the path's loss;
    ``lens_irtt`` replaces the delays and losses and keeps the path's rates. SNR, elevation,
    serving satellite, handovers and outages stay geometric.
    """

    #: ``off``, ``leoreplayer`` (mahimahi ``bw`` + 10 ms ``delay`` files) or ``lens_irtt`` (CSV).
    format: str = field(default="off", metadata=choice("off", "leoreplayer", "lens_irtt"))
    #: LeoReplayer: mahimahi trace of the downlink (required).
    bw_down: str | None = None
    #: LeoReplayer: mahimahi trace of the uplink (``None``: as the downlink).
    bw_up: str | None = None
    #: LeoReplayer: one-way delay file, one value (ms) per 10 ms (required).
    delay: str | None = None
    #: LENS: IRTT CSV file ``timestamp(ns),rtt,uplink,downlink`` (required).
    csv: str | None = None
    #: Trace time at episode time 0 (s); with ``trace_boundary_s``, the earliest such time.
    offset_s: float = field(default=0.0, metadata=bounded(0.0, 1e9))
    #: Phase of the trace's slot boundaries (trace seconds); when set, the start is moved
    #: forward by less than one ``handover.period_s`` so that they fall on the scenario's.
    trace_boundary_s: float | None = field(default=None, metadata=bounded(0.0, 1e9))
    #: LeoReplayer: window over which delivery opportunities are counted into a rate (s).
    bin_s: float = field(default=0.1, metadata=bounded(0.001, 3600.0))
    #: LENS: window over which the share of lost probes is counted (s).
    loss_bin_s: float = field(default=1.0, metadata=bounded(0.001, 3600.0))
    #: LENS: share of the RTT put on the uplink (the rest on the downlink).
    up_share: float = field(default=0.5, metadata=bounded(0.0, 1.0))
    #: Keep the geometric handover outage and loss window on top of the trace (they double
    #: count the boundary effects that the trace already holds).
    allow_stacking: bool = False

    @property
    def enabled(self) -> bool:
        """Whether a trace is replayed (``format`` is not ``off``)."""
        return self.format != "off"

    def _check_relations(self, path: str, error: type) -> None:
        if self.format == "leoreplayer":
            for name in ("bw_down", "delay"):
                if not getattr(self, name):
                    raise fail(error, f"{path}.{name}", "required when format is 'leoreplayer'")
        elif self.format == "lens_irtt" and not self.csv:
            raise fail(error, f"{path}.csv", "required when format is 'lens_irtt'")

    def files(self) -> list[str]:
        """The files this config names (for validation's file stamps)."""
        if self.format == "leoreplayer":
            return [f for f in (self.bw_down, self.bw_up, self.delay) if f]
        if self.format == "lens_irtt":
            return [self.csv] if self.csv else []
        return []
