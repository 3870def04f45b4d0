"""Env configuration: a typed dataclass usable from ``gymnasium.make`` kwargs and from Hydra.

Every field is a plain type, so Hydra's ConfigStore can use these classes as structured-config
schemas. :meth:`EnvConfig.validate` raises :class:`ValueError` naming the offending field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from leogym.simulation.transport import TransportOptions

__all__ = ["ObservationConfig", "RewardConfig", "EnvConfig", "CC_NAMES", "SCHEDULER_NAMES"]

#: Congestion controllers the native core implements. ``external`` means "set by the agent".
#: ``freeze+<cc>`` wraps a loss-based or model-based CC with StarQUIC's handover freeze.
CC_NAMES = (
    "external",
    "newreno",
    "cubic",
    "bbr",
    "lia",
    "olia",
    "balia",
    "maco",
    "freeze+newreno",
    "freeze+cubic",
    "freeze+bbr",
)
#: Packet schedulers the native core implements. ``external`` means "set by the agent".
SCHEDULER_NAMES = ("external", "minrtt", "roundrobin", "blest", "ecf", "alcs")


@dataclass
class ObservationConfig:
    """What the observation vector contains.

    :param history: number of past steps stacked (oldest first); 1 = current step only.
    :param max_paths: paths are padded to this count, with a mask feature per path.
    :param handover_features: include predicted time to next handover and predicted RTT and
        capacity after it (the schedule oracle). Switch off for ablations.
    :param snr_features: include SNR and elevation. Switch off for ablations.
    :param handover_jitter_s: standard deviation of Gaussian noise added to the predicted time to
        the next handover (prediction-error ablation). 0 = perfect oracle.
    """

    history: int = 1
    max_paths: int = 4
    handover_features: bool = True
    snr_features: bool = True
    handover_jitter_s: float = 0.0


@dataclass
class RewardConfig:
    """Reward name (see :mod:`leogym.envs.rewards`) and term weights."""

    name: str = "aurora"
    throughput: float = 10.0
    delay: float = 1000.0
    loss: float = 2000.0
    scale: float = 0.01


@dataclass
class EnvConfig:
    """Configuration shared by all leogym envs.

    :param scenario: a scenario name from ``conf/scenario/`` (e.g. ``"tiny"``, ``"default"``).
        ``gymnasium.make`` also accepts a :class:`leogym.scenario.ScenarioConfig`, a dict or a
        path to a YAML file for this argument.
    :param cc: congestion controller, one of :data:`CC_NAMES`.
    :param scheduler: packet scheduler, one of :data:`SCHEDULER_NAMES`.
    :param step_ms: simulated milliseconds per env step (the agent's control interval).
    :param episode_s: simulated seconds per episode; reaching it truncates the episode.
    :param action_mode: ``"continuous"`` (Box in [-1, 1]) or ``"discrete"``.
    :param action_scale: a continuous action ``a`` multiplies the controlled quantity by
        ``1 + action_scale·a`` for ``a ≥ 0`` and divides it by ``1 − action_scale·a`` for ``a < 0``
        (Aurora's symmetric mapping).
    :param cc_target: what the CC agent sets per path: ``"cwnd"`` or ``"pacing"`` (rate).
    :param sample_scenarios: draw each episode's scenario from the scenario's configured
        distribution (start time, terminal location, trace, loss, weather), seeded by ``reset``.
    :param cc_params: native CC parameters (ns-3 attribute names and values).
    :param scheduler_params: native scheduler parameters.
    :param transport: transport options beside the CC and the scheduler (receive window,
        cwnd validation, ACK frequency, ...); unset options keep the core's defaults.
    """

    scenario: Any = "tiny"
    cc: str = "external"
    scheduler: str = "minrtt"
    step_ms: float = 100.0
    episode_s: float = 20.0
    action_mode: str = "continuous"
    action_scale: float = 0.5
    cc_target: str = "cwnd"
    sample_scenarios: bool = False
    cc_params: dict[str, float] = field(default_factory=dict)
    scheduler_params: dict[str, float] = field(default_factory=dict)
    observation: ObservationConfig = field(default_factory=ObservationConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    transport: TransportOptions = field(default_factory=TransportOptions)

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> EnvConfig:
        """Build from ``gymnasium.make`` kwargs; nested sections may be dicts (or DictConfigs)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise TypeError(f"unknown env argument(s) {unknown}; known: {sorted(known)}")
        kwargs = dict(kwargs)
        if "observation" in kwargs:
            kwargs["observation"] = _section(
                ObservationConfig, kwargs["observation"], "observation"
            )
        if "reward" in kwargs:
            reward = kwargs["reward"]
            if isinstance(reward, str):
                kwargs["reward"] = RewardConfig(name=reward)
            else:
                kwargs["reward"] = _section(RewardConfig, reward, "reward")
        if "transport" in kwargs:
            kwargs["transport"] = TransportOptions.coerce(kwargs["transport"], "env.transport")
        for key in ("cc_params", "scheduler_params"):
            if key in kwargs and kwargs[key] is None:
                kwargs[key] = {}
            elif key in kwargs:
                try:
                    kwargs[key] = dict(kwargs[key])
                except (TypeError, ValueError):
                    raise ValueError(
                        f"env.{key}: must be a mapping of parameter name to number "
                        f"(got {kwargs[key]!r})"
                    ) from None
        cfg = cls(**kwargs)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Raise :class:`ValueError` naming the first invalid field."""
        if not isinstance(self.cc, str) or self.cc not in CC_NAMES:
            raise ValueError(
                f"env.cc: unknown congestion controller {self.cc!r}; known: {CC_NAMES}"
            )
        if not isinstance(self.scheduler, str) or self.scheduler not in SCHEDULER_NAMES:
            raise ValueError(
                f"env.scheduler: unknown scheduler {self.scheduler!r}; known: {SCHEDULER_NAMES}"
            )
        _positive("env.step_ms", self.step_ms, lo=1.0, hi=60_000.0)
        _positive("env.episode_s", self.episode_s, lo=self.step_ms / 1000.0, hi=86_400.0)
        modes = ("continuous", "discrete")
        if not isinstance(self.action_mode, str) or self.action_mode not in modes:
            raise ValueError(
                f"env.action_mode: must be 'continuous' or 'discrete' (got {self.action_mode!r})"
            )
        _positive("env.action_scale", self.action_scale, lo=1e-6, hi=10.0)
        for name, value in (
            ("env.sample_scenarios", self.sample_scenarios),
            (
                "env.observation.handover_features",
                getattr(self.observation, "handover_features", True),
            ),
            ("env.observation.snr_features", getattr(self.observation, "snr_features", True)),
        ):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name}: must be true or false (got {value!r})")
        if not isinstance(self.cc_target, str) or self.cc_target not in ("cwnd", "pacing"):
            raise ValueError(f"env.cc_target: must be 'cwnd' or 'pacing' (got {self.cc_target!r})")
        obs = self.observation
        if not isinstance(obs.history, int) or not 1 <= obs.history <= 64:
            raise ValueError(
                f"env.observation.history: must be an int in [1, 64] (got {obs.history!r})"
            )
        if not isinstance(obs.max_paths, int) or not 1 <= obs.max_paths <= 16:
            raise ValueError(
                f"env.observation.max_paths: must be an int in [1, 16] (got {obs.max_paths!r})"
            )
        if not math.isfinite(obs.handover_jitter_s) or obs.handover_jitter_s < 0:
            raise ValueError(
                "env.observation.handover_jitter_s: must be a finite number >= 0 "
                f"(got {obs.handover_jitter_s!r})"
            )
        for key, params in (
            ("cc_params", self.cc_params),
            ("scheduler_params", self.scheduler_params),
        ):
            for name, value in params.items():
                if not isinstance(name, str) or not isinstance(value, (int, float, bool)):
                    raise ValueError(
                        f"env.{key}.{name}: must map a name to a number (got {value!r})"
                    )
                if not math.isfinite(float(value)):
                    raise ValueError(f"env.{key}.{name}: must be finite (got {value!r})")


def _section(cls: type, value: Any, name: str) -> Any:
    if isinstance(value, cls):
        return value
    if value is None:
        return cls()
    try:
        items = dict(value)
    except (TypeError, ValueError):
        raise ValueError(f"env.{name}: must be a mapping (got {value!r})") from None
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(items) - known)
    if unknown:
        raise ValueError(f"env.{name}: unknown key(s) {unknown}; known: {sorted(known)}")
    return cls(**items)


def _positive(name: str, value: Any, lo: float, hi: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name}: must be a finite number (got {value!r})")
    if not lo <= value <= hi:
        raise ValueError(f"{name}: must be in [{lo:g}, {hi:g}] (got {value!r})")
