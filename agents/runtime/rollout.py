"""One evaluation episode, run in a worker process: make the env, load the policy, step to the
end, write the per-step trace, return the episode's results row.

This module is what evaluation workers import, so it stays light: SB3 and torch are imported
only when a trained agent is loaded.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from leogym.agents.results.metrics import EpisodeRecorder
from leogym.agents.results.table import DRAW_PREFIX
from leogym.agents.sb3.env_factory import EnvFactory

__all__ = [
    "EpisodeTask",
    "PolicyRef",
    "StepObserver",
    "run_task",
    "run_task_on_ray",
    "task_key",
]

_MODELS: dict[tuple[str, str], Any] = {}

#: ``observe(obs, action, reward, info)``: sees each step of :func:`run_task`'s episode.
StepObserver = Callable[[Any, Any, float, dict[str, Any]], None]


@dataclass(frozen=True)
class PolicyRef:
    """A policy to evaluate, by reference (picklable; loaded inside the worker).

    :param label: display name (unique within an evaluation).
    :param kind: ``agent`` (a trained SB3 model) or ``baseline`` (native algorithm).
    :param name: algorithm key of an agent (``ppo``), or baseline registry name (``maco``).
    :param path: the model ``.zip`` of an agent.
    :param params: baseline parameters.
    :param deterministic: deterministic actions for agents.
    :param model_steps: training steps of an agent's model (for the results table).
    :param action: a baseline's fixed action, every step and every dimension (a fixed gain,
        ``baseline.<key>.gain``); ``None``: the env's neutral action.
    """

    label: str
    kind: str
    name: str
    path: str | None = None
    params: dict[str, float] = field(default_factory=dict)
    deterministic: bool = True
    model_steps: int | None = None
    action: float | None = None


@dataclass(frozen=True)
class EpisodeTask:
    """One (policy, scenario, seed) episode.

    :param key: content hash identifying the episode (resuming skips known keys).
    :param policy: what acts.
    :param env: makes the env (with the policy's env overrides applied).
    :param scenario: the scenario's display name.
    :param seed: ``reset(seed=...)``.
    :param metrics: a :class:`~leogym.agents.config.MetricsConfig`.
    :param trace_path: where to write the per-step trace (``None``: no trace).
    """

    key: str
    policy: PolicyRef
    env: EnvFactory
    scenario: str
    seed: int
    metrics: Any
    trace_path: str | None = None


def task_key(policy: PolicyRef, env: EnvFactory, seed: int, scenario: Any = None) -> str:
    """A stable hash of everything that determines an episode's outcome.

    :param scenario: the scenario as configured (its name or dict), which keys the episode
        when ``env`` carries it converted to a ``ScenarioConfig`` (so an evaluation's keys do
        not depend on where the conversion happened); ``None``: ``env.scenario``.
    """
    model_id = None
    if policy.path is not None:
        p = Path(policy.path)
        # The file's content, not its size: a run trained further writes a model of the same
        # size to the same path, whose episodes must not pass for the old model's.
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
        model_id = [str(p.resolve()), digest]
    payload = {
        "label": policy.label,
        "kind": policy.kind,
        "name": policy.name,
        "model": model_id,
        "params": policy.params,
        "deterministic": policy.deterministic,
        "env_id": env.env_id,
        # An option left at None (the default of every optional env option) is left out, so
        # that a new optional option keeps earlier evaluations' keys valid.
        "env": {k: v for k, v in env.kwargs.items() if v is not None},
        "scenario": env.scenario if scenario is None else scenario,
        "seed": int(seed),
    }
    if policy.action is not None:  # absent otherwise: earlier evaluations' keys stay valid
        payload["action"] = policy.action
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha1(blob).hexdigest()[:16]


def _load_policy(ref: PolicyRef, env: Any) -> Any:
    if ref.kind == "baseline":
        from leogym.baselines import bind, make_baseline

        return bind(make_baseline(ref.name, **ref.params), env, action=ref.action)
    assert ref.path is not None
    cache_key = (ref.name, ref.path)
    if cache_key not in _MODELS:
        import torch

        from leogym.agents.sb3.algos import load_model

        torch.set_num_threads(1)
        _MODELS[cache_key] = load_model(ref.path, ref.name, device="cpu")
    return _MODELS[cache_key]


def controls(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The results table's ``cc`` and ``scheduler`` of an episode with these env settings: the
    env's; ``residual+<base>`` (or ``residual+<base>+<alternate>``) under the residual mode,
    where the policy scales the base controller's windows (the core's name,
    :meth:`~leogym.envs.config.EnvOptions.core_settings`);
    or ``leotp`` and ``-`` for a LEOTP connection, which uses neither (its Consumer and
    Midnodes set the rates; cpp/doc/leotp.md, "The connection under study")."""
    if kwargs.get("connection") == "leotp":
        return {"cc": "leotp", "scheduler": "-"}
    cc = kwargs.get("cc", "")
    if kwargs.get("action_mode") == "residual":
        from leogym.envs.config import EnvOptions

        alternate = kwargs.get("residual_alternate")
        cc = f"residual+{kwargs.get('residual_base', EnvOptions.residual_base)}"
        cc += f"+{alternate}" if alternate else ""
    return {"cc": cc, "scheduler": kwargs.get("scheduler", "")}


def run_task(task: EpisodeTask, observe: StepObserver | None = None) -> dict[str, Any]:
    """Run one episode and return its results row (identifying columns + metrics).

    The per-step trace, if requested, is written (atomically) before returning.

    :param observe: called after every step with the observation the policy acted on, its
        action, the reward and the step's info (the warm start's transition store,
        :mod:`leogym.agents.warm_start`, records episodes this way).
    """
    t0 = time.perf_counter()
    env = task.env()
    try:
        policy = _load_policy(task.policy, env)
        obs, reset_info = env.reset(seed=task.seed)
        state = None
        episode_start = np.ones((1,), dtype=bool)
        rec = EpisodeRecorder()
        done = False
        while not done:
            action, state = policy.predict(
                obs,
                state=state,
                episode_start=episode_start,
                deterministic=task.policy.deterministic,
            )
            next_obs, reward, terminated, truncated, info = env.step(action)
            if observe is not None:
                observe(obs, action, float(reward), info)
            obs = next_obs
            rec.add(float(reward), info, terminated=terminated, truncated=truncated)
            episode_start = np.zeros((1,), dtype=bool)
            done = bool(terminated or truncated)
    finally:
        env.close()
    kwargs = dict(task.env.kwargs)
    row: dict[str, Any] = {
        "key": task.key,
        "policy": task.policy.label,
        "kind": task.policy.kind,
        "algorithm": task.policy.name,
        "env_id": task.env.env_id,
        **controls(kwargs),
        "scenario": task.scenario,
        "seed": int(task.seed),
        "model_steps": task.policy.model_steps,
        "step_ms": kwargs.get("step_ms"),
        "episode_s": kwargs.get("episode_s"),
    }
    # env.sample_scenarios: the conditions the episode drew (``draw.terminal_lat_deg``, ...)
    row.update({f"{DRAW_PREFIX}{k}": v for k, v in reset_info.get("scenario_draw", {}).items()})
    row.update(rec.metrics(task.metrics))
    row["wall_s"] = time.perf_counter() - t0
    if task.trace_path is not None:
        from leogym.agents.runtime.storage import atomic_write_parquet

        trace = rec.trace()
        for col in ("key", "policy", "scenario", "seed"):
            trace.insert(0, col, row[col])
        atomic_write_parquet(task.trace_path, trace)
    return row


def run_task_on_ray(task: EpisodeTask) -> dict[str, Any]:
    """:func:`run_task` in a Ray worker process (``eval.backend=ray``); a worker runs episodes
    one after another, like a worker of the local process pool."""
    return run_task(task)


def policy_to_dict(ref: PolicyRef) -> dict[str, Any]:
    """A JSON-able description of a policy (for run files)."""
    return asdict(ref)
