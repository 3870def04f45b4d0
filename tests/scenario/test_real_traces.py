"""The two real Starlink traces shipped in conf/scenario/traces/ and the bundled scenarios that
replay them (``starlink_leocc_replay``, ``starlink_bentpipe_2023``): the files are the published
bytes, and what the readers replay matches the figures recounted here straight from the files
(mean rate within 2 %, loss within 20 %), at every ``loss_bin_s`` docs/scenario.md offers."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.links.replay import replay_path
from leogym.scenario.links.trace_readers import read_lens_irtt_csv

TRACES = Path(__file__).resolve().parents[2] / "conf" / "scenario" / "traces"
LEOCC = TRACES / "leocc-leoreplayer-example"
PING = TRACES / "mmsys24-starlink-livestreaming-data"
PING_RAW = PING / "no-isl-ping-gw-seattle-230911-170535-0.1s-60min.txt"
PING_CSV = PING / (PING_RAW.name + ".converted.lens-irtt.csv")
#: The loss windows docs/scenario.md offers for lens_irtt (default 1 s).
LOSS_BINS_S = (0.1, 1.0, 15.0, 60.0)
DT = 0.01


def _leocc_rate_bps() -> float:
    """The pair's mean capacity counted from the file: 1500 B per line over its period."""
    stamps = [int(x) for x in (LEOCC / "bw_example.txt").read_text().split()]
    return len(stamps) * 1500 * 8 / (stamps[-1] * 1e-3)


def _ping_loss() -> float:
    """Share of the published pings without a reply (RTT column -1)."""
    rows = [line.split("\t") for line in PING_RAW.read_text().splitlines() if line.strip()]
    return sum(float(r[2]) == -1 for r in rows) / len(rows)


def _satellite_replay(name: str):  # type: ignore[no-untyped-def]
    (sat,) = [p for p in load_scenario(name).paths if p.kind == "satellite"]
    return sat.satellite.replay


