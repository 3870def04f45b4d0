"""Vectorised rollouts and training throughput.

Run: ``python -m benchmarks.bench_vec [--quick]`` (or through ``python -m benchmarks``).

* **scaling**: env steps per wall-clock second of ``gymnasium.make_vec(..., vectorization_mode=
  "async")`` (one subprocess per env) with 1, 2, ... n envs, n = the CPU count; the envs run
  ``leogym/LeoCC-v0`` on ``default`` with the native CUBIC and 100 ms steps. Each count is
  measured ``repeats`` times, the counts interleaved; scaling is the ratio to 1 env.
* **training**: SB3 PPO (MlpPolicy, CPU) with 1 and n envs, built as ``leogym-train`` builds it
  (``agent=ppo``; the trainer's VecEnv, one worker process per env): env steps per wall-clock
  second of ``model.learn``, gradient updates included. With 1 env, PPO and sb3-contrib's
  RecurrentPPO (``agent=recurrent_ppo``: its LSTM size) are also set against the same env
  stepped alone (no learner) in the same round: env steps per CPU second of training over env
  steps per CPU second of the env alone (target >= 0.8). PPO's ratio is also given at n envs
  (on 2 cores, the trainer's default ``train.n_envs=2``), where each policy call and update
  serves n env steps.
* **ray**: the apps' two VecEnvs side by side on ``leogym/LeoCC-v0``: the local
  ``LeoSubprocVecEnv`` (``train.vec_env=subproc``) and ``RayVecEnv`` on a local Ray instance
  (``train.vec_env=ray``) with 1, 2, ... n envs (one actor each, and all n in one actor): env
  steps per wall second and CPU per env step (this process, the env workers or the actors and
  their env processes; Ray's own processes, whose background load does not depend on the
  steps, are left out); and the per-step overhead of the remote call, from a near-free env
  (CartPole) stepped through both.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from benchmarks.common import Row, measure, ratio_row

__all__ = [
    "vec_steps_per_s",
    "ppo_steps_per_s",
    "env_only_cpu_ms",
    "vec_rows",
    "ppo_rows",
    "ray_rows",
]

ENV_ID = "leogym/LeoCC-v0"


def _kwargs(scenario: str) -> dict[str, Any]:
    return {"scenario": scenario, "cc": "cubic", "step_ms": 100, "episode_s": 10.0}


def _cpu_s(procs: list[Any]) -> float:
    total = 0.0
    for p in procs:
        t = p.cpu_times()
        total += t.user + t.system
    return total


def vec_steps_per_s(n_envs: int, steps: int, scenario: str = "default") -> tuple[float, float]:
    """Env steps per second of an async vector env of ``n_envs`` (set-up and reset excluded).

    :return: ``(env steps per wall second, CPU milliseconds per env step)``; the CPU time is
        that of the worker processes plus this one over the timed steps, so it tells how much
        work a step costs whatever else the machine is doing.
    """
    import gymnasium as gym
    import psutil

    import leogym  # noqa: F401

    venv = gym.make_vec(ENV_ID, num_envs=n_envs, vectorization_mode="async", **_kwargs(scenario))
    try:
        procs = [psutil.Process()] + [psutil.Process(p.pid) for p in venv.unwrapped.processes]
        venv.reset(seed=0)
        action = np.zeros(venv.action_space.shape, dtype=np.float32)
        for _ in range(3):  # warm-up: the first steps open the connections
            venv.step(action)
        c0 = _cpu_s(procs)
        t0 = time.perf_counter()
        for _ in range(steps):
            venv.step(action)
        wall = time.perf_counter() - t0
        cpu = _cpu_s(procs) - c0
    finally:
        venv.close()
    return n_envs * steps / wall, 1e3 * cpu / (n_envs * steps)


def env_only_cpu_ms(steps: int, scenario: str = "tiny") -> float:
    """CPU milliseconds per env step of one env stepped alone in this process (no learner).

    Same env and kwargs as the training figures; episodes that end are reset (resets counted,
    as in a rollout), after one reset and 3 warm-up steps.
    """
    import gymnasium as gym

    import leogym  # noqa: F401

    env = gym.make(ENV_ID, **_kwargs(scenario))
    try:
        env.reset(seed=0)
        action = np.zeros(env.action_space.shape, dtype=np.float32)
        for _ in range(3):
            env.step(action)
        c0 = time.process_time()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        cpu = time.process_time() - c0
    finally:
        env.close()
    return 1e3 * cpu / steps


def ppo_steps_per_s(
    n_envs: int, timesteps: int, scenario: str = "tiny", recurrent: bool = False
) -> tuple[float, float, float]:
    """Env steps per second of SB3 PPO's ``learn`` over ``n_envs`` envs in the trainer's own
    VecEnv (:func:`leogym.agents.sb3.env_factory.make_vec_env`: one worker process per env).

    :param recurrent: sb3-contrib's ``RecurrentPPO`` with ``MlpLstmPolicy`` instead of PPO with
        ``MlpPolicy`` (same rollout and update sizes). Either is built as ``leogym-train``
        builds it (``agent=ppo`` / ``agent=recurrent_ppo``: its network and LSTM sizes), with
        the bench's rollout and update sizes.
    :return: ``(env steps per wall second, CPU ms per env step in the env workers, CPU ms per
        env step in the learner process)``.
    """
    import psutil
    import torch

    from leogym.agents.runtime.app import compose
    from leogym.agents.sb3.algos import build_model
    from leogym.agents.sb3.env_factory import EnvFactory, make_vec_env

    torch.set_num_threads(1)
    # cc=cubic: the env ignores the actions, so every env does the same packet work whatever the
    # untrained policy does (with cc=external, random windows make the envs' loads differ).
    kwargs = _kwargs(scenario)
    factory = EnvFactory(ENV_ID, {k: v for k, v in kwargs.items() if k != "scenario"}, scenario)
    venv = make_vec_env(factory, n_envs, seed=0, start_method="forkserver")
    try:
        n_steps = 128
        agent = "recurrent_ppo" if recurrent else "ppo"
        sizes = [f"agent.n_steps={n_steps}", "agent.batch_size=64", "agent.n_epochs=4"]
        cfg = compose("train", [f"agent={agent}", *sizes])
        model = build_model(cfg.agent, venv, seed=0)
        model.learn(n_steps * n_envs)  # warm-up rollout and update
        workers = [psutil.Process(p) for p in _worker_pids(venv.venv)]
        me = [psutil.Process()]
        w0, m0 = _cpu_s(workers), _cpu_s(me)
        t0 = time.perf_counter()
        model.learn(timesteps, reset_num_timesteps=False)
        wall = time.perf_counter() - t0
        w1, m1 = _cpu_s(workers), _cpu_s(me)
        done = model.num_timesteps - n_steps * n_envs
    finally:
        venv.close()
    return done / wall, 1e3 * (w1 - w0) / done, 1e3 * (m1 - m0) / done


def vec_rows(quick: bool = False, repeats: int = 3) -> list[Row]:
    """Steps per second with 1..n async envs and the scaling against 1 env."""
    cores = os.cpu_count() or 1
    counts = list(range(1, max(cores, 2) + 1))
    scenario = "tiny" if quick else "default"
    steps = 20 if quick else 200
    if quick:
        repeats = 1
    sps: dict[int, list[float]] = {n: [] for n in counts}
    cpu: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(repeats):
        for n in counts:
            rate, cpu_ms = vec_steps_per_s(n, steps, scenario)
            sps[n].append(rate)
            cpu[n].append(cpu_ms)
    out = []
    for n in counts:
        out.append(
            measure(
                "vector",
                f"{scenario}: {n} async env(s) steps/s",
                "steps/s",
                sps[n],
                note=f"{steps} steps per env; cc=cubic, 100 ms steps; {cores} CPUs",
            )
        )
        out.append(
            measure(
                "vector",
                f"{scenario}: {n} async env(s) CPU per step",
                "ms",
                cpu[n],
                note="workers + main process CPU time / env steps",
            )
        )
    for n in counts[1:]:
        target = ">= 1.8" if n == 2 else ""
        out.append(
            ratio_row(
                "vector",
                f"{scenario}: scaling at {n} envs",
                sps[n],
                sps[1],
                target=target,
                note=f"wall clock, vs 1 async env, on {cores} CPUs",
            )
        )
        out.append(
            ratio_row(
                "vector",
                f"{scenario}: CPU-bound scaling at {n} envs",
                [n * a for a in cpu[1]],
                cpu[n],
                target=">= 1.8" if n == 2 else "",  # issue 19: read beside the wall figure
                note="n x CPU per step at 1 env / CPU per step at n envs: the speed-up n free "
                "cores would give",
            )
        )
    return out


def ppo_rows(quick: bool = False, repeats: int = 3) -> list[Row]:
    """PPO env steps per second with 1 and n subprocess envs."""
    cores = os.cpu_count() or 1
    n = max(cores, 2)
    out = []
    scenario = "tiny" if quick else "default"
    sps: dict[int, list[float]] = {1: [], n: []}
    env_cpu: dict[int, list[float]] = {1: [], n: []}
    learner_cpu: dict[int, list[float]] = {1: [], n: []}
    # CPU ms per env step: the env alone, and (env workers + learner) under PPO / RecurrentPPO
    alone: list[float] = []
    trained: dict[str, list[float]] = {"PPO MlpPolicy": [], "RecurrentPPO MlpLstmPolicy": []}
    rollouts = 1 if quick else 4
    for _ in range(1 if quick else repeats):
        for k in (1, n):
            rate, w, m = ppo_steps_per_s(k, 128 * k * rollouts, scenario)
            sps[k].append(rate)
            env_cpu[k].append(w)
            learner_cpu[k].append(m)
            if k == 1:
                trained["PPO MlpPolicy"].append(w + m)
        _, w, m = ppo_steps_per_s(1, 128 * rollouts, scenario, recurrent=True)
        trained["RecurrentPPO MlpLstmPolicy"].append(w + m)
        alone.append(env_only_cpu_ms(128 * rollouts, scenario))
    for k in (1, n):
        out.append(
            measure(
                "training",
                f"PPO {scenario}, {k} SubprocVecEnv env(s): env steps/s",
                "steps/s",
                sps[k],
                note="LeoCC cc=cubic (same packet work per env), 100 ms steps; "
                "n_steps=128, batch 64, 4 epochs; updates included",
            )
        )
        out.append(
            measure(
                "training",
                f"PPO {scenario}, {k} env(s): CPU per step, env workers",
                "ms",
                env_cpu[k],
            )
        )
        out.append(
            measure(
                "training",
                f"PPO {scenario}, {k} env(s): CPU per step, learner",
                "ms",
                learner_cpu[k],
                note="policy inference, IPC, rollout buffer and gradient updates",
            )
        )
    out.append(
        ratio_row(
            "training",
            f"PPO scaling at {n} envs",
            sps[n],
            sps[1],
            note="wall clock, on the machine as loaded",
        )
    )
    for name, cpu_ms in trained.items():
        out.append(
            ratio_row(
                "training",
                f"{name} {scenario}, 1 env: steps per CPU s / env alone",
                alone,
                cpu_ms,
                target=">= 0.8",
                note="CPU time of env worker + learner per env step against the same env "
                "stepped alone in-process, same round; 1 = training costs nothing",
            )
        )
    # the trainer's default (train.n_envs=2): one policy call and one update serve n env steps
    out.append(
        ratio_row(
            "training",
            f"PPO MlpPolicy {scenario}, {n} envs: steps per CPU s / env alone",
            alone,
            [w + m for w, m in zip(env_cpu[n], learner_cpu[n], strict=True)],
            note="as the 1-env row, the learner's per-call cost shared by the n envs",
        )
    )
    # With n free cores the envs step in parallel while the learner waits, then the learner
    # works alone: wall per env step = (env CPU + n x learner CPU) / n.
    projected = [
        n * (e1 + l1) / (en + n * ln)
        for e1, l1, en, ln in zip(
            env_cpu[1], learner_cpu[1], env_cpu[n], learner_cpu[n], strict=True
        )
    ]
    out.append(
        measure(
            "training",
            f"PPO projected scaling at {n} envs on {n} free cores",
            "x",
            projected,
            note="from the CPU per step: n (env1 + learner1) / (env_n + n learner_n)",
        )
    )
    return out


def _worker_pids(venv: Any) -> list[int]:
    """The processes that step ``venv``'s envs: its worker processes, or its actors and their
    env processes."""
    if hasattr(venv, "where"):  # RayVecEnv
        return sorted({p for w in venv.where for p in (w["pid"], *w["env_pids"])})
    return [p.pid for p in venv.processes]


def leo_vec_rate(venv: Any, steps: int) -> tuple[float, float]:
    """``(env steps per wall second, CPU ms per env step)`` of ``steps`` steps of ``venv``
    (after a reset and 3 warm-up steps), zero actions; the CPU time is this process's and that
    of the processes stepping the envs (:func:`_worker_pids`)."""
    import psutil

    procs = [psutil.Process()] + [psutil.Process(p) for p in _worker_pids(venv)]
    venv.reset()
    space = venv.action_space
    action = np.zeros((venv.num_envs, *space.shape), dtype=space.dtype)
    for _ in range(3):
        venv.step(action)
    c0 = _cpu_s(procs)
    t0 = time.perf_counter()
    for _ in range(steps):
        venv.step(action)
    wall = time.perf_counter() - t0
    cpu = _cpu_s(procs) - c0
    n = venv.num_envs * steps
    return n / wall, 1e3 * cpu / n


def ray_rows(quick: bool = False, repeats: int = 3, max_envs: int | None = None) -> list[Row]:
    """Local subprocess VecEnv against Ray actors, 1..n envs; the remote call's overhead."""
    from leogym.agents.config import RayConfig
    from leogym.agents.runtime import ray_support
    from leogym.agents.runtime.ray_vecenv import RayVecEnv
    from leogym.agents.runtime.vecenv import LeoSubprocVecEnv
    from leogym.agents.sb3.env_factory import EnvFactory

    try:
        ray = ray_support.import_ray("the ray section")
    except ray_support.RayUnavailableError as exc:
        return [Row("ray", "Ray actors", float("nan"), "", 0, status="skipped", note=str(exc))]
    cores = os.cpu_count() or 1
    top = max_envs or max(cores, 2)
    counts = list(range(1, top + 1))
    scenario = "tiny" if quick else "default"
    steps = 20 if quick else 200
    null_steps = 200 if quick else 2000
    if quick:
        repeats = 1
    leo = EnvFactory(ENV_ID, {"cc": "cubic", "step_ms": 100, "episode_s": 10.0}, scenario)
    null = EnvFactory("CartPole-v1", {})
    kinds = ["subproc", "ray"] + (["ray, one actor"] if top > 1 else [])
    sps: dict[tuple[str, int], list[float]] = {}
    cpu: dict[tuple[str, int], list[float]] = {}
    call: dict[str, list[tuple[float, float]]] = {"subproc": [], "ray": []}

    def make(kind: str, factory: Any, n: int) -> Any:
        if kind == "subproc":
            venv = LeoSubprocVecEnv([factory] * n, start_method="forkserver")
        else:
            per_actor = n if kind == "ray, one actor" else 1
            venv = RayVecEnv([factory] * n, envs_per_actor=per_actor, start_timeout_s=120.0)
        venv.seed(0)
        return venv

    was_up = ray.is_initialized()
    ray_support.init(RayConfig(num_cpus=max(top, cores)))
    try:
        for _ in range(repeats):
            for n in counts:
                for kind in kinds:
                    if kind == "ray, one actor" and n == 1:
                        continue
                    venv = make(kind, leo, n)
                    try:
                        rate, cpu_ms = leo_vec_rate(venv, steps)
                    finally:
                        venv.close()
                    sps.setdefault((kind, n), []).append(rate)
                    cpu.setdefault((kind, n), []).append(cpu_ms)
            for kind in call:
                venv = make(kind, null, 1)
                try:
                    rate, cpu_ms = leo_vec_rate(venv, null_steps)
                finally:
                    venv.close()
                call[kind].append((1e3 / rate, cpu_ms))
    finally:
        if not was_up:
            ray_support.shutdown()
    out: list[Row] = []
    note = f"{scenario}, cc=cubic, 100 ms steps, {steps} steps per env; {cores} CPUs"
    for n in counts:
        for kind in kinds:
            if (kind, n) not in sps:
                continue
            label = {"subproc": "LeoSubprocVecEnv", "ray": "RayVecEnv, 1 env/actor"}.get(
                kind, "RayVecEnv, all envs in 1 actor"
            )
            out.append(
                measure("ray", f"{label}, {n} env(s): steps/s", "steps/s", sps[kind, n], note=note)
            )
            out.append(
                measure(
                    "ray",
                    f"{label}, {n} env(s): CPU per step",
                    "ms",
                    cpu[kind, n],
                    note="this process + the env workers (or actors and their env processes) / "
                    "env steps; Ray's own processes not counted",
                )
            )
        out.append(
            ratio_row(
                "ray",
                f"RayVecEnv vs LeoSubprocVecEnv at {n} env(s): CPU per step",
                cpu["ray", n],
                cpu["subproc", n],
                note="paired runs; > 1: Ray costs more CPU per env step",
            )
        )
    for n in counts[1:]:
        out.append(
            ratio_row(
                "ray",
                f"RayVecEnv CPU-bound scaling at {n} actors",
                [n * a for a in cpu["ray", 1]],
                cpu["ray", n],
                note="n x CPU per step at 1 actor / CPU per step at n: the speed-up n free cores "
                "would give",
            )
        )
    for kind, label in (("subproc", "pipe to a worker process"), ("ray", "Ray remote call")):
        out.append(
            measure(
                "ray",
                f"per-step overhead, {label}: wall",
                "ms",
                [w for w, _ in call[kind]],
                note=f"CartPole-v1 (a near-free step), 1 env, {null_steps} steps",
            )
        )
        out.append(
            measure(
                "ray",
                f"per-step overhead, {label}: CPU",
                "ms",
                [c for _, c in call[kind]],
                note="this process + the worker (actor) process",
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.common import format_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    print(format_table(vec_rows(args.quick) + ppo_rows(args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
