"""A Genet-style curriculum (``train_dist=curriculum``): train more where the agent trails a
teacher most.

Genet (Xia et al., SIGCOMM 2022) trains a learned controller under domain randomisation and, at
intervals, searches the randomised parameters for the environments where a rule-based teacher
beats the current policy by the most, then adds those environments to the training
distribution. Here:

* **The search space** is the scenario's own sampler (``scenario.sampling``, read by
  :func:`leogym.scenario.sample_scenario`): every uniform range is a continuous dimension, every
  choice list a categorical one, ``rain_probability`` a continuous one over its field's range
  (:func:`search_space`). A *configuration* pins some of them (:func:`pin`); the rest are still
  drawn per episode.
* **The search** (:func:`search`) is optuna's TPE sampler, seeded from the run's seed: each of
  ``trials`` configurations is scored by the mean gap, teacher's episode return minus the
  policy's, over ``episodes`` episodes with common seeds (the teacher and the policy see the same
  draws and the same episode seeds).
* **The mixture** (:class:`CurriculumSampler`): the ``top_k`` best configurations of each search
  join a pool (the ``pool_size`` newest are kept); each training episode draws a pooled
  configuration with probability ``weight`` and the scenario's sampler as it is otherwise. The
  training envs take it as their ``episode_sampler``
  (:attr:`leogym.envs.leo_env.LeoEnv.episode_sampler`).
* **The state** (:class:`CurriculumState`: the pool, every search's trials, the step of the
  next search) is saved in every checkpoint's sidecar, so a resumed run goes on with it.

The SB3 side (when to search, pushing the mixture into the envs) is
:class:`leogym.agents.sb3.curriculum_callback.CurriculumCallback`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from leogym.scenario import SamplingConfig, ScenarioConfig, sample_scenario
from leogym.schema import FieldError, bounded

__all__ = [
    "CurriculumConfig",
    "CurriculumSampler",
    "CurriculumState",
    "Dimension",
    "check_curriculum",
    "pin",
    "search",
    "search_space",
]

#: Offset of the curriculum's seeds (TPE, search episodes) from the run's seed, away from the
#: training envs' (``seed + i``) and the evaluation env's (``seed + 10_000``).
SEED_OFFSET = 20_000


@dataclass
class CurriculumConfig:
    """``train.curriculum``: the Genet-style curriculum (``train_dist=curriculum`` turns it on).

    :param enabled: search and mix configurations into training.
    :param teacher: the baseline the agent is measured against: a name of
        :data:`leogym.baselines.BASELINES` (``maco``, ``cubic``, ``bbr3``, ...), run natively.
    :param every_steps: search every this many training steps (the first search after as many).
    :param trials: configurations scored per search.
    :param episodes: episodes per configuration, for the policy and for the teacher each.
    :param weight: probability that a training episode draws a pooled configuration.
    :param top_k: configurations a search adds to the pool (its largest gaps).
    :param pool_size: configurations kept, the newest.
    :param dimensions: the sampler's fields to search (``terminal_lat_deg``,
        ``dynamics_presets``, ...); empty: every field the scenario samples.
    """

    enabled: bool = False
    teacher: str | None = "maco"
    every_steps: int = field(default=50_000, metadata=bounded(1))
    trials: int = field(default=12, metadata=bounded(1, 10_000))
    episodes: int = field(default=1, metadata=bounded(1, 1000))
    weight: float = field(default=0.3, metadata=bounded(0.0, 1.0))
    top_k: int = field(default=1, metadata=bounded(1, 1000))
    pool_size: int = field(default=10, metadata=bounded(1, 10_000))
    dimensions: list[str] = field(default_factory=list)

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if not self.enabled:
            return
        from leogym.baselines import BASELINES, make_baseline

        make_baseline("cubic")  # loads the built-in registry
        known = ", ".join(sorted(BASELINES))
        if not self.teacher:
            raise error(
                f"{path}.teacher",
                f"a curriculum needs a teacher to measure the agent against: one of {known} "
                f"(got {self.teacher!r})",
            )
        if self.teacher not in BASELINES:
            raise error(f"{path}.teacher", f"must be one of {known} (got {self.teacher!r})")
        if self.top_k > self.trials:
            raise error(
                f"{path}.top_k",
                f"must be <= {path}.trials ({self.trials}), the configurations a search scores "
                f"(got {self.top_k})",
            )


# ------------------------------------------------------------------------------ search space
@dataclass(frozen=True)
class Dimension:
    """One searched field of ``scenario.sampling``: continuous over ``[low, high]``, or
    categorical over ``values``."""

    name: str
    low: float = 0.0
    high: float = 0.0
    values: tuple[Any, ...] = ()

    @property
    def categorical(self) -> bool:
        return bool(self.values)


def _dimension(sampling: SamplingConfig, name: str) -> Dimension | None:
    """The searchable dimension of sampler field ``name``; ``None`` if the scenario does not
    sample it (an empty list, a degenerate range, a zero rain probability)."""
    f = next(f for f in fields(SamplingConfig) if f.name == name)
    value = getattr(sampling, name)
    if isinstance(value, list):
        if "interval" in f.metadata:
            if len(value) == 2 and value[1] > value[0]:
                return Dimension(name, float(value[0]), float(value[1]))
            return None
        return Dimension(name, values=tuple(value)) if len(value) >= 2 else None
    if "range" in f.metadata and value > 0:  # rain_probability: rain is drawn at all
        lo, hi = f.metadata["range"][:2]
        return Dimension(name, float(lo), float(hi))
    return None


def search_space(
    sampling: SamplingConfig,
    names: Sequence[str],
    path: str = "train.curriculum.dimensions",
    error: type[FieldError] = FieldError,
) -> list[Dimension]:
    """The dimensions the curriculum searches.

    :param sampling: the scenario's sampler.
    :param names: the fields to search; empty: every one the scenario samples.
    :param path: the field path of ``names`` in error messages.
    :param error: the exception class raised.
    :raises FieldError: (of class ``error``) a name that is no sampler field or that the
        scenario does not sample, or nothing to search.
    """
    known = [f.name for f in fields(SamplingConfig)]
    if not names:
        dims = [d for d in (_dimension(sampling, n) for n in known) if d is not None]
        if not dims:
            raise error(
                "scenario.sampling",
                "the curriculum searches the sampler's ranges and choices, and this scenario "
                "samples nothing (use train_dist=curriculum's scenario, or give it ranges)",
            )
        return dims
    out = []
    for i, name in enumerate(names):
        if name not in known:
            raise error(f"{path}[{i}]", f"must be one of {', '.join(known)} (got {name!r})")
        dim = _dimension(sampling, name)
        if dim is None:
            raise error(
                f"{path}[{i}]",
                f"scenario.sampling.{name} samples nothing in this scenario (a range needs "
                f"low < high, a choice list two values; got {getattr(sampling, name)!r})",
            )
        out.append(dim)
    return out


def pin(scenario: ScenarioConfig, params: dict[str, Any]) -> ScenarioConfig:
    """``scenario`` with the sampler fields of ``params`` fixed to their values (a range
    becomes ``[v, v]``, a choice list ``[v]``); the other fields are still sampled."""
    pinned: dict[str, Any] = {}
    for f in fields(SamplingConfig):
        if f.name not in params:
            continue
        value = params[f.name]
        current = getattr(scenario.sampling, f.name)
        if not isinstance(current, list):
            pinned[f.name] = float(value)
        elif "interval" in f.metadata:
            pinned[f.name] = [float(value), float(value)]
        else:
            pinned[f.name] = [value]
    return replace(scenario, sampling=replace(scenario.sampling, **pinned))


# ----------------------------------------------------------------------------------- mixture
@dataclass(frozen=True)
class CurriculumSampler:
    """An env's ``episode_sampler``: with probability ``weight`` one of ``configs`` (uniformly)
    pinned into the scenario, then :func:`~leogym.scenario.sample_scenario` as usual.

    Picklable, so ``VecEnv.set_attr`` hands it to worker processes.
    """

    configs: tuple[dict[str, Any], ...]
    weight: float

    def __call__(self, scenario: ScenarioConfig, rng: np.random.Generator) -> ScenarioConfig:
        if self.configs and rng.random() < self.weight:
            scenario = pin(scenario, self.configs[int(rng.integers(len(self.configs)))])
        return sample_scenario(scenario, rng)


# ------------------------------------------------------------------------------------- state
@dataclass
class CurriculumState:
    """What a checkpoint keeps of the curriculum.

    :param next_step: the training step at (or after) which the next search runs.
    :param pool: the configurations mixed into training, oldest first.
    :param searches: one record per search: ``step``, ``trials`` (each ``params``, ``agent``,
        ``teacher``, ``gap``) and ``chosen`` (the configurations it added).
    """

    next_step: int
    pool: list[dict[str, Any]] = field(default_factory=list)
    searches: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"next_step": self.next_step, "pool": self.pool, "searches": self.searches}

    @classmethod
    def from_json(cls, data: Any, where: str) -> CurriculumState:
        """Read a saved state; :class:`ValueError` naming ``where`` if it is malformed."""
        ok = (
            isinstance(data, dict)
            and isinstance(data.get("next_step"), int)
            and isinstance(data.get("pool"), list)
            and all(isinstance(p, dict) for p in data["pool"])
            and isinstance(data.get("searches"), list)
            and all(isinstance(s, dict) for s in data["searches"])
        )
        if not ok:
            raise ValueError(
                f"{where}: corrupt curriculum state (want next_step, pool, searches; got "
                f"{str(data)[:200]})"
            )
        return cls(int(data["next_step"]), list(data["pool"]), list(data["searches"]))

    def add_search(self, step: int, trials: list[dict[str, Any]], cfg: CurriculumConfig) -> None:
        """Record a search at ``step``: its ``top_k`` largest gaps join the pool (ties: the
        earlier trial), the pool keeps its ``pool_size`` newest, the next search is due
        ``every_steps`` on."""
        ranked = sorted(range(len(trials)), key=lambda i: (-trials[i]["gap"], i))
        chosen = [dict(trials[i]["params"]) for i in ranked[: cfg.top_k]]
        self.searches.append({"step": step, "trials": trials, "chosen": chosen})
        self.pool = (self.pool + chosen)[-cfg.pool_size :]
        self.next_step = (step // cfg.every_steps + 1) * cfg.every_steps

    def sampler(self, weight: float) -> CurriculumSampler | None:
        """The training envs' ``episode_sampler`` (``None`` while the pool is empty)."""
        return CurriculumSampler(tuple(self.pool), weight) if self.pool else None


