"""Making zoo models: install a training run as a zoo model with a fresh card, probe its
determinism, and put measured scores on its card. Used by ``tools/retrain_zoo.py``."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from leogym.agents.zoo import (
    CARD,
    MANIFEST,
    MODEL,
    MODELS_DIR,
    ZooError,
    check_name,
    layout_of,
    load_pretrained,
    manifest,
    read_card,
    sha256_of,
)

__all__ = [
    "attach_entry",
    "attach_scores",
    "determinism_probe",
    "install",
    "run_episode",
    "self_play_scores",
]

#: the short episodes of a card's ``determinism`` entry
PROBE = {"scenario": "tiny", "episode_s": 8.0, "seeds": [0, 1]}


def _write_json(path: Path, text: str) -> None:
    from leogym.agents.runtime.storage import atomic_write_text

    atomic_write_text(path, text)
    path.chmod(0o644)  # shipped files are world-readable (the temporary file was not)


def _write_card(path: Path, card: dict[str, Any]) -> None:
    """Write a card; its ``model`` entry is the manifest's and is not written."""
    kept = {k: v for k, v in card.items() if k != "model"}
    _write_json(path, json.dumps(kept, indent=1, sort_keys=False, default=str) + "\n")


def _record_model(root: Path, name: str, path: Path) -> None:
    """Put model file ``path``'s sha256 and size into zoo ``root``'s manifest as ``name``."""
    entries = manifest(root)
    entries[check_name(name)] = {"sha256": sha256_of(path), "bytes": path.stat().st_size}
    _write_json(root / MANIFEST, json.dumps(entries, indent=1, sort_keys=True) + "\n")


def install(
    name: str,
    run_dir: str | Path,
    *,
    description: str,
    overrides: list[str],
    models_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Copy a finished ``leogym-train`` run's final model into the zoo as ``name``, record its
    sha256 in the zoo's manifest and write its card (the previous card's scores are dropped:
    they belong to the old model). Returns the card, with the manifest's ``model`` entry.

    :param run_dir: the training run directory (``config.yaml``, ``run_info.json``,
        ``model.zip``, ``train_summary.json``).
    :param description: one line for the card.
    :param overrides: the ``leogym-train`` overrides that composed the run's config.
    """
    from omegaconf import OmegaConf

    from leogym.agents.config import env_kwargs
    from leogym.agents.runtime.app import scenario_name, to_objects, typed
    from leogym.agents.runtime.run_info import read_run_config
    from leogym.agents.sb3.algos import load_model
    from leogym.agents.sb3.env_factory import EnvFactory

    run_dir = Path(run_dir)
    cfg = read_run_config(run_dir)
    config = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(config, dict)
    config.pop("hydra", None)
    c = to_objects(typed(cfg))
    info = json.loads((run_dir / "run_info.json").read_text())
    summary = json.loads((run_dir / "train_summary.json").read_text())
    src = run_dir / MODEL
    model = load_model(src, c.agent.name, device="cpu")
    env = EnvFactory(c.env.id, env_kwargs(c.env), config.get("scenario"))()
    try:
        features = getattr(env.unwrapped, "feature_names", None)
        layout = layout_of(env.observation_space, env.action_space, features)
    finally:
        env.close()
    model_layout = layout_of(model.observation_space, model.action_space)
    for part in ("observation", "action"):
        for key, value in model_layout[part].items():
            if layout[part].get(key) != value:
                raise ZooError(f"{name}: layout.{part}.{key} of the model and its env differ")
    train_dist = next(
        (o.split("=", 1)[1] for o in overrides if o.split("=", 1)[0].lstrip("+") == "train_dist"),
        None,
    )
    invocation = info["invocations"][0]
    root = Path(models_dir) if models_dir is not None else MODELS_DIR
    dest = root / check_name(name)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest / MODEL)
    _record_model(root, name, dest / MODEL)
    sidecar = src.with_suffix(".json")
    if sidecar.is_file():
        shutil.copyfile(sidecar, dest / "model.json")
    card: dict[str, Any] = {
        "name": name,
        "description": description,
        "algo": c.agent.name,
        "env_id": c.env.id,
        "scenario": scenario_name(config.get("scenario")),
        "train_dist": train_dist,
        "seed": int(c.seed),
        "total_timesteps": int(summary["num_timesteps"]),
        "n_envs": int(c.train.n_envs),
        "train_wall_s": round(float(summary["wall_s"]), 1),
        "train_cpu_s": round(float(summary["cpu_s"]), 1) if "cpu_s" in summary else None,
        "trained_utc": invocation.get("time_utc"),
        "overrides": list(overrides),
        "config": config,
        "layout": layout,
        "provenance": {
            "git": invocation.get("git"),
            "versions": info.get("versions"),
            "host": info.get("host"),
        },
        "determinism": None,
        "scores": {},
    }
    _write_card(dest / CARD, card)
    card["determinism"] = determinism_probe(name, models_dir=models_dir)
    _write_card(dest / CARD, card)
    card["model"] = {"file": MODEL, **manifest(root)[name]}
    return card


def run_episode(policy: Any, env: Any, seed: int) -> dict[str, Any]:
    """One deterministic episode of ``policy`` in ``env`` (in this process): the return, the
    number of steps, the mean goodput and a sha256 over every observation and action."""
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    total, steps, goodput, done = 0.0, 0, 0.0, False
    while not done:
        action, _ = policy.predict(obs, deterministic=True)
        h.update(np.asarray(obs, dtype=np.float32).tobytes())
        h.update(np.asarray(action).tobytes())
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        goodput += float(info["goodput_bps"]) / 1e6
        steps += 1
        done = bool(terminated or truncated)
    return {
        "seed": int(seed),
        "return": total,
        "steps": steps,
        "goodput_mbps_mean": goodput / max(steps, 1),
        "trajectory_sha256": h.hexdigest(),
    }


def determinism_probe(
    name: str, *, models_dir: str | Path | None = None, probe: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run model ``name`` on the probe's short episodes (``tiny``, 8 s, seeds 0 and 1; a
    multi-flow model on its own training scenario, since ``tiny`` has one flow) in this
    process and return the card's ``determinism`` entry."""
    from leogym.agents.config import MULTI_FLOW_ID

    p = dict(probe or PROBE)
    policy = load_pretrained(name, models_dir=models_dir, check_env=False)
    if probe is None and policy.env_id == MULTI_FLOW_ID:
        p["scenario"] = policy.card["scenario"]  # a shipped scenario, by name
    t0 = time.perf_counter()
    episodes = []
    for seed in p["seeds"]:
        env = policy.make_env(scenario=p["scenario"], episode_s=p["episode_s"])
        try:
            episodes.append(run_episode(policy, env, seed))
        finally:
            env.close()
    return {**p, "episodes": episodes, "wall_s": round(time.perf_counter() - t0, 2)}


