"""The optimised hot paths give the same numbers as the straightforward definitions they
replaced, and the ``rate_scale`` fidelity knob scales exactly what it documents.

* :class:`~leogym.scenario.forecast.HandoverOracle` precomputes each handover's forecast and the
  outage intervals; it must agree with :meth:`Timeline.next_handover`,
  :meth:`Timeline.time_to_next_handover` and :meth:`PathTimeline.in_outage` at every time.
* :meth:`FeatureTable.frame_from_raw` must equal the documented ``clip(raw / unit, low, high)``
  with NaN and infinities as 0.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401
from leogym.envs.config import ObservationConfig
from leogym.envs.features import FeatureTable
from leogym.scenario import build_timeline, load_scenario, validate_scenario
from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.forecast import HandoverOracle
from leogym.simulation import native_config


def _reference_forecast(tl, p, t: float) -> tuple[float, float, float] | None:
    """Time to the next handover and the RTT and capacity once it has settled, straight from
    the arrays and the documented rule (the first grid sample after the handover's outage and
    ``settle_s``), independently of leogym.scenario.forecast."""
    h = np.asarray(p.handovers)
    k = int(np.searchsorted(h, t, side="right"))
    if k >= len(h):
        return None
    th = float(h[k])
    ends = [float(b) for a, b in np.asarray(p.outages).reshape(-1, 2) if a <= th + 1e-9 < b + 1e-9]
    ends = [e for e in ends if th < e]
    settled = max(max(ends, default=th), th + tl.settle_s) + tl.dt_s
    j = min(max(int(np.floor(settled / tl.dt_s + 1e-9)), 0), tl.n - 1)
    return th - t, float(p.delay_down_s[j] + p.delay_up_s[j]), float(p.rate_down_bps[j])


@pytest.mark.parametrize("name", ["tiny", "default", "iridium_omsr"])
def test_oracle_agrees_with_the_timeline(name: str) -> None:
    tl = build_timeline(load_scenario(name), seed=7)
    oracle = HandoverOracle(tl)
    # every grid point, the handover instants themselves, and points just around them
    times = list(np.arange(0.0, tl.duration_s, 0.037))
    for p in tl.paths:
        for h in np.asarray(p.handovers):
            times += [float(h) - 1e-6, float(h), float(h) + 1e-6]
        for a, b in np.asarray(p.outages).reshape(-1, 2):
            times += [float(a), float(b) - 1e-6, float(b)]
    assert any(len(p.handovers) for p in tl.paths)
    for t in times:
        t = float(t)
        tth = oracle.time_to_handover(t)
        rtt, cap = oracle.after_handover(t)
        k = tl.index_at(t)
        for i, (p, f) in enumerate(zip(tl.paths, tl.next_handover(t), strict=True)):
            ref = _reference_forecast(tl, p, t)
            if ref is None:
                assert f is None and tth[i] == np.inf
                assert rtt[i] == p.delay_down_s[k] + p.delay_up_s[k]
                assert cap[i] == p.rate_down_bps[k]
            else:
                assert f is not None
                assert tth[i] == ref[0] == f.time_to_s
                assert rtt[i] == pytest.approx(ref[1], rel=1e-15)
                assert rtt[i] == f.delay_down_after_s + f.delay_up_after_s
                assert cap[i] == ref[2] == f.rate_down_after_bps
        outage = np.array([p.in_outage(t) for p in tl.paths])
        np.testing.assert_array_equal(oracle.in_outage(t), outage)
        expected_cap = np.where(outage, 0.0, [p.rate_down_bps[k] for p in tl.paths])
        np.testing.assert_array_equal(oracle.capacity(t), expected_cap)
    for t0, t1 in zip(times[:-1], times[1:], strict=True):
        lo, hi = min(t0, t1), max(t0, t1)
        expected = sorted(
            (
                (i, float(h))
                for i, p in enumerate(tl.paths)
                for h in np.asarray(p.handovers)
                if lo < h <= hi
            ),
            key=lambda e: e[1],
        )
        assert oracle.handovers_between(lo, hi) == expected


def test_frame_is_the_documented_clipped_scaling() -> None:
    cfg = ObservationConfig(max_paths=3, handover_features=False, snr_features=False)
    table = FeatureTable(cfg)
    rng = np.random.default_rng(0)
    n = 2
    values = rng.normal(0.0, 1.0, size=(n, 7)) * np.array([1e3, 1e3, 0.5, 0.5, 0.1, 1e9, 0.5])
    values[0, 2] = np.nan
    values[1, 5] = np.inf
    values[1, 6] = -np.inf
    raw = np.column_stack([values, [1.0, 0.0]])
    frame = table.frame_from_raw(raw.copy()).reshape(cfg.max_paths, -1)
    scale = np.array([f.unit_scale for f in table.per_path])
    low = np.array([f.low for f in table.per_path])
    high = np.array([f.high for f in table.per_path])
    raw[~np.isfinite(raw)] = 0.0
    expected = np.clip(raw / scale, low, high).astype(np.float32)
    np.testing.assert_array_equal(frame[:n], expected)
    assert not frame[n:].any()  # padding


def _with_scale(name: str, k: float):
    cfg = load_scenario(name)
    cfg.rate_scale = k
    return validate_scenario(cfg)


def test_rate_scale_divides_rates_queues_and_workload() -> None:
    ref = build_timeline(_with_scale("tiny", 1.0), seed=3)
    cfg = _with_scale("tiny", 4.0)
    cfg.paths[1].queue.unit, cfg.paths[1].queue.size = "packets", 200.0
    scaled = build_timeline(cfg, seed=3)
    assert scaled.rate_scale == 4.0
    for a, b in zip(ref.paths, scaled.paths, strict=True):
        np.testing.assert_array_equal(b.rate_down_bps, a.rate_down_bps / 4.0)
        np.testing.assert_array_equal(b.rate_up_bps, a.rate_up_bps / 4.0)
        np.testing.assert_array_equal(b.delay_down_s, a.delay_down_s)
        np.testing.assert_array_equal(b.loss_down, a.loss_down)
        np.testing.assert_array_equal(b.handovers, a.handovers)
    # a BDP queue follows the rates; a queue in packets keeps its queueing delay
    assert abs(scaled.paths[0].queue_packets - ref.paths[0].queue_packets / 4) <= 1
    assert scaled.paths[1].queue_packets == 50
    cfg.traffic.workload, cfg.traffic.file_bytes = "file", 1_000_000
    from leogym.envs.config import EnvConfig

    native = native_config(EnvConfig.from_kwargs(scenario=None), cfg, 1)
    assert native["file_bytes"] == 250_000


@pytest.mark.parametrize("k", [0.5, 0.0, float("nan"), 5000.0])
def test_rate_scale_out_of_range_names_the_field(k: float) -> None:
    cfg = load_scenario("tiny")
    cfg.rate_scale = k
    with pytest.raises(ScenarioConfigError, match=r"scenario\.rate_scale"):
        validate_scenario(cfg)


@pytest.mark.native
def test_env_reports_throughput_scaled_back() -> None:
    """Capacity comes from the timeline: divided by k for the simulator, multiplied back by k
    in the env, so it is the real scenario's (k = 4 is a power of two: exact)."""
    caps = {}
    goodput = {}
    for k in (1.0, 4.0):
        env = gym.make(
            "leogym/LeoCC-v0", scenario=_with_scale("tiny", k), cc="cubic", episode_s=3.0
        )
        env.reset(seed=0)
        c, g = [], []
        for _ in range(30):
            _, _, _, _, info = env.step(env.action_space.sample())
            c.append(info["capacity_bps"])
            g.append(info["goodput_bps"])
        env.close()
        caps[k], goodput[k] = c, float(np.mean(g[10:]))
    assert caps[1.0] == caps[4.0]
    # goodput is reported on the real scale: same order as unscaled, never above capacity
    assert 0.5 < goodput[4.0] / goodput[1.0] < 2.0
    assert goodput[4.0] <= max(caps[4.0]) * 1.05
