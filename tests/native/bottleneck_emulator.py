"""A packet-level bottleneck that drives a congestion controller by hand.

One sender, one drop-tail FIFO link of ``rate_bps`` (a number, or a function of time) with
room for ``buffer_packets`` waiting packets, a fixed propagation RTT, optional Bernoulli loss
after the queue, and one ACK per packet. The controller runs in
``testing.SampledCongestionProbe`` (the transport's own delivery-rate estimator feeds it); the
emulator only does what MpQuicSender does around it: send while
``bytes_in_flight + mss <= cwnd`` at the controller's pacing rate, detect losses as RFC 9002
section 6.1 does (3 packets, or 9/8 of the RTT, behind the largest acknowledged), and tell the
controller in the transport's order (losses, then the ACK). A ``drop(t, pn)`` hook loses
chosen packets before the queue. Everything the controller knows is visible through
``bbr3_state`` after every event, which a full simulation does not expose.

``ecn_mark_packets = K`` adds a step-marking AQM (DCTCP's, RFC 8257 section 3.1): a packet
that finds K or more packets waiting is marked CE, and each ACK is followed by the frame's ECN
feedback (``on_ecn``, CE or not), as the transport delivers it after OnAck.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np


@dataclass
class Trace:
    """What happened: state changes, per-ACK samples (if asked for) and counters."""

    states: list[tuple[float, str]] = field(default_factory=list)  # (time, new state)
    samples: list[dict[str, Any]] = field(default_factory=list)
    sent: int = 0
    queue_drops: int = 0
    random_drops: int = 0
    forced_drops: int = 0
    declared_lost: int = 0
    delivered_bytes: list[tuple[float, int]] = field(default_factory=list)  # (ACK time, bytes)

    def delivered_between(self, t0: float, t1: float) -> int:
        return sum(b for t, b in self.delivered_bytes if t0 <= t < t1)

    def time_in(self, state: str, t0: float, t1: float) -> float:
        """Seconds spent in ``state`` within [t0, t1]."""
        total = 0.0
        for k, (t, s) in enumerate(self.states):
            end = self.states[k + 1][0] if k + 1 < len(self.states) else t1
            if s == state:
                total += max(0.0, min(end, t1) - max(t, t0))
        return total

    def entries(self, state: str) -> list[float]:
        return [t for t, s in self.states if s == state]


class Bottleneck:
    """The emulation: ``run(until_s)`` advances it; the probe stays usable between runs."""

    def __init__(
        self,
        testing: ModuleType,
        cc: str,
        *,
        rate_bps: float | Callable[[float], float],
        rtt_s: float,
        buffer_packets: int,
        loss: float = 0.0,
        seed: int = 1,
        mss: int = 1200,
        params: dict[str, float] | None = None,
        record: bool = False,
        on_ack: Callable[[float, dict[str, Any]], None] | None = None,
        drop: Callable[[float, int], bool] | None = None,
        ecn_mark_packets: int | None = None,
    ) -> None:
        self.probe = testing.SampledCongestionProbe(cc, params=params or {}, mss=mss)
        self.rate_bps = rate_bps
        self.rtt_s = rtt_s
        self.buffer = buffer_packets
        self.loss = loss
        self.mss = mss
        self.rng = np.random.default_rng(seed)
        self.record = record
        self.on_ack = on_ack
        self.drop = drop
        self.ecn_mark = ecn_mark_packets
        self._marked: set[int] = set()
        self._has_bbr3 = cc.split("+")[-1].startswith("bbr3")
        self.trace = Trace()
        self.now = 0.0
        self._events: list[tuple[float, int, str, int]] = []
        self._seq = 0
        self._next_pn = 0
        self._next_send = 0.0
        self._send_pending = False
        self._busy_until = 0.0
        self._queue: deque[float] = deque()  # departure times of packets in the link
        self._outstanding: OrderedDict[int, float] = OrderedDict()  # pn -> send time
        self._largest_acked = -1
        self._srtt = 0.0
        self._latest_rtt = 0.0
        self._last_ack = 0.0
        self._timer_at = -1.0
        self._state = ""
        self._note_state()

    # ---- event queue ----------------------------------------------------------------------
    def _push(self, t: float, kind: str, pn: int = -1) -> None:
        self._seq += 1
        heapq.heappush(self._events, (t, self._seq, kind, pn))

    def _note_state(self) -> None:
        if not self._has_bbr3:
            return
        s = self.probe.bbr3_state(0)["state"]
        if s != self._state:
            self._state = s
            self.trace.states.append((self.now, s))

    # ---- sender ---------------------------------------------------------------------------
    def _try_send(self) -> None:
        p = self.probe
        while p.bytes_in_flight(0) + self.mss <= p.cwnd(0):
            if self.now < self._next_send - 1e-12:
                if not self._send_pending:
                    self._send_pending = True
                    self._push(self._next_send, "send")
                return
            self._transmit()
        self._arm_timer()

    def _transmit(self) -> None:
        pn = self._next_pn
        self._next_pn += 1
        self.probe.on_sent(0, pn, self.now, self.mss)
        self.trace.sent += 1
        self._outstanding[pn] = self.now
        rate = self.probe.pacing_rate(0)
        gap = self.mss * 8.0 / rate if rate > 0 else 0.0
        self._next_send = max(self.now, self._next_send) + gap
        if self.drop is not None and self.drop(self.now, pn):
            self.trace.forced_drops += 1
            return
        # the drop-tail link: one packet in service plus `buffer` waiting
        while self._queue and self._queue[0] <= self.now:
            self._queue.popleft()
        if len(self._queue) > self.buffer:
            self.trace.queue_drops += 1
            return
        if self.ecn_mark is not None and len(self._queue) > self.ecn_mark:
            self._marked.add(pn)  # K or more waiting behind the one in service
        rate = self.rate_bps(self.now) if callable(self.rate_bps) else self.rate_bps
        dep = max(self.now, self._busy_until) + self.mss * 8.0 / rate
        self._busy_until = dep
        self._queue.append(dep)
        if self.loss > 0 and self.rng.random() < self.loss:
            self.trace.random_drops += 1
            return
        self._push(dep + self.rtt_s, "ack", pn)

    def _arm_timer(self) -> None:
        # A probe-timeout stand-in: nothing acknowledged for 3 RTTs -> all outstanding lost.
        if self._outstanding and self._timer_at < self.now:
            self._timer_at = self.now + 3 * max(self._srtt, self.rtt_s)
            self._push(self._timer_at, "timer")

    def _declare_lost(self, pns: list[int]) -> None:
        if not pns:
            return
        for pn in pns:
            del self._outstanding[pn]
        self.trace.declared_lost += len(pns)
        self.probe.on_loss(0, pns, self.now)

    def _on_ack(self, pn: int) -> None:
        sent = self._outstanding.pop(pn, None)
        if sent is None:
            return
        self._last_ack = self.now
        self._latest_rtt = self.now - sent
        self._srtt = (
            self._latest_rtt if self._srtt == 0 else 0.875 * self._srtt + 0.125 * self._latest_rtt
        )
        self._largest_acked = max(self._largest_acked, pn)
        # RFC 9002 section 6.1: packet and time thresholds
        delay = 9 / 8 * max(self._srtt, self._latest_rtt)
        lost = []
        for q, t in self._outstanding.items():
            if q > self._largest_acked:
                break
            if q <= self._largest_acked - 3 or t <= self.now - delay:
                lost.append(q)
        self._declare_lost(lost)
        rs = self.probe.on_ack(0, [pn], self.now)
        if self.ecn_mark is not None:
            ce = pn in self._marked
            self._marked.discard(pn)
            self.probe.on_ecn(0, 1 if ce else 0)
            rs["ce"] = ce
        self.trace.delivered_bytes.append((self.now, self.mss))
        if self.record and self._has_bbr3:
            st = self.probe.bbr3_state(0)
            st["t"] = self.now
            st["inflight"] = self.probe.bytes_in_flight(0)
            st["rs"] = rs
            self.trace.samples.append(st)
        if self.on_ack is not None:
            self.on_ack(self.now, rs)

    def run(self, until_s: float) -> Trace:
        if not self._events:
            self._try_send()
        while self._events and self._events[0][0] <= until_s:
            t, _, kind, pn = heapq.heappop(self._events)
            self.now = t
            if kind == "ack":
                self._on_ack(pn)
            elif kind == "send":
                self._send_pending = False
            elif kind == "timer":
                if self.now - self._last_ack >= 3 * max(self._srtt, self.rtt_s) - 1e-9:
                    self._declare_lost(list(self._outstanding))
            self._note_state()
            self._try_send()
            self._note_state()
        self.now = until_s
        return self.trace
