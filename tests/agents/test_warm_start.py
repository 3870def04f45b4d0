"""The warm start from the baselines' logs (issue 30 item 6, leogym.agents.warm_start): labels
that invert the action mappings, a store that round-trips, resumes and names what is wrong
with it, behaviour cloning that imitates, and leogym-train warm-started and resumed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leogym.agents import warm_start as ws
from leogym.agents.config import ConfigError, register_configs, validate_config
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.warm_start import clone as ws_clone
from leogym.agents.warm_start import labels as ws_labels
from leogym.agents.warm_start import store as ws_store
from leogym.envs.actions import multiplicative_factor

OBS_WIDTH, ACTION_WIDTH = 52, 4  # LeoCC-v0 on tiny, default observation
TINY = ["scenario=tiny", "env.episode_s=1", "train.warm_start.episodes=2"]


def config(*overrides: str) -> Any:
    register_configs()
    return to_objects(compose("train", [*TINY, *overrides]))


# ------------------------------------------------------------------------------------ labels
def test_continuous_labels_invert_auroras_factor() -> None:
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, size=(30, 2))
    cwnd = np.empty_like(actions)
    window = np.full(2, 10 * 1400.0)  # the env's first window: 10 packets
    for t, a in enumerate(actions):
        window = window * multiplicative_factor(a, 0.5)
        cwnd[t] = window
    labels = ws_labels.continuous_labels(cwnd, packet_bytes=1400, scale=0.5, width=4)
    assert labels.shape == (30, 4) and labels.dtype == np.float32
    np.testing.assert_allclose(labels[:, :2], actions, atol=1e-5)
    assert not labels[:, 2:].any()  # padded paths
    # changes beyond the factor's range saturate; a path without a window is left alone
    far = ws_labels.continuous_labels(np.array([[1e9, 0.0]]), packet_bytes=1400, scale=0.5, width=2)
    np.testing.assert_array_equal(far, [[1.0, 0.0]])


def test_residual_labels_are_log2_gains_over_the_base() -> None:
    base = np.array([[1000.0, 2000.0], [1000.0, 0.0], [4000.0, 10.0]])
    teacher = np.array([[2000.0, 1000.0], [1000.0, 500.0], [1e6, 10.0], [5.0, 5.0]])
    labels = ws_labels.residual_labels(teacher, base, width=3)
    np.testing.assert_allclose(labels, [[1, -1, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]])
    assert not ws_labels.residual_labels(base, base, width=2).any()  # the base itself: a = 0


# ----------------------------------------------------------------------------------- config
@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["agent=sac"], "agent.name"),
        (["env.action_mode=discrete"], "env.action_mode"),
        (["train.warm_start.baselines=[maco,nosuch]"], "train.warm_start.baselines[1]"),
        (["train.warm_start.baselines=[cubic,cubic]"], "train.warm_start.baselines[1]"),
        (["train.warm_start.baselines=[]"], "train.warm_start.baselines"),
        (["train.warm_start.epochs=0"], "train.warm_start.epochs"),
    ],
)
def test_bad_warm_start_settings_name_the_field(overrides: list[str], field: str) -> None:
    c = config("train.warm_start.store=somewhere", *overrides)
    with pytest.raises(ConfigError) as err:
        validate_config(c)
    assert err.value.field == field


# ------------------------------------------------------------------------------------ store
@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("warm") / "store"
    c = config(f"train.warm_start.store={path}")
    collected = ws_store.collect(c, path, obs_width=OBS_WIDTH, action_width=ACTION_WIDTH)
    assert collected == [0, 1]
    return path


@pytest.mark.native
@pytest.mark.timeout(120)
def test_store_round_trips(store: Path) -> None:
    manifest = json.loads((store / "manifest.json").read_text())
    assert manifest["schema_version"] == ws_store.SCHEMA_VERSION
    assert manifest["columns"] == ws_store.COLUMNS
    assert manifest["baselines"] == list(ws.DEFAULT_BASELINES)
    tr = ws_store.load_store(store, obs_width=OBS_WIDTH, action_width=ACTION_WIDTH)
    n = 2 * len(ws.DEFAULT_BASELINES) * 10  # 1 s episodes of 100 ms steps
    assert tr.obs.shape == (n, OBS_WIDTH) and tr.action.shape == (n, ACTION_WIDTH)
    assert set(tr.baseline) == set(ws.DEFAULT_BASELINES)
    assert np.abs(tr.action).max() <= 1.0 and np.abs(tr.action).max() > 0.0
    demos = ws_clone.demonstrations(tr, gamma=0.9)
    assert sorted(demos.teachers) == [0, 1]
    for ep, teacher in demos.teachers.items():  # the teacher has the episode's best return
        returns = tr.episode_return[tr.episode == ep]
        assert tr.episode_return[(tr.episode == ep) & (tr.baseline == teacher)][0] == returns.max()
    assert demos.obs.shape == (20, OBS_WIDTH) and demos.returns.shape == (20,)


@pytest.mark.native
@pytest.mark.timeout(120)
def test_an_interrupted_collection_loses_only_the_missing_episodes(
    store: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    kept = ws_store.episode_path(copy, 0)
    before = kept.stat().st_mtime_ns
    ws_store.episode_path(copy, 1).unlink()  # as a run killed while episode 1 was under way
    c = config(f"train.warm_start.store={copy}")
    assert ws_store.collect(c, copy, obs_width=OBS_WIDTH, action_width=ACTION_WIDTH) == [1]
    assert kept.stat().st_mtime_ns == before  # not rolled out again
    assert ws_store.collect(c, copy, obs_width=OBS_WIDTH, action_width=ACTION_WIDTH) == []
    # a store of another setup is not mixed into
    other = config(f"train.warm_start.store={copy}", "env.step_ms=200")
    with pytest.raises(ws_store.TransitionStoreError) as err:
        ws_store.collect(other, copy, obs_width=OBS_WIDTH, action_width=ACTION_WIDTH)
    assert err.value.field == "train.warm_start.store" and "env_hash" in str(err.value)


def _rewrite(path: Path, change: Any) -> None:
    pq.write_table(change(pq.read_table(path)), path)


def _set_column(table: pa.Table, name: str, values: list[Any]) -> pa.Table:
    i = table.column_names.index(name)
    return table.set_column(i, table.schema.field(i), pa.array(values, table.schema.field(i).type))


def _nan_reward(t: pa.Table) -> pa.Table:
    rewards = t["reward"].to_pylist()
    rewards[3] = float("nan")
    return _set_column(t, "reward", rewards)


def _short_obs(t: pa.Table) -> pa.Table:
    obs = t["obs"].to_pylist()
    obs[5] = obs[5][:-1]
    return _set_column(t, "obs", obs)


def _big_action(t: pa.Table) -> pa.Table:
    action = t["action"].to_pylist()
    action[2][0] = 3.0
    return _set_column(t, "action", action)


@pytest.mark.native
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("corrupt", "field", "words"),
    [
        (lambda t: t.drop_columns(["reward"]), "episodes/ep00001.parquet.reward", "missing"),
        (_short_obs, "episodes/ep00001.parquet.obs", "row 5 has 51"),
        (_nan_reward, "episodes/ep00001.parquet.reward", "row 3 holds NaN"),
        (_big_action, "episodes/ep00001.parquet.action", "[-1, 1]; row 2"),
        (
            lambda t: t.filter(pa.compute.not_equal(t["baseline"], "maco")),
            "episodes/ep00001.parquet.baseline",
            "'maco'",
        ),
        (
            lambda t: t.drop_columns(["obs"]).append_column("obs", pa.array([1.0] * t.num_rows)),
            "episodes/ep00001.parquet.obs",
            "type list<float32>",
        ),
    ],
)
def test_a_corrupt_episode_file_is_named(
    store: Path, tmp_path: Path, corrupt: Any, field: str, words: str
) -> None:
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    _rewrite(ws_store.episode_path(copy, 1), corrupt)
    with pytest.raises(ws_store.TransitionStoreError) as err:
        ws_store.load_store(copy)
    assert err.value.field == field and words in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.native
@pytest.mark.timeout(120)
def test_a_truncated_file_or_a_bad_manifest_is_named(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    ep = ws_store.episode_path(copy, 0)
    ep.write_bytes(ep.read_bytes()[: ep.stat().st_size // 2])
    with pytest.raises(ws_store.TransitionStoreError, match="truncated") as err:
        ws_store.load_store(copy)
    assert err.value.field == "episodes/ep00000.parquet"
    shutil.copy(ws_store.episode_path(store, 0), ep)
    with pytest.raises(ws_store.TransitionStoreError) as err:
        ws_store.load_store(copy, obs_width=OBS_WIDTH + 8)  # a store of another observation
    assert err.value.field == "manifest.obs_width"
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 99}))
    with pytest.raises(ws_store.TransitionStoreError) as err:
        ws_store.load_store(copy)
    assert err.value.field == "manifest.schema_version" and "99" in str(err.value)
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(ws_store.TransitionStoreError) as err:
        ws_store.load_store(copy)
    assert err.value.field == "manifest"
    with pytest.raises(ws_store.TransitionStoreError, match="not a transition store"):
        ws_store.load_store(tmp_path / "nothing")


# ------------------------------------------------------------------------------------ clone
class _Spaces(gym.Env[np.ndarray, np.ndarray]):
    """LeoCC-v0's spaces on tiny, for a policy that is cloned and never stepped."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (OBS_WIDTH,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (ACTION_WIDTH,), np.float32)

    def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
        return np.zeros(OBS_WIDTH, np.float32), {}

    def step(self, action: np.ndarray) -> Any:
        return np.zeros(OBS_WIDTH, np.float32), 0.0, True, False, {}


