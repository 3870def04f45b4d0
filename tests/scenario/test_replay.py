"""Replay readers (LeoReplayer mahimahi + delay pair, LENS IRTT CSV) checked on synthetic
traces against arithmetic: 1500 B per opportunity, one line per ms = 12 Mbit/s."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import numpy as np
import pytest

from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.links.handover import slot_instants
from leogym.scenario.links.replay import (
    aligned_offset_s,
    estimate_boundary_phase_s,
    replay_lens_irtt,
    replay_leoreplayer,
    scenario_boundary_phase_s,
)
from leogym.scenario.links.trace_readers import (
    read_lens_irtt_csv,
    read_leoreplayer_delay,
    read_mahimahi_bw,
)
from leogym.scenario.validation import validate_scenario

_spec = importlib.util.spec_from_file_location(
    "trace_fixtures", Path(__file__).with_name("trace_fixtures.py")
)
assert _spec is not None and _spec.loader is not None
fx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fx)

DT = 0.01
MBPS = 1e6


def _grid(duration_s: float, dt: float = DT) -> np.ndarray:
    return np.arange(int(round(duration_s / dt)) + 1) * dt


# --- LeoReplayer pair ---------------------------------------------------------------------


def test_one_line_per_ms_is_12_mbps(tmp_path: Path) -> None:
    bw = fx.write_mahimahi(tmp_path / "bw_1.txt", [(1000, 1)])
    delay = fx.write_delay(tmp_path / "delay_1.txt", [(100, 20)])
    t = _grid(5.0)
    out = replay_leoreplayer(bw, delay, t, offset_s=0.1)
    # 100 opportunities of 1500 B in every 100 ms window: 100 * 12000 bit / 0.1 s
    assert np.all(out.rate_down_bps == 12 * MBPS)
    assert np.array_equal(out.rate_up_bps, out.rate_down_bps)
    # the first ms of the trace has no opportunity (timestamps 1..1000): 99 in [0, 100) ms
    first = replay_leoreplayer(bw, delay, t[:5]).rate_down_bps
    assert first[0] == pytest.approx(99 * 12000 / 0.1)


def test_rate_step_and_looping(tmp_path: Path) -> None:
    # 2 lines/ms for 500 ms (24 Mbit/s), then 1 line/ms for 500 ms (12 Mbit/s); period 1 s
    bw = fx.write_mahimahi(tmp_path / "bw.txt", [(500, 2), (500, 1)])
    up = fx.write_mahimahi(tmp_path / "bw_up.txt", [(1000, 3)])
    delay = fx.write_delay(tmp_path / "delay.txt", [(100, 20)])
    t = _grid(4.0)
    out = replay_leoreplayer(bw, delay, t, bw_up=up, bin_s=0.1)
    phase = np.round(t % 1.0, 6)
    # timestamp m closes millisecond m, so each window [a, b) counts timestamps a .. b-1
    assert np.all(out.rate_down_bps[(phase >= 0.1) & (phase < 0.5)] == 24 * MBPS)
    assert np.all(out.rate_down_bps[(phase >= 0.5) & (phase < 0.6)] == 101 * 12000 / 0.1)
    assert np.all(out.rate_down_bps[phase >= 0.6] == 12 * MBPS)
    assert out.rate_down_bps[0] == 198 * 12000 / 0.1  # 2 x (1 .. 99)
    assert np.all(out.rate_down_bps[(t >= 1.0) & (phase < 0.1)] == 199 * 12000 / 0.1)
    assert np.all(out.rate_up_bps[t >= 0.1] == 36 * MBPS)
    # looping: the trace repeats every 1 s
    assert np.array_equal(out.rate_down_bps[100:300], out.rate_down_bps[200:400])


def test_rate_bin_10ms_and_floor(tmp_path: Path) -> None:
    # 1 line/ms for 50 ms, then a 50 ms gap (one line at 100 closes the period)
    bw = fx.write_lines(tmp_path / "bw.txt", [*range(1, 51), 100])
    delay = fx.write_delay(tmp_path / "delay.txt", [(10, 5)])
    t = _grid(0.2)
    out = replay_leoreplayer(bw, delay, t, bin_s=0.01, min_rate_bps=0.5 * MBPS)
    assert out.rate_down_bps[1] == 12 * MBPS  # [10, 20) ms: 10 opportunities
    assert np.all(out.rate_down_bps[6:9] == 0.5 * MBPS)  # the gap gets the floor


def test_delay_step_offset_and_loop(tmp_path: Path) -> None:
    bw = fx.write_mahimahi(tmp_path / "bw.txt", [(1000, 1)])
    # 20 ms for 1 s (100 lines of 10 ms), then 35 ms for 1 s; period 2 s
    delay = fx.write_delay(tmp_path / "delay.txt", [(100, 20), (100, 35)])
    t = _grid(6.0)
    out = replay_leoreplayer(bw, delay, t)
    phase = np.round(t % 2.0, 6)
    assert np.all(out.delay_down_s[phase < 1.0] == 0.020)
    assert np.all(out.delay_down_s[phase >= 1.0] == 0.035)
    assert np.array_equal(out.delay_up_s, out.delay_down_s)  # both directions, RTT = 2x
    # offset 0.25 s: the step arrives 0.25 s earlier in episode time
    shifted = replay_leoreplayer(bw, delay, t, offset_s=0.25)
    assert shifted.delay_down_s[74] == 0.020 and shifted.delay_down_s[75] == 0.035
    assert np.array_equal(shifted.delay_down_s[:-25], out.delay_down_s[25:])
    assert out.loss_down is None and out.loss_up is None


def test_decimal_delays_are_read(tmp_path: Path) -> None:
    p = fx.write_lines(tmp_path / "d.txt", ["12.5", "", "13"])
    assert read_leoreplayer_delay(p).tolist() == [12.5, 13.0]


# --- LENS IRTT ---------------------------------------------------------------------------


def test_irtt_loss_fractions(tmp_path: Path) -> None:
    # 10 s of 10 ms probes; every 10th lost upstream, k % 20 == 5 lost downstream
    rows = fx.irtt_rows(1000, lost_up_every=10, lost_down_every=20, lost_down_phase=5)
    csv = fx.write_irtt_csv(tmp_path / "irtt.csv", rows)
    t = _grid(9.99)
    out = replay_lens_irtt(csv, t, DT, loss_bin_s=1.0)
    # per 1 s window: 100 probes, 10 lost up; of the 90 that reached the server, 5 lost down
    assert np.allclose(out.loss_up, 10 / 100)
    assert np.allclose(out.loss_down, 5 / 90)
    assert out.rate_down_bps is None and out.rate_up_bps is None


def test_irtt_delay_minimum_per_step_and_hold(tmp_path: Path) -> None:
    rows = fx.irtt_rows(500, rtt_ms=(30, 34, 38, 42, 46), lost_up_every=7)
    csv = fx.write_irtt_csv(tmp_path / "irtt.csv", rows, header=False)
    # 50 ms steps hold 5 probes, one of each RTT; minimum 30 ms unless probe 30 was lost
    t = _grid(4.95, 0.05)
    out = replay_lens_irtt(csv, t, 0.05, up_share=0.25)
    lost = {k for k in range(500) if k % 7 == 0}
    want = [
        min(30 + 4 * (k % 5) for k in range(5 * i, 5 * i + 5) if k not in lost) for i in range(100)
    ]
    assert np.allclose(out.delay_up_s * 1e3, 0.25 * np.asarray(want))
    assert np.allclose(out.delay_down_s * 1e3, 0.75 * np.asarray(want))
    # 10 ms steps: a lost probe's step holds the previous probe's RTT (probe 7 lost: 38 ms)
    fine = replay_lens_irtt(csv, _grid(1.0), DT)
    assert fine.delay_up_s[7] * 2e3 == pytest.approx(30 + 4 * (6 % 5))
    assert fine.delay_up_s[0] * 2e3 == pytest.approx(34)  # leading gap: the first RTT


def test_irtt_looping_and_offset(tmp_path: Path) -> None:
    rows = fx.irtt_rows(100, rtt_ms=[20.0] * 50 + [60.0] * 50)  # 1 s period
    csv = fx.write_irtt_csv(tmp_path / "irtt.csv", rows)
    assert read_lens_irtt_csv(csv).period_s == pytest.approx(1.0)
    t = _grid(3.0)
    out = replay_lens_irtt(csv, t, DT, offset_s=0.2)
    rtt = (out.delay_up_s + out.delay_down_s) * 1e3
    phase = np.round((t + 0.2) % 1.0, 6)
    assert np.allclose(rtt[phase < 0.5], 20.0) and np.allclose(rtt[phase >= 0.5], 60.0)


# --- alignment ---------------------------------------------------------------------------


def test_scenario_phase_matches_slot_instants() -> None:
    for epoch in (0.0, 5.0, 33.3, 86_399.0):
        first = slot_instants(100.0, epoch, 15.0, 12.0)[0]
        assert scenario_boundary_phase_s(epoch, 15.0, 12.0) == pytest.approx(first % 15.0)


def test_aligned_offset_arithmetic() -> None:
    # trace boundary at 3.2 s, scenario boundary at 12 s: 6.2 + 12 = 18.2 = 3.2 (mod 15)
    assert aligned_offset_s(3.2, 12.0) == pytest.approx(6.2)
    # at or after start_s
    assert aligned_offset_s(3.2, 12.0, start_s=100.0) == pytest.approx(111.2)
    assert aligned_offset_s(12.0, 12.0) == 0.0


def test_boundary_alignment_end_to_end(tmp_path: Path) -> None:
    # a 60 s delay trace: 25 ms, with a 100 ms spike to 80 ms at trace times 3.2 + 15 k
    d = np.full(6000, 25.0)
    for k in range(4):
        i = 320 + 1500 * k
        d[i : i + 10] = 80.0
    delay = fx.write_lines(tmp_path / "delay.txt", [int(x) for x in d])
    bw = fx.write_mahimahi(tmp_path / "bw.txt", [(1000, 1)])
    b = estimate_boundary_phase_s(read_leoreplayer_delay(delay), 0.01)
    assert b == pytest.approx(3.2)
    epoch = 7.0
    s = scenario_boundary_phase_s(epoch, 15.0, 12.0)  # 5.0 s
    off = aligned_offset_s(b, s)
    t = _grid(60.0)
    out = replay_leoreplayer(bw, delay, t, offset_s=off)
    boundaries = slot_instants(60.0, epoch, 15.0, 12.0)
    rise = np.diff(out.delay_down_s, prepend=out.delay_down_s[0]) > 0.01
    assert np.allclose(t[rise], boundaries)  # 5, 20, 35, 50 s
    assert np.all(out.delay_down_s[rise] == 0.080)


# --- bad input ---------------------------------------------------------------------------


def _raises(match: str, fn, *args, **kw) -> ScenarioConfigError:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match) as info:
        fn(*args, **kw)
    assert isinstance(info.value, ScenarioConfigError)
    return info.value


def test_bad_mahimahi(tmp_path: Path) -> None:
    p = fx.write_lines(tmp_path / "trace.up", [*range(1, 17), 1300, 1200])
    err = _raises(
        r"trace\.up:18: timestamps must not decrease \(1200 < 1300\)",
        read_mahimahi_bw,
        p,
        "replay.bw_up",
    )
    assert str(err).startswith("replay.bw_up: ")
    _raises(
        r"bw\.txt:2: expected a non-negative integer",
        read_mahimahi_bw,
        fx.write_lines(tmp_path / "bw.txt", ["1", "2.5"]),
    )
    _raises(r"empty", read_mahimahi_bw, fx.write_lines(tmp_path / "e.txt", []))
    _raises(r"not found", read_mahimahi_bw, tmp_path / "missing.txt")


def test_bad_delay(tmp_path: Path) -> None:
    _raises(
        r"d1\.txt:3: delay must be >= 0 ms, got -4",
        read_leoreplayer_delay,
        fx.write_lines(tmp_path / "d1.txt", [20, 21, -4]),
    )
    _raises(
        r"d2\.txt:2: expected a one-way delay in ms, got 'abc'",
        read_leoreplayer_delay,
        fx.write_lines(tmp_path / "d2.txt", [20, "abc"]),
    )
    _raises(
        r"d3\.txt:1: expected a one-way delay",
        read_leoreplayer_delay,
        fx.write_lines(tmp_path / "d3.txt", ["nan"]),
    )
    _raises(
        r"^replay\.delay: .*d4\.txt: delay trace is empty",
        read_leoreplayer_delay,
        fx.write_lines(tmp_path / "d4.txt", ["", " "]),
    )
    bw = fx.write_mahimahi(tmp_path / "bw.txt", [(10, 1)])
    _raises(
        r"^cfg\.replay\.delay: .*not found",
        replay_leoreplayer,
        bw,
        tmp_path / "nope",
        _grid(1.0),
        field="cfg.replay",
    )


def test_bad_irtt(tmp_path: Path) -> None:
    good = "timestamp,rtt,uplink,downlink\n1000000,40,20,20\n"
    cases = {
        "back.csv": (
            good + "500,40,20,20\n",
            r"back\.csv:3: timestamp 500 ns goes back from 1000000 ns",
        ),
        "neg.csv": (good + "2000000,-5,20,20\n", r"neg\.csv:3: RTT must be in \[0, 10000\] ms"),
        "huge.csv": (good + "2000000,1e300,20,20\n", r"huge\.csv:3: RTT must be in \[0, 10000\]"),
        "cols.csv": (good + "2000000,40,20\n", r"cols\.csv:3: expected 4 columns"),
        "text.csv": (good + "2000000,x,20,20\n", r"text\.csv:3: expected an RTT in ms, got 'x'"),
        "ts.csv": (
            good + "2e6,40,20,20\n",
            r"ts\.csv:3: expected a non-negative integer timestamp",
        ),
        "head.csv": ("timestamp,rtt,uplink,downlink\n", r"head\.csv: IRTT trace has no probes"),
        "one.csv": (good, r"one\.csv: IRTT trace spans no time"),
    }
    for name, (text, match) in cases.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        err = _raises(match, read_lens_irtt_csv, p, "scenario.paths[0].satellite.replay.csv")
        assert err.field == "scenario.paths[0].satellite.replay.csv"
    _raises(r"must be a file name", read_lens_irtt_csv, "")


def test_replay_delay_beyond_physical_range_names_the_file_line(tmp_path: Path) -> None:
    # issue 33: a 10,000 s (1e7 ms) or 1e300 ms one-way delay was accepted by the reader and
    # later blamed on queue.size; the reader refuses it, naming the field, file and line
    for i, bad in enumerate(["1e7", "1e300", "10000.5"]):
        _raises(
            rf"^replay\.delay: .*big{i}\.txt:2: delay must be <= 10000 ms, got {re.escape(bad)}",
            read_leoreplayer_delay,
            fx.write_lines(tmp_path / f"big{i}.txt", [20, bad]),
        )
    assert read_leoreplayer_delay(fx.write_lines(tmp_path / "ok.txt", [10000])).tolist() == [
        10000.0
    ]


def test_directory_and_fifo_are_named_as_such(tmp_path: Path) -> None:
    # issue 33: both used to be reported as "not found"
    field = "scenario.paths[0].satellite.replay.csv"
    err = _raises(r"is a directory, not a file", read_lens_irtt_csv, tmp_path, field)
    assert err.field == field
    _raises(r"^replay\.delay: .* is a directory", read_leoreplayer_delay, tmp_path)
    _raises(r"^replay\.bw: .* is a directory", read_mahimahi_bw, tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for reader in (read_lens_irtt_csv, read_leoreplayer_delay, read_mahimahi_bw):
        _raises(r"is not a regular file \(a FIFO, socket or device\)", reader, fifo)
    _raises(r"not found", read_lens_irtt_csv, tmp_path / "missing.csv")


def test_tiny_irtt_trace_cannot_expand_without_bound(tmp_path: Path) -> None:
    # issue 33: a 22-byte, two-line IRTT file repeats every 2 ns; laying it out over a 15 s
    # grid allocated without bound (MemoryError, or the OOM killer). Now: an error naming the
    # field and the file, before any allocation.
    p = tmp_path / "tiny.csv"
    p.write_text("0,40,20,20\n1,40,20,20\n", encoding="utf-8")
    assert p.stat().st_size == 22
    err = _raises(
        r"^cfg\.replay\.csv: .*tiny\.csv: the trace repeats every 2e-09 s with 2 probes; "
        r"replaying .* would lay out .* probes \(at most 2e\+07\): the trace is too short",
        replay_lens_irtt,
        p,
        _grid(15.0),
        DT,
        field="cfg.replay",
    )
    assert err.field == "cfg.replay.csv"


def test_irtt_probe_gaps_are_not_read_as_loss(tmp_path: Path) -> None:
    # a pinger that waits out a 5 s timeout after each lost probe: 0.1 s probes, every 20th
    # lost and followed by 5 s without probes. Probe loss 5 %; the old reader held the lost
    # window's share across the gap (about 25 % replayed at loss_bin_s 1).
    stamps: list[int] = []
    lost: list[bool] = []
    t_ns = 0
    for k in range(2000):
        stamps.append(t_ns)
        lost.append(k % 20 == 19)
        t_ns += 5_100_000_000 if lost[-1] else 100_000_000
    rows = [f"{s},{-1 if x else 40},0,0" for s, x in zip(stamps, lost, strict=True)]
    p = fx.write_lines(tmp_path / "ping.csv", ["timestamp,rtt,uplink,downlink", *rows])
    probes = read_lens_irtt_csv(p)
    t = np.arange(int(round(probes.period_s / DT))) * DT
    for bin_s in (0.1, 1.0, 15.0, 60.0):
        out = replay_lens_irtt(p, t, DT, loss_bin_s=bin_s)
        assert out.loss_up is not None and out.loss_down is not None
        assert float(out.loss_up.mean()) == pytest.approx(0.05, rel=0.05), bin_s
        assert float(out.loss_down.max()) == 0.0


# --- config hook -------------------------------------------------------------------------


def _tiny(**replay: object):  # type: ignore[no-untyped-def]
    from leogym.scenario import load_scenario
    from leogym.scenario.config.replay import ReplayConfig

    cfg = load_scenario("tiny")
    cfg.handover.outage_s = 0.0
    cfg.paths[0].satellite.replay = ReplayConfig(**replay)  # type: ignore[arg-type]
    return cfg


def test_config_off_is_unchanged() -> None:
    from leogym.scenario import build_timeline, load_scenario

    a = build_timeline(load_scenario("tiny"), 3)
    cfg = load_scenario("tiny")
    assert not cfg.paths[0].satellite.replay.enabled
    b = build_timeline(cfg, 3)
    for pa, pb in zip(a.paths, b.paths, strict=True):
        assert np.array_equal(pa.delay_down_s, pb.delay_down_s)
        assert np.array_equal(pa.rate_down_bps, pb.rate_down_bps)
        assert np.array_equal(pa.loss_up, pb.loss_up)


def test_config_leoreplayer_replaces_delay_and_rate(tmp_path: Path) -> None:
    from leogym.scenario import build_timeline

    bw = fx.write_mahimahi(tmp_path / "bw.txt", [(1000, 2)])  # 24 Mbit/s
    delay = fx.write_delay(tmp_path / "delay.txt", [(100, 20), (100, 30)])
    base = _tiny()
    geo = build_timeline(base, 0).paths[0]
    cfg = _tiny(format="leoreplayer", bw_down=str(bw), delay=str(delay), offset_s=0.1)
    validate_scenario(cfg)
    tl = build_timeline(cfg, 0)
    p = tl.paths[0]
    phase = np.round((tl.times + 0.1) % 2.0, 6)
    assert np.all(p.delay_down_s[phase < 1.0] == 0.020)
    assert np.all(p.delay_up_s[phase >= 1.0] == 0.030)
    assert np.all(p.rate_down_bps == 24 * MBPS) and np.all(p.rate_up_bps == 24 * MBPS)
    assert np.array_equal(p.loss_down, geo.loss_down)  # the pair carries no loss
    assert np.array_equal(p.handovers, geo.handovers)
    assert np.array_equal(tl.paths[1].rate_down_bps, build_timeline(base, 0).paths[1].rate_down_bps)


def test_config_lens_alignment_to_schedule(tmp_path: Path) -> None:
    from leogym.scenario import build_timeline

    # 15 s IRTT trace: 30 ms RTT, 90 ms in the 100 ms after trace time 4.01 s; every 4th lost up
    # (probes 404 and 408 are lost: their steps hold the previous 90 ms)
    rtt = [30.0] * 1500
    rtt[401:411] = [90.0] * 10
    csv = fx.write_irtt_csv(tmp_path / "irtt.csv", fx.irtt_rows(1500, rtt_ms=rtt, lost_up_every=4))
    cfg = _tiny(format="lens_irtt", csv=str(csv), trace_boundary_s=4.01)
    tl = build_timeline(cfg, 0)
    p = tl.paths[0]
    rtt_s = p.delay_down_s + p.delay_up_s
    # tiny: epoch 5 s, slots at UTC second 12 -> the boundary at t = 7 s carries the spike
    assert np.all(np.isclose(rtt_s[700:710], 0.090))
    assert np.allclose(np.delete(rtt_s, range(700, 710)), 0.030)
    assert np.allclose(p.loss_up, 0.25) and np.allclose(p.loss_down, 0.0)
    assert 7.0 in p.handovers


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    base = "scenario.paths[0].satellite.replay"
    bw = fx.write_mahimahi(tmp_path / "bw.txt", [(10, 1)])
    bad = fx.write_lines(tmp_path / "delay.txt", [20, -3])
    cases = [
        (dict(format="leoreplayer", delay=str(bad)), rf"^{re.escape(base)}\.bw_down: required"),
        (
            dict(format="leoreplayer", bw_down=str(bw), delay=str(bad)),
            rf"^{re.escape(base)}\.delay: .*delay\.txt:2: delay must be >= 0",
        ),
        (dict(format="lens_irtt"), rf"^{re.escape(base)}\.csv: required"),
        (
            dict(format="lens_irtt", csv=str(tmp_path / "no.csv")),
            rf"^{re.escape(base)}\.csv: .*not found",
        ),
        (dict(format="mp4"), rf"^{re.escape(base)}\.format: "),
        (
            dict(format="leoreplayer", bw_down=str(bw), delay=str(bw), up_share=2.0),
            rf"^{re.escape(base)}\.up_share: ",
        ),
    ]
    for replay, match in cases:
        with pytest.raises(ScenarioConfigError, match=match):
            validate_scenario(_tiny(**replay))
    cfg = _tiny(format="leoreplayer", bw_down=str(bw), delay=str(bw))
    cfg.handover.outage_s = 0.1
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.handover\.outage_s: must be 0 with"):
        validate_scenario(cfg)
    cfg.paths[0].satellite.replay.allow_stacking = True
    validate_scenario(cfg)


def test_tiny_irtt_trace_is_refused_at_validation(tmp_path: Path) -> None:
    # issue 33: the 22-byte trace fails when the scenario is validated, before any build
    from leogym.scenario import load_scenario

    p = tmp_path / "tiny.csv"
    p.write_text("0,40,20,20\n1,40,20,20\n", encoding="utf-8")
    cfg = _tiny(format="lens_irtt", csv=str(p))
    with pytest.raises(ScenarioConfigError, match=r"too short for this scenario") as info:
        load_scenario(cfg)
    assert info.value.field.endswith("paths[0].satellite.replay.csv")
    # a trace long enough for the scenario passes
    ok = fx.write_irtt_csv(tmp_path / "ok.csv", fx.irtt_rows(100))
    load_scenario(_tiny(format="lens_irtt", csv=str(ok)))


def test_replayed_traces_share_the_scenario_file_cache(tmp_path: Path) -> None:
    """The replay's trace files go through leogym.scenario.files' one cache: read once per
    file version, counted by ``cache_info`` and forgotten by ``clear_cache``."""
    from leogym.scenario import files
    from leogym.scenario.config.replay import ReplayConfig
    from leogym.scenario.links.replay import check_replay_files

    bw, delay = tmp_path / "bw.txt", tmp_path / "delay.txt"
    bw.write_text("".join(f"{t}\n" for t in range(1, 101)))
    delay.write_text("20\n" * 10)
    cfg = ReplayConfig(format="leoreplayer", bw_down=str(bw), delay=str(delay))
    files.clear_cache()
    before = files.cache_info()
    for _ in range(3):
        check_replay_files(cfg, "p")
    after = files.cache_info()
    assert after.get("read_mahimahi_bw_reads", 0) == before.get("read_mahimahi_bw_reads", 0) + 1
    assert after.get("read_leoreplayer_delay_reads", 0) == (
        before.get("read_leoreplayer_delay_reads", 0) + 1
    )
    assert after["files"] == 2
    files.clear_cache()
    check_replay_files(cfg, "p")
    assert files.cache_info()["read_mahimahi_bw_reads"] == after["read_mahimahi_bw_reads"] + 1
