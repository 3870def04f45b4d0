"""Training on a mixture of scenarios (``train_dist=mixture``): other worlds beside the training
distribution.

The randomised training distribution (``conf/scenario/train_randomised.yaml``) draws every range
of one world: a Starlink bent pipe beside a terrestrial path. An agent trained there gains on
its own draws as the budget grows and loses on the held-out suite, whose scenarios are other
worlds (docs/evaluation.md, "Other worlds in training"). ``train.mixture`` puts whole scenarios
of other worlds into training:

* each episode is, with probability ``weight``, one of ``scenarios`` (uniformly), else the
  configured scenario; either is then sampled with its own ranges
  (:func:`~leogym.scenario.sample_scenario`), all from the episode's random stream, so the same
  seed gives the same episodes;
* every member is checked against the env's options when the run starts, as the configured
  scenario is (:meth:`~leogym.envs.config.EnvConfig.fit_scenario`): it may have fewer or more
  connection paths than the configured scenario, up to ``env.observation.max_paths`` (the
  observation and the action have that many entries; a world's unused paths are padding);
* the held-out and validation suites' scenarios are refused: training on them would make their
  figures optimistic.

Only the training envs draw from the mixture; periodic evaluations run their own scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np

from leogym.scenario import ScenarioConfig, sample_scenario
from leogym.schema import FieldError, bounded

__all__ = ["MixtureConfig", "ScenarioMixture", "check_mixture", "mixture_sampler"]

#: Scenario folders that evaluation suites hold out of training.
_HELD_OUT_FOLDERS = frozenset({"heldout", "validation"})


@dataclass
class MixtureConfig:
    """``train.mixture``: scenarios mixed into training (``train_dist=mixture`` sets both).

    :param scenarios: shipped scenario names or YAML paths; empty: no mixture.
    :param weight: probability that an episode is one of ``scenarios`` (drawn uniformly) rather
        than the configured scenario.
    """

    scenarios: list[str] = field(default_factory=list)
    weight: float = field(default=0.5, metadata=bounded(0.0, 1.0))


@dataclass(frozen=True)
class ScenarioMixture:
    """A training env's ``episode_sampler``: with probability ``weight`` one of ``members``
    (uniformly), else the env's own scenario, then that scenario's own sampling.

    Picklable: it travels to the worker processes in the env's kwargs.
    """

    members: tuple[ScenarioConfig, ...]
    weight: float

    def __call__(self, scenario: ScenarioConfig, rng: np.random.Generator) -> ScenarioConfig:
        if self.members and rng.random() < self.weight:
            scenario = self.members[int(rng.integers(len(self.members)))]
        return sample_scenario(scenario, rng)


def check_mixture(cfg: Any, error: type[FieldError] = FieldError) -> tuple[ScenarioConfig, ...]:
    """The checks of ``train.mixture`` that relate it to the env and the scenario.

    :param cfg: a :class:`~leogym.agents.config.LeogymConfig` with mixture scenarios.
    :param error: the exception class raised.
    :return: the members, each fitted to the env's options.
    :raises FieldError: (of class ``error``) naming the field.
    """
    from leogym.agents.config.env import env_kwargs
    from leogym.envs.config import EnvConfig
    from leogym.scenario import load_scenario

    path = "train.mixture.scenarios"
    if not cfg.env.id.startswith("leogym/") or cfg.env.flows.agents:
        raise error(path, f"mixes scenarios for a single-agent leogym env (got {cfg.env.id!r})")
    for other in ("curriculum", "competitors"):
        if getattr(cfg.train, other).enabled:
            raise error(path, f"draws the episodes' scenarios, as train.{other} does: use one")
    options = EnvConfig.from_kwargs(scenario=None, **env_kwargs(cfg.env))
    members = []
    for k, name in enumerate(cfg.train.mixture.scenarios):
        where = f"{path}[{k}]"
        if _HELD_OUT_FOLDERS & set(PurePath(str(name)).parts):
            raise error(where, f"{name!r} belongs to an evaluation suite: training must not see it")
        try:
            member = options.fit_scenario(load_scenario(name), "env", error)
        except (ValueError, TypeError, OSError) as exc:  # FieldError is a ValueError
            raise error(where, str(exc)) from None
        members.append(member)
    return tuple(members)


def mixture_sampler(cfg: Any, error: type[FieldError] = FieldError) -> ScenarioMixture:
    """The training envs' ``episode_sampler`` for ``cfg.train.mixture`` (checked first)."""
    return ScenarioMixture(check_mixture(cfg, error), float(cfg.train.mixture.weight))
