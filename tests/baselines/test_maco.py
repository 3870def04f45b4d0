"""MACO's controller (native ``MpMaco``) against the paper's numbers, driven through
``CcProbe`` with scripted path oracles.

Reference values: W. Yang et al., IEEE TMC 2024 (Table 3, Algorithms 1-3, eqs. 2-26), with the
derived tables of docs/specs/maco.md (#access-link-capacity, #congestion-avoidance, #checks).
The equations on their own (the link budget, eqs. 11, 14-17 and 26, the Kalman filter) are
C++ unit tests beside them: cpp/model/cc/test/mp-maco-*-test-suite.cc.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

# Every test evaluates the native code through leogym._core.testing
pytestmark = pytest.mark.native

MSS = 1500

# Table 3 of the paper: beam bandwidth W and system efficiency eta of eq. (3).
BANDWIDTH_HZ = 12.5e6
EFFICIENCY = 0.98


def _capacity_from_snr(snr_db):
    """Eq. (3) written out: C^A = eta W log2(1 + SNR) (bit/s)."""
    return EFFICIENCY * BANDWIDTH_HZ * math.log2(1 + 10 ** (snr_db / 10))


def _ca_increment(w, tau, t_max, r):
    """Eq. (26) written out: 3 M / (2 tau_r (sum_k x_k)^(5/2)), M = max_p x_p^2 sqrt(T_p),
    x_k = w_k / tau_k (packets per ACK)."""
    x = [wk / tk for wk, tk in zip(w, tau, strict=True)]
    m = max(xk * xk * math.sqrt(tk) for xk, tk in zip(x, t_max, strict=True))
    return 3 * m / (2 * tau[r] * sum(x) ** 2.5)


def _oracle(**state):
    s = {"t": 0.0, "delay_down_s": 0.04, "delay_up_s": 0.04}
    s.update(state)
    return {"satellite": True, "states": [s]}


def _ack_run(probe, path, first_pn, n, t0, rtt, spacing=0.02, per_ack=1, bytes_=MSS):
    """Send and acknowledge n packets, one ACK of `per_ack` packets every `spacing` s."""
    pn = first_pn
    t = t0
    while pn < first_pn + n:
        batch = [(p, t, bytes_) for p in range(pn, min(pn + per_ack, first_pn + n))]
        for p, _, b in batch:
            probe.on_sent(path, p, t, b)
        probe.on_ack(path, batch, t + rtt, rtt)
        pn += len(batch)
        t += spacing
    return pn, t + rtt


@pytest.mark.parametrize(("loss", "con1", "con2"), list(itertools.product([False, True], repeat=3)))
def test_congestion_truth_table_in_the_controller(testing, loss, con1, con2):
    """docs/specs/maco.md#checks item 5: the window halves only when a loss is detected and
    (17a) and (17b) hold; the other seven combinations leave it unreduced."""
    # (17a): TP < C^A. C^A = the oracle's capacity (no slant range, no SNR).
    cap = 1e12 if con1 else 1.0
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(capacity_down_bps=cap)]
    )
    # D = 0.08 s. (17b): tau > D + Delta_R, with 19 samples at the propagation delay and the
    # last one either far above it or on it.
    pn, t = _ack_run(probe, 0, 0, 19, 0.0, 0.08)
    last_rtt = 0.2 if con2 else 0.08
    pn, t = _ack_run(probe, 0, pn, 1, t, last_rtt)
    before = probe.maco_state(0)["w_pkts"]
    if loss:
        probe.on_sent(0, pn, t, MSS)
        probe.on_loss(0, [(pn, t, MSS)], t + 0.3)
    after = probe.maco_state(0)
    if loss and con1 and con2:
        assert after["w_pkts"] == pytest.approx(before / 2)
        assert after["congestion_events"] == 1
        assert after["history_max_pkts"] == pytest.approx(before)
    else:
        assert after["w_pkts"] == pytest.approx(before)
        assert after["congestion_events"] == 0


# ---------------------------------------------------------------- the controller
def test_first_rtt_bdp_and_initial_window(testing):
    """Algorithm 1 at t0 (B = C^A D) and Algorithm 2 without history: ssthresh = B, w = 4.
    docs/specs/maco.md#the-averaged-bdp worked example: C^A = 198.62 Mbit/s, D = 100 ms,
    MSS 1500 -> 1655."""
    probe = testing.CcProbe("maco", mss=MSS, oracles=[_oracle(slant_range_m=550e3)])
    st = probe.maco_state(0)
    assert st["prop_rtt_s"] == pytest.approx(0.1)  # D_terr chosen so that D(t0) = 100 ms
    assert st["d_terr_s"] == pytest.approx(0.05 - 2 * 550e3 / 3e8)
    assert st["cap_access_bps"] == pytest.approx(198.62e6, rel=1e-4)
    assert st["ssthresh_pkts"] == pytest.approx(198.6185e6 * 0.1 / (8 * MSS), rel=1e-4)
    assert st["w_pkts"] == 4.0
    assert probe.cwnd(0) == 4 * MSS
    assert probe.in_slow_start(0)


def test_snr_feeds_eq3_without_a_slant_range(testing):
    """An oracle that gives the SNR and no slant range: C^A is eq. (3) of that SNR.
    48.05 dB is the SNR at 600 km (docs/specs/maco.md#access-link-capacity, 195.54 Mbit/s)."""
    probe = testing.CcProbe("maco", mss=MSS, oracles=[_oracle(snr_db=48.05)])
    cap = probe.maco_state(0)["cap_access_bps"]
    assert cap == pytest.approx(_capacity_from_snr(48.05), rel=1e-9)
    assert cap / 1e6 == pytest.approx(195.54, abs=0.05)


def _drive_to_congestion(probe, path, target_w, rtt=0.1, t0=0.0, first_pn=0):
    """Slow start to target_w packets with RTT samples of `rtt`, then one congestion loss."""
    w = probe.maco_state(path)["w_pkts"]
    pn, t = _ack_run(probe, path, first_pn, int(round(target_w - w)), t0, rtt, spacing=0.001)
    assert probe.maco_state(path)["w_pkts"] == pytest.approx(target_w)
    probe.on_sent(path, pn, t, MSS)
    probe.on_loss(path, [(pn, t, MSS)], t + rtt)
    return pn + 1, t + rtt


def test_congestion_halves_records_history_and_enters_ca(testing):
    # D = 0.08 s (oracle delays), RTT 0.1 s: (17b) holds; TP << C^A: (17a) holds.
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(slant_range_m=550e3)]
    )
    _drive_to_congestion(probe, 0, 200)
    st = probe.maco_state(0)
    assert st["congestion_events"] == 1
    assert st["w_pkts"] == pytest.approx(100)
    assert st["ssthresh_pkts"] == pytest.approx(100)
    assert st["history_max_pkts"] == pytest.approx(200)
    assert not st["slow_start"]


