"""Training rollouts and evaluation episodes on Ray actors (``train.vec_env=ray``,
``eval.backend=ray``), on a local Ray instance.

The reference throughout is the local VecEnv (``LeoSubprocVecEnv``, ``train.vec_env=subproc``)
and the local process pool of ``leogym-eval``: the same seed and env count must give the same
trajectories and results, bit for bit, whatever the number of envs per actor. A killed actor
(or an env process of one) is reported with its env and seed, and ``restart`` trains on; SIGTERM
and Ctrl-C leave a checkpoint. Ray is optional: the tests that need it skip where it is not
importable (``make install`` installs the ``distributed`` extra); a missing Ray must give a
one-line error naming what to install, which is tested without Ray.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psutil
import pytest

from leogym.agents.config import RayConfig, validate_config
from leogym.agents.runtime import ray_support
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.runtime.worker_faults import WorkerDiedError
from leogym.agents.sb3.env_factory import EnvFactory, make_vec_env
from leogym.schema import FieldError

pytestmark = [pytest.mark.native, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
#: 2 s episodes of 100 ms steps: 20 steps, so 45 steps cross two auto-resets per env.
KWARGS = {"episode_s": 2.0, "step_ms": 100.0}
FACTORY = EnvFactory("leogym/LeoCC-v0", KWARGS, "tiny", record_stats=True)
#: Logical CPUs of the test's Ray instance (Ray counts them; CI has 2 cores).
CPUS = 4


def _ray_or_skip() -> Any:
    try:
        return ray_support.import_ray("these tests")
    except ray_support.RayUnavailableError as exc:
        pytest.skip(f"Ray not importable (pip install -e '.[distributed]'): {exc}")


@pytest.fixture(scope="module")
def ray_local() -> Any:
    """One local Ray instance for the in-process tests of this module."""
    ray = _ray_or_skip()
    started = ray_support.init(RayConfig(num_cpus=CPUS))
    yield ray
    if started:
        ray_support.shutdown()


def _ray_options(**kw: Any) -> RayConfig:
    return RayConfig(num_cpus=CPUS, start_timeout_s=120.0, **kw)


def _rollout(venv: Any, steps: int = 45) -> dict[str, Any]:
    """Observations, rewards, dones and terminal observations under seeded random actions."""
    rng = np.random.default_rng(5)
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


# ------------------------------------------------------------------------------ determinism
def test_trajectories_equal_the_local_vec_env_bit_for_bit(ray_local: Any) -> None:
    local = make_vec_env(FACTORY, 4, seed=7, start_method="forkserver")
    try:
        ref = _rollout(local)
    finally:
        local.close()
    assert ref["dones"].sum() >= 8, "every env ended episodes (auto-reset exercised)"
    # 2 actors: one steps 3 envs in processes of its own, one steps its env in its own process
    # (the two ways an actor runs envs)
    venv = make_vec_env(
        FACTORY,
        4,
        seed=7,
        start_method="forkserver",
        vec_env="ray",
        ray=_ray_options(envs_per_actor=3),
    )
    try:
        assert venv.venv.slices == [(0, 3), (3, 4)]
        assert len(set(venv.venv.where[0]["env_pids"])) == 3
        assert venv.venv.where[1]["env_pids"] == [venv.venv.where[1]["pid"]]
        got = _rollout(venv)
    finally:
        venv.close()
    for key in ("obs", "rewards", "dones"):
        assert got[key].dtype == ref[key].dtype, key
        assert np.array_equal(got[key], ref[key]), f"{key} differ"
    assert len(got["terminal"]) == len(ref["terminal"])
    for (i, a), (j, b) in zip(got["terminal"], ref["terminal"], strict=True):
        assert i == j and np.array_equal(a, b)


# -------------------------------------------------------------------------------- training
def test_ppo_trains_through_four_actors_and_saves(ray_local: Any, tmp_path: Path) -> None:
    from stable_baselines3 import PPO

    venv = make_vec_env(
        FACTORY, 4, seed=0, start_method="forkserver", vec_env="ray", ray=_ray_options()
    )
    try:
        assert len(venv.venv.actors) == 4
        pids = {w["pid"] for w in venv.venv.where}
        assert len(pids) == 4 and os.getpid() not in pids, "one actor process per env"
        model = PPO(
            "MlpPolicy", venv, n_steps=128, batch_size=128, n_epochs=2, seed=0, device="cpu"
        )
        model.learn(2048)
        assert model.num_timesteps == 2048
        # 2 s episodes: the actors' envs finished episodes, recorded by RecordEpisodeStatistics
        assert len(model.ep_info_buffer) >= 50
        assert all(np.isfinite(e["r"]) and e["l"] == 20 for e in model.ep_info_buffer)
        model.save(tmp_path / "model.zip")
    finally:
        venv.close()
    loaded = PPO.load(tmp_path / "model.zip", device="cpu")
    obs = np.zeros((1, *loaded.observation_space.shape), np.float32)
    assert np.array_equal(
        loaded.predict(obs, deterministic=True)[0], model.predict(obs, deterministic=True)[0]
    )


# ---------------------------------------------------------------------------- worker death
@pytest.mark.parametrize("victim", ["actor", "env process"])
def test_a_killed_worker_is_reported_with_its_env_and_seed(ray_local: Any, victim: str) -> None:
    venv = make_vec_env(
        FACTORY,
        4,
        seed=11,
        start_method="forkserver",
        vec_env="ray",
        ray=_ray_options(envs_per_actor=2),
    )
    try:
        venv.reset()
        for _ in range(3):
            venv.step(np.zeros((4, *venv.action_space.shape), np.float32))
        where = venv.venv.where[1]  # actor 1 runs envs 2 and 3
        pid = where["pid"] if victim == "actor" else where["env_pids"][1]  # env 3's process
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerDiedError) as info:
            for _ in range(10):
                venv.step(np.zeros((4, *venv.action_space.shape), np.float32))
    finally:
        t0 = time.monotonic()
        venv.close()
        assert time.monotonic() - t0 < 30, "closing after a death returns promptly"
    err, text = info.value, str(info.value)
    assert "leogym/LeoCC-v0" in text and "scenario='tiny'" in text and "'episode_s': 2.0" in text
    assert "Ray actor 1" in text and f"pid {pid}" in text
    if victim == "actor":  # both envs of the actor are lost: the first is named, then the other
        assert err.index == 2 and err.seed == 13 and "env worker 2 " in text
        assert "seeded 13 " in text and "env 3 (seeded 14)" in text
    else:
        assert err.index == 3 and err.seed == 14 and "env worker 3 " in text
        assert "killed by SIGKILL" in text and "seeded 14 " in text
    assert err.steps == 3
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_restart_trains_on_after_an_actor_is_killed(ray_local: Any) -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    venv = make_vec_env(
        FACTORY,
        2,
        seed=0,
        start_method="forkserver",
        on_worker_death="restart",
        vec_env="ray",
        ray=_ray_options(),
    )

    class KillOnce(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps == 100:
                os.kill(venv.venv.where[0]["pid"], signal.SIGKILL)
            return True

    try:
        model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(512, callback=KillOnce())
        assert model.num_timesteps == 512, "training went on after the death"
        assert venv.restarts == 1 and len(venv.deaths) == 1
        # PPO seeds the VecEnv with its own seed (0): env 0 was seeded 0
        death = str(venv.deaths[0])
        assert "env worker 0 " in death and "seeded 0 " in death and "Ray actor 0" in death
        # the restarted actors are fresh processes, reseeded deterministically
        assert venv.venv.where[0]["pid"] != venv.deaths[0].pid
    finally:
        venv.close()


# ------------------------------------------------------------------------------ evaluation
def test_evaluation_on_ray_gives_the_local_pools_results(ray_local: Any, tmp_path: Path) -> None:
    from leogym.agents.evaluate import evaluate

    common = [
        "scenario=tiny",
        "env.episode_s=3",
        "baseline=[cubic,maco]",
        "eval.seeds=[0,1]",
        "eval.progress=false",
        "eval.plots=false",
        "eval.traces=false",
        "eval.aggregate.enabled=false",
    ]
    local = evaluate(compose("evaluate", common), tmp_path / "local")
    on_ray = evaluate(
        compose("evaluate", [*common, "eval.backend=ray", f"ray.num_cpus={CPUS}"]),
        tmp_path / "ray",
    )
    # every column but the episodes' wall time
    a = local.drop(columns=["wall_s"], errors="ignore").sort_values("key").reset_index(drop=True)
    b = on_ray.drop(columns=["wall_s"], errors="ignore").sort_values("key").reset_index(drop=True)
    assert len(a) == 4
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------- config and no Ray
@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("train.vec_env=dask", "train.vec_env"),
        ("ray.envs_per_actor=0", "ray.envs_per_actor"),
        ("ray.cpus_per_env=-1", "ray.cpus_per_env"),
        ("ray.address=headnode", "ray.address"),
        ("ray.address=10.0.0.1:70000", "ray.address"),
        ("eval.backend=slurm", "eval.backend"),
    ],
)
def test_bad_settings_name_their_field(override: str, field: str) -> None:
    from leogym.agents.config import ConfigError

    cfg = to_objects(compose("train", ["scenario=tiny", "train.vec_env=ray", override]))
    with pytest.raises(ConfigError, match=rf"^{re.escape(field)}: "):
        validate_config(cfg, ("env", "agent", "train", "eval"))


def test_good_addresses_pass() -> None:
    for address in ("", "auto", "10.0.0.1:6379", "head-node.cluster:6380", "ray://h:10001"):
        ray_support.check_address(address)
    cfg = to_objects(compose("train", ["scenario=tiny", "train.vec_env=ray", "ray.address=auto"]))
    validate_config(cfg, ("env", "agent", "train"))


def test_an_address_nobody_listens_on_fails_at_once_naming_the_field() -> None:
    import socket

    with socket.socket() as sock:  # a free port, closed again: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(FieldError, match=r"^ray\.address: no Ray cluster reachable"):
        ray_support.init(RayConfig(address=f"127.0.0.1:{port}"))
    assert time.monotonic() - t0 < 15  # Ray itself would retry for minutes


def test_a_missing_ray_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails, as without Ray
    with pytest.raises(ray_support.RayUnavailableError, match=r"leogym\[distributed\]"):
        make_vec_env(FACTORY, 2, seed=0, start_method="forkserver", vec_env="ray")
    # the app: one line naming the field that asked for Ray, exit status 2
    script = (
        "import sys; sys.modules['ray'] = None\n"
        "from leogym.agents.train import main\n"
        "sys.argv = ['leogym-train', 'scenario=tiny', 'train.vec_env=ray', "
        f"'train.progress=false', 'hydra.run.dir={tmp_path / 'run'}']\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = proc.stderr.strip().splitlines()[-1]
    assert "train.vec_env: " in line and "leogym[distributed]" in line, line
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------- interrupt: checkpoint
def _default_sigint() -> None:
    """In the child: SIGINT back to its default (a background shell starts it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
def test_an_interrupted_ray_training_saves_a_checkpoint(how: str, tmp_path: Path) -> None:
    _ray_or_skip()
    run = tmp_path / "run"
    args = [
        sys.executable,
        "-m",
        "leogym.agents.train",
        "scenario=tiny",
        "env.episode_s=2",
        "train.vec_env=ray",
        "ray.num_cpus=2",
        "train.n_envs=2",
        "train.total_timesteps=100000",
        "agent.n_steps=64",
        "agent.batch_size=64",
        "agent.n_epochs=1",
        "train.eval_freq=0",
        "train.checkpoint_freq=0",
        "train.tensorboard=false",
        "train.progress=false",
        f"hydra.run.dir={run}",
    ]
    log = tmp_path / "out.txt"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            args,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_default_sigint,
        )
        progress = run / "progress.csv"
        deadline = time.monotonic() + 300
        # a PPO update logged: the actors are stepping
        while proc.poll() is None and time.monotonic() < deadline:
            if progress.exists() and len(progress.read_text().splitlines()) >= 2:
                break
            time.sleep(0.2)
        assert proc.poll() is None, log.read_text()[-4000:]
        if how == "SIGTERM":  # a cluster's preemption: to the trainer alone
            proc.send_signal(signal.SIGTERM)
        else:  # a terminal's Ctrl-C: to the whole foreground group
            os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
    text = log.read_text()
    saved = re.search(r"interrupted: checkpoint saved at (\S+?);", text)
    assert saved, text[-4000:]
    from leogym.agents.sb3.algos import load_model

    model = load_model(Path(saved.group(1)), "ppo")
    assert model.num_timesteps >= 128
    # no process of the run (Ray's, its actors) outlives it: all are in the app's session
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        left = [p for p in psutil.process_iter(["pid"]) if _sid(p.info["pid"]) == proc.pid]
        if not left:
            break
        time.sleep(0.5)
    assert not left, [p.cmdline() for p in left if p.is_running()]


def _sid(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def test_the_slurm_script_parses() -> None:
    """tools/slurm_ray_train.sbatch (docs/workflows.md) is valid bash; SLURM itself is not
    available here."""
    script = ROOT / "tools" / "slurm_ray_train.sbatch"
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    text = script.read_text()
    assert "train.vec_env=ray" in text and 'ray.address="$head_ip:$port"' in text
    assert "--signal=B:TERM@" in text and "exec leogym-train" in text
