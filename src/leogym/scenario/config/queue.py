"""The schema of a transmitter's queue: :class:`QueueConfig`, its disciplines and their
defaults (``docs/scenario.md``, "Queue disciplines")."""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.scenario.config.limits import MAX_QUEUE_PACKETS, POSITIVE
from leogym.schema import bounded, choice, duration

__all__ = [
    "ECN_HANDLINGS",
    "QUEUE_DISCIPLINES",
    "QUEUE_TARGET_MS",
    "MIN_QUEUE_TIME_MS",
    "QUEUE_PI_DEFAULTS",
    "QueueConfig",
]

#: Queue disciplines of a link's transmitters (``docs/scenario.md``, "Queue disciplines").
#: A link's handling of the ECN field (``QueueConfig.ecn_handling``); the first is the default.
ECN_HANDLINGS = ("pass", "bleach", "drop")
QUEUE_DISCIPLINES = ("droptail", "red", "codel", "fq_codel", "pie", "dualpi2")
#: Default ``target_ms`` per discipline: CoDel's TARGET (RFC 8289 section 4.4, also FQ-CoDel's,
#: RFC 8290 section 5.2.1), PIE's QDELAY_REF (RFC 8033 section 5.1) and DualPI2's classic
#: target (RFC 9332 Appendix A.1).
QUEUE_TARGET_MS = {"codel": 5.0, "fq_codel": 5.0, "pie": 15.0, "dualpi2": 15.0}
#: Default update period and gains of the PI controllers: PIE's T_UPDATE, alpha and beta
#: (RFC 8033 section 5.1) and DualPI2's Tupdate, alpha and beta (Linux sch_dualpi2's
#: defaults; RFC 9332 Appendix A.1 derives alpha = 0.1 Tupdate / RTT_max^2 = 0.16 Hz for
#: Tupdate 16 ms and RTT_max 100 ms, and beta = 0.3 / RTT_max = 3 Hz, which Linux rounds up to
#: 3.2; docs/scenario.md).
#: Shortest AQM time (CoDel's target and interval, PIE's and DualPI2's target and update
#: period), ms: 1 us, about one 1500-byte packet's transmission time at 10 Gbit/s. A controller
#: that updates, or a target, shorter than one packet time acts on nothing a queue can hold,
#: and the floor keeps a 1 ms step to at most 1,000 updates per queue (at 1 ns, a step took
#: 200-600 times its simulated time; below 1 ns ns-3 aborted or looped; RFC 8033 and RFC 9332
#: use 15 and 16 ms).
MIN_QUEUE_TIME_MS = 1e-3
QUEUE_PI_DEFAULTS = {
    "pie": {"t_update_ms": 15.0, "alpha": 0.125, "beta": 1.25},
    "dualpi2": {"t_update_ms": 16.0, "alpha": 0.16, "beta": 3.2},
}


