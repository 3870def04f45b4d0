"""MACO's equations and controller (native ``MpMaco``) against the paper's numbers.

Reference values: W. Yang et al., IEEE TMC 2024 (Table 3, Algorithms 1-3, eqs. 2-26), with the
derived tables of docs/specs/maco.md (#access-link-capacity, #congestion-avoidance, #checks).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

# Every test evaluates the native code through leogym._core.testing
pytestmark = pytest.mark.native

MSS = 1500

# docs/specs/maco.md#access-link-capacity: slant range (km) -> (SNR dB, C^A Mbit/s), Table 3
# values, P_t = 35.12 dBm.
LINK_TABLE = [
    (550, 48.81, 198.62),
    (560, 48.65, 197.98),
    (575, 48.42, 197.05),
    (600, 48.05, 195.54),
    (650, 47.36, 192.71),
    (700, 46.71, 190.09),
    (800, 45.55, 185.37),
    (1000, 43.62, 177.49),
]
# docs/specs/maco.md#access-link-capacity: beam bandwidth W (MHz) at 550 km -> C^A (Mbit/s).
BANDWIDTH_TABLE = [
    (5, 85.9),
    (10, 162.0),
    (12.5, 198.6),
    (15, 234.5),
    (20, 304.5),
    (25, 372.7),
    (30, 439.6),
    (35, 505.2),
    (40, 569.8),
]


# ---------------------------------------------------------------- eqs. (2)-(3), link budget
def test_capacity_at_550_and_600_km(testing):
    """docs/specs/maco.md#checks item 1: 198.6 Mbit/s at 550 km (+-0.1), 195.5 at 600 km."""
    assert testing.maco_capacity_bps(550e3) / 1e6 == pytest.approx(198.6, abs=0.1)
    assert testing.maco_capacity_bps(600e3) / 1e6 == pytest.approx(195.5, abs=0.1)


@pytest.mark.parametrize(("d_km", "snr_db", "cap_mbps"), LINK_TABLE)
def test_link_budget_table(testing, d_km, snr_db, cap_mbps):
    assert testing.maco_snr_db(d_km * 1e3) == pytest.approx(snr_db, abs=0.005)
    assert testing.maco_capacity_bps(d_km * 1e3) / 1e6 == pytest.approx(cap_mbps, abs=0.005)


@pytest.mark.parametrize(("w_mhz", "cap_mbps"), BANDWIDTH_TABLE)
def test_capacity_against_bandwidth(testing, w_mhz, cap_mbps):
    c = testing.maco_capacity_bps(550e3, bandwidth_hz=w_mhz * 1e6) / 1e6
    assert c == pytest.approx(cap_mbps, abs=0.05)


def test_pt_for_exactly_200_mbps(testing):
    """docs/specs/maco.md#access-link-capacity: solving backwards for 200 Mbit/s gives
    P_t = 35.46 dBm."""
    assert testing.maco_capacity_bps(550e3, tx_power_dbm=35.46) / 1e6 == pytest.approx(
        200.0, abs=0.1
    )


# ---------------------------------------------------------------- eq. (11)
def test_propagation_rtt(testing):
    """docs/specs/maco.md#checks item 2: 550 km / 600 km legs, D_terr = 46.17 ms: 100.0 ms."""
    d = testing.maco_prop_rtt(550e3 / 3e8, 600e3 / 3e8, 46.17e-3)
    assert d == pytest.approx(0.1000, abs=5e-5)


# ---------------------------------------------------------------- Algorithm 2, eqs. (15)-(16)
def test_quick_start_examples(testing):
    """docs/specs/maco.md#checks item 3."""
    assert testing.maco_quick_start_window(1650.0) == 4.0
    assert testing.maco_quick_start_window(1650.0, own_history_max=120.0) == 60.0
    assert testing.maco_quick_start_window(80.0, other_history_max=120.0) == 40.0


def test_quick_start_prefers_own_history_and_floors_at_four(testing):
    # eq. (16) uses W_r when it exists, even if another path's history is larger.
    assert testing.maco_quick_start_window(1650.0, 100.0, 500.0) == 50.0
    # gamma * min(B, w) below the 4-MSS floor.
    assert testing.maco_quick_start_window(5.0, own_history_max=120.0) == 4.0


# ---------------------------------------------------------------- eq. (26)
@pytest.mark.parametrize(
    ("w", "tau", "t_max", "expected", "tol"),
    [
        ([100], [0.1], [0.1], [0.15000], 5e-6),
        ([300], [0.1], [0.1], [0.08660], 5e-6),
        ([300], [0.1], [0.2], [0.12247], 5e-6),
        ([1000], [0.1], [0.1], [0.04743], 5e-6),
        ([150, 150], [0.1, 0.1], [0.1, 0.1], [0.021651, 0.021651], 5e-7),
        ([200, 100], [0.1, 0.05], [0.12, 0.06], [0.020540, 0.041079], 5e-7),
    ],
)
def test_ca_increment_table(testing, w, tau, t_max, expected, tol):
    """docs/specs/maco.md#congestion-avoidance reference table (eq. 26, packets per ACK)."""
    for r, e in enumerate(expected):
        assert testing.maco_ca_increment(w, tau, t_max, r) == pytest.approx(e, abs=tol)