def self_play_scores(
    name: str,
    seeds: list[int],
    *,
    episode_s: float = 30.0,
    models_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Multi-flow model ``name`` driving every flow of its training scenario (the multi-agent
    env, each agent acting with the model, deterministically), one episode per seed, in this
    process: per seed Jain's index over the flows' delivered bytes, the flows' goodput over the
    bottleneck's capacity, the mean RTT (the envs' ``delay_s``) and the declared loss rate; and
    their mean and standard deviation over the seeds (docs/multi_agent.md, "Four learned
    flows")."""
    from omegaconf import OmegaConf

    from leogym.agents.config import MULTI_FLOW_ID, multi_agent_kwargs
    from leogym.agents.runtime.app import to_objects, typed
    from leogym.envs.multi_agent import LeoMultiAgentCCEnv
    from leogym.simulation import jain_index

    policy = load_pretrained(name, models_dir=models_dir, check_env=False)
    if policy.env_id != MULTI_FLOW_ID:
        raise ZooError(
            f"zoo model {name!r}: env_id is {policy.env_id!r}; self-play needs a model of "
            f"{MULTI_FLOW_ID} (several flows)"
        )
    config = policy.card["config"]
    kwargs = multi_agent_kwargs(to_objects(typed(OmegaConf.create(config))).env)
    kwargs["episode_s"] = float(episode_s)
    rows = []
    n_agents = 0
    for seed in seeds:
        env = LeoMultiAgentCCEnv(scenario=config.get("scenario"), **kwargs)
        try:
            obs, _ = env.reset(seed=int(seed))
            agents = list(env.agents)
            n_agents = len(agents)
            delivered = np.zeros(n_agents)
            capacity_bits = delay_sum = loss_sum = 0.0
            steps = 0
            dt = env.config.step_ms / 1e3
            while env.agents:
                actions = {a: policy.predict(o, deterministic=True)[0] for a, o in obs.items()}
                obs, _, _, _, infos = env.step(actions)
                delivered += [infos[a]["goodput_bps"] * dt for a in agents]
                capacity_bits += float(infos[agents[0]]["capacity_bps"]) * dt
                delay_sum += float(np.mean([infos[a]["delay_s"] for a in agents]))
                loss_sum += float(np.mean([infos[a]["loss_rate"] for a in agents]))
                steps += 1
        finally:
            env.close()
        rows.append(
            {
                "seed": int(seed),
                "jain": float(jain_index(delivered)),
                "goodput_over_capacity": float(delivered.sum() / max(capacity_bits, 1e-9)),
                "rtt_ms": 1e3 * delay_sum / max(steps, 1),
                "loss_rate": loss_sum / max(steps, 1),
            }
        )
    keys = ("jain", "goodput_over_capacity", "rtt_ms", "loss_rate")
    return {
        "scenario": str(config.get("scenario", {}).get("name", "")),
        "n_flows": n_agents,
        "episode_s": float(episode_s),
        "seeds": [int(x) for x in seeds],
        "mean": {k: float(np.mean([r[k] for r in rows])) for k in keys},
        "std": {k: float(np.std([r[k] for r in rows])) for k in keys},
        "episodes": rows,
        "measured_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def attach_entry(
    name: str, key: str, entry: dict[str, Any], *, models_dir: str | Path | None = None
) -> None:
    """Put ``entry`` on model ``name``'s card under ``scores[key]``."""
    card = read_card(name, models_dir)
    card.setdefault("scores", {})[key] = entry
    root = Path(models_dir) if models_dir is not None else MODELS_DIR
    _write_card(root / name / CARD, card)


def attach_scores(
    name: str,
    eval_dir: str | Path,
    label: str,
    *,
    key: str,
    models_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Put an evaluation's scores of policy ``label`` on model ``name``'s card under
    ``scores[key]`` (e.g. ``heldout-v1``, ``default``).

    With several scenarios: the aggregates of ``aggregate.parquet`` (IQM, mean, median of the
    normalised score, with their 95 % stratified-bootstrap intervals) and the per-scenario
    means of ``summary.parquet``; with one scenario, the latter alone.
    """
    import pandas as pd

    eval_dir = Path(eval_dir)
    card = read_card(name, models_dir)
    entry: dict[str, Any] = {"eval_dir": eval_dir.name}
    overrides = eval_dir / "overrides.yaml"
    if overrides.is_file():  # how to measure it again
        from omegaconf import OmegaConf

        entry["overrides"] = [
            str(o) for o in OmegaConf.load(overrides) if not str(o).startswith("hydra.")
        ]
    pol = eval_dir / "policies.json"
    if pol.is_file():
        suite = json.loads(pol.read_text()).get("suite")
        if suite:
            entry["suite"] = suite
    agg_path = eval_dir / "aggregate.parquet"
    if agg_path.is_file():
        agg = pd.read_parquet(agg_path)
        agg = agg[agg["policy"] == label]
        entry["aggregate"] = [
            {
                k: (v.item() if hasattr(v, "item") else v)
                for k, v in row.items()
                if k
                in ("metric", "statistic", "value", "ci_low", "ci_high", "n_scenarios", "n_seeds")
            }
            for row in agg.to_dict("records")
        ]
    summ = pd.read_parquet(eval_dir / "summary.parquet")
    summ = summ[
        (summ["policy"] == label) & summ["metric"].isin(["goodput_mbps", "rtt_p95_ms", "return"])
    ]
    entry["per_scenario"] = [
        {
            "scenario": r["scenario"],
            "metric": r["metric"],
            "n": int(r["n"]),
            "mean": float(r["mean"]),
            "ci_low": float(r["ci_low"]),
            "ci_high": float(r["ci_high"]),
        }
        for r in summ.to_dict("records")
    ]
    if not entry["per_scenario"]:
        raise ZooError(f"{eval_dir} holds no results of policy {label!r}")
    entry["measured_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    card.setdefault("scores", {})[key] = entry
    root = Path(models_dir) if models_dir is not None else MODELS_DIR
    _write_card(root / name / CARD, card)
    return entry
