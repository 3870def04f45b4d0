"""Env configuration: one schema for ``gymnasium.make`` kwargs and the Hydra apps.

:class:`EnvOptions` holds every env option, each field with its type, default, range or choices
(:mod:`leogym.schema` metadata) and its doc (the class docstring), once. :class:`EnvConfig`
(what ``gymnasium.make`` builds) adds the scenario; the apps' Hydra group ``env``
(:class:`leogym.agents.config.EnvSpec`) adds the Gymnasium id and a run name. Every field is a
plain type, so Hydra's ConfigStore uses these classes as structured-config schemas as they are.

:meth:`EnvOptions.validate` raises :class:`~leogym.schema.FieldError` (a ``ValueError``) naming
the field (``env.step_ms: must be in [1, 60000] (got -5)``). Algorithm names are the native
core's (``leogym._core.cc_algorithms()`` and ``schedulers()``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any

from leogym import schema
from leogym.envs.rewards import REWARDS, WEIGHT_RANGE, RewardWeights, default_weights
from leogym.native import cc_algorithms, schedulers
from leogym.scenario.config import LeotpFlowConfig, ScenarioConfig
from leogym.scenario.forecast import FORECAST_MODES
from leogym.schema import FieldError, bounded, choice, numbers
from leogym.simulation.transport import TransportOptions, check_env_subflow_paths

__all__ = [
    "ObservationConfig",
    "RewardConfig",
    "EnvOptions",
    "EnvConfig",
    "UnknownEnvArgument",
    "external_flows",
    "residual_bases",
]


def residual_bases() -> list[str]:
    """The plain native congestion controllers (no wrapper, not the agent's ``external``):
    what ``residual_base`` may name, and what a competing flow may run."""
    return [c for c in cc_algorithms() if c != "external" and "+" not in c]


class UnknownEnvArgument(FieldError, TypeError):
    """A ``gymnasium.make`` keyword that no env option has (a ``TypeError``, as for any call
    with an unknown keyword, and a :class:`~leogym.schema.FieldError` naming ``env``)."""


@dataclass
class ObservationConfig:
    """What the observation vector contains.

    :param history: number of past steps stacked (oldest first); 1 = current step only.
    :param max_paths: paths are padded to this count, with a mask feature per path.
    :param ratio_features: include scale-free ratios per path: delivered over sent bytes in
        the step, RTT inflation (smoothed over minimum RTT) and the window over the measured
        bandwidth-delay product (delivery rate x minimum RTT); the same on a 20 and a
        200 Mbit/s path, at 30 or 600 ms. Off by default.
    :param handover_features: include predicted time to next handover and predicted RTT and
        capacity after it (the schedule oracle). Switch off for ablations.
    :param snr_features: include SNR and elevation. Switch off for ablations.
    :param recovery_features: include the timer-based recovery's state per path: retransmission
        timeouts in the step, in RTO recovery (0/1) and time left until the retransmission timer
        fires (``env.transport.recovery`` other than ``rfc9002``; all zero under RFC 9002, whose
        probe timeouts the loss rate already reflects). Off by default.
    :param congestion_features: include the path's congestion signals: the fraction of its
        data packets the peer reported ECN CE-marked in the step (``ce_packets`` over
        ``sent_packets``; 0 without ECN, ``env.transport.ecn``) and the mean time its packets
        spent in link queues (``queue_delay_s``: the AQM sojourn summed over the hops). Off by
        default; switch on for ECN/AQM studies and ablations.
    :param handover_forecast: what the RTT and capacity after the next handover may reveal
        (:mod:`leogym.scenario.forecast`): ``realistic`` reports the geometric model's values
        (schedule, ephemerides, link budget: what a real sender can compute), ``oracle`` the
        scenario's own values once the handover's effects are over, including the next slot's
        drawn capacity and RTT on paths with per-slot dynamics or a trace replay. The two are
        the same on every other path.
    :param handover_jitter_s: standard deviation of Gaussian noise added to the predicted time to
        the next handover (prediction-error ablation). 0 = perfect oracle.
    """

    history: int = field(default=1, metadata=bounded(1, 64))
    max_paths: int = field(default=4, metadata=bounded(1, 16))
    ratio_features: bool = False
    handover_features: bool = True
    snr_features: bool = True
    recovery_features: bool = False
    congestion_features: bool = False
    handover_forecast: str = field(default="realistic", metadata=choice(*FORECAST_MODES))
    handover_jitter_s: float = field(default=0.0, metadata=bounded(0.0))


@dataclass
class RewardConfig:
    """Reward name (see :mod:`leogym.envs.rewards`) and term weights (range:
    :class:`~leogym.envs.rewards.RewardWeights`).

    :param name: a reward of :data:`~leogym.envs.rewards.REWARDS` (``leo``, the default;
        ``aurora``, ``goodput``, ``power``, ``congestion_signals``, and any added by
        ``register_reward``). An env given a callable as ``reward=`` records the callable's
        name here.
    :param throughput: weight of the throughput term; ``None``: the reward's default
        (:func:`~leogym.envs.rewards.default_weights`), as for every weight below.
    :param delay: weight of the delay term.
    :param loss: weight of the loss rate.
    :param scale: overall scale.
    :param ce: weight of the CE-marked fraction (``congestion_signals``, ``leo``).
    :param fair: weight of the fair-share term (``leo``).
    """

    name: str = field(default="leo", metadata=choice(lambda: REWARDS))
    throughput: float | None = field(default=None, metadata=WEIGHT_RANGE)
    delay: float | None = field(default=None, metadata=WEIGHT_RANGE)
    loss: float | None = field(default=None, metadata=WEIGHT_RANGE)
    scale: float | None = field(default=None, metadata=WEIGHT_RANGE)
    ce: float | None = field(default=None, metadata=WEIGHT_RANGE)
    fair: float | None = field(default=None, metadata=WEIGHT_RANGE)

    def weights(self) -> RewardWeights:
        """The weights in force: the reward's defaults, with the ones set here replacing them."""
        given = {
            f.name: getattr(self, f.name)
            for f in fields(RewardWeights)
            if getattr(self, f.name) is not None
        }
        return dataclasses.replace(default_weights(self.name), **given)


@dataclass
class EnvOptions:
    """The options of a leogym env (the scenario aside).

    :param cc: congestion controller: a name the native core accepts
        (``leogym._core.cc_algorithms()``: ``external`` = set by the agent, ``cubic``,
        ``maco``, ``freeze+cubic``, ...).
    :param scheduler: packet scheduler (``leogym._core.schedulers()``: ``external`` = set by
        the agent, ``minrtt``, ``alcs``, ...).
    :param step_ms: simulated milliseconds per env step (the agent's control interval).
    :param episode_s: simulated seconds per episode (at least one step); reaching it truncates
        the episode. A scenario whose ``duration_s`` is shorter is extended to the episode
        (:meth:`fit_scenario`).
    :param action_mode: ``"continuous"`` (Box in [-1, 1]) or ``"discrete"`` (the agent sets
        the windows, ``cc="external"``), or ``"residual"``: hybrid control, in which the native
        controller ``residual_base`` runs as usual and the agent's action ``a`` in [-1, 1]
        scales each path's window (and pacing rate) to ``2^a`` times the base controller's,
        from one step boundary to the next (cpp/model/cc/mp-residual.h); ``a = 0`` is the base
        controller bit for bit.
    :param residual_base: the native controller under ``action_mode="residual"`` (a plain name
        of ``leogym._core.cc_algorithms()``: ``cubic``, ``bbr3``, ``maco``, ...).
    :param residual_alternate: a second native controller under ``action_mode="residual"``
        (``None``: none). Both run on every path, fed the same events, and the action gains a
        second half, one entry per path, choosing which of the two the path follows (above 0:
        the alternate) before the gain applies (``residual+<base>+<alternate>``,
        cpp/model/cc/mp-residual.h; :func:`leogym.envs.actions.residual_controls`).
    :param residual_switch_margin: hysteresis of that choice, ``m`` in [0, 1): a path follows
        the alternate once its entry exceeds ``m``, the base once it is ``-m`` or less, and
        keeps its controller in between (every path starts on the base). ``None`` (or 0): the
        sign decides at every step. Needs ``residual_alternate``.
    :param action_scale: a continuous action ``a`` multiplies the controlled quantity by
        ``1 + action_scale·a`` for ``a ≥ 0`` and divides it by ``1 − action_scale·a`` for ``a < 0``
        (Aurora's symmetric mapping).
    :param cc_target: what the CC agent sets per path: ``"cwnd"`` or ``"pacing"`` (rate).
    :param sample_scenarios: draw each episode's scenario from the scenario's configured
        distribution (start time, terminal location, trace, loss, weather), seeded by ``reset``.
    :param cc_params: native CC parameters (ns-3 attribute names and values; the core checks
        names and ranges, ``leogym._core.algorithm_parameters``).
    :param scheduler_params: native scheduler parameters.
    :param observation: what the observation contains.
    :param reward: the reward and its weights.
    :param transport: transport options beside the CC and the scheduler (receive window,
        cwnd validation, ACK frequency, ...); unset options keep the core's defaults.
    :param connection: the transport of the connection under study: ``"mpquic"`` (leogym's
        multipath transport, driven by ``cc`` and ``scheduler``) or ``"leotp"`` (LEOTP's
        Consumer and Producer on the route of the scenario's first path, with Midnodes on the
        route; cpp/doc/leotp.md, "The connection under study"). A LEOTP connection takes no
        actions (the env ignores them: a native baseline, ``leogym.baselines`` ``leotp``);
        variants A-C need a hop scenario, D (end to end) runs on either topology.
    :param leotp: the LEOTP connection's parameters (``connection="leotp"``; ranges as a
        ``transport: leotp`` flow's).
    """

    cc: str = field(default="external", metadata=choice(cc_algorithms))
    scheduler: str = field(default="minrtt", metadata=choice(schedulers))
    step_ms: float = field(default=100.0, metadata=bounded(1.0, 60_000.0))
    episode_s: float = field(default=20.0, metadata=bounded(0.0, 86_400.0, lo_open=True))
    action_mode: str = field(
        default="continuous", metadata=choice("continuous", "discrete", "residual")
    )
    residual_base: str = field(default="cubic", metadata=choice(residual_bases))
    residual_alternate: str | None = field(default=None, metadata=choice(residual_bases))
    residual_switch_margin: float | None = field(
        default=None, metadata=bounded(0.0, 1.0, hi_open=True)
    )
    action_scale: float = field(default=0.5, metadata=bounded(1e-6, 10.0))
    cc_target: str = field(default="cwnd", metadata=choice("cwnd", "pacing"))
    sample_scenarios: bool = False
    cc_params: dict[str, float] = field(default_factory=dict, metadata=numbers())
    scheduler_params: dict[str, float] = field(default_factory=dict, metadata=numbers())
    observation: ObservationConfig = field(default_factory=ObservationConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    transport: TransportOptions = field(default_factory=TransportOptions)
    connection: str = field(default="mpquic", metadata=choice("mpquic", "leotp"))
    leotp: LeotpFlowConfig = field(default_factory=LeotpFlowConfig)

    def validate(self, path: str = "env", error: type[FieldError] = FieldError) -> None:
        """Raise ``error`` (a ``ValueError``) naming the first invalid field."""
        schema.check(self, path, error)

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        from leogym.simulation import check_settings

        if self.action_mode == "residual" and self.cc != "external":
            raise schema.fail(
                error,
                f"{path}.cc",
                "must be 'external' with action_mode 'residual' (the agent scales the window "
                f"of residual_base={self.residual_base!r}; set the base controller there)",
                self.cc,
            )
        if self.residual_alternate is not None:
            if self.action_mode != "residual":
                raise schema.fail(
                    error,
                    f"{path}.residual_alternate",
                    f"needs action_mode 'residual' (it is {self.action_mode!r})",
                    self.residual_alternate,
                )
            if self.residual_alternate == self.residual_base:
                raise schema.fail(
                    error,
                    f"{path}.residual_alternate",
                    "must differ from residual_base (a choice between a controller and itself "
                    "is no choice)",
                    self.residual_alternate,
                )
        if self.residual_switch_margin is not None and self.residual_alternate is None:
            raise schema.fail(
                error,
                f"{path}.residual_switch_margin",
                "needs residual_alternate (it is the hysteresis of the choice between "
                "residual_base and residual_alternate)",
                self.residual_switch_margin,
            )
        try:  # algorithm parameters and transport options, by the core's config checker
            check_settings(self.core_settings(), path)
        except ValueError as exc:
            raise error(str(exc)) from None
        step_s = self.step_ms / 1000.0
        if self.episode_s < step_s:
            raise schema.fail(
                error,
                f"{path}.episode_s",
                f"must be >= step_ms / 1000 ({step_s:g} s)",
                self.episode_s,
            )

    def core_settings(self) -> EnvOptions:
        """These options as the native core runs them: under ``action_mode="residual"`` the
        controller is ``residual+<residual_base>`` (the agent's gains scale its windows), or
        ``residual+<residual_base>+<residual_alternate>``; otherwise the options themselves."""
        if self.action_mode != "residual":
            return self
        alternate = f"+{self.residual_alternate}" if self.residual_alternate else ""
        return dataclasses.replace(self, cc=f"residual+{self.residual_base}{alternate}")

    def options(self) -> dict[str, Any]:
        """The :class:`EnvOptions` fields as ``gymnasium.make`` kwargs (sections as they are)."""
        return {f.name: getattr(self, f.name) for f in fields(EnvOptions)}

    @property
    def max_steps(self) -> int:
        """Steps per episode: ``episode_s / (step_ms / 1000)``, rounded."""
        return int(round(self.episode_s / (self.step_ms / 1000.0)))

    @property
    def episode_end_s(self) -> float:
        """Simulated time at which an episode ends: :attr:`max_steps` steps of ``step_ms``."""
        return self.max_steps * self.step_ms / 1000.0

    def fit_scenario(
        self,
        scenario: ScenarioConfig,
        path: str = "env",
        error: type[FieldError] = FieldError,
        *,
        flows_driven: bool = False,
    ) -> ScenarioConfig:
        """The scenario an env with these options runs, after the checks that relate the two
        (every leogym env makes them when built, and the apps before anything runs).

        * ``observation.max_paths`` holds the connection's paths; the connection and the
          transport options suit the scenario
          (:func:`~leogym.simulation.native_config.native_connection`), and
          ``transport.subflow_paths`` is unset or every path in order (observation and action
          ``i`` are path ``i``: :func:`~leogym.simulation.transport.check_env_subflow_paths`);
        * unless ``flows_driven`` (an env that drives the scenario's other flows itself), no
          ``mpquic`` flow of ``traffic.flows`` has ``cc: external``: nothing would set its
          window (:func:`external_flows`);
        * the scenario lasts at least the episode: a ``duration_s`` shorter than
          :attr:`episode_end_s` is extended to it (the link model simply runs on), as the
          timeline after ``duration_s`` would otherwise hold its last state. A scenario that
          cannot be extended (too many timeline samples, say) is an error naming
          ``episode_s``.

        :param scenario: a validated scenario.
        :param path: these options' config section, for errors.
        :param error: the exception class raised (a :class:`~leogym.schema.FieldError`).
        :return: ``scenario``, or an extended copy of it.
        """
        from leogym.scenario import load_scenario
        from leogym.scenario.flows import connection_path_count
        from leogym.simulation.native_config import native_connection

        n_paths = connection_path_count(scenario)
        if n_paths > self.observation.max_paths:
            raise error(
                f"{path}.observation.max_paths",
                f"the scenario has {n_paths} paths, more than max_paths="
                f"{self.observation.max_paths}",
            )
        try:
            native_connection(self, scenario, path)
            check_env_subflow_paths(self.transport, n_paths, f"{path}.transport")
        except FieldError as exc:
            raise error(str(exc)) from None
        undriven = [] if flows_driven else external_flows(scenario)
        if undriven:
            raise error(
                f"scenario.traffic.flows[{undriven[0]}].cc",
                "'external' flows take their windows from a policy, and this env drives "
                "only its own connection: give the flow a native congestion control, or "
                "drive it with leogym/LeoMultiFlowCC-v0 (others=<policy>) or the "
                "multi-agent env",
            )
        end = self.episode_end_s
        if scenario.duration_s >= end - 1e-9:
            return scenario
        try:
            return load_scenario(dataclasses.replace(scenario, duration_s=end))
        except FieldError as exc:
            raise error(
                f"{path}.episode_s",
                f"episodes of {end:g} s outlast scenario {scenario.name!r} "
                f"(duration_s {scenario.duration_s:g} s), which cannot be extended to them: {exc}",
            ) from None


@dataclass
class EnvConfig(EnvOptions):
    """Configuration of a leogym env: its :class:`EnvOptions` and the scenario.

    :param scenario: a scenario name from ``conf/scenario/`` (e.g. ``"tiny"``, ``"default"``).
        ``gymnasium.make`` also accepts a :class:`leogym.scenario.ScenarioConfig`, a dict or a
        path to a YAML file for this argument.
    """

    scenario: Any = "tiny"

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> EnvConfig:
        """Build from ``gymnasium.make`` kwargs and validate; nested sections may be dicts (or
        DictConfigs), ``reward`` also a reward name."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise UnknownEnvArgument(
                "env", f"unknown argument(s) {unknown}; known: {sorted(known)}"
            )
        kwargs = dict(kwargs)
        if isinstance(kwargs.get("reward"), str):
            kwargs["reward"] = RewardConfig(name=kwargs["reward"])
        for name, section in (
            ("observation", ObservationConfig),
            ("reward", RewardConfig),
            ("transport", TransportOptions),
            ("leotp", LeotpFlowConfig),
        ):
            if name in kwargs:
                kwargs[name] = schema.build(section, kwargs[name], f"env.{name}")
        for key in ("cc_params", "scheduler_params"):
            if key in kwargs and kwargs[key] is None:
                kwargs[key] = {}
            elif key in kwargs:
                try:
                    kwargs[key] = dict(kwargs[key])
                except (TypeError, ValueError):
                    raise FieldError(
                        f"env.{key}",
                        f"must be a mapping of parameter name to number (got {kwargs[key]!r})",
                    ) from None
        cfg = cls(**kwargs)
        cfg.validate()
        return cfg


def external_flows(scenario: ScenarioConfig) -> list[int]:
    """Indices in ``scenario.traffic.flows`` of the ``mpquic`` flows whose ``cc`` is
    ``external`` (their windows come from a policy)."""
    return [
        i
        for i, fc in enumerate(scenario.traffic.flows)
        if fc.transport == "mpquic" and "external" in fc.cc
    ]
