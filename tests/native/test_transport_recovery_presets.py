"""Timer-based recovery presets, driven with constructed ACK and timeout sequences.

Expected numbers come from the references, not from the code:

* ``tcp`` (Linux 5.4 / RFC 6298 / RFC 5681 / RFC 8985): RTO = SRTT + max(4 RTTVAR, 200 ms)
  (Linux ``tcp_set_rto``), or with ``rto_formula = "rfc6298"`` max(min_rto, SRTT +
  max(G, 4 RTTVAR)) (RFC 6298 section 2.3 and 2.4); 1 s before the first sample (section
  2.1); doubling per expiry (section 5.5) up to the maximum; the timer restarts on an ACK of
  new data (section 5.3); one tail-loss probe at 2 SRTT, plus WCDelAckT = 200 ms with one
  packet in flight, never later than the RTO (RFC 8985 section 7.2); everything outstanding
  is marked lost at the expiry (Linux ``tcp_enter_loss``).
* ``quic-draft`` (draft-ietf-quic-recovery, TLP + RTO generation, as the ns-3 QUIC module):
  two TLPs at max(1.5 SRTT + max_ack_delay, 10 ms), then RTO = max(SRTT + 4 RTTVAR +
  max_ack_delay, 200 ms), doubling; an RTO marks nothing lost until verified, when every
  older outstanding packet is declared lost; the module's `2 ^ n` backoff is C's XOR.
* ``picoquic``: SRTT + 4 RTTVAR + max_ack_delay from the last send, no floor, 250 ms before a
  sample, multipliers 1, 2, 4, 5, 6, 7, 8, 10, capped at 2 s; an expiry declares the flight
  lost, a late ACK of it is a spurious timeout.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from leogym.simulation.native_config import synthetic_path

#: ns-3 3.44's TcpSocketBase as a `tcp` preset (the Hydra option ``transport=tcp_ns3``; its
#: values are checked against ns-3 in tests/agents/test_transport_presets.py).
NS3_LIKE = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "conf" / "transport" / "tcp_ns3.yaml").read_text()
)["recovery_params"]


def sample(probe: Any, rtt: float, t0: float = 0.0) -> None:
    """One packet sent at t0 and acknowledged after ``rtt`` (the first RTT sample)."""
    pn = probe.largest_acked + 1
    probe.on_packet_sent(pn, t0)
    probe.on_ack([(pn, pn)], 0.0, t0 + rtt)


# ---- presets ------------------------------------------------------------------------------


def test_presets_carry_their_references_values(core: ModuleType) -> None:
    presets = core.recovery_presets()
    assert set(presets) == {"rfc9002", "tcp", "quic-draft", "picoquic"}
    tcp = presets["tcp"]
    # Linux include/net/tcp.h: TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s, TCP_RTO_MAX 120 s.
    assert (tcp["min_rto_s"], tcp["initial_rto_s"], tcp["max_rto_s"]) == (0.2, 1.0, 120.0)
    assert tcp["loss_window_packets"] == 1  # RFC 5681 section 3.1
    assert tcp["tail_loss_probes"] == 1  # RFC 8985: one probe
    assert tcp["fast_retransmit"] and tcp["prr"]  # RFC 5681 3.2; RFC 6937 (Linux since 3.2)
    assert not any(
        presets[p]["prr"] or presets[p]["fast_retransmit"] for p in ("quic-draft", "picoquic")
    )
    draft = presets["quic-draft"]
    assert (draft["min_rto_s"], draft["tail_loss_probes"]) == (0.2, 2)  # kMinRTOTimeout, kMaxTLPs
    assert draft["verified_window_packets"] == 2  # kMinimumWindow
    assert not draft["time_threshold_loss"]
    pico = presets["picoquic"]
    assert (pico["min_rto_s"], pico["initial_rto_s"], pico["max_rto_s"]) == (0.0, 0.25, 2.0)


# ---- tcp: RFC 6298 arithmetic ------------------------------------------------------------


@pytest.mark.parametrize(
    ("rtt", "expected"),
    [(0.5, 1.5), (0.1, 1.0), (0.02, 1.0)],  # max(1 s, R + 4 R/2) = max(1, 3R)
)
def test_rfc6298_rto_after_the_first_sample(testing: ModuleType, rtt: float, expected) -> None:
    probe = testing.LossDetectorProbe(recovery="tcp", recovery_params=NS3_LIKE)
    assert probe.rto == pytest.approx(1.0)  # section 2.1: before any sample
    sample(probe, rtt)
    assert probe.rto == pytest.approx(expected)


@pytest.mark.parametrize(("rtt", "expected"), [(0.06, 0.26), (0.3, 0.9)])
def test_linux_rto_adds_the_minimum_to_srtt(testing: ModuleType, rtt: float, expected) -> None:
    probe = testing.LossDetectorProbe(recovery="tcp")
    sample(probe, rtt)
    # tcp_set_rto: SRTT + max(4 RTTVAR, 200 ms), with RTTVAR = R/2 after one sample.
    assert probe.rto == pytest.approx(expected)


def test_tcp_backoff_doubles_up_to_the_maximum(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(
        recovery="tcp", recovery_params={**NS3_LIKE, "max_rto_s": 5.0}
    )
    sample(probe, 0.5)  # RTO 1.5 s
    probe.on_packet_sent(1, 1.0)
    t = 1.0
    expiries = []
    for n in range(5):
        kind, deadline = probe.timer()
        assert kind == "rto"
        expiries.append(deadline - t)
        out = probe.on_timeout(deadline)
        assert out["kind"] == "rto"
        if n == 0:
            assert out["lost"] == [1]  # everything outstanding, marked at the expiry
            assert out["loss_kinds"] == ["retransmission_timeout"]
        t = deadline
        probe.on_packet_sent(2 + n, t, retransmission=True)  # the retransmission
    # 1.5, 3, then the 5 s cap (RFC 6298 section 5.5, 2.5).
    assert expiries == pytest.approx([1.5, 3.0, 5.0, 5.0, 5.0])
    assert probe.rto_count == 5


def test_the_timer_restarts_only_when_the_cumulative_point_advances(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(recovery="tcp", recovery_params=NS3_LIKE)
    sample(probe, 0.5)
    probe.on_packet_sent(1, 1.0)
    probe.on_packet_sent(2, 1.1)
    assert probe.timer() == ("rto", pytest.approx(2.5))  # from the first send (5.1)
    probe.on_ack([(2, 2)], 0.0, 1.6)  # a SACK above a hole: snd_una stays, so does the anchor
    assert probe.timer() == ("rto", pytest.approx(1.0 + probe.rto))  # (the RTO took a sample)
    probe.restart_timer(1.7)  # the sender saw snd_una advance (5.3)
    assert probe.timer()[1] == pytest.approx(1.7 + probe.rto)
    probe.on_timeout(1.7 + probe.rto)
    assert probe.rto_count == 1
    probe.on_packet_sent(3, 3.2, retransmission=True)
    out = probe.on_ack([(3, 3)], 0.0, 3.7)
    assert out["rto_episode_ended"] and not out["rto_spurious"]
    assert probe.rto_count == 0  # an ACK of new data resets the backoff


def test_tail_loss_probe_timing(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(recovery="tcp")
    sample(probe, 0.1)  # SRTT 0.1, RTO 0.1 + max(0.2, 0.2) = 0.3
    probe.on_packet_sent(1, 1.0)
    # One packet in flight: PTO = 2 SRTT + WCDelAckT = 0.4 > RTO deadline 1.3: the RTO wins.
    assert probe.timer() == ("rto", pytest.approx(1.3))
    probe.on_packet_sent(2, 1.01)
    # Two in flight: PTO = 2 SRTT = 0.2 after the last send, before the RTO at 1.3.
    assert probe.timer() == ("tlp", pytest.approx(1.21))
    assert probe.on_timeout(1.21)["kind"] == "tlp"
    assert probe.tlp_count == 1
    probe.on_packet_sent(3, 1.21)  # the probe; Linux re-arms the RTO from it
    assert probe.timer() == ("rto", pytest.approx(1.21 + 0.3))


def test_spurious_timeout_is_recognised(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(recovery="tcp")
    sample(probe, 0.1)
    probe.on_packet_sent(1, 1.0)
    assert probe.on_timeout(1.3)["lost"] == [1]
    probe.on_packet_sent(2, 1.3, retransmission=True)
    out = probe.on_ack([(1, 1)], 0.0, 1.35)  # the original arrives late (F-RTO / Eifel)
    assert out["late_acked"] == [1]
    assert out["rto_episode_ended"] and out["rto_spurious"]


def test_lost_retransmission_waits_for_the_timer_without_rack(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(recovery="tcp", recovery_params=NS3_LIKE)
    sample(probe, 0.1)
    probe.on_packet_sent(1, 1.0, retransmission=True)
    for pn in range(2, 6):
        probe.on_packet_sent(pn, 1.0 + 0.001 * pn)
    out = probe.on_ack([(2, 5)], 0.0, 1.2)
    assert out["lost"] == []  # RFC 6675 without RACK: a retransmission is not re-marked
    rack = testing.LossDetectorProbe(recovery="tcp")
    sample(rack, 0.1)
    rack.on_packet_sent(1, 1.0, retransmission=True)
    for pn in range(2, 6):
        rack.on_packet_sent(pn, 1.0 + 0.001 * pn)
    assert rack.on_ack([(2, 5)], 0.0, 1.2)["lost"] == [1]


# ---- quic-draft ---------------------------------------------------------------------------


def test_quic_draft_two_tlps_then_a_verified_rto(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(recovery="quic-draft", max_ack_delay_s=0.025)
    sample(probe, 0.1)  # SRTT 0.1, RTTVAR 0.05
    probe.on_packet_sent(1, 1.0)
    probe.on_packet_sent(2, 1.0)
    tlp = max(1.5 * 0.1 + 0.025, 0.010)  # draft 4.3.2
    t = 1.0
    for _ in range(2):
        kind, deadline = probe.timer()
        assert (kind, deadline) == ("tlp", pytest.approx(t + tlp))
        probe.on_timeout(deadline)
        t = deadline
        probe.on_packet_sent(probe_next(probe), t)
    kind, deadline = probe.timer()
    rto = max(0.1 + 4 * 0.05 + 0.025, 0.2)  # draft 4.3.3
    assert (kind, deadline) == ("rto", pytest.approx(t + rto))
    out = probe.on_timeout(deadline)
    assert out["kind"] == "rto" and out["lost"] == []  # nothing changes until verified
    t = deadline
    first_after = probe_next(probe)
    probe.on_packet_sent(first_after, t)
    probe.on_packet_sent(first_after + 1, t)
    assert probe.timer() == ("rto", pytest.approx(t + 2 * rto))  # backed off
    out = probe.on_ack([(first_after, first_after)], 0.0, t + 0.1)
    assert out["rto_episode_ended"] and not out["rto_spurious"]
    # Packet threshold first (3 below the acknowledged one), then
    # OnRetransmissionTimeoutVerified: everything else sent before it is lost.
    assert out["lost"] == list(range(1, first_after))
    expected = [
        "packet_threshold" if pn + 3 <= first_after else "retransmission_timeout"
        for pn in range(1, first_after)
    ]
    assert out["loss_kinds"] == expected


def probe_next(probe: Any) -> int:
    """The next packet number of a probe (packets are numbered consecutively)."""
    return probe.largest_acked + 1 + probe_outstanding(probe)


def probe_outstanding(probe: Any) -> int:
    return int(probe.bytes_in_flight // 1200)


def test_quic_draft_module_xor_backoff(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(
        recovery="quic-draft", recovery_params={"rto_backoff": "xor", "tail_loss_probes": 0}
    )
    sample(probe, 0.1)
    base = max(0.1 + 4 * 0.05 + 0.025, 0.2)
    probe.on_packet_sent(1, 1.0)
    # The module's `alarm * (2 ^ rto_count)`: 2, 3, 0, 1, 6 times the base.
    seen = []
    t = 1.0
    for _ in range(5):
        kind, deadline = probe.timer()
        seen.append((deadline - t) / base)
        probe.on_timeout(deadline)
        t = deadline
        probe.on_packet_sent(probe_next(probe), t)
    assert seen == pytest.approx([2, 3, 0, 1, 6])


# ---- picoquic -----------------------------------------------------------------------------


def test_picoquic_timer_and_backoff(testing: ModuleType) -> None:
    probe = testing.LossDetectorProbe(recovery="picoquic", max_ack_delay_s=0.010)
    probe.on_packet_sent(0, 0.0)
    assert probe.timer() == ("rto", pytest.approx(0.25))  # before a sample
    probe.on_ack([(0, 0)], 0.0, 0.02)  # SRTT 20 ms, RTTVAR 10 ms
    base = 0.02 + 4 * 0.01 + 0.010  # no 200 ms floor
    probe.on_packet_sent(1, 1.0)
    seen = []
    t = 1.0
    for n in range(8):
        kind, deadline = probe.timer()
        assert kind == "rto"
        seen.append(deadline - t)
        out = probe.on_timeout(deadline)
        if n == 0:
            assert out["lost"] == [1]  # timed-out packets are declared lost
        t = deadline
        probe.on_packet_sent(probe_next(probe) + n + 1, t)  # numbers skip the lost ones
    expected = [min(base * m, 2.0) for m in (1, 2, 4, 5, 6, 7, 8, 10)]
    assert seen == pytest.approx(expected)


# ---- config errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"recovery": "reno"}, "config.recovery: unknown recovery 'reno'"),
        (
            {"recovery": "tcp", "recovery_params": {"min_rto_s": -1}},
            "config.recovery_params.min_rto_s: must be in",
        ),
        (
            {"recovery": "tcp", "recovery_params": {"max_rto_s": 0.1, "min_rto_s": 1.0}},
            "config.recovery_params.max_rto_s: must be >= min_rto_s",
        ),
        (
            {"recovery": "tcp", "recovery_params": {"rto_backoff": "triple"}},
            "config.recovery_params.rto_backoff: must be one of",
        ),
        (
            {"recovery": "tcp", "recovery_params": {"tail_loss_probes": 3}},
            "config.recovery_params.tail_loss_probes",
        ),
        ({"recovery_params": {"min_rto_s": 1.0}}, "not to 'rfc9002'"),
        ({"recovery": "tcp", "recovery_params": {"rto": 1}}, "rto: unknown key"),
        ({"recovery": 3}, "config.recovery"),
    ],
)
def test_bad_recovery_settings_name_the_field(
    core: ModuleType, config: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        core.validate_simulation_config(config)


# ---- end to end ---------------------------------------------------------------------------


def run_outage(core: ModuleType, recovery: str, params: dict[str, Any] | None = None):
    """One 20 Mbit/s, 60 ms path with a 1 s outage at 3 s; 10 ms steps."""
    path = synthetic_path(8.0, rate_bps=20e6, delay_s=0.03, queue_packets=100, outages=[(3.0, 4.0)])
    config: dict[str, Any] = {"cc": "newreno", "seed": 1, "recovery": recovery}
    if params:
        config["recovery_params"] = params
    steps = []
    with core.Simulation(config, [path]) as sim:
        for _ in range(800):
            m = sim.step(0.01)
            steps.append(
                (
                    float(m["time_s"]),
                    int(m["rto_count"][0]),
                    float(m["cwnd_bytes"][0]),
                    bool(m["in_loss_state"][0]),
                    float(m["srtt_s"][0]),
                    float(m["rttvar_s"][0]),
                )
            )
    return steps


def test_single_path_outage_under_tcp_backs_off_and_collapses_to_one_segment(
    core: ModuleType,
) -> None:
    steps = run_outage(core, "tcp", {"tail_loss_probes": 0})
    rto_times = [t for t, n, *_ in steps if n > 0]
    assert len(rto_times) >= 2
    before = [s for s in steps if s[0] <= 3.0][-1]
    srtt, rttvar = before[4], before[5]
    rto = srtt + max(4 * rttvar, 0.2)  # Linux tcp_set_rto
    # The first expiry comes one RTO after the last ACK before the stall (within a step and
    # the queue's drain), then the timer doubles (RFC 6298 section 5.5).
    assert rto_times[0] - 3.0 == pytest.approx(rto, abs=0.12)
    assert rto_times[1] - rto_times[0] == pytest.approx(2 * rto, rel=0.1, abs=0.02)
    # RFC 5681 section 3.1: the loss window is one segment (packet_bytes = 1200).
    after_first = [s for s in steps if s[0] >= rto_times[0]][0]
    assert after_first[2] == pytest.approx(1200)
    assert after_first[3]  # in RTO recovery
    # It recovers: the loss state ends and the window grows again after the outage.
    assert not steps[-1][3]
    assert steps[-1][2] > 20 * 1200


def test_rfc9002_outage_raises_no_retransmission_timeout(core: ModuleType) -> None:
    steps = run_outage(core, "rfc9002")
    assert sum(n for _, n, *_ in steps) == 0


def first_rto_window(core: ModuleType, cc: str) -> tuple[float, float]:
    """cwnd just before and just after the first RTO, with a handover-outage at 3.0-3.4 s."""
    path = synthetic_path(
        6.0, rate_bps=20e6, delay_s=0.03, queue_packets=100, outages=[(3.0, 3.4)], handovers=[3.0]
    )
    config = {"cc": cc, "seed": 1, "recovery": "tcp", "recovery_params": {"tail_loss_probes": 0}}
    before = float("nan")
    with core.Simulation(config, [path]) as sim:
        for _ in range(600):
            m = sim.step(0.01)
            if int(m["rto_count"][0]) > 0:
                return before, float(m["cwnd_bytes"][0])
            before = float(m["cwnd_bytes"][0])
    raise AssertionError("no retransmission timeout")


def test_freeze_keeps_a_handover_timeout_from_the_window(core: ModuleType) -> None:
    # StarQUIC's freeze targets exactly this collapse (docs/specs/freeze.md): the packets the
    # timer gave up on were sent within 100 ms of the handover.
    plain_before, plain_after = first_rto_window(core, "newreno")
    frozen_before, frozen_after = first_rto_window(core, "freeze+newreno")
    assert plain_after == pytest.approx(1200)  # RFC 5681 loss window
    assert frozen_after == pytest.approx(frozen_before)  # untouched
