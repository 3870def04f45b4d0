"""LEOTP's hole expiry on the simulator's clock (cpp/doc/leotp.md, "Loss detection").

ns-3's clock counts whole nanoseconds and ``Seconds(x)`` rounds ``x`` to the nearest one, so a
timer armed at ``a`` for a deadline ``t`` (a double) fires at ``a + round(t - a)`` ns, which
can be up to half a nanosecond before ``t``. The hole detector must count such a deadline as
due: before it did, the Consumer's hole timer found nothing due, re-armed itself for the same
deadline (a zero delay) and fired again at the same instant without end (variant B on
``leotp_bj_ny``, 120 s, stopped at 47 s). The arithmetic below is ns-3's; the figures are
those of that run's time of day.
"""

from __future__ import annotations

from types import ModuleType

NS = 1e-9


def _fire_time_s(armed_ns: int, deadline_s: float) -> float:
    """When ns-3 runs a timer scheduled at ``armed_ns`` with delay ``Seconds(deadline - now)``:
    the delay rounded to whole nanoseconds, the clock read back in seconds."""
    now_s = armed_ns * NS
    return (armed_ns + round((deadline_s - now_s) / NS)) * NS


def test_the_clock_can_fire_before_a_double_deadline() -> None:
    """The premise: around 47 s, a 0.2 s deadline from a time on the nanosecond grid is not
    always on the grid, and the rounded timer fires before it (so a test below can fail)."""
    early = 0
    for k in range(1000):
        armed = 46_800_000_000 + k
        t = armed * NS + 0.2
        early += _fire_time_s(armed, t) < t
    assert early > 0


def test_a_hole_is_due_when_its_timer_fires(testing: ModuleType) -> None:
    """Every hole opened on the nanosecond grid near 47 s (and near 1 s and 1000 s) is
    returned by expire() at the instant its timer fires, and the detector is then empty, so
    the timer is not re-armed for the same instant."""
    for base_ns in (1_000_000_000, 46_800_000_000, 1_000_000_000_000):
        for k in range(500):
            det = testing.LeotpHoleDetectorProbe(threshold=1, chunk_bytes=1, expiry_s=0.2)
            opened_ns = base_ns + 7 * k
            det.on_packet(1, 2, now_s=(opened_ns - 1000) * NS)
            det.on_packet(3, 4, now_s=opened_ns * NS)  # hole [2, 3) opens here
            t = det.next_expiry_s()
            fire = _fire_time_s(opened_ns, t)
            assert det.expire(fire) == [(2, 3)], (opened_ns, t - fire)
            assert det.holes == []


def test_a_hole_is_not_due_a_tick_early(testing: ModuleType) -> None:
    """The slack is below one tick: a timer two nanoseconds short of the deadline still finds
    the hole open (Algorithm 1's 200 ms wait is kept)."""
    det = testing.LeotpHoleDetectorProbe(threshold=1, chunk_bytes=1, expiry_s=0.2)
    det.on_packet(1, 2, now_s=46.8)
    det.on_packet(3, 4, now_s=46.81)
    t = det.next_expiry_s()
    assert det.expire(t - 2 * NS) == []
    assert det.expire(t) == [(2, 3)]
