"""ns3-gym bridge benchmark: per-step round-trip cost of the ZMQ bridge vs the in-process step.

Run: ``python benchmarks/bench_ns3gym.py [--env CartPole-v1] [--env-kwargs JSON] [--steps N]
[--json out.json]``; or from the bench suite: ``run(env_id, env_kwargs, steps) -> dict``.

The same env id and kwargs are stepped twice in the same run with the same action sequence:

* **in-process**: ``gymnasium.make(env_id, **env_kwargs)``;
* **bridge**: ``gymnasium.make("leogym/Ns3Gym-v0")`` driving ``leogym-ns3gym-serve`` (which makes
  the same env) in a separate process over ZMQ on 127.0.0.1: per step, one ``EnvActMsg`` and
  one ``EnvStateMsg`` are encoded, sent and decoded, and the server steps the env.

Only ``step`` calls are timed (resets are reported apart; the first 200 steps are warm-up).
The bridge figure includes the env's own step on the server, so ``overhead_us = bridge -
in-process`` is the cost of the bridge itself and ``ratio = bridge / in-process``. Both
trajectories are compared as a sanity check.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import gymnasium
import numpy as np

import leogym  # noqa: F401  (registers leogym env ids, including leogym/Ns3Gym-v0)

__all__ = ["run"]


def _actions(env_id: str, env_kwargs: dict[str, Any], steps: int, seed: int) -> list[Any]:
    env = gymnasium.make(env_id, **env_kwargs)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(steps)]
    env.close()
    return actions


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def _drive(env: gymnasium.Env, actions: list[Any], seed: int) -> dict[str, Any]:
    """Step ``env`` through ``actions``; time each step and each reset separately."""
    step_s = np.empty(len(actions))
    reset_s: list[float] = []
    observations = []
    t0 = time.perf_counter()
    obs, _ = env.reset(seed=seed)
    reset_s.append(time.perf_counter() - t0)
    observations.append(obs)
    for i, action in enumerate(actions):
        t0 = time.perf_counter()
        obs, _, terminated, truncated, _ = env.step(action)
        step_s[i] = time.perf_counter() - t0
        observations.append(obs)
        if terminated or truncated:
            t0 = time.perf_counter()
            obs, _ = env.reset()
            reset_s.append(time.perf_counter() - t0)
            observations.append(obs)
    return {"step_s": step_s, "reset_s": np.array(reset_s), "observations": observations}


def run(
    env_id: str = "CartPole-v1",
    env_kwargs: dict[str, Any] | None = None,
    steps: int = 5000,
    seed: int = 0,
) -> dict[str, Any]:
    """Measure the per-step cost of the ns3-gym bridge beside the in-process step.

    :param env_id: Gymnasium id of the env to serve (e.g. ``"leogym/LeoCC-v0"``).
    :param env_kwargs: keyword arguments for ``gymnasium.make`` (JSON-serialisable).
    :param steps: number of timed steps per side.
    :param seed: seed of the first reset and of the action sequence.
    :return: the figures (microseconds per step, milliseconds per reset, their ratio).
    """
    env_kwargs = dict(env_kwargs or {})
    warmup = min(200, steps)
    actions = _actions(env_id, env_kwargs, warmup + steps, seed)

    local = gymnasium.make(env_id, **env_kwargs)
    try:
        inproc = _drive(local, actions, seed)
    finally:
        local.close()

    # One server process for all episodes; it seeds its first reset with --simSeed=seed and
    # continues the env's RNG afterwards, exactly like the in-process run.
    serve = [sys.executable, "-m", "leogym.ns3gym.cli", f"env={env_id}", "--idle-timeout", "10"]
    serve += [f"env.{k}={json.dumps(v)}" for k, v in env_kwargs.items()]
    remote = gymnasium.make(
        "leogym/Ns3Gym-v0",
        sim_cmd=serve,
        sim_seed=seed,
        relaunch=False,
        handshake_timeout_s=120.0,
        step_timeout_s=60.0,
    )
    try:
        bridge = _drive(remote, actions, seed)
    finally:
        remote.close()
    for side in (inproc, bridge):  # drop the warm-up steps from the timings
        side["step_s"] = side["step_s"][warmup:]

    matches = len(inproc["observations"]) == len(bridge["observations"]) and all(
        _same(a, b) for a, b in zip(inproc["observations"], bridge["observations"], strict=True)
    )
    in_us = float(inproc["step_s"].mean() * 1e6)
    br_us = float(bridge["step_s"].mean() * 1e6)

    # Noise on a shared machine only ever adds time: the fastest of 10 consecutive chunks of
    # steps is the steadiest figure of what a step costs.
    def best_chunk_us(step_s: np.ndarray) -> float:
        chunks = np.array_split(step_s, min(10, len(step_s)))
        return float(min(c.mean() for c in chunks) * 1e6)

    return {
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "steps": steps,
        "episodes": int(len(bridge["reset_s"])),
        "inproc_step_us": in_us,
        "inproc_step_p50_us": float(np.median(inproc["step_s"]) * 1e6),
        "bridge_step_us": br_us,
        "bridge_step_p50_us": float(np.median(bridge["step_s"]) * 1e6),
        "bridge_step_p99_us": float(np.percentile(bridge["step_s"], 99) * 1e6),
        "inproc_step_best_chunk_us": best_chunk_us(inproc["step_s"]),
        "bridge_step_best_chunk_us": best_chunk_us(bridge["step_s"]),
        "overhead_us": br_us - in_us,
        "ratio": br_us / in_us,
        "inproc_reset_ms": float(inproc["reset_s"].mean() * 1e3),
        "bridge_reset_ms": float(bridge["reset_s"][1:].mean() * 1e3)
        if len(bridge["reset_s"]) > 1
        else float("nan"),
        "trajectories_match": matches,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="CartPole-v1", help="Gymnasium env id")
    parser.add_argument("--env-kwargs", default="{}", help="JSON object of make() kwargs")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    r = run(args.env, json.loads(args.env_kwargs), args.steps, args.seed)
    print(
        f"ns3-gym bridge on {r['env_id']} ({r['steps']} steps, {r['episodes']} episodes, "
        f"{r['cpus']} CPUs)"
    )
    print(
        f"  in-process step   {r['inproc_step_us']:9.1f} us  (median {r['inproc_step_p50_us']:.1f})"
    )
    print(
        f"  bridge step       {r['bridge_step_us']:9.1f} us"
        f"  (median {r['bridge_step_p50_us']:.1f}, p99 {r['bridge_step_p99_us']:.1f})"
    )
    print(f"  bridge overhead   {r['overhead_us']:9.1f} us per step;  ratio {r['ratio']:.1f}x")
    print(
        f"  reset             {r['inproc_reset_ms']:9.3f} ms in-process, "
        f"{r['bridge_reset_ms']:.3f} ms over the bridge (new connection + handshake)"
    )
    print(f"  trajectories match: {r['trajectories_match']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(r, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
