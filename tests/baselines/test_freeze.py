"""StarQUIC's handover freeze (native ``MpFreeze``) against the paper's rule.

Reference: Kamel et al., StarQUIC (LEO-NET '24): handovers at seconds 12, 27, 42, 57 of every
minute, freeze window +-100 ms around them on the lost packet's send time; checks of
docs/specs/freeze.md#checks. The fixed-grid predicate on its own (item 1 at every listed send
time, item 6) is a C++ unit test beside it: cpp/model/cc/test/mp-freeze-test-suite.cc.
"""

from __future__ import annotations

import pytest

# Every test evaluates the native code through leogym._core.testing
pytestmark = pytest.mark.native

MSS = 1200
GRID = {"FixedSchedule": 1}


@pytest.mark.parametrize("name", ["freeze+newreno", "freeze+cubic", "freeze+bbr"])
@pytest.mark.parametrize(
    ("t", "frozen"), [(11.9, True), (12.1, True), (12.101, False), (57.1, True), (59.9, False)]
)
def test_controller_predicate_on_the_grid(testing, name, t, frozen):
    probe = testing.CcProbe(name, params=GRID, mss=MSS)
    assert probe.is_frozen(0, t) == frozen
    assert probe.consider_for_persistent_congestion(0, 1, t) == (not frozen)


def test_epoch_phase_and_offset_shift_the_grid(testing):
    # UTC second 3 at t = 0: the 12 s handover is at t = 9 s.
    probe = testing.CcProbe("freeze+cubic", params={**GRID, "EpochPhase": 3.0}, mss=MSS)
    assert probe.is_frozen(0, 9.0) and not probe.is_frozen(0, 12.0)
    # A sender 50 ms before the satellite hop: packets sent at 11.85 s cross it at 11.9 s.
    probe = testing.CcProbe("freeze+cubic", params={**GRID, "DeltaOff": 0.05}, mss=MSS)
    assert probe.is_frozen(0, 11.85) and not probe.is_frozen(0, 12.051)


def test_oracle_handover_instants(testing):
    """Default: the path oracle's handover timetable (docs/specs/freeze.md#multipath)."""
    oracle = {"satellite": True, "handovers": [12.0, 27.0, 33.3]}
    probe = testing.CcProbe("freeze+newreno", mss=MSS, oracles=[oracle])
    for t, frozen in [
        (11.9, True),
        (12.1, True),
        (12.101, False),
        (26.9, True),
        (33.2, True),
        (33.401, False),
        (42.0, False),
    ]:
        assert probe.is_frozen(0, t) == frozen, t


def _grow(probe, n, t=1.0):
    """n packets sent at t and acknowledged (RTT 50 ms): slow start from 10 to 10 + n."""
    for pn in range(n):
        probe.on_sent(0, pn, t, MSS)
    probe.on_ack(0, [(pn, t, MSS) for pn in range(n)], t + 0.05, 0.05)
    return n


def test_batch_with_one_frozen_packet_reduces_once(testing):
    """docs/specs/freeze.md#checks item 2: {11.95 s, 13.0 s} -> exactly one reduction, by the 13.0 s
    packet."""
    probe = testing.CcProbe("freeze+newreno", params=GRID, mss=MSS)
    pn = _grow(probe, 30)
    w = probe.cwnd(0)
    probe.on_sent(0, pn, 11.95, MSS)
    probe.on_sent(0, pn + 1, 13.0, MSS)
    probe.on_loss(0, [(pn, 11.95, MSS), (pn + 1, 13.0, MSS)], 13.2)
    assert probe.cwnd(0) == w // 2
    assert probe.freeze_counts(0) == {"frozen": 1, "acted": 1}
    assert probe.suppressed_losses(0) == 1


def test_batch_of_frozen_packets_changes_nothing(testing):
    """docs/specs/freeze.md#checks item 2: {11.95, 12.05} -> no reduction, cwnd unchanged."""
    for name in ("freeze+newreno", "freeze+cubic", "freeze+bbr"):
        probe = testing.CcProbe(name, params=GRID, mss=MSS)
        pn = _grow(probe, 30)
        w, ss = probe.cwnd(0), probe.ssthresh(0)
        probe.on_sent(0, pn, 11.95, MSS)
        probe.on_sent(0, pn + 1, 12.05, MSS)
        probe.on_loss(0, [(pn, 11.95, MSS), (pn + 1, 12.05, MSS)], 12.3)
        assert (probe.cwnd(0), probe.ssthresh(0)) == (w, ss), name
        assert probe.freeze_counts(0) == {"frozen": 2, "acted": 0}