# ------------------------------------------------------------------------------------ search
#: ``(params, episode seed) -> (policy's return, teacher's return)``.
Scorer = Callable[[dict[str, Any], int], tuple[float, float]]


def search(
    dims: Sequence[Dimension], score: Scorer, cfg: CurriculumConfig, seed: int
) -> list[dict[str, Any]]:
    """Score ``cfg.trials`` configurations chosen by TPE (seeded with ``seed``) for the gap
    between the teacher's and the policy's returns.

    :param dims: the search space (:func:`search_space`).
    :param score: plays one episode of the policy and one of the teacher on a configuration.
    :param seed: seeds the TPE sampler; the episodes of every trial use the seeds
        ``seed, seed + 1, ...`` (common random numbers across trials).
    :return: the trials in order, each ``params``, ``agent`` and ``teacher`` (mean returns) and
        ``gap`` (their difference).
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(
        seed=seed, n_startup_trials=max(1, min(10, cfg.trials // 2))
    )
    study = optuna.create_study(direction="maximize", sampler=sampler)
    out = []
    seen: dict[str, list[tuple[float, float]]] = {}  # TPE may propose a configuration again
    for _ in range(cfg.trials):
        trial = study.ask()
        params: dict[str, Any] = {}
        for d in dims:
            if d.categorical:
                params[d.name] = trial.suggest_categorical(d.name, list(d.values))
            else:
                params[d.name] = trial.suggest_float(d.name, d.low, d.high)
        key = repr(sorted(params.items()))
        if key not in seen:  # the same seeds give the same returns
            seen[key] = [score(params, seed + e) for e in range(cfg.episodes)]
        scores = seen[key]
        agent = float(np.mean([s[0] for s in scores]))
        teacher = float(np.mean([s[1] for s in scores]))
        gap = teacher - agent
        if not math.isfinite(gap):
            raise FloatingPointError(f"curriculum: a non-finite return on {params}: {scores}")
        study.tell(trial, gap)
        out.append({"params": params, "agent": agent, "teacher": teacher, "gap": gap})
    return out


def check_curriculum(cfg: Any, error: type[FieldError] = FieldError) -> list[Dimension]:
    """The checks of ``train.curriculum`` that relate it to the env and the scenario; returns
    the search space.

    :param cfg: a :class:`~leogym.agents.config.LeogymConfig` with the curriculum enabled.
    :param error: the exception class raised.
    :raises FieldError: (of class ``error``) naming the field.
    """
    if not cfg.env.id.startswith("leogym/") or cfg.env.flows.agents:
        raise error(
            "train.curriculum.enabled",
            "the curriculum trains single-agent leogym envs (env.id leogym/..., "
            f"env.flows.agents=false; got {cfg.env.id!r})",
        )
    if not cfg.env.sample_scenarios:
        raise error(
            "env.sample_scenarios",
            "the curriculum mixes configurations into the scenario sampler's draws: must be "
            "true (train_dist=curriculum sets it)",
        )
    from leogym.scenario import load_scenario

    scenario = load_scenario(cfg.scenario)
    return search_space(
        scenario.sampling, cfg.train.curriculum.dimensions, "train.curriculum.dimensions", error
    )
