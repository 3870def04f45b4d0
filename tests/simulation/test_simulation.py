"""The Simulation facade: typed measurements, actions, errors named by the user's field, the
process-wide simulator, transport options, and the Python and native handover oracles."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the env ids)
from leogym.envs.config import EnvConfig
from leogym.native import core
from leogym.native import testing as load_testing
from leogym.scenario import build_timeline, load_scenario
from leogym.simulation import (
    CONNECTION_KEYS,
    FLOW_KEYS,
    LINK_KEYS,
    PER_PATH_KEYS,
    SUBFLOW_KEYS,
    Simulation,
    SimulationClosedError,
    TransportOptions,
    native_config,
    native_paths,
)


def _settings(**kwargs: object) -> EnvConfig:
    return EnvConfig.from_kwargs(scenario=None, **kwargs)


@pytest.mark.native
def test_measurements_name_every_entry_the_core_returns() -> None:
    tiny = load_scenario("tiny")
    raw = core().Simulation(
        native_config(_settings(cc="cubic"), tiny, 1), native_paths(build_timeline(tiny, 1))
    )
    try:
        keys = set(raw.step(0.1))
    finally:
        raw.close()
    assert keys == (
        set(PER_PATH_KEYS)
        | set(CONNECTION_KEYS)
        | set(FLOW_KEYS)
        | set(SUBFLOW_KEYS)
        | set(LINK_KEYS)
    )


@pytest.mark.native
def test_step_returns_typed_measurements_and_apply_sets_the_window() -> None:
    tiny = load_scenario("tiny")
    with Simulation.open(_settings(cc="external"), tiny, 3) as sim:
        assert sim.n_paths == len(tiny.paths)
        sim.apply(cwnd_bytes=np.full(sim.n_paths, 20 * 1400.0))
        m = sim.step(0.5)
        assert m.cwnd_bytes.shape == (sim.n_paths,)
        np.testing.assert_array_equal(m.cwnd_bytes, 20 * 1400.0)
        assert isinstance(m.goodput_bytes, int) and isinstance(m.completed, bool)
        assert m.time_s == pytest.approx(0.5) == sim.now
        assert m.per_path("srtt_s") is m.srtt_s
        with pytest.raises(KeyError, match="per-path"):
            m.per_path("goodput_bytes")


@pytest.mark.native
def test_errors_name_the_users_field() -> None:
    tiny = load_scenario("tiny")
    bad_transport = [
        ({"receive_window_bytes": 5}, r"env\.transport\.receive_window_bytes"),
        ({"cwnd_validation": "bsd"}, r"env\.transport\.cwnd_validation"),
    ]
    for options, field in bad_transport:
        # the env config's schema refuses it ...
        with pytest.raises(ValueError, match=field):
            _settings(transport=options)
        # ... and so does the core, for settings that skipped the schema
        unchecked = EnvConfig(scenario=None, transport=TransportOptions(**options))
        with pytest.raises(ValueError, match=field):
            Simulation.open(unchecked, tiny, 1)
    with pytest.raises(ValueError, match=r"env\.cc_params"):
        Simulation.open(_settings(cc="cubic", cc_params={"NoSuchParameter": 1.0}), tiny, 1)
    with pytest.raises(ValueError, match=r"env\.transport: unknown key"):
        _settings(transport={"rwnd": 1})


@pytest.mark.native
def test_opening_a_simulation_takes_the_process_simulator_over() -> None:
    tiny = load_scenario("tiny")
    first = Simulation.open(_settings(cc="cubic"), tiny, 1)
    first.step(0.1)
    second = Simulation.open(_settings(cc="cubic"), tiny, 2)
    try:
        assert first.closed and first.taken_over and not second.closed
        with pytest.raises(SimulationClosedError, match="another one opened"):
            first.step(0.1)
        second.step(0.1)
        first.close()  # idempotent, and does not touch the live one
        second.step(0.1)
    finally:
        second.close()
    assert second.closed and not second.taken_over


@pytest.mark.native
def test_receive_window_option_limits_the_connection() -> None:
    """RFC 9000 §4.1 flow control: the receiver buffers at most the window out of order, and a
    window-limited connection moves at most one window per round trip (goodput <= W / min RTT)."""

    def run(**kwargs: object) -> tuple[float, int, float]:
        env = gym.make("leogym/LeoCC-v0", scenario="tiny", cc="cubic", episode_s=8.0, **kwargs)
        env.reset(seed=0)
        goodput, reorder, min_rtt = 0, 0, np.inf
        for _ in range(80):
            env.step(env.action_space.sample())
            m = env.unwrapped.last_measurements
            goodput += m.goodput_bytes
            reorder = max(reorder, m.reorder_buffer_bytes)
            min_rtt = min(min_rtt, float(np.nanmin(m.min_rtt_s, initial=np.inf)))
        env.close()
        return goodput * 8 / 8.0, reorder, min_rtt

    window = 64 * 1024
    limited, reorder, min_rtt = run(transport={"receive_window_bytes": window})
    free, free_reorder, _ = run()
    assert reorder <= window < free_reorder
    assert limited <= window * 8 / min_rtt
    assert free > 1.3 * limited


def test_transport_options_reach_the_native_config() -> None:
    tiny = load_scenario("tiny")
    options = TransportOptions(subflow_paths=[0], cwnd_validation="linux", ack_every=1)
    config = native_config(_settings(transport=options), tiny, 9)
    assert config["subflow_paths"] == [0]
    assert config["cwnd_validation"] == "linux" and config["ack_every"] == 1
    assert config["run"] == 9 and config["cc"] == "external"
    assert "receive_window_bytes" not in config  # unset: the core's default


def test_freeze_name_passes_through_unchanged() -> None:
    config = native_config(_settings(cc="freeze+cubic"), load_scenario("freeze"), 1)
    assert config["cc"] == "freeze+cubic" and "freeze" not in config


def test_cross_traffic_and_file_follow_rate_scale() -> None:
    sc = load_scenario("tiny")
    flow = dataclasses.replace(sc.traffic, workload="file", file_bytes=1_000_000)
    sc = dataclasses.replace(sc, traffic=flow, rate_scale=4.0)
    from leogym.scenario import CrossTrafficConfig

    sc.traffic.cross_traffic = [CrossTrafficConfig(kind="udp_onoff", rate_mbps=8.0, count=2)]
    config = native_config(_settings(), sc, 1)
    assert config["file_bytes"] == 250_000
    assert [f["rate_bps"] for f in config["cross_traffic"]] == [2e6, 2e6]


def test_satellite_paths_carry_the_slant_range() -> None:
    """MACO's eq. 3 reads the terminal-satellite range: zenith range = shell altitude."""
    sc = load_scenario("maco")
    paths = native_paths(build_timeline(sc, 1))
    assert all(p["kind"] == "satellite" and "slant_range_m" in p for p in paths)
    elevation = paths[0]["elevation_deg"]
    slant = paths[0]["slant_range_m"]
    zenith = np.argmax(elevation)
    if elevation[zenith] > 89.9:
        assert slant[zenith] == pytest.approx(550e3, rel=1e-4)
    assert np.all(slant[np.isfinite(slant)] >= 550e3 - 1.0)


