"""A warm start from the baselines' logs (issue 30 item 6; Sage, Mowgli).

``leogym-train train.warm_start.store=<folder>`` does three things before PPO (or A2C) trains:

1. **Collect** (:func:`collect`). MACO, ALCS, freeze+CUBIC, BBRv3 and CUBIC
   (``train.warm_start.baselines``) each run ``train.warm_start.episodes`` episodes of the
   training distribution (the run's ``env`` and ``scenario``, episode ``i`` on seed
   ``SEED_OFFSET + i`` for every baseline, so that they meet the same sampled scenario). Each
   episode runs through the evaluation's loop (:func:`leogym.agents.runtime.rollout.run_task`),
   in worker processes; its tidy transitions, every baseline's, go to one Parquet file
   ``episodes/epNNNNN.parquet`` beside a ``manifest.json``. Files are written atomically and
   an existing episode file is kept, so an interrupted collection loses at most the episodes
   under way and the next run collects only what is missing.
2. **Label** (:func:`demonstrations`). Per episode the baseline with the highest return is the
   teacher; its states, with its actions expressed in the agent's action space, are the
   demonstrations.
3. **Clone** (:func:`behaviour_clone`). The policy's action mean is regressed on the labels
   (and its value head on the teacher's discounted returns); PPO then fine-tunes from there.

The baselines are native controllers: they take no actions in the agent's space, so their
"action" is inferred from their own trajectory (:func:`continuous_labels`,
:func:`residual_labels`):

* ``env.action_mode=continuous``: the action that turns the window the env would scale (the
  last measured cwnd, 10 packets before the first measurement) into the window the baseline had
  at the end of the step, through the inverse of Aurora's factor, clipped to [-1, 1]. Replayed
  by the agent it reproduces the baseline's window at every step boundary wherever the baseline
  changed it by at most the factor's range.
* ``env.action_mode=residual``: the agent's window is ``2^a`` times the base controller's, and
  that controller's window on the teacher's trajectory is never observed. The label is
  ``log2(teacher's cwnd / base's cwnd)`` with both windows from the same episode (same seed and
  scenario), the base running alone: exactly 0 when the teacher is the base (which is always
  rolled out, and always a candidate), and an approximation otherwise, which holds while the
  two runs stay close.

Stores are checked when loaded (:func:`load_store`): a missing or foreign manifest, another
schema version, a missing column, a wrong type or width, NaN, an action out of range or an
unreadable (truncated) file raise :class:`TransitionStoreError` naming the field or column.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from leogym.schema import FieldError, bounded

__all__ = [
    "COLUMNS",
    "SCHEMA_VERSION",
    "Demonstrations",
    "TransitionStoreError",
    "Transitions",
    "WarmStartConfig",
    "behaviour_clone",
    "check_warm_start",
    "collect",
    "continuous_labels",
    "demonstrations",
    "load_store",
    "residual_labels",
    "warm_start",
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
#: The baselines of issue 30 item 6 (registry names of :mod:`leogym.baselines`).
DEFAULT_BASELINES = ("maco", "alcs", "freeze+cubic", "bbr3", "cubic")
#: Store episode ``i`` runs on seed ``SEED_OFFSET + i``: apart from the training envs'
#: (``seed + steps``) and the evaluation's seeds.
SEED_OFFSET = 1_000_000
#: The agents whose policy is a Gaussian actor-critic over a Box (what the clone regresses).
CLONABLE_AGENTS = ("ppo", "a2c")
#: The window the env scales before the first measurement (cc_env: 10 packets).
INITIAL_CWND_PACKETS = 10


class TransitionStoreError(FieldError):
    """A transition store that cannot be used; the message starts with the field, file or
    column (``episodes/ep00003.parquet.obs: must have 52 values per row ...``)."""


@dataclass
class WarmStartConfig:
    """``train.warm_start``: behaviour cloning from the baselines before training.

    :param store: folder of the transition store; empty: no warm start. Collected there when
        missing or incomplete, reused when complete (for every seed of a recipe).
    :param baselines: baselines to roll out (names of :mod:`leogym.baselines`); under
        ``env.action_mode=residual`` the base controller is rolled out too.
    :param episodes: episodes per baseline.
    :param n_workers: worker processes of the collection.
    :param epochs: passes of the behaviour cloning over the demonstrations.
    :param batch_size: demonstrations per gradient step.
    :param learning_rate: Adam's step size in the behaviour cloning.
    :param value_coef: weight of the value head's regression on the teacher's discounted
        returns (0: leave the value head as built).
    """

    store: str = ""
    baselines: list[str] = field(default_factory=lambda: list(DEFAULT_BASELINES))
    episodes: int = field(default=16, metadata=bounded(1, 100_000))
    n_workers: int = field(default=2, metadata=bounded(1, 4096))
    epochs: int = field(default=20, metadata=bounded(1, 100_000))
    batch_size: int = field(default=256, metadata=bounded(1, 10_000_000))
    learning_rate: float = field(default=1e-3, metadata=bounded(0.0, 1.0, lo_open=True))
    value_coef: float = field(default=0.5, metadata=bounded(0.0, 100.0))


def check_warm_start(cfg: Any, error: type[FieldError]) -> None:
    """What a warm start needs of the rest of the config; raise ``error`` naming the field."""
    from leogym.baselines import make_baseline

    ws = cfg.train.warm_start
    if cfg.env.id != "leogym/LeoCC-v0":
        raise error(
            "env.id",
            f"a warm start (train.warm_start.store) needs leogym/LeoCC-v0 (got {cfg.env.id!r})",
        )
    if cfg.env.action_mode not in ("continuous", "residual"):
        raise error(
            "env.action_mode",
            "a warm start labels window changes: must be 'continuous' or 'residual' "
            f"(got {cfg.env.action_mode!r})",
        )
    if cfg.env.cc != "external" or cfg.env.cc_target != "cwnd":
        raise error(
            "env.cc",
            "a warm start clones window actions: needs cc='external' and cc_target='cwnd' "
            f"(got cc={cfg.env.cc!r}, cc_target={cfg.env.cc_target!r})",
        )
    if cfg.env.flows.agents:
        raise error("env.flows.agents", "a warm start is for one agent (must be false)")
    if cfg.agent.name not in CLONABLE_AGENTS:
        raise error(
            "agent.name",
            f"a warm start clones a Gaussian actor-critic: must be one of "
            f"{', '.join(CLONABLE_AGENTS)} (got {cfg.agent.name!r})",
        )
    if not ws.baselines:
        raise error("train.warm_start.baselines", "needs at least one baseline")
    for i, name in enumerate(ws.baselines):
        try:
            make_baseline(name)
        except ValueError as exc:
            raise error(f"train.warm_start.baselines[{i}]", str(exc)) from None
        if name in ws.baselines[:i]:
            raise error(f"train.warm_start.baselines[{i}]", f"{name!r} is listed twice")
    if cfg.env.action_mode == "residual":
        try:
            make_baseline(cfg.env.residual_base)
        except ValueError:
            raise error(
                "env.residual_base",
                "a warm start rolls the base controller out as a baseline: must be a name of "
                f"leogym.baselines (got {cfg.env.residual_base!r})",
            ) from None


# ------------------------------------------------------------------------------------ labels
def continuous_labels(
    cwnd: np.ndarray, *, packet_bytes: int, scale: float, width: int
) -> np.ndarray:
    """The continuous actions that reproduce a trajectory's windows step by step.

    :param cwnd: ``(steps, paths)`` windows at the end of each step, in bytes.
    :param packet_bytes: the scenario's packet size (the env's first window is 10 packets).
    :param scale: ``env.action_scale``.
    :param width: the action's width (``observation.max_paths``); padded entries are 0.
    :return: ``(steps, width)`` float32 in [-1, 1]: the inverse of Aurora's factor
        (:func:`leogym.envs.actions.multiplicative_factor`) of each step's window ratio.
    """
    cwnd = np.asarray(cwnd, dtype=np.float64)
    first = float(INITIAL_CWND_PACKETS * packet_bytes)
    ref = np.vstack([np.full((1, cwnd.shape[1]), first), cwnd[:-1]])
    ref = np.where(ref > 0, ref, first)  # as the env: no window measured yet -> 10 packets
    ratio = np.where(cwnd > 0, cwnd / ref, 1.0)
    a = np.where(ratio >= 1.0, (ratio - 1.0) / scale, (1.0 - 1.0 / ratio) / scale)
    return _pad(np.clip(a, -1.0, 1.0), width)


def residual_labels(cwnd: np.ndarray, base_cwnd: np.ndarray, *, width: int) -> np.ndarray:
    """The residual actions ``log2(cwnd / base_cwnd)`` of a trajectory over the base
    controller's run on the same episode, clipped to [-1, 1].

    :param cwnd: ``(steps, paths)`` windows of the teacher, in bytes.
    :param base_cwnd: ``(steps', paths)`` windows of the base controller on the same seed.
    :param width: the action's width; padded entries (and steps past the base's run, or
        without a window on either side) are 0.
    """
    cwnd = np.asarray(cwnd, dtype=np.float64)
    base = np.asarray(base_cwnd, dtype=np.float64)
    a = np.zeros_like(cwnd)
    n = min(len(cwnd), len(base))
    both = (cwnd[:n] > 0) & (base[:n] > 0)
    a[:n] = np.where(
        both, np.log2(np.where(both, cwnd[:n], 1.0) / np.where(both, base[:n], 1.0)), 0
    )
    return _pad(np.clip(a, -1.0, 1.0), width)


def _pad(a: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((a.shape[0], width), dtype=np.float32)
    out[:, : min(width, a.shape[1])] = a[:, :width]
    return out


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
    from leogym.agents.runtime.app import scenario_payload
    from leogym.agents.runtime.rollout import EpisodeTask, task_key
    from leogym.agents.sb3.env_factory import EnvFactory
    from leogym.scenario import load_scenario

    payload = scenario_payload(c.scenario)
    packet_bytes = int(load_scenario(payload).traffic.packet_bytes)
    names = _rolled_out(c)
    factories = []
    for name in names:
        ref, factory = baseline_policy(name, BaselineSpec(name=name), c)
        factories.append((ref, EnvFactory(factory.env_id, factory.kwargs, payload)))
    jobs = []
    for i in episodes:
        seed = SEED_OFFSET + i
        tasks = tuple(
            EpisodeTask(
                key=task_key(ref, env, seed),
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


# ------------------------------------------------------------------------------------ clone
@dataclass
class Demonstrations:
    """The teacher's states and labels over a store.

    :param obs: ``(n, obs_width)`` states.
    :param action: ``(n, action_width)`` labels in [-1, 1].
    :param returns: ``(n,)`` the teacher's discounted return from each state on.
    :param teachers: each episode's teacher (the baseline with the highest return).
    """

    obs: np.ndarray
    action: np.ndarray
    returns: np.ndarray
    teachers: dict[int, str]


def demonstrations(tr: Transitions, *, gamma: float) -> Demonstrations:
    """Label each state with the action of the best baseline of its episode."""
    order = list(tr.manifest["baselines"])
    obs, act, ret = [], [], []
    teachers: dict[int, str] = {}
    for ep in np.unique(tr.episode):
        rows = tr.episode == ep
        score = {b: float(tr.episode_return[rows & (tr.baseline == b)][0]) for b in order}
        best = max(order, key=lambda b: score[b])  # ties: the first listed
        teachers[int(ep)] = best
        pick = np.flatnonzero(rows & (tr.baseline == best))
        pick = pick[np.argsort(tr.step[pick], kind="stable")]
        obs.append(tr.obs[pick])
        act.append(tr.action[pick])
        g = np.zeros(len(pick))
        acc = 0.0
        for i, r in enumerate(tr.reward[pick][::-1]):
            acc = float(r) + gamma * acc
            g[len(pick) - 1 - i] = acc
        ret.append(g)
    return Demonstrations(
        np.concatenate(obs), np.concatenate(act), np.concatenate(ret).astype(np.float32), teachers
    )


def imitation_loss(policy: Any, obs: np.ndarray, action: np.ndarray) -> float:
    """Mean squared error of the policy's action mean against the labels."""
    import torch

    with torch.no_grad():
        mean = _action_mean(policy, torch.as_tensor(obs, device=policy.device))
        return float(((mean - torch.as_tensor(action, device=policy.device)) ** 2).mean())