def test_timeout_filter(testing):
    """docs/specs/freeze.md#checks item 3: the packet that would make the timeout count
    (oldest, sent at 27.02 s) is kept out of the persistent-congestion test; one sent at 28.0 s
    is not."""
    probe = testing.CcProbe("freeze+cubic", params=GRID, mss=MSS)
    assert not probe.consider_for_persistent_congestion(0, 5, 27.02)
    assert probe.consider_for_persistent_congestion(0, 5, 28.0)
    off = testing.CcProbe("freeze+cubic", params={**GRID, "FreezeTimeouts": 0}, mss=MSS)
    assert off.consider_for_persistent_congestion(0, 5, 27.02)


def test_persistent_congestion_outside_windows_collapses(testing):
    probe = testing.CcProbe("freeze+newreno", params=GRID, mss=MSS)
    pn = _grow(probe, 30)
    probe.on_sent(0, pn, 28.0, MSS)
    probe.on_loss(0, [(pn, 28.0, MSS)], 29.0, persistent=True)
    assert probe.cwnd(0) == 2 * MSS


@pytest.mark.parametrize("inner", ["newreno", "cubic", "bbr"])
def test_acks_in_a_window_grow_the_window_as_without_freeze(testing, inner):
    """docs/specs/freeze.md#checks item 4."""
    a = testing.CcProbe(f"freeze+{inner}", params=GRID, mss=MSS)
    b = testing.CcProbe(inner, mss=MSS)
    for probe in (a, b):
        for pn in range(40):
            probe.on_sent(0, pn, 11.95 + pn * 0.001, MSS)
        for pn in range(40):
            probe.on_ack(0, [(pn, 11.95 + pn * 0.001, MSS)], 12.0 + pn * 0.001, 0.05)
    assert a.cwnd(0) == b.cwnd(0)
    if inner != "bbr":  # (the probe gives BBR no valid rate samples to grow on)
        assert a.cwnd(0) > 10 * MSS


@pytest.mark.parametrize("inner", ["newreno", "cubic", "bbr"])
@pytest.mark.parametrize("enabled", [0, 1])
def test_same_as_inner_without_frozen_losses(testing, inner, enabled):
    """docs/specs/freeze.md#checks item 5: with the freeze off, or with no loss in a window, the
    wrapper is the unmodified controller."""
    params = {**GRID, "Enabled": enabled}
    a = testing.CcProbe(f"freeze+{inner}", params=params, mss=MSS)
    b = testing.CcProbe(inner, mss=MSS)
    # Losses at 12.05 s (in a window: only a frozen-off wrapper acts) and at 20 s.
    times = [1.0, 12.05, 20.0] if not enabled else [1.0, 20.0]
    for probe in (a, b):
        pn = 0
        for t in times:
            for _ in range(20):
                probe.on_sent(0, pn, t, MSS)
                probe.on_ack(0, [(pn, t, MSS)], t + 0.05, 0.05)
                pn += 1
            probe.on_sent(0, pn, t + 0.06, MSS)
            probe.on_loss(0, [(pn, t + 0.06, MSS)], t + 0.3)
            pn += 1
    assert (a.cwnd(0), a.ssthresh(0)) == (b.cwnd(0), b.ssthresh(0))
    assert a.name(0) == f"freeze+{inner}"


def test_bbr_loss_outside_a_window_enters_recovery(testing):
    a = testing.CcProbe("freeze+bbr", params=GRID, mss=MSS)
    pn = _grow(a, 30)
    w = a.cwnd(0)
    for p in range(pn, pn + 5):
        a.on_sent(0, p, 20.0, MSS)
    a.on_loss(0, [(pn, 20.0, MSS)], 20.2)
    assert a.cwnd(0) < w  # packet conservation: inflight + 1 MSS


def test_wrapper_parameters_are_validated(testing):
    with pytest.raises(ValueError, match="Before"):
        testing.CcProbe("freeze+cubic", params={"Before": -1.0})
    with pytest.raises(ValueError, match="wrapper"):
        testing.CcProbe("frieze+cubic")