@pytest.mark.parametrize("folder", [LEOCC, PING])
def test_shipped_files_are_the_published_bytes(folder: Path) -> None:
    provenance = (folder / "PROVENANCE.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"sha256 `([0-9a-f]{64})`", provenance))
    data = [p for p in folder.iterdir() if p.suffix in (".txt", ".csv") and "LICENSE" not in p.name]
    data = [p for p in data if not p.name.startswith("COPYING")]
    assert len(data) >= 2
    for path in data:
        assert hashlib.sha256(path.read_bytes()).hexdigest() in listed, path.name
    assert list(folder.glob("LICENSE*")) or list(folder.glob("COPYING*"))
    assert (TRACES / "README.md").is_file()


def test_recounted_figures_are_the_published_ones() -> None:
    # PROVENANCE.md: 48.7 Mbit/s mean; 913 of 36,000 pings lost (2.54 %)
    assert _leocc_rate_bps() / 1e6 == pytest.approx(48.74, abs=0.01)
    assert _ping_loss() == pytest.approx(913 / 36000)
    probes = read_lens_irtt_csv(PING_CSV)
    assert len(probes.t_s) == 36000 and int(probes.lost_up.sum()) == 913


def test_leocc_replay_mean_rate_matches_the_file() -> None:
    cfg = load_scenario("starlink_leocc_replay")
    tl = build_timeline(cfg, seed=0)
    sat = tl.paths[0]
    # 120 s of a 120.05 s trace: the mean of one period
    want = _leocc_rate_bps()
    assert float(sat.rate_down_bps.mean()) == pytest.approx(want, rel=0.02)
    assert float(sat.rate_up_bps.mean()) == pytest.approx(want, rel=0.02)
    # the delay is the trace's (7-68 ms one way), the loss LeoReplayer's configured one
    assert 0.007 <= sat.delay_down_s.min() and sat.delay_down_s.max() <= 0.068
    assert np.median(sat.loss_up) == pytest.approx(2e-3) and sat.loss_up.max() < 0.01
    assert np.median(sat.loss_down) == pytest.approx(1e-4) and sat.loss_down.max() < 0.01


@pytest.mark.parametrize("loss_bin_s", LOSS_BINS_S)
def test_bentpipe_replayed_loss_matches_the_file(loss_bin_s: float) -> None:
    """Each lost ping is followed by a 5 s timeout without probes; the old reader held the lost
    window's share across it (20.6 % replayed at 1 s against 2.54 % lost)."""
    replay = dataclasses.replace(_satellite_replay("starlink_bentpipe_2023"), loss_bin_s=loss_bin_s)
    period = read_lens_irtt_csv(PING_CSV).period_s
    times = np.arange(int(period / DT)) * DT
    out = replay_path(
        replay,
        times,
        DT,
        scenario_boundary_s=0.0,
        period_s=15.0,
        min_rate_bps=1e5,
        field="replay",
    )
    want = _ping_loss()
    assert float(out["loss_up"].mean()) == pytest.approx(want, rel=0.2)
    assert float(out["loss_down"].max()) == 0.0  # a ping loss has no known direction
    # the RTT is the trace's (median 42.8 ms), split evenly
    rtt_ms = (out["delay_down_s"] + out["delay_up_s"]) * 1e3
    assert np.median(rtt_ms) == pytest.approx(42.8, abs=3.0)
    assert "rate_down_bps" not in out  # the capacity is the dynamics layer's


def test_bentpipe_scenario_takes_capacity_from_the_dynamics_layer() -> None:
    cfg = load_scenario("starlink_bentpipe_2023")
    sat = build_timeline(dataclasses.replace(cfg, duration_s=60.0), seed=0).paths[0]
    geo = load_scenario("starlink_geometric")
    geo_rate = build_timeline(dataclasses.replace(geo, duration_s=60.0), seed=0).paths[0]
    # per-slot variability and boundary stalls: not the nearly static geometric capacity
    assert np.std(np.log(sat.rate_down_bps)) > 3 * np.std(np.log(geo_rate.rate_down_bps))
    rtt_ms = (sat.delay_down_s + sat.delay_up_s) * 1e3
    assert 15.0 <= float(np.median(rtt_ms)) <= 90.0


#: Plain native controllers (``external`` needs windows from Python; wrappers compose these).
NATIVE_CCS = (
    "balia",
    "bbr",
    "bbr3",
    "bbr3_picoquic",
    "cubic",
    "dctcp",
    "lia",
    "maco",
    "newreno",
    "olia",
    "prague",
)


@pytest.mark.native
@pytest.mark.timeout(600)
@pytest.mark.parametrize("scenario", ["starlink_leocc_replay", "starlink_bentpipe_2023"])
def test_real_traces_replay_through_the_env_for_every_native_cc(scenario: str) -> None:
    import gymnasium as gym

    import leogym  # noqa: F401  (registers the env ids)
    from leogym.native import core

    assert set(NATIVE_CCS) == {n for n in core().cc_algorithms() if "+" not in n} - {"external"}
    short = dataclasses.replace(load_scenario(scenario), duration_s=3.0)
    for cc in NATIVE_CCS:
        env = gym.make("leogym/LeoCC-v0", scenario=short, cc=cc, episode_s=1.5)
        try:
            env.reset(seed=0)
            delivered = 0.0
            done = False
            while not done:
                _, reward, term, trunc, info = env.step(env.action_space.sample())
                assert np.isfinite(reward), cc
                delivered += float(np.sum(info["delivered_bytes"]))
                done = term or trunc
            assert delivered > 0, f"{scenario}/{cc}: nothing delivered"
        finally:
            env.close()


def test_dynamics_beside_a_replay_only_where_the_trace_leaves_the_rate() -> None:
    from leogym.scenario.config.dynamics import DynamicsConfig
    from leogym.scenario.errors import ScenarioConfigError

    cfg = load_scenario("starlink_leocc_replay")
    cfg.paths[0].satellite.dynamics = DynamicsConfig(preset="default")
    with pytest.raises(ScenarioConfigError, match=r"dynamics\.preset: must be 'off' with .*"):
        load_scenario(cfg)
    # lens_irtt carries no capacity: the bundled bent-pipe scenario combines the two
    assert load_scenario("starlink_bentpipe_2023").paths[0].satellite.dynamics.enabled