def _action_mean(policy: Any, obs: Any) -> Any:
    return policy.get_distribution(obs).distribution.mean


def behaviour_clone(
    policy: Any,
    demos: Demonstrations,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float,
    seed: int,
) -> dict[str, float]:
    """Regress ``policy``'s action mean on the labels (and its value on the returns).

    The policy's log standard deviation is left as built, so that PPO explores from the cloned
    mean as it would from a fresh one. Returns the imitation loss before and after, the
    correlation of the cloned actions (the mean clipped to [-1, 1]) with the labels, and the
    sizes.
    """
    import torch

    device = policy.device
    obs = torch.as_tensor(demos.obs, device=device)
    act = torch.as_tensor(demos.action, device=device)
    ret = torch.as_tensor(demos.returns, device=device)
    before = imitation_loss(policy, demos.obs, demos.action)
    params = [p for name, p in policy.named_parameters() if name != "log_std"]
    opt = torch.optim.Adam(params, lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    n = obs.shape[0]
    policy.set_training_mode(True)
    try:
        for _ in range(epochs):
            perm = torch.randperm(n, generator=gen)
            for start in range(0, n, batch_size):
                idx = perm[start : start + batch_size]
                loss = ((_action_mean(policy, obs[idx]) - act[idx]) ** 2).mean()
                if value_coef > 0:
                    values = policy.predict_values(obs[idx]).flatten()
                    loss = loss + value_coef * ((values - ret[idx]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
    finally:
        policy.set_training_mode(False)
    with torch.no_grad():
        cloned = _action_mean(policy, obs).clamp(-1.0, 1.0).cpu().numpy().ravel()
    labels = demos.action.ravel()
    corr = (
        float(np.corrcoef(cloned, labels)[0, 1])
        if cloned.std() > 0 and labels.std() > 0
        else float("nan")
    )
    return {
        "samples": int(n),
        "epochs": int(epochs),
        "imitation_loss_before": before,
        "imitation_loss_after": imitation_loss(policy, demos.obs, demos.action),
        "action_correlation": corr,
    }


def warm_start(model: Any, c: Any, run_dir: str | Path) -> dict[str, Any]:
    """Collect (or reuse) the store of ``train.warm_start``, then clone its demonstrations
    into ``model``'s policy; write ``warm_start.json`` in ``run_dir`` and return it."""
    from leogym.agents.runtime.storage import atomic_write_json

    ws = c.train.warm_start
    obs_width = int(np.prod(model.observation_space.shape))
    action_width = int(np.prod(model.action_space.shape))
    collected = collect(c, ws.store, obs_width=obs_width, action_width=action_width)
    tr = load_store(ws.store, obs_width=obs_width, action_width=action_width)
    demos = demonstrations(tr, gamma=float(model.gamma))
    stats = behaviour_clone(
        model.policy,
        demos,
        epochs=ws.epochs,
        batch_size=ws.batch_size,
        learning_rate=ws.learning_rate,
        value_coef=ws.value_coef,
        seed=c.seed,
    )
    teachers = list(demos.teachers.values())
    report: dict[str, Any] = {
        "store": str(Path(ws.store).resolve()),
        "env_hash": tr.manifest["env_hash"],
        "episodes": len(demos.teachers),
        "collected_now": len(collected),
        "teachers": {b: teachers.count(b) for b in tr.manifest["baselines"]},
        **stats,
    }
    atomic_write_json(Path(run_dir) / "warm_start.json", report)
    log.info(
        "warm start: cloned %d states of %d episodes (teachers %s); imitation loss %.4f -> %.4f",
        stats["samples"],
        report["episodes"],
        report["teachers"],
        stats["imitation_loss_before"],
        stats["imitation_loss_after"],
    )
    return report