@dataclass
class QueueConfig:
    """The queue of a path's (or hop link's) two transmitters: its size, resolved to
    ``queue_packets`` (the limit of every discipline), and its discipline with the
    discipline's parameters (those of other disciplines are ignored)."""

    size: float = field(default=1.0, metadata=POSITIVE)
    #: ``packets``, ``bytes`` or ``bdp`` (multiple of mean rate x mean propagation RTT).
    unit: str = field(default="bdp", metadata=choice("packets", "bytes", "bdp"))
    #: Lower bound after resolution.
    min_packets: int = field(default=4, metadata=bounded(1, MAX_QUEUE_PACKETS))
    #: ``droptail`` (FIFO), ``red`` (Floyd & Jacobson 1993), ``codel`` (RFC 8289),
    #: ``fq_codel`` (RFC 8290) or ``pie`` (RFC 8033), ns-3's traffic-control implementations,
    #: or ``dualpi2`` (RFC 9332, L4S; our own, cpp/doc/link.md).
    discipline: str = field(default="droptail", metadata=choice(*QUEUE_DISCIPLINES))
    #: Mark ECN-capable packets (CE) instead of dropping them (an AQM discipline only). For
    #: ``dualpi2`` this is about its classic queue's ECT(0) packets; its L4S queue (ECT(1), CE)
    #: always marks.
    ecn: bool = False
    #: What the link does with the ECN field of the packets it sends: ``pass`` (carry it),
    #: ``bleach`` (clear it to Not-ECT) or ``drop`` (discard every ECN-capable packet, ECT or
    #: CE), as the middleboxes of RFC 9000 §13.4.2 do; a link that cannot carry ECN cannot
    #: mark (``ecn`` needs ``pass``).
    ecn_handling: str = field(default="pass", metadata=choice(*ECN_HANDLINGS))
    #: CoDel / FQ-CoDel TARGET, PIE QDELAY_REF or DualPI2's classic target (ms); ``None``:
    #: ``QUEUE_TARGET_MS`` (5 CoDel, 15 PIE and DualPI2).
    target_ms: float | None = field(
        default=None, metadata=duration(MIN_QUEUE_TIME_MS, 10_000.0, unit="ms")
    )
    #: CoDel / FQ-CoDel INTERVAL (ms), RFC 8289 section 4.3.
    interval_ms: float = field(
        default=100.0, metadata=duration(MIN_QUEUE_TIME_MS, 100_000.0, unit="ms")
    )
    #: FQ-CoDel: number of flow queues (RFC 8290 section 5.2.5: 1024).
    flows: int = field(default=1024, metadata=bounded(1, 65_536))
    #: FQ-CoDel: deficit round-robin quantum (bytes; RFC 8290 section 5.2.4: one MTU).
    quantum_bytes: int = field(default=1500, metadata=bounded(64, 1 << 20))
    #: PIE / DualPI2: the probability's update period (ms); ``None``: ``QUEUE_PI_DEFAULTS``
    #: (PIE's T_UPDATE 15, RFC 8033 section 5.1; DualPI2's Tupdate 16).
    t_update_ms: float | None = field(
        default=None, metadata=duration(MIN_QUEUE_TIME_MS, 10_000.0, unit="ms")
    )
    #: PIE / DualPI2: integral gain alpha (Hz); ``None``: 0.125 (PIE) or 0.16 (DualPI2).
    alpha: float | None = field(default=None, metadata=bounded(0.0, 100.0, lo_open=True))
    #: PIE / DualPI2: proportional gain beta (Hz); ``None``: 1.25 (PIE) or 3.2 (DualPI2).
    beta: float | None = field(default=None, metadata=bounded(0.0, 100.0, lo_open=True))
    #: PIE: MAX_BURST, the burst allowed after an idle period (ms; RFC 8033: 150).
    max_burst_ms: float = field(default=150.0, metadata=duration(0.0, 100_000.0, unit="ms"))
    #: RED: min_th as a fraction of the queue limit.
    min_th: float = field(default=0.2, metadata=bounded(0.0, 1.0, lo_open=True, hi_open=True))
    #: RED: max_th as a fraction of the queue limit (Floyd & Jacobson: at least twice min_th).
    max_th: float = field(default=0.6, metadata=bounded(0.0, 1.0, lo_open=True))
    #: RED: max_p, the drop probability as the average reaches max_th.
    max_p: float = field(default=0.1, metadata=bounded(0.0, 1.0, lo_open=True))
    #: RED: w_q, the weight of the average queue's exponential moving average (paper: 0.002).
    weight: float = field(default=0.002, metadata=bounded(0.0, 1.0, lo_open=True))
    #: RED: gentle mode (the probability rises from max_p to 1 between max_th and 2 max_th;
    #: off: every arrival above max_th is dropped).
    gentle: bool = True
    #: DualPI2: coupling factor k, p_CL = k p' (RFC 9332 section 2.1, Appendix C: 2).
    k: float = field(default=2.0, metadata=bounded(1.0, 64.0))
    #: DualPI2: start of the native L4S marking ramp, in L-queue sojourn time (ms; RFC 9332
    #: Appendix A.1's minTh: 0.8).
    l4s_min_th_ms: float = field(default=0.8, metadata=duration(0.0, 10.0, unit="ms"))
    #: DualPI2: width of that ramp (ms; RFC 9332 Appendix A.1's range: 0.4; 0 = a step at
    #: ``l4s_min_th_ms``, as Linux's 1 ms step_thresh).
    l4s_range_ms: float = field(default=0.4, metadata=duration(0.0, 10.0, unit="ms"))
    #: DualPI2: the time-shifted FIFO scheduler serves the classic queue first once its head
    #: has waited this much longer than the L4S head (ms).
    time_shift_ms: float = field(default=40.0, metadata=duration(0.0, 10_000.0, unit="ms"))

    def native(self) -> dict[str, object]:
        """The queue dict of the native core (the discipline and its parameters)."""
        d: dict[str, object] = {"discipline": self.discipline, "ecn": bool(self.ecn)}
        if self.ecn_handling != ECN_HANDLINGS[0]:
            d["ecn_handling"] = self.ecn_handling
        if self.discipline in ("codel", "fq_codel"):
            d["interval_ms"] = float(self.interval_ms)
        if self.discipline == "fq_codel":
            d["flows"] = int(self.flows)
            d["quantum_bytes"] = int(self.quantum_bytes)
        if self.discipline in QUEUE_TARGET_MS:
            target = QUEUE_TARGET_MS[self.discipline] if self.target_ms is None else self.target_ms
            d["target_ms"] = float(target)
        if self.discipline in QUEUE_PI_DEFAULTS:
            for key, default in QUEUE_PI_DEFAULTS[self.discipline].items():
                value = getattr(self, key)
                d[key] = float(default if value is None else value)
        if self.discipline == "pie":
            d["max_burst_ms"] = float(self.max_burst_ms)
        if self.discipline == "dualpi2":
            d["k"] = float(self.k)
            d["l4s_min_th_ms"] = float(self.l4s_min_th_ms)
            d["l4s_range_ms"] = float(self.l4s_range_ms)
            d["time_shift_ms"] = float(self.time_shift_ms)
        if self.discipline == "red":
            d["min_th"] = float(self.min_th)
            d["max_th"] = float(self.max_th)
            d["max_p"] = float(self.max_p)
            d["weight"] = float(self.weight)
            d["gentle"] = bool(self.gentle)
        return d