def test_one_halving_per_recovery_epoch(testing):
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(slant_range_m=550e3)]
    )
    pn, t = _drive_to_congestion(probe, 0, 200)
    # A loss of a packet sent before the halving does not halve again.
    probe.on_loss(0, [(pn - 5, t - 0.2, MSS)], t + 0.01)
    assert probe.maco_state(0)["w_pkts"] == pytest.approx(100)
    assert probe.maco_state(0)["congestion_events"] == 1


def test_ca_increase_per_ack_through_the_controller(testing):
    """After the halving (w = 100, tau = T = 0.1 s), one ACKed packet adds 0.15 packets."""
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(slant_range_m=550e3)]
    )
    pn, t = _drive_to_congestion(probe, 0, 200)
    probe.on_sent(0, pn, t, MSS)
    probe.on_ack(0, [(pn, t, MSS)], t + 0.1, 0.1)
    assert probe.maco_state(0)["w_pkts"] == pytest.approx(100.15)


def test_second_subflow_quick_start_uses_the_other_history(testing):
    """Eq. (15): a reconnecting subflow without history takes gamma min(B, max W_0)."""
    oracles = [_oracle(slant_range_m=550e3), _oracle(slant_range_m=550e3)]
    probe = testing.CcProbe("maco", n_paths=2, params={"DelayMode": 1}, mss=MSS, oracles=oracles)
    pn, t = _drive_to_congestion(probe, 0, 120)
    assert probe.maco_state(0)["history_max_pkts"] == pytest.approx(120)
    probe.path_event(1, "outage_start", t)
    probe.path_event(1, "outage_end", t + 0.1)
    st = probe.maco_state(1)
    assert st["w_pkts"] == pytest.approx(60)
    assert st["quick_starts"] == 2
    # Its ssthresh is the first-RTT BDP of the (new) satellite, C^A D with D = 0.08 s.
    assert st["ssthresh_pkts"] == pytest.approx(198.6185e6 * 0.08 / (8 * MSS), rel=1e-4)


def test_own_history_after_reconnect(testing):
    """Eq. (16): a reconnecting subflow with history takes gamma min(B, max W_r)."""
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(slant_range_m=550e3)]
    )
    pn, t = _drive_to_congestion(probe, 0, 300)
    probe.path_event(0, "handover", t)  # no outage in the oracle: a make-before-break move
    assert probe.maco_state(0)["w_pkts"] == pytest.approx(150)


def test_outage_losses_are_not_congestion(testing):
    probe = testing.CcProbe(
        "maco",
        params={"DelayMode": 1},
        mss=MSS,
        oracles=[{**_oracle(slant_range_m=550e3), "handovers": [5.0], "outages": [(5.0, 5.1)]}],
    )
    pn, t = _ack_run(probe, 0, 0, 196, 0.0, 0.1, spacing=0.001)
    for p in range(pn, pn + 20):
        probe.on_sent(0, p, 4.95, MSS)
    w = probe.maco_state(0)["w_pkts"]
    probe.path_event(0, "handover", 5.0)
    probe.path_event(0, "outage_start", 5.0)
    probe.on_loss(0, [(p, 4.95, MSS) for p in range(pn, pn + 20)], 5.05)
    st = probe.maco_state(0)
    assert st["w_pkts"] == pytest.approx(w)
    assert st["congestion_events"] == 0
    assert st["suppressed_losses"] == 20
    assert not probe.consider_for_persistent_congestion(0, pn + 3, 4.95)
    probe.path_event(0, "outage_end", 5.1)
    # Reconnection: quick start with no history anywhere -> 4 MSS.
    assert probe.maco_state(0)["w_pkts"] == 4.0
    # Losses of those packets detected after the outage are still not congestion.
    probe.on_loss(0, [(pn + 19, 4.95, MSS)], 5.3)
    assert probe.maco_state(0)["congestion_events"] == 0