@pytest.mark.native
def test_python_and_native_handover_oracles_agree() -> None:
    """The env's handover features (Python, leogym.scenario.forecast) and what the native
    algorithms see (cpp/helper/leo-schedule-oracle, over the path's LeoPathSchedule) come from
    the same schedule: the native schedule's next handover, read through the test probe, is
    the Python oracle's."""
    timeline = build_timeline(load_scenario("default"), 5)
    oracle = timeline.oracle()
    t = np.arange(0.5, 35.01, 0.5)
    expected = np.stack([oracle.time_to_handover(x) for x in t])  # (time, path)
    seen = 0
    for i, path in enumerate(native_paths(timeline)):
        native = load_testing().sample_path(path, t)["next_handover_s"] - t
        finite = np.isfinite(expected[:, i])
        np.testing.assert_array_equal(np.isfinite(native), finite)
        np.testing.assert_allclose(native[finite], expected[finite, i], atol=1e-6)
        seen += int(finite.sum())
    assert seen > 0


@pytest.mark.native
def test_measurements_carry_no_second_handover_forecast() -> None:
    """A step returns what the simulation measured, not a copy of the timeline's forecast
    (time to the next handover, SNR, elevation): observations read that from the timeline."""
    tiny = load_scenario("tiny")
    raw = core().Simulation(
        native_config(_settings(cc="cubic"), tiny, 1), native_paths(build_timeline(tiny, 1))
    )
    try:
        keys = set(raw.step(0.1))
    finally:
        raw.close()
    assert not {"time_to_next_handover_s", "snr_db", "elevation_deg"} & keys
