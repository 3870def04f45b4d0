"""HyStart++ (Balasubramanian, Huang and Olson, RFC 9406, 2023) in NewReno and CUBIC.

Part (a) drives one controller by hand through ``CongestionProbe`` with constructed RTT
sequences; the expected values are RFC 9406 section 4's rules and constants:

* a round is the ACKs of one flight (section 4.2): here every test sends a batch of packets,
  then acknowledges them one per ACK, so the ACKs of batch k form one round;
* RttThresh = max(MIN_RTT_THRESH 4 ms, min(lastRoundMinRTT / 8, MAX_RTT_THRESH 16 ms)); the
  test runs once the round has N_RTT_SAMPLE = 8 samples, and currentRoundMinRTT >=
  lastRoundMinRTT + RttThresh enters Conservative Slow Start (CSS);
* in CSS the window grows by N / CSS_GROWTH_DIVISOR (4); a round minimum below the CSS baseline
  goes back to slow start; after CSS_ROUNDS (5) rounds (the partial entry round counts)
  ssthresh = cwnd;
* without pacing an ACK grows the window by at most L = 8 segments.

Part (b) is one small end-to-end run on the 10 Mbit/s, 600 ms, BDP-buffered link of
``cpp/doc/transport.md``'s validation table: HyStart++ cuts the slow-start overshoot.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.simulation import Simulation
from leogym.simulation.native_config import synthetic_path

MSS = 1200
IW = min(10 * MSS, max(14720, 2 * MSS))  # RFC 9002 section 7.2
INF = 2**64 - 1  # ssthresh not yet set


class Flow:
    """One path of a CongestionProbe, driven in batches: send n packets, then ACK each."""

    def __init__(self, testing: ModuleType, cc: str, **params: float) -> None:
        self.p = testing.CongestionProbe(cc, params=params)
        self.pn = 0
        self.t = 0.0
        self._pending: list[tuple[tuple[int, float, int], float]] = []

    def batch(self, rtts: list[float], stop_after: int | None = None) -> list[int]:
        """Send len(rtts) packets, then acknowledge packet i with RTT sample rtts[i].

        Returns the window after each ACK. With ``stop_after`` only that many ACKs arrive
        now; :meth:`finish` delivers the rest."""
        sent = []
        for _ in rtts:
            self.p.on_sent(0, self.pn, self.t)
            sent.append((self.pn, self.t, MSS))
            self.pn += 1
        self._pending = list(zip(sent, rtts, strict=True))
        return self.finish(stop_after)

    def finish(self, stop_after: int | None = None) -> list[int]:
        windows = []
        n = len(self._pending) if stop_after is None else stop_after
        for pk, rtt in self._pending[:n]:
            self.t += 0.001
            self.p.on_ack(0, [pk], self.t, rtt)
            windows.append(self.p.cwnd(0))
        self._pending = self._pending[n:]
        self.t += 0.01
        return windows

    def state(self) -> dict[str, Any]:
        s = self.p.hystart_state(0)
        assert s is not None
        return s

    @property
    def cwnd(self) -> int:
        return self.p.cwnd(0)


def thresh(base_s: float) -> float:
    """RFC 9406 section 4.2: RttThresh for lastRoundMinRTT = base_s."""
    return max(0.004, min(base_s / 8, 0.016))


def into_css(testing: ModuleType, cc: str, base: float = 0.1) -> Flow:
    """A flow that entered CSS at the 8th ACK of its second round (12 ACKs in that round)."""
    f = Flow(testing, cc, HyStart=1)
    f.batch([base] * 10)  # round with min RTT = base
    f.batch([base + thresh(base)] * 12, stop_after=8)
    assert f.state()["phase"] == "css"
    return f


CCS = ["newreno", "cubic"]


# ---- (a) the rules of RFC 9406 section 4, by hand -------------------------------------------


@pytest.mark.parametrize("cc", CCS)
def test_flat_rtts_never_leave_slow_start(testing: ModuleType, cc: str) -> None:
    f = Flow(testing, cc, HyStart=1)
    acked = 0
    for k in range(6):
        # jitter below RttThresh (12.5 ms at 100 ms) never triggers the exit
        rtts = [0.1 + 0.0124 * (i % 2) for i in range(16)]
        f.batch(rtts)
        acked += len(rtts) * MSS
        assert f.state()["phase"] == "slow_start", k
    assert f.cwnd == IW + acked  # standard slow start: + bytes acknowledged
    assert f.p.ssthresh(0) == INF
    assert f.p.in_slow_start(0)


@pytest.mark.parametrize("cc", CCS)
def test_delay_increase_enters_css_at_the_eighth_sample(testing: ModuleType, cc: str) -> None:
    f = Flow(testing, cc, HyStart=1)
    f.batch([0.1] * 10)
    assert f.state()["current_round_min_rtt_s"] == pytest.approx(0.1)
    w0 = f.cwnd
    windows = f.batch([0.1125] * 10, stop_after=7)
    s = f.state()
    assert s["phase"] == "slow_start" and s["rtt_sample_count"] == 7
    assert s["last_round_min_rtt_s"] == pytest.approx(0.1)
    assert windows == [w0 + MSS * (i + 1) for i in range(7)]
    w7 = f.cwnd
    f.finish(stop_after=1)  # the 8th sample: 112.5 ms >= 100 ms + 12.5 ms
    s = f.state()
    assert s["phase"] == "css" and s["css_entries"] == 1
    assert s["css_baseline_min_rtt_s"] == pytest.approx(0.1125)
    assert f.cwnd == w7 + MSS  # the ACK that triggers the exit still grows in slow start
    f.finish(stop_after=1)
    assert f.cwnd == w7 + MSS + MSS // 4  # then N / CSS_GROWTH_DIVISOR


@pytest.mark.parametrize(
    ("base", "expected"),
    [(0.020, 0.004), (0.080, 0.010), (0.200, 0.016)],
    ids=["min-clamp-4ms", "base-over-8", "max-clamp-16ms"],
)
def test_rtt_threshold_and_its_clamps(testing: ModuleType, base: float, expected: float) -> None:
    assert thresh(base) == pytest.approx(expected)
    below = Flow(testing, "cubic", HyStart=1)
    below.batch([base] * 10)
    below.batch([base + expected - 0.0001] * 10)
    assert below.state()["phase"] == "slow_start"
    at = Flow(testing, "cubic", HyStart=1)
    at.batch([base] * 10)
    at.batch([base + expected] * 10)
    assert at.state()["phase"] == "css"


def test_fewer_than_eight_samples_never_exit(testing: ModuleType) -> None:
    f = Flow(testing, "newreno", HyStart=1)
    f.batch([0.1] * 7)
    for _ in range(3):
        f.batch([0.5] * 7)  # a huge increase, but only 7 samples per round
    assert f.state()["phase"] == "slow_start"


@pytest.mark.parametrize("cc", CCS)
def test_css_growth_is_a_quarter_of_slow_start(testing: ModuleType, cc: str) -> None:
    f = into_css(testing, cc)
    w = f.cwnd
    windows = f.finish()  # the 4 remaining ACKs of the round, one packet each
    assert windows == [w + (i + 1) * MSS // 4 for i in range(4)]
    # next round, RTT still at the CSS baseline: still a quarter per ACK
    w = f.cwnd
    windows = f.batch([0.1125] * 12)
    assert f.state()["phase"] == "css"
    assert windows[-1] - w == 12 * MSS // 4


@pytest.mark.parametrize("cc", CCS)
def test_rtt_falling_back_returns_to_slow_start(testing: ModuleType, cc: str) -> None:
    f = into_css(testing, cc)
    f.finish()
    f.batch([0.1124] * 7 + [0.1125] * 5, stop_after=7)
    assert f.state()["phase"] == "css"  # only 7 samples so far
    w = f.cwnd
    f.finish(stop_after=1)  # the 8th sample: 112.4 ms < baseline 112.5 ms
    s = f.state()
    assert s["phase"] == "slow_start" and s["css_returns"] == 1
    assert s["css_baseline_min_rtt_s"] == float("inf")
    assert f.cwnd == w + MSS // 4  # the ACK that ends CSS still grows as in CSS
    windows = f.finish()
    assert windows == [w + MSS // 4 + (i + 1) * MSS for i in range(4)]  # slow start again


@pytest.mark.parametrize("cc", CCS)
def test_css_ends_after_css_rounds_with_ssthresh_equal_cwnd(testing: ModuleType, cc: str) -> None:
    f = into_css(testing, cc)
    f.finish()
    # the partial entry round counts: it ends at the first ACK of the next batch
    for done in range(1, 5):
        f.batch([0.1125] * 12, stop_after=1)
        assert f.state()["css_rounds_done"] == done
        assert f.p.ssthresh(0) == INF
        f.finish()
    w = f.cwnd
    f.batch([0.1125] * 12, stop_after=1)  # the 5th round ends: CSS_ROUNDS done
    assert f.state()["phase"] == "done"
    assert f.p.ssthresh(0) == w  # RFC 9406 section 4.2: ssthresh = cwnd
    assert not f.p.in_slow_start(0)
    # congestion avoidance from here: far less than a quarter segment per ACK
    w = f.cwnd
    f.finish()
    assert 0 < f.cwnd - w < 11 * MSS // 4


def test_unpaced_ack_grows_at_most_l_segments(testing: ModuleType) -> None:
    on = testing.CongestionProbe("newreno", params={"HyStart": 1})
    off = testing.CongestionProbe("newreno")
    pk = [(i, 0.0, MSS) for i in range(10)]
    for p in (on, off):
        for pn, t, _ in pk:
            p.on_sent(0, pn, t)
        p.on_ack(0, pk, 0.1, 0.1)  # one ACK of 10 packets
    assert on.cwnd(0) == IW + 8 * MSS  # L = 8 without pacing
    assert off.cwnd(0) == IW + 10 * MSS


@pytest.mark.parametrize("cc", CCS)
def test_a_loss_ends_hystart_with_the_usual_response(testing: ModuleType, cc: str) -> None:
    f = into_css(testing, cc)
    w = f.cwnd
    f.p.on_loss(0, [(f.pn - 1, f.t - 0.02, MSS)], f.t)
    assert f.state()["phase"] == "done"
    factor = 0.5 if cc == "newreno" else 0.7  # RFC 9002 kLossReductionFactor / RFC 9438 beta
    assert f.p.ssthresh(0) == int(w * factor)


@pytest.mark.parametrize("cc", ["newreno", "cubic", "lia", "olia", "balia"])
def test_default_off_and_coupled_controllers_ignore_it(testing: ModuleType, cc: str) -> None:
    assert testing.CongestionProbe(cc).hystart_state(0) is None
    p = testing.CongestionProbe(cc, params={"HyStart": 1})
    if cc in ("lia", "olia", "balia"):
        assert p.hystart_state(0) is None  # RFC 6356 keeps uncoupled standard slow start
    else:
        assert p.hystart_state(0)["phase"] == "slow_start"


def test_attribute_is_reachable_from_the_env_config(core: ModuleType) -> None:
    for cc in CCS:
        info = core.algorithm_parameters("cc", cc)["HyStart"]
        assert info["default"] is False and "RFC 9406" in info["help"]
        settings = EnvConfig.from_kwargs(scenario=None, cc=cc, cc_params={"HyStart": True})
        with Simulation.open(settings, load_scenario("tiny"), 1) as sim:
            sim.step(0.5)
    with pytest.raises(ValueError, match=r"env\.cc_params\.HyStart"):
        EnvConfig.from_kwargs(scenario=None, cc="cubic", cc_params={"HyStart": 2})


# ---- (b) end to end: the slow-start overshoot -----------------------------------------------


def first_episode(core: ModuleType, cc: str, hystart: int) -> tuple[float, int]:
    """8 s of one flow on 10 Mbit/s, 600 ms, a BDP queue (500 packets): ssthresh set by the
    first reduction (packets of 1455 B) and the queue-overflow drops."""
    path = synthetic_path(9.0, rate_bps=10e6, delay_s=0.3, queue_packets=500)
    sim = core.Simulation(
        {"cc": cc, "cc_params": {"HyStart": hystart}, "packet_bytes": 1472, "seed": 1}, [path]
    )
    ssthresh, drops = [], 0
    try:
        for _ in range(40):
            m = sim.step(0.2)
            ssthresh.append(float(m["ssthresh_bytes"][0]))
            drops += int(m["drops_overflow"][0])
    finally:
        sim.close()
    s = np.asarray(ssthresh)
    assert (s < 1e18).any(), "no reduction within 8 s"
    return float(s[s < 1e18][0]) / 1455, drops


@pytest.mark.parametrize("cc", CCS)
def test_hystart_shrinks_the_slow_start_overshoot(core: ModuleType, cc: str) -> None:
    """Standard slow start doubles the window each round until the loss of the first dropped
    packet is detected about one (queue-inflated) RTT later; the flight that first exceeds the
    BDP raises the next round's minimum RTT by far more than RttThresh (16 ms = 13 packets of
    queue at 10 Mbit/s), so HyStart++ enters CSS and the window grows by a quarter as fast
    while the drops go undetected. The overshoot (drops, window at the cut) must shrink; the
    first drop itself is not avoided on this link (see cpp/doc/hystart.md)."""
    w_off, drops_off = first_episode(core, cc, 0)
    w_on, drops_on = first_episode(core, cc, 1)
    assert drops_on < 0.6 * drops_off, (drops_on, drops_off)
    assert w_on < 0.85 * w_off, (w_on, w_off)
    # and the path stays full: the window after the cut is still above the BDP (500 packets)
    assert w_on > 500