@pytest.mark.native
@pytest.mark.timeout(120)
def test_behaviour_cloning_imitates_the_teacher(store: Path) -> None:
    import torch
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    model = PPO("MlpPolicy", _Spaces(), seed=0, device="cpu")
    log_std = model.policy.log_std.detach().clone()
    demos = ws_clone.demonstrations(ws_store.load_store(store), gamma=model.gamma)
    stats = ws_clone.behaviour_clone(
        model.policy, demos, epochs=60, batch_size=8, learning_rate=3e-3, value_coef=0.5, seed=0
    )
    assert stats["samples"] == len(demos.obs)
    assert stats["imitation_loss_after"] < 0.2 * stats["imitation_loss_before"]
    assert stats["action_correlation"] > 0.8
    acted, _ = model.predict(demos.obs, deterministic=True)
    assert np.corrcoef(acted.ravel(), demos.action.ravel())[0, 1] > 0.8
    assert (model.policy.log_std.detach() == log_std).all()  # exploration left as built


# ------------------------------------------------------------------------------------- train
def _train(*overrides: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "leogym.agents.train", *overrides],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.native
@pytest.mark.timeout(300)
def test_warm_started_training_runs_and_resumes(store: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    common = [
        *TINY,
        f"train.warm_start.store={store}",
        "train.warm_start.epochs=20",
        "train.n_envs=1",
        "train.eval_freq=0",
        "train.checkpoint_freq=32",
        "train.progress=false",
        "train.tensorboard=false",
        "agent.n_steps=32",
        "agent.batch_size=32",
        "agent.n_epochs=1",
    ]
    _train(*common, "train.total_timesteps=32", f"hydra.run.dir={run}")
    report = json.loads((run / "warm_start.json").read_text())
    assert report["collected_now"] == 0 and report["episodes"] == 2  # the store was reused
    assert report["imitation_loss_after"] < report["imitation_loss_before"]
    stamp = (run / "warm_start.json").stat().st_mtime_ns
    _train(f"resume={run}", "train.total_timesteps=64")
    summary = json.loads((run / "train_summary.json").read_text())
    assert summary["num_timesteps"] == 64 and summary["resumed_from"]
    assert (run / "warm_start.json").stat().st_mtime_ns == stamp  # no second cloning


@pytest.mark.native
@pytest.mark.timeout(120)
def test_residual_mode_labels_over_the_base_controller(tmp_path: Path) -> None:
    c = config(
        f"train.warm_start.store={tmp_path}",
        "train.warm_start.episodes=1",
        "train.warm_start.baselines=[maco,bbr3]",
        "env.action_mode=residual",
        "env.residual_base=cubic",
    )
    validate_config(c)
    ws_store.collect(c, tmp_path, obs_width=OBS_WIDTH, action_width=ACTION_WIDTH)
    tr = ws_store.load_store(tmp_path)
    assert tr.manifest["baselines"] == ["maco", "bbr3", "cubic"]  # the base is rolled out too
    assert not tr.action[tr.baseline == "cubic"].any()  # a = 0 is the base itself
    assert tr.action[tr.baseline == "bbr3"].any()
