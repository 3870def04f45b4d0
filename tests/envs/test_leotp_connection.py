"""LEOTP as the connection under study: the env hook (``connection="leotp"``), the ``leotp``
baselines and the evaluation (cpp/doc/leotp.md, "The connection under study")."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import leogym.envs.registration  # noqa: F401  (registers the ids)
from leogym.baselines import bind, make_baseline
from leogym.scenario import load_scenario

pytestmark = pytest.mark.native

DURATION_S = 4.0


def _chain5(duration_s: float = DURATION_S):
    sc = load_scenario("leotp_chain5")
    sc.duration_s = duration_s
    return sc


def _run_env(policy, scenario, seed: int) -> tuple[list[float], int, list[dict]]:
    """Goodput (bytes per 1 s step) of the connection, the episode seed and the infos."""
    env = gym.make(
        "leogym/LeoCC-v0",
        scenario=scenario,
        step_ms=1000,
        episode_s=scenario.duration_s,
        cc="cubic",
        **policy.env_overrides,
    )
    obs, info = env.reset(seed=seed)
    bind(policy, env)
    episode_seed = int(info["episode_seed"])
    goodput, infos = [], []
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(policy.predict(obs)[0])
        goodput.append(float(info["flow_goodput_bytes"][0]))
        infos.append(info)
        done = terminated or truncated
    env.close()
    return goodput, episode_seed, infos


def test_env_goodput_equals_the_reproductions_leotp_flow():
    """LeoCC-v0 with the ``leotp`` baseline and the reproduction's LEOTP-A flow (beside an idle
    connection) are the same LEOTP on the same chain with the same seed: the same goodput, bin
    by bin (the reproduction's own harness gives the reference)."""
    from leogym.agents.reproduce import leotp as rep

    goodput, seed, _ = _run_env(make_baseline("leotp"), _chain5(), seed=11)
    task = {
        "group": "chain5",
        "condition": 0.01,  # the chain's own loss per hop (conf/scenario/leotp_chain5.yaml)
        "algorithm": "LEOTP-A",
        "seed": seed - 1,  # the reproduction opens its simulation with seed + 1
        "duration_s": DURATION_S,
        "warmup_s": 0.0,
    }
    reference = rep.run_task(task)["flows"][0]["bins_mbps"]
    assert len(reference) == len(goodput) == int(DURATION_S)
    assert sum(goodput) > 0
    np.testing.assert_array_equal(np.array(goodput) * 8e-6, reference)


def test_the_env_measures_leotp_like_every_connection():
    _, _, infos = _run_env(make_baseline("leotp"), _chain5(), seed=2)
    last = infos[-1]
    assert last["goodput_bps"] > 0 and np.isfinite(last["delay_s"])
    # one-way delay per Data packet: at least the chain's 5 x 10 ms propagation
    assert 0.05 <= float(last["flow_owd_mean_s"][0]) < 0.2
    assert last["rtt_s"][0] >= 0.1  # the Consumer's end-to-end SRTT, >= 5 x 20 ms
    detected = sum(int(i["losses"]["detected"][0]) for i in infos)
    random_drops = sum(int(i["losses"]["random"][0]) for i in infos)
    assert random_drops > 0 and detected > 0  # 1 % per hop: losses are seen and repaired


def test_leotp_takes_no_actions_and_refuses_external_control():
    env = gym.make("leogym/LeoCC-v0", scenario=_chain5(2.0), connection="leotp")
    assert not env.unwrapped.agent_controls_cc  # cc "external", but LEOTP has no window to set
    env.reset(seed=0)
    env.step(env.action_space.sample())  # ignored
    with pytest.raises(ValueError, match="leotp connection"):
        env.unwrapped.simulation.apply(cwnd_bytes=np.array([1e5]))
    env.close()


def test_gymnasium_checker_is_warning_free():
    from gymnasium.utils.env_checker import check_env

    env = gym.make(
        "leogym/LeoCC-v0", scenario=_chain5(2.0), step_ms=500, episode_s=2.0, connection="leotp"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_path_scenario_needs_variant_d():
    """Variants A-C need Midnodes, which only a hop scenario has: a ValueError naming the
    field; variant D, end-to-end LEOTP, runs on the path topology."""
    with pytest.raises(ValueError, match=r"^env\.leotp\.variant: .*hop scenario"):
        gym.make("leogym/LeoCC-v0", scenario="tiny", **make_baseline("leotp").env_overrides)
    policy = make_baseline("leotp_d")
    env = gym.make(
        "leogym/LeoCC-v0", scenario="tiny", episode_s=2.0, cc="cubic", **policy.env_overrides
    )
    obs, _ = env.reset(seed=0)
    bind(policy, env)
    total = 0.0
    for _ in range(20):
        obs, *_, info = env.step(policy.predict(obs)[0])
        total += float(info["flow_goodput_bytes"][0])
    env.close()
    assert total > 0


BAD = [
    ("target_buffer_packets", 0.5),  # below one packet
    ("cache_blocks", 0),  # no cache block
    ("midnode_fraction", 1.5),
    ("midnode_fraction", -0.1),
    ("variant", "E"),
]


@pytest.mark.parametrize(("key", "value"), BAD)
def test_bad_env_parameters_name_the_field(key, value):
    with pytest.raises(ValueError, match=rf"^env\.leotp\.{key}: "):
        gym.make("leogym/LeoCC-v0", scenario="leotp_chain5", connection="leotp", leotp={key: value})


@pytest.mark.parametrize(("key", "value"), [b for b in BAD if b[0] != "variant"])
def test_bad_baseline_parameters_name_the_field(key, value):
    with pytest.raises(ValueError, match=rf"^baseline\.leotp\.{key}: "):
        make_baseline("leotp", **{key: value})


def test_baselines_carry_their_variant_and_parameters():
    assert make_baseline("leotp").env_overrides["leotp"]["variant"] == "A"
    assert make_baseline("leotp_d").env_overrides["leotp"]["variant"] == "D"
    p = make_baseline("leotp_b", target_buffer_packets=10.0, cache_blocks=8.0)
    assert p.env_overrides == {
        "connection": "leotp",
        "leotp": {
            "variant": "B",
            "target_buffer_packets": 10.0,
            "cache_blocks": 8,
            "midnode_fraction": 1.0,
        },
    }
    with pytest.raises(ValueError, match=r"baseline\.leotp\.variant: unknown parameter"):
        make_baseline("leotp", variant="B")  # the variant is the baseline's name


def test_evaluation_with_leotp_writes_finite_metrics(tmp_path: Path):
    """``leogym-eval`` runs LEOTP beside a TCP-like baseline on a hop scenario; the results
    table has its row with the same metrics, finite."""
    out = tmp_path / "eval"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.evaluate",
            "scenario=leotp_chain5",
            "env.episode_s=3",
            "baseline=[bbr,leotp]",
            "eval.seeds=[0]",
            "eval.progress=false",
            "eval.n_workers=1",
            f"hydra.run.dir={out}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    df = pd.read_parquet(out / "results.parquet").set_index("policy")
    assert set(df.index) == {"BBR", "LEOTP"}
    cols = [
        "goodput_mbps",
        "rtt_p50_ms",
        "rtt_p95_ms",
        "delay_mean_ms",
        "loss_rate",
        "owd_mean_ms",
        "queue_delay_mean_ms",
        "loss_random_pkts",
    ]
    assert np.isfinite(df.loc["LEOTP", cols].to_numpy(dtype=float)).all()
    assert df.loc["LEOTP", "goodput_mbps"] > 0
    # the chain's propagation is 50 ms one way, 100 ms round trip
    assert df.loc["LEOTP", "owd_mean_ms"] >= 50.0 and df.loc["LEOTP", "rtt_p50_ms"] >= 100.0
