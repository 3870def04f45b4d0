"""The warm start's transition store: the baselines' episodes rolled out, labelled in the
agent's action space and written as Parquet (:func:`collect`), then read back and checked
(:func:`load_store`).

Layout: ``manifest.json`` (the setup, the schema version, the widths and the columns) beside
``episodes/epNNNNN.parquet``, one file per episode holding every baseline's transitions on the
same seed (``SEED_OFFSET + episode``). Files are written atomically and an existing episode
file is kept, so an interrupted collection loses at most the episodes under way.

The baselines are native controllers: they take no actions in the agent's space, so their
"action" is inferred from their own trajectory (:mod:`.labels`). A store that cannot be used
raises :class:`TransitionStoreError` naming the field, file or column.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from leogym.agents.warm_start.labels import continuous_labels, residual_labels
from leogym.schema import FieldError

__all__ = [
    "COLUMNS",
    "SCHEMA_VERSION",
    "SEED_OFFSET",
    "TransitionStoreError",
    "Transitions",
    "collect",
    "episode_path",
    "load_store",
    "read_manifest",
]

log = logging.getLogger("leogym.agents.warm_start")

#: Version of the store's layout; a store of another version is refused.
SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
EPISODES_DIR = "episodes"
#: Every episode file's columns and their Arrow types (as the manifest lists them).
COLUMNS: dict[str, str] = {
    "episode": "int64",
    "seed": "int64",
    "baseline": "string",
    "step": "int64",
    "obs": "list<float32>",
    "action": "list<float32>",
    "reward": "float64",
    "episode_return": "float64",
    "cwnd_bytes": "list<float64>",
}
#: Store episode ``i`` runs on seed ``SEED_OFFSET + i``: apart from the training envs'
#: (``seed + steps``) and the evaluation's seeds.
SEED_OFFSET = 1_000_000


class TransitionStoreError(FieldError):
    """A transition store that cannot be used; the message starts with the field, file or
    column (``episodes/ep00003.parquet.obs: must have 52 values per row ...``)."""


# ---------------------------------------------------------------------------------- collect
@dataclass(frozen=True)
class _EpisodeJob:
    """One store episode: every baseline on the same seed (picklable, run in a worker)."""

    episode: int
    seed: int
    baselines: tuple[str, ...]
    tasks: tuple[Any, ...]  # EpisodeTask per baseline
    action_mode: str
    action_scale: float
    residual_base: str
    packet_bytes: int
    action_width: int


class _Recorder:
    """What a baseline's episode leaves in the store: per step the observation it acted on, the
    reward and the windows at the step's end (a :data:`~leogym.agents.runtime.rollout.
    StepObserver`)."""

    def __init__(self) -> None:
        self.obs: list[np.ndarray] = []
        self.rewards: list[float] = []
        self.cwnd: list[np.ndarray] = []

    def __call__(self, obs: Any, action: Any, reward: float, info: dict[str, Any]) -> None:
        self.obs.append(np.asarray(obs, dtype=np.float32).ravel())
        self.rewards.append(float(reward))
        self.cwnd.append(np.asarray(info["cwnd_bytes"], dtype=np.float64).ravel())


def _rollout_episode(job: _EpisodeJob) -> Any:
    """Run every baseline of ``job``; return the episode's tidy transitions (an Arrow table)."""
    import pyarrow as pa  # type: ignore[import-untyped]

    from leogym.agents.runtime.rollout import run_task

    runs: dict[str, _Recorder] = {}
    for name, task in zip(job.baselines, job.tasks, strict=True):
        runs[name] = rec = _Recorder()
        run_task(task, rec)
    cols: dict[str, list[Any]] = {k: [] for k in COLUMNS}
    for name, run in runs.items():
        obs, rewards, cwnd = run.obs, run.rewards, np.vstack(run.cwnd)
        if job.action_mode == "residual":
            actions = residual_labels(
                cwnd, np.vstack(runs[job.residual_base].cwnd), width=job.action_width
            )
        else:
            actions = continuous_labels(
                cwnd,
                packet_bytes=job.packet_bytes,
                scale=job.action_scale,
                width=job.action_width,
            )
        n = len(rewards)
        cols["episode"] += [job.episode] * n
        cols["seed"] += [job.seed] * n
        cols["baseline"] += [name] * n
        cols["step"] += list(range(n))
        cols["obs"] += obs
        cols["action"] += list(actions)
        cols["reward"] += rewards
        cols["episode_return"] += [float(np.sum(rewards))] * n
        cols["cwnd_bytes"] += list(cwnd)
    return pa.table({k: pa.array(v, type=_arrow_type(COLUMNS[k])) for k, v in cols.items()})


def _arrow_type(name: str) -> Any:
    import pyarrow as pa

    return {
        "int64": pa.int64(),
        "float64": pa.float64(),
        "string": pa.string(),
        "list<float32>": pa.list_(pa.float32()),
        "list<float64>": pa.list_(pa.float64()),
    }[name]


def _rolled_out(c: Any) -> list[str]:
    """The baselines a store holds: the configured ones, and the residual base."""
    names = list(c.train.warm_start.baselines)
    if c.env.action_mode == "residual" and c.env.residual_base not in names:
        names.append(c.env.residual_base)
    return names


def _manifest(c: Any, obs_width: int, action_width: int) -> dict[str, Any]:
    """The manifest of the store that config ``c`` collects (without the episode count)."""
    from leogym.agents.config import env_kwargs
    from leogym.agents.runtime.app import scenario_payload

    baselines = _rolled_out(c)
    setup = {
        "env_id": c.env.id,
        "env": env_kwargs(c.env),
        "scenario": scenario_payload(c.scenario),
        "baselines": baselines,
        "fallback_cc": c.eval.fallback_cc,
        "fallback_scheduler": c.eval.fallback_scheduler,
    }
    blob = json.dumps(setup, sort_keys=True, default=str).encode()
    return {
        "schema_version": SCHEMA_VERSION,
        "env_id": c.env.id,
        "env_hash": hashlib.sha256(blob).hexdigest()[:16],
        "action_mode": c.env.action_mode,
        "action_scale": float(c.env.action_scale),
        "residual_base": c.env.residual_base if c.env.action_mode == "residual" else None,
        "obs_width": int(obs_width),
        "action_width": int(action_width),
        "baselines": baselines,
        "seed_offset": SEED_OFFSET,
        "columns": dict(COLUMNS),
    }


def _jobs(c: Any, episodes: list[int], action_width: int) -> list[_EpisodeJob]:
    from leogym.agents.config import BaselineSpec
    from leogym.agents.evaluate import baseline_policy
    from leogym.agents.runtime.app import env_scenario, scenario_payload
    from leogym.agents.runtime.rollout import EpisodeTask, task_key
    from leogym.agents.sb3.env_factory import EnvFactory

    payload = scenario_payload(c.scenario)
    scenario = env_scenario(c.env.id, c.scenario)  # converted and validated once, here
    packet_bytes = int(scenario.traffic.packet_bytes)
    names = _rolled_out(c)
    factories = []
    for name in names:
        ref, factory = baseline_policy(name, BaselineSpec(name=name), c)
        factories.append((ref, EnvFactory(factory.env_id, factory.kwargs, scenario)))
    jobs = []
    for i in episodes:
        seed = SEED_OFFSET + i
        tasks = tuple(
            EpisodeTask(
                key=task_key(ref, env, seed, scenario=payload),
                policy=ref,
                env=env,
                scenario=str(c.scenario.name),
                seed=seed,
                metrics=c.eval.metrics,
            )
            for ref, env in factories
        )
        jobs.append(
            _EpisodeJob(
                episode=i,
                seed=seed,
                baselines=tuple(names),
                tasks=tasks,
                action_mode=c.env.action_mode,
                action_scale=float(c.env.action_scale),
                residual_base=c.env.residual_base,
                packet_bytes=packet_bytes,
                action_width=action_width,
            )
        )
    return jobs


def episode_path(store: str | Path, episode: int) -> Path:
    """Where episode ``episode`` of a store lies."""
    return Path(store) / EPISODES_DIR / f"ep{episode:05d}.parquet"


def collect(c: Any, store: str | Path, *, obs_width: int, action_width: int) -> list[int]:
    """Roll the baselines out into ``store``: the episodes of ``train.warm_start.episodes``
    that it does not hold yet. Return the episodes collected now.

    :param c: the run's config (objects).
    :param obs_width: the agent's observation width (checked against every transition).
    :param action_width: the agent's action width.
    :raises TransitionStoreError: ``store`` holds transitions of another setup.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from leogym.agents.runtime.storage import atomic_write, atomic_write_json
    from leogym.agents.runtime.subproc_worker import exit_with_parent

    ws = c.train.warm_start
    store = Path(store)
    manifest = _manifest(c, obs_width, action_width)
    if (store / MANIFEST).is_file():
        old = read_manifest(store)
        differ = sorted(k for k in manifest if old.get(k) != manifest[k])
        if differ:
            raise TransitionStoreError(
                "train.warm_start.store",
                f"{store} holds transitions of another setup (manifest {', '.join(differ)} "
                "differ from this run's); name a new folder",
            )
    manifest["episodes"] = ws.episodes
    atomic_write_json(store / MANIFEST, manifest)
    todo = [i for i in range(ws.episodes) if not episode_path(store, i).is_file()]
    if not todo:
        return []
    log.info("warm start: rolling out %s over %d episodes", ", ".join(_rolled_out(c)), len(todo))
    pool = ProcessPoolExecutor(
        max_workers=min(ws.n_workers, len(todo)),
        mp_context=multiprocessing.get_context(c.train.start_method),
        initializer=exit_with_parent,
        initargs=(os.getpid(),),
    )
    try:
        futures = {pool.submit(_rollout_episode, job): job for job in _jobs(c, todo, action_width)}
        for fut in as_completed(futures):
            table = fut.result()
            path = episode_path(store, futures[fut].episode)
            atomic_write(path, partial(_write_parquet, table))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return todo


def _write_parquet(table: Any, path: Path) -> None:
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    pq.write_table(table, path)


# ------------------------------------------------------------------------------------- load
@dataclass
class Transitions:
    """A loaded, checked store: one row per (episode, baseline, step)."""

    manifest: dict[str, Any]
    episode: np.ndarray
    baseline: np.ndarray
    step: np.ndarray
    obs: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    episode_return: np.ndarray


def read_manifest(store: str | Path) -> dict[str, Any]:
    """The checked manifest of a store.

    :raises TransitionStoreError: naming ``manifest`` or the manifest's field at fault.
    """
    path = Path(store) / MANIFEST
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise TransitionStoreError(
            "manifest", f"{path} is missing: {store} is not a transition store"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TransitionStoreError("manifest", f"{path} is not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise TransitionStoreError("manifest", f"{path} must hold a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise TransitionStoreError(
            "manifest.schema_version", f"must be {SCHEMA_VERSION} (got {version!r}) in {path}"
        )
    for key in ("obs_width", "action_width"):
        value = data.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise TransitionStoreError(
                f"manifest.{key}", f"must be a positive integer (got {value!r}) in {path}"
            )
    if data.get("columns") != COLUMNS:
        raise TransitionStoreError(
            "manifest.columns", f"must be {COLUMNS} (got {data.get('columns')!r}) in {path}"
        )
    baselines = data.get("baselines")
    if not isinstance(baselines, list) or not baselines:
        raise TransitionStoreError(
            "manifest.baselines", f"must be a non-empty list (got {baselines!r}) in {path}"
        )
    return data


def load_store(
    store: str | Path, *, obs_width: int | None = None, action_width: int | None = None
) -> Transitions:
    """Load and check every episode of a store.

    :param obs_width: the observation width the store must have (the agent's).
    :param action_width: the action width it must have.
    :raises TransitionStoreError: naming the manifest field, or the file and column at fault.
    """
    store = Path(store)
    manifest = read_manifest(store)
    for key, want in (("obs_width", obs_width), ("action_width", action_width)):
        if want is not None and manifest[key] != want:
            raise TransitionStoreError(
                f"manifest.{key}", f"is {manifest[key]}, the agent's is {want} ({store})"
            )
    files = sorted((store / EPISODES_DIR).glob("ep*.parquet"))
    if not files:
        raise TransitionStoreError(EPISODES_DIR, f"{store / EPISODES_DIR} holds no episodes")
    parts = [_read_episode(f, manifest) for f in files]
    return Transitions(
        manifest, *(np.concatenate([p[k] for p in parts]) for k in range(len(parts[0])))
    )


def _read_episode(path: Path, manifest: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """One checked episode file as (episode, baseline, step, obs, action, reward, return)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = f"{EPISODES_DIR}/{path.name}"
    try:
        table = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a bad file
        raise TransitionStoreError(
            name,
            f"not a readable Parquet file ({type(exc).__name__}: {exc}); it is truncated or "
            "corrupt: delete it and collect again",
        ) from None
    for col, typ in COLUMNS.items():
        if col not in table.column_names:
            raise TransitionStoreError(f"{name}.{col}", "the column is missing")
        got = table.schema.field(col).type
        ok = got.equals(_arrow_type(typ)) or (typ == "string" and got.equals(pa.large_string()))
        if not ok:
            raise TransitionStoreError(f"{name}.{col}", f"must be of type {typ} (got {got})")
        nulls = table[col].is_null().to_numpy(zero_copy_only=False)
        if nulls.any():
            raise TransitionStoreError(
                f"{name}.{col}",
                f"must hold a value in every row; row {int(nulls.argmax())} is empty",
            )
    n = table.num_rows
    out: dict[str, np.ndarray] = {}
    for col, width_key in (("obs", "obs_width"), ("action", "action_width")):
        arr = table[col].combine_chunks()
        lengths = arr.value_lengths().to_numpy(zero_copy_only=False)
        want = manifest[width_key]
        bad = np.flatnonzero(lengths != want)
        if bad.size:
            raise TransitionStoreError(
                f"{name}.{col}",
                f"must have {want} values per row (manifest.{width_key}); row {int(bad[0])} "
                f"has {int(lengths[bad[0]])}",
            )
        out[col] = np.asarray(arr.flatten().to_numpy(zero_copy_only=False), np.float32).reshape(
            n, want
        )
    for col in ("reward", "episode_return"):
        out[col] = table[col].to_numpy(zero_copy_only=False).astype(np.float64)
    for col in ("obs", "action", "reward", "episode_return"):
        finite = np.isfinite(out[col]).reshape(n, -1).all(axis=1)
        if not finite.all():
            raise TransitionStoreError(
                f"{name}.{col}",
                f"must be finite; row {int(np.argmin(finite))} holds NaN or infinity",
            )
    outside = (np.abs(out["action"]) > 1.0).any(axis=1)
    if outside.any():
        raise TransitionStoreError(
            f"{name}.action", f"must lie in [-1, 1]; row {int(outside.argmax())} does not"
        )
    baseline = np.asarray(table["baseline"].to_pylist(), dtype=object)
    for b in manifest["baselines"]:
        if not (baseline == b).any():
            raise TransitionStoreError(
                f"{name}.baseline", f"has no rows of {b!r} (manifest.baselines)"
            )
    unknown = sorted(set(baseline.tolist()) - set(manifest["baselines"]))
    if unknown:
        raise TransitionStoreError(
            f"{name}.baseline", f"must be one of manifest.baselines (got {unknown[0]!r})"
        )
    return (
        table["episode"].to_numpy(),
        baseline,
        table["step"].to_numpy(),
        out["obs"],
        out["action"],
        out["reward"],
        out["episode_return"],
    )
