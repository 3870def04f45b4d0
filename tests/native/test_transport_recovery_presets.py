"""Timer-based recovery presets through the core: their settings' errors and whole runs.

The loss detector's own rules under each preset (RFC 6298 arithmetic, back-off sequences, TLP
timing, RTO verification, spurious timeouts, lost retransmissions without RACK) and the
presets' values are tested in C++, beside the model:
cpp/model/transport/test/mp-loss-recovery-test-suite.cc (run by test_cpp_unit_tests.py). Here:
the config keys ``recovery`` and ``recovery_params`` as the core parses them, and runs of the
simulator whose expected numbers come from the references:

* ``tcp`` (Linux 5.4 / RFC 6298 / RFC 5681): RTO = SRTT + max(4 RTTVAR, 200 ms) (Linux
  ``tcp_set_rto``), doubling per expiry (section 5.5); the loss window is one segment
  (RFC 5681 section 3.1).
* ``rfc9002``: no retransmission timeout at all (RFC 9002's probe timeout replaces it).
* ``freeze+newreno`` under ``tcp``: StarQUIC's freeze keeps a handover timeout from the window
  (docs/specs/freeze.md).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from leogym.simulation.native_config import synthetic_path

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