def test_pto_reenters_quick_start(testing):
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(slant_range_m=550e3)]
    )
    pn, t = _drive_to_congestion(probe, 0, 400)
    pn, t = _ack_run(probe, 0, pn, 100, t, 0.1, spacing=0.001)
    assert probe.maco_state(0)["w_pkts"] > 200
    probe.on_pto(0, 1, t + 0.5)
    st = probe.maco_state(0)
    # eq. (16): ssthresh = B (with C = min(C^A, C^N): the AKF has learned the ACK rate) and
    # w = gamma min(B, max W) = gamma min(B, 400).
    assert st["ssthresh_pkts"] == pytest.approx(st["bdp_pkts"])
    assert st["cap_network_bps"] < st["cap_access_bps"]
    assert st["w_pkts"] == pytest.approx(max(4.0, 0.5 * min(st["bdp_pkts"], 400.0)))
    assert st["quick_starts"] == 2
    assert st["slow_start"]


def test_coupled_increase_reads_the_other_subflow(testing):
    """With two subflows in CA the per-ACK increase is eq. (26) over both (native values
    of w, tau and T)."""
    oracles = [_oracle(slant_range_m=550e3), _oracle(slant_range_m=550e3)]
    probe = testing.CcProbe("maco", n_paths=2, params={"DelayMode": 1}, mss=MSS, oracles=oracles)
    pn0, t0 = _drive_to_congestion(probe, 0, 200, rtt=0.1)
    pn1, t1 = _drive_to_congestion(probe, 1, 300, rtt=0.12, t0=t0)
    s0, s1 = probe.maco_state(0), probe.maco_state(1)
    w = [s0["w_pkts"], s1["w_pkts"]]
    tau = [s0["tau_s"], s1["tau_s"]]
    tmax = [s0["t_max_s"], s1["t_max_s"]]
    expected = _ca_increment(w, tau, tmax, 0)
    probe.on_sent(0, pn0, t1, MSS)
    probe.on_ack(0, [(pn0, t1, MSS)], t1 + 0.1, 0.1)
    assert probe.maco_state(0)["w_pkts"] == pytest.approx(w[0] + expected)
    assert expected < _ca_increment([w[0]], [0.1], [0.1], 0)


def test_delta_r_is_the_residual_standard_deviation(testing):
    probe = testing.CcProbe(
        "maco", params={"DelayMode": 1}, mss=MSS, oracles=[_oracle(slant_range_m=550e3)]
    )
    rtts = [0.08, 0.09, 0.1, 0.12, 0.085] * 6
    t = 0.0
    for pn, r in enumerate(rtts):
        probe.on_sent(0, pn, t, MSS)
        probe.on_ack(0, [(pn, t, MSS)], t + r, r)
        t += 0.01
    resid = np.array(rtts[-20:]) - 0.08
    assert probe.maco_state(0)["delta_r_s"] == pytest.approx(resid.std())


def test_d_terr_ewma(testing):
    """docs/specs/maco.md#terrestrial-delay:
    D_terr <- 7/8 D_terr + 1/8 max(0, rtt_min/2 - D_ul - D_dl)."""
    probe = testing.CcProbe("maco", mss=MSS, oracles=[_oracle(slant_range_m=600e3)])
    legs = 2 * 600e3 / 3e8
    d_terr = 0.05 - legs
    assert probe.maco_state(0)["d_terr_s"] == pytest.approx(d_terr)
    for pn, r in enumerate([0.12, 0.11, 0.13]):
        probe.on_sent(0, pn, 0.0, MSS)
        probe.on_ack(0, [(pn, 0.0, MSS)], r, r)
        rtt_min = min([0.12, 0.11, 0.13][: pn + 1])
        d_terr = 7 / 8 * d_terr + 1 / 8 * max(0.0, rtt_min / 2 - legs)
        assert probe.maco_state(0)["d_terr_s"] == pytest.approx(d_terr)
    assert probe.maco_state(0)["prop_rtt_s"] == pytest.approx(2 * (legs + d_terr))


def test_invalid_parameters_are_rejected(testing):
    with pytest.raises(ValueError, match="Gamma"):
        testing.CcProbe("maco", params={"Gamma": 2.0})
    with pytest.raises(ValueError, match="NoSuchThing"):
        testing.CcProbe("maco", params={"NoSuchThing": 1.0})
