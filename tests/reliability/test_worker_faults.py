"""A worker process of a vectorised env dies: it is reported with its env and seed, and the
run stops cleanly or carries on, as configured.

Faults: the worker is killed (SIGKILL, as by the OOM killer or a scheduler), it segfaults
(SIGSEGV from inside the env, as a crash in native code would), or its env raises (exit code
1). VecEnvs: leogym's own (``make_vec_env``: LeoSubprocVecEnv) and SB3's SubprocVecEnv, both
under :class:`leogym.agents.runtime.worker_faults.WorkerFaultWrapper`. Without the wrapper both
raise a bare ``EOFError``/``BrokenPipeError`` (checked here too, for the record).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import numpy as np
import pytest
from faulty_rewards import FailingReward
from reliability_support import Figure

from leogym.agents.runtime.worker_faults import WorkerDiedError, WorkerFaultWrapper
from leogym.agents.sb3.env_factory import EnvFactory, make_vec_env

pytestmark = [pytest.mark.timeout(300), pytest.mark.native]  # the workers run leogym envs

KWARGS = {"episode_s": 2.0, "step_ms": 100.0}
EXPECTED = {"sigkill": "killed by SIGKILL", "segfault": "killed by SIGSEGV", "raise": "exit code 1"}
_results: dict[str, dict[str, int]] = {}


def _factory(fault: str) -> EnvFactory:
    kwargs: dict[str, Any] = dict(KWARGS)
    if fault in ("segfault", "raise"):
        kwargs["reward"] = FailingReward(fault, at_step=5)
    return EnvFactory("leogym/LeoCC-v0", kwargs, "tiny")


def _vec(kind: str, factory: EnvFactory, on_death: str = "stop") -> WorkerFaultWrapper:
    if kind == "leogym":
        return make_vec_env(
            factory, 2, seed=11, start_method="forkserver", on_worker_death=on_death
        )
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = WorkerFaultWrapper(
        lambda: SubprocVecEnv([factory] * 2, start_method="forkserver"),
        [factory] * 2,
        on_death=on_death,
    )
    venv.seed(11)
    return venv


def _step(venv: Any, n: int) -> None:
    for _ in range(n):
        venv.step(np.zeros((2, 4), np.float32))


@pytest.mark.parametrize("kind", ["leogym", "sb3"])
@pytest.mark.parametrize("fault", ["sigkill", "segfault", "raise"])
def test_a_dead_worker_is_reported_with_its_env_and_seed(kind: str, fault: str, record) -> None:
    venv = _vec(kind, _factory(fault))
    venv.reset()
    with pytest.raises(WorkerDiedError) as info:
        if fault == "sigkill":
            _step(venv, 3)
            os.kill(venv.venv.processes[1].pid, signal.SIGKILL)
        _step(venv, 10)
    err = info.value
    text = str(err)
    # closing after the death returns promptly (no wait on the dead pipe)
    t0 = time.monotonic()
    venv.close()
    assert time.monotonic() - t0 < 10
    assert EXPECTED[fault] in text
    assert "leogym/LeoCC-v0" in text and "scenario='tiny'" in text and "'episode_s': 2.0" in text
    index = 1 if fault == "sigkill" else err.index
    assert err.index == index and f"env worker {index} " in text
    assert err.seed == 11 + index and f"seeded {11 + index} " in text
    assert all(not p.is_alive() for p in venv.venv.processes)
    row = _results.setdefault(fault, {"reported": 0})
    row["reported"] += 1
    record(
        Figure(
            id=f"fault/vecenv_worker_{fault}",
            category="fault",
            what=f"vectorised-env worker {EXPECTED[fault].replace('killed by ', '')} "
            "(LeoSubprocVecEnv and SB3 SubprocVecEnv)",
            cases=row["reported"],
            outcomes={"reported_with_env_and_seed": row["reported"]},
            notes="WorkerDiedError: index, pid, exit status, env id, kwargs, scenario, seed",
        )
    )


def test_restart_carries_on_after_a_worker_dies(record) -> None:
    venv = _vec("leogym", _factory("sigkill"), on_death="restart")
    venv.reset()
    _step(venv, 3)
    os.kill(venv.venv.processes[0].pid, signal.SIGKILL)
    obs, rewards, dones, infos = venv.step(np.zeros((2, 4), np.float32))
    assert dones.all() and all(i["TimeLimit.truncated"] for i in infos)
    assert "killed by SIGKILL" in infos[0]["worker_died"] and "worker_died" not in infos[1]
    assert all("terminal_observation" in i for i in infos)
    _step(venv, 30)  # the fresh workers go on, through episode ends
    assert venv.restarts == 1 and len(venv.deaths) == 1
    venv.close()
    record(
        Figure(
            id="fault/vecenv_worker_restart",
            category="fault",
            what="vectorised-env worker killed, on_worker_death=restart",
            cases=1,
            outcomes={"reported_and_continued": 1},
            notes="the VecEnv is rebuilt and reseeded; current episodes end as truncated",
        )
    )


def test_without_the_wrapper_sb3_and_gymnasium_name_nothing() -> None:
    """What SB3 and Gymnasium do on their own: a bare pipe error, no env, no seed."""
    import gymnasium as gym
    from stable_baselines3.common.vec_env import SubprocVecEnv

    factory = _factory("sigkill")
    sb3 = SubprocVecEnv([factory] * 2, start_method="forkserver")
    sb3.reset()
    os.kill(sb3.processes[1].pid, signal.SIGKILL)
    with pytest.raises((EOFError, BrokenPipeError, ConnectionResetError)) as info:
        _step(sb3, 2)
    assert "tiny" not in str(info.value)
    for p in sb3.processes:
        p.kill()
        p.join()
    import leogym  # noqa: F401

    envs = gym.make_vec(
        "leogym/LeoCC-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "forkserver"},
        scenario="tiny",
        **KWARGS,
    )
    envs.reset(seed=[1, 2])
    os.kill(envs.processes[1].pid, signal.SIGKILL)
    time.sleep(0.2)
    with pytest.raises((EOFError, BrokenPipeError, ConnectionResetError)):
        envs.step(np.zeros((2, 4), np.float32))
    for p in envs.processes:
        p.kill()
        p.join()