def test_ca_increment_single_path_is_1_5_elastic(testing):
    """One path: U = 1.5 sqrt(T / (tau w)), 1.5 x Elastic-TCP's per-ACK increase."""
    for w, tau, t in [(10, 0.05, 0.3), (700, 0.2, 0.25), (42, 0.6, 0.6)]:
        elastic = math.sqrt(t / (tau * w))
        assert testing.maco_ca_increment([w], [tau], [t], 0) == pytest.approx(1.5 * elastic)


def test_ca_increment_coupling_is_one_over_n_squared(testing):
    """docs/specs/maco.md#congestion-avoidance: n identical subflows with total rate X add
    3 sqrt(T X) / (2 n^2) per RTT in aggregate."""
    tau = t = 0.1
    total_w = 600.0
    x_total = total_w / tau
    for n in (1, 2, 3, 4):
        w = [total_w / n] * n
        u = testing.maco_ca_increment(w, [tau] * n, [t] * n, 0)
        per_rtt_aggregate = n * u * (total_w / n)  # each subflow gets w ACKs per RTT
        assert per_rtt_aggregate == pytest.approx(3 * math.sqrt(t * x_total) / (2 * n * n))


# ---------------------------------------------------------------- eq. (17)
@pytest.mark.parametrize(("con1", "con2"), list(itertools.product([False, True], repeat=2)))
def test_congestion_predicate(testing, con1, con2):
    tp = 10e6 if con1 else 300e6
    tau = 0.15 if con2 else 0.1005
    got = testing.maco_is_congestion(tp, 198.6e6, tau, 0.1, 0.001)
    assert got == (con1 and con2)


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


# ---------------------------------------------------------------- AKF, eqs. (5)-(10)
@pytest.mark.parametrize("adaptive", [True, False])
def test_akf_first_posterior_follows_the_first_measurement(testing, adaptive):
    """docs/specs/maco.md#checks item 6: with Z0 >> R0 the first posterior is about the first
    sample. With Z0 = C0^2, Q0 = (0.05 C0)^2, R0 = (0.2 C0)^2: K = 1.0025 / 1.0425."""
    akf = testing.MacoAkf()
    akf.reset(100e6, 20, adaptive)
    est = akf.update(50e6, 100e6)
    k = (1.0 + 0.0025) / (1.0 + 0.0025 + 0.04)
    assert akf.gain == pytest.approx(k)
    assert est == pytest.approx(100e6 + k * (50e6 - 100e6))
    assert abs(est - 50e6) < 0.05 * 50e6


@pytest.mark.parametrize("adaptive", [True, False])
def test_akf_converges_with_constant_measurements(testing, adaptive):
    """docs/specs/maco.md#checks item 6: Z shrinks monotonically and the estimate converges."""
    akf = testing.MacoAkf()
    akf.reset(100e6, 20, adaptive)
    z = [akf.z]
    for _ in range(300):
        akf.update(80e6, 100e6)
        z.append(akf.z)
    assert np.all(np.diff(z) <= 0)
    assert akf.estimate == pytest.approx(80e6, rel=1e-4)


def test_akf_fixed_covariances_match_the_kalman_recursion(testing):
    """Eqs. (5)-(10) with Q, R fixed, against the recursion written out here."""
    c0 = 50e6
    akf = testing.MacoAkf()
    akf.reset(c0, 20, False)
    c, z, q, r = c0, c0 * c0, (0.05 * c0) ** 2, (0.2 * c0) ** 2
    for y in [40e6, 45e6, 30e6, 60e6, 52e6]:
        zm = z + q
        k = zm / (zm + r)
        c = c + k * (y - c)
        z = (1 - k) * zm
        assert akf.update(y, c0) == pytest.approx(c)
        assert akf.z == pytest.approx(z)


# ---------------------------------------------------------------- eq. (14)
def test_time_average_trapezoid(testing):
    s = [(0.0, 0.0), (1.0, 2.0), (2.0, 2.0)]
    assert testing.maco_time_average(s, 0.0, 2.0) == pytest.approx(1.5)
    # Window starting mid-segment: value at t1 = 0.5 interpolated as 1.0.
    assert testing.maco_time_average(s, 0.5, 2.0) == pytest.approx(
        (0.5 * (1.0 + 2.0) * 0.5 + 2.0) / 1.5
    )
    # Shorter history than the window: average what exists.
    assert testing.maco_time_average([(1.0, 3.0), (1.5, 5.0)], 0.0, 1.5) == pytest.approx(4.0)


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
    snr = testing.maco_snr_db(600e3)
    probe = testing.CcProbe("maco", mss=MSS, oracles=[_oracle(snr_db=snr)])
    assert probe.maco_state(0)["cap_access_bps"] == pytest.approx(
        testing.maco_capacity_bps(600e3), rel=1e-9
    )


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
    expected = testing.maco_ca_increment(w, tau, tmax, 0)
    probe.on_sent(0, pn0, t1, MSS)
    probe.on_ack(0, [(pn0, t1, MSS)], t1 + 0.1, 0.1)
    assert probe.maco_state(0)["w_pkts"] == pytest.approx(w[0] + expected)
    assert expected < testing.maco_ca_increment([w[0]], [0.1], [0.1], 0)


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
