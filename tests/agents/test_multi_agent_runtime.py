"""Multi-agent training in the worker runtime of the single-agent VecEnvs
(:class:`~leogym.agents.sb3.multi_agent_vec.MultiAgentVecEnv` over ``LeoSubprocVecEnv`` or
``RayVecEnv``): the same trajectories on Ray as in local worker processes, a killed worker
reported by its env's slots and seed and survived with ``train.on_worker_death=restart``, and
``leogym-train experiment=multiagent train.vec_env=ray`` training a few hundred steps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from leogym.agents.config import RayConfig, validate_config
from leogym.agents.runtime import ray_support
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.runtime.worker_faults import WorkerDiedError
from leogym.agents.sb3.env_factory import MultiAgentEnvFactory, make_multi_agent_vec_env

pytestmark = [pytest.mark.native, pytest.mark.timeout(600)]

#: Two agents, 1 s episodes of 100 ms steps: 10 steps, so 25 steps cross two auto-resets.
FACTORY = MultiAgentEnvFactory({"n_flows": 2, "episode_s": 1.0, "step_ms": 100.0})


def _ray_or_skip() -> Any:
    try:
        return ray_support.import_ray("these tests")
    except ray_support.RayUnavailableError as exc:
        pytest.skip(f"Ray not importable (pip install -e '.[distributed]'): {exc}")


def _rollout(venv: Any, steps: int = 25) -> dict[str, Any]:
    """Observations, rewards, dones and terminal observations under seeded random actions."""
    rng = np.random.default_rng(3)
    obs, rewards, dones, terminal = [venv.reset()], [], [], []
    for _ in range(steps):
        shape = (venv.num_envs, *venv.action_space.shape)
        o, r, d, infos = venv.step(rng.uniform(-1, 1, size=shape).astype(np.float32))
        obs.append(o)
        rewards.append(r)
        dones.append(d)
        terminal += [(k, i["terminal_observation"]) for k, i in enumerate(infos) if d[k]]
    return {
        "obs": np.stack(obs),
        "rewards": np.stack(rewards),
        "dones": np.stack(dones),
        "terminal": terminal,
    }


def test_multi_agent_training_on_ray_is_no_longer_refused() -> None:
    c = to_objects(compose("train", ["experiment=multiagent", "train.vec_env=ray"]))
    validate_config(c)  # raised ConfigError(train.vec_env) before
    c = to_objects(compose("train", ["experiment=multiagent", "train.on_worker_death=restart"]))
    validate_config(c)  # raised ConfigError(train.on_worker_death) before


def test_ray_actors_give_the_local_workers_trajectories() -> None:
    _ray_or_skip()
    local = make_multi_agent_vec_env(FACTORY, 2, seed=7, start_method="forkserver")
    try:
        expected = _rollout(local)
    finally:
        local.close()
    started = ray_support.init(RayConfig(num_cpus=2))
    try:
        options = RayConfig(num_cpus=2, envs_per_actor=2, start_timeout_s=120.0)
        venv = make_multi_agent_vec_env(
            FACTORY, 2, seed=7, start_method="forkserver", vec_env="ray", ray=options
        )
        try:
            assert venv.num_envs == 4  # 2 envs x 2 agents
            got = _rollout(venv)
        finally:
            venv.close()
    finally:
        if started:
            ray_support.shutdown()
    for key in ("obs", "rewards", "dones"):
        np.testing.assert_array_equal(got[key], expected[key])
    assert got["dones"].any(), "the rollout crossed no episode end"
    assert [k for k, _ in got["terminal"]] == [k for k, _ in expected["terminal"]]
    for (_, g), (_, e) in zip(got["terminal"], expected["terminal"], strict=True):
        np.testing.assert_array_equal(g, e)


def test_a_killed_worker_is_reported_by_its_slots_and_survived_with_restart() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    venv = make_multi_agent_vec_env(
        FACTORY, 2, seed=0, start_method="forkserver", on_worker_death="restart"
    )
    faults = venv.venv  # VecMonitor(WorkerFaultWrapper(MultiAgentVecEnv))

    class KillOnce(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps == 64:  # 16 steps of 4 slots
                os.kill(faults.venv.processes[1].pid, signal.SIGKILL)
            return True

    try:
        first_pids = [p.pid for p in faults.venv.processes]
        model = PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(256, callback=KillOnce())
        assert model.num_timesteps == 256, "training went on after the death"
        assert faults.restarts == 1 and len(faults.deaths) == 1
        death = faults.deaths[0]
        assert isinstance(death, WorkerDiedError)
        # env 1 ran slots 2 and 3; PPO seeded the VecEnv 0, so env 1 was reset with seed 2
        assert death.indices == (2, 3) and death.seed == 2, str(death)
        assert "killed by SIGKILL" in str(death) and "env 1" in str(death)
        assert death.pid == first_pids[1]
        assert not set(first_pids) & {p.pid for p in faults.venv.processes}  # fresh workers
    finally:
        venv.close()


def test_a_killed_worker_stops_training_naming_its_slots() -> None:
    venv = make_multi_agent_vec_env(FACTORY, 2, seed=5, start_method="forkserver")
    faults = venv.venv
    try:
        venv.reset()
        os.kill(faults.venv.processes[0].pid, signal.SIGKILL)
        with pytest.raises(WorkerDiedError) as info:
            for _ in range(3):
                venv.step(np.zeros((4, *venv.action_space.shape), np.float32))
        assert info.value.indices == (0, 1) and info.value.seed == 5
    finally:
        venv.close()


@pytest.mark.timeout(900)
def test_multi_agent_training_runs_on_ray(tmp_path: Path) -> None:
    """``leogym-train experiment=multiagent train.vec_env=ray``: a few hundred agent-steps on
    a local Ray instance."""
    probe = subprocess.run([sys.executable, "-c", "import ray"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("Ray not importable (pip install -e '.[distributed]'; make install does)")
    run = tmp_path / "train"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.train",
            "experiment=multiagent",
            "env.episode_s=2",
            "train.total_timesteps=384",
            "agent.n_steps=32",
            "agent.batch_size=64",
            "agent.n_epochs=1",
            "train.progress=false",
            "train.checkpoint_freq=0",
            "train.tensorboard=false",
            "train.eval_freq=0",
            "train.vec_env=ray",
            "ray.num_cpus=2",
            f"hydra.run.dir={run}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, f"train failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    assert json.loads((run / "train_summary.json").read_text())["num_timesteps"] == 384


def test_a_killed_ray_actor_is_reported_by_its_slots_and_restarted() -> None:
    _ray_or_skip()
    started = ray_support.init(RayConfig(num_cpus=2))
    try:
        options = RayConfig(num_cpus=2, start_timeout_s=120.0)  # one env per actor
        venv = make_multi_agent_vec_env(
            FACTORY,
            2,
            seed=4,
            start_method="forkserver",
            vec_env="ray",
            ray=options,
            on_worker_death="restart",
        )
        faults = venv.venv
        try:
            venv.reset()
            action = np.zeros((4, *venv.action_space.shape), np.float32)
            venv.step(action)
            os.kill(faults.venv.venv.where[1]["pid"], signal.SIGKILL)
            _, _, dones, infos = venv.step(action)
            assert dones.all() and all(i["TimeLimit.truncated"] for i in infos)
            assert "worker_died" in infos[2] and "worker_died" not in infos[0]
            death = faults.deaths[0]
            assert death.indices == (2, 3) and death.seed == 6 and "Ray actor 1" in str(death)
            assert faults.restarts == 1
            obs, *_ = venv.step(action)  # the fresh actors step on
            assert obs.shape == (4, *venv.observation_space.shape)
        finally:
            venv.close()
    finally:
        if started:
            ray_support.shutdown()
