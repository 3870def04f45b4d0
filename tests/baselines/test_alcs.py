"""ALCS (native ``MpAlcsScheduler``) against the paper's equations and rules.

Reference: Wang et al., ALCS (seed 001): eqs. (1)-(4) latency estimates, the wait-or-send
rule, eqs. (7)/(10) compensation with alpha = 0.99, deactivation one RTT before a predicted
handover; open points resolved as in docs/specs/alcs.md ([REC]). The equations on their own
(eqs. (1)-(4), (7)/(10) and the 69 steps to the clamp) are C++ unit tests beside them:
cpp/model/sched/test/mp-alcs-scheduler-test-suite.cc.
"""

from __future__ import annotations

import pytest

# Every test evaluates the native code through leogym._core.testing
pytestmark = pytest.mark.native

MSS = 1448
SAT = {"satellite": True, "handovers": [10.0], "outages": [(10.0, 11.0)]}
TERR = {"satellite": False}


def _probe(testing, params=None, oracles=None, sat_rtt=0.06, terr_rtt=0.108, n=8):
    p = testing.SchedulerProbe(
        "alcs", n_paths=2, params=params or {}, mss=MSS, oracles=oracles or [SAT, TERR]
    )
    p.rtt_samples(0, [sat_rtt] * n)
    p.rtt_samples(1, [terr_rtt] * n)
    return p


def _tl(k, inflight, cwnd, rtt, delta, sigma=1.0):
    """Eqs. (3)-(4) written out (segments, seconds)."""
    return (k + inflight) / cwnd * (rtt + delta) * sigma


# ---------------------------------------------------------------- the scheduler
def test_fastest_path_with_room_is_used(testing):
    p = _probe(testing)
    p.set_window(0, 20 * MSS, 5 * MSS)
    p.set_window(1, 40 * MSS, 0)
    p.set_pending(1000 * MSS)
    assert p.select(1.0) == 0


@pytest.mark.parametrize(
    ("k", "inflight_s", "expected_wait"),
    [(1000, 10, False), (1, 39, True), (1, 10, False), (200, 39, False)],
)
def test_wait_or_send_rule(testing, k, inflight_s, expected_wait):
    """tl_f < tl_s -> wait for S_f, else send on S_s (eqs. 3-4, sigma = 1)."""
    p = _probe(testing)
    p.set_window(0, 20 * MSS, 20 * MSS)  # S_f (60 ms) full
    p.set_window(1, 40 * MSS, inflight_s * MSS)  # S_s (108 ms) with room
    p.set_pending(k * MSS)
    tl_f = _tl(k, 20, 20, p.srtt(0), p.rttvar(0))
    tl_s = _tl(k, inflight_s, 40, p.srtt(1), p.rttvar(1))
    assert (tl_f < tl_s) == expected_wait  # the cases are what they claim to be
    got = p.select(1.0)
    assert got == (-1 if expected_wait else 1)
    assert p.alcs_state(0)["waits"] == int(expected_wait)


def test_tie_goes_to_the_slower_path(testing):
    p = _probe(testing, params={"DeltaMode": 2}, sat_rtt=0.06, terr_rtt=0.06)
    p.set_window(0, 10 * MSS, 10 * MSS)  # (30 + 10) / 10 = 4
    p.set_window(1, 9 * MSS, 6 * MSS)  # (30 + 6) / 9 = 4
    p.set_pending(30 * MSS)
    assert p.select(1.0) == 1


def test_k_mode_one_segment(testing):
    p = _probe(testing, params={"KMode": 1})
    p.set_window(0, 20 * MSS, 20 * MSS)
    p.set_window(1, 40 * MSS, 39 * MSS)
    p.set_pending(100000 * MSS)  # ignored: k = 1
    assert p.select(1.0) == -1


def test_no_path_with_room_waits(testing):
    p = _probe(testing)
    p.set_window(0, 20 * MSS, 20 * MSS)
    p.set_window(1, 40 * MSS, 40 * MSS)
    p.set_pending(100 * MSS)
    assert p.select(1.0) == -1


def test_single_usable_path(testing):
    p = _probe(testing)
    p.set_state(1, "deactivated")
    p.set_window(0, 20 * MSS, 5 * MSS)
    assert p.select(1.0) == 0
    p.set_window(0, 20 * MSS, 20 * MSS)
    assert p.select(1.0) == -1


# ---------------------------------------------------------------- handover management
def test_deactivation_one_rtt_before_the_outage(testing):
    p = _probe(testing)
    srtt = p.srtt(0)
    assert srtt == pytest.approx(0.06)
    p.set_window(0, 20 * MSS, 0)
    p.set_window(1, 40 * MSS, 0)
    p.set_pending(100 * MSS)
    t_off = 10.0 - srtt
    p.clear_wakeup()  # (the one asked for at start-up, with the initial 333 ms RTT, fired)
    assert p.select(t_off - 0.01) == 0
    assert p.state(0) == "active"
    assert p.wakeup == pytest.approx(t_off + 1e-6)  # a decision point just after it
    assert p.select(t_off + 1e-4) == 1
    assert p.state(0) == "deactivated"
    for t in (10.0, 10.5, 10.999):
        assert p.select(t) == 1
        assert p.state(0) == "deactivated"
    assert p.select(11.0) == 0
    assert p.state(0) == "active"
    st = p.alcs_state(0)
    assert st["deactivations"] == 1 and not st["deactivated"]


def test_guard_scales_with_the_path_rtt(testing):
    p = _probe(testing, params={"GuardRtts": 2.0}, sat_rtt=0.05)
    p.set_window(1, 40 * MSS, 0)
    p.clear_wakeup()
    p.select(9.0)
    assert p.wakeup == pytest.approx(10.0 - 2 * 0.05 + 1e-6)
    p.select(10.0 - 2 * 0.05 + 1e-4)
    assert p.state(0) == "deactivated"


def test_no_deactivation_without_handover_management(testing):
    p = _probe(testing, params={"Handover": 0})
    p.set_window(0, 20 * MSS, 0)
    for t in (9.95, 10.5):
        assert p.select(t) == 0
        assert p.state(0) == "active"


def test_terrestrial_paths_are_never_deactivated(testing):
    terr_with_outage = {"satellite": False, "outages": [(10.0, 11.0)]}
    p = _probe(testing, oracles=[SAT, terr_with_outage])
    p.select(10.5)
    assert p.state(0) == "deactivated" and p.state(1) == "active"


def test_handovers_without_outage(testing):
    sat = {"satellite": True, "handovers": [20.0]}
    p = _probe(testing, oracles=[sat, TERR])
    p.select(19.97)
    assert p.state(0) == "active"  # only outage-causing handovers by default [R]
    q = _probe(testing, params={"OnlyOutageEvents": 0}, oracles=[sat, TERR])
    q.select(19.97)
    assert q.state(0) == "deactivated"
    q.select(20.0)
    assert q.state(0) == "active"


def test_a_path_deactivated_by_the_user_stays_deactivated(testing):
    p = _probe(testing)
    p.set_state(0, "deactivated")
    for t in (9.0, 10.5, 11.5):
        p.select(t)
        assert p.state(0) == "deactivated"


# ---------------------------------------------------------------- compensation
def test_sigma_adapts_to_delivered_against_expected(testing):
    p = _probe(testing)
    p.set_window(0, 20 * MSS, 20 * MSS)  # S_f backlogged
    p.set_window(1, 40 * MSS, 0)  # S_s idle
    p.set_pending(1000 * MSS)
    p.select(0.0)
    rate = 20 / (1.0 * (p.srtt(0) + p.rttvar(0)))  # eq. (3)'s model: cwnd / (sigma (rtt + D))
    p.on_ack(0, 200, 0.05)
    st = p.alcs_state(0)
    assert st["atp"] == 200
    assert st["etp"] == pytest.approx(rate * 0.05)
    # T_u = max(100 ms, largest srtt = 108 ms): the update happens at 0.2 s.
    p.select(0.1)
    assert p.alcs_state(0)["sigma"] == 1.0
    p.select(0.2)
    assert p.alcs_state(0)["sigma"] == pytest.approx(0.99)  # atp 200 > etp ~64
    assert p.alcs_state(1)["sigma"] == 1.0  # S_s was never backlogged: unchanged
    assert p.alcs_state(0)["last_update_s"] == pytest.approx(0.2)
    # No ACKs in the next interval: atp 0 < etp -> sigma back to 1.
    p.select(0.5)
    assert p.alcs_state(0)["sigma"] == pytest.approx(1.0)


def test_invalid_parameters(testing):
    with pytest.raises(ValueError, match="Alpha"):
        testing.SchedulerProbe("alcs", params={"Alpha": 1.5})
    with pytest.raises(ValueError, match="SigmaMin"):
        testing.SchedulerProbe("alcs", params={"SigmaMin": 3.0})
