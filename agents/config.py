"""Typed schemas of leogym's Hydra apps (``leogym-train``, ``leogym-eval``, ``leogym-run``).

Every knob of the apps is a field of a dataclass below. :func:`register_configs` stores them in
Hydra's ``ConfigStore``; the YAML files under ``conf/`` extend them and hold only deltas. Hydra
checks types and unknown keys when it composes the config; :func:`validate_config` checks value
ranges and raises :class:`ConfigError` naming the field (``train.total_timesteps: must be > 0``).

The three apps share one root schema, :class:`LeogymConfig`, so an experiment preset
(``experiment=maco``) works with all of them. Each app reads the sections it needs:

==========  ============================================================
app         sections
==========  ============================================================
train       ``seed``, ``env``, ``scenario``, ``agent``, ``train``
evaluate    ``seed``, ``env``, ``scenario``, ``eval``, ``baseline``
benchmark   all of them, plus ``benchmark``
==========  ============================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from leogym.envs.config import EnvConfig, ObservationConfig, RewardConfig
from omegaconf import MISSING

from leogym.scenario.config import ScenarioConfig
from leogym.simulation.transport import TransportOptions

__all__ = [
    "A2CConfig",
    "AgentConfig",
    "BaselineSpec",
    "BenchmarkConfig",
    "ConfigError",
    "DQNConfig",
    "EnvSpec",
    "EvalConfig",
    "LeogymConfig",
    "MetricsConfig",
    "OffPolicyAgentConfig",
    "OnPolicyAgentConfig",
    "PPOConfig",
    "RecurrentPPOConfig",
    "SACConfig",
    "TD3Config",
    "TrainConfig",
    "AGENT_SCHEMAS",
    "register_configs",
    "validate_config",
]

_MAX_SEED = 2**31 - 1
START_METHODS = ("forkserver", "spawn", "fork")


class ConfigError(ValueError):
    """An invalid config value; the message starts with the field's path."""


# ---------------------------------------------------------------------------------------- env
@dataclass
class EnvSpec:
    """Which leogym env to make, and its kwargs (see :class:`leogym.envs.config.EnvConfig`).

    The scenario is not here: it is the ``scenario`` group of the root config.

    :param name: short name used in run directories (``cc``, ``scheduler``, ``joint``).
    :param id: Gymnasium id, e.g. ``leogym/LeoCC-v0``. Ids outside ``leogym/`` are made with
        ``kwargs`` only (a debugging aid: any registered Gymnasium env trains and evaluates, with
        the network metrics left empty).
    :param kwargs: extra ``gymnasium.make`` kwargs for a non-leogym id; must be empty for
        leogym ids, whose kwargs are the typed fields below.
    """

    name: str = "cc"
    id: str = "leogym/LeoCC-v0"
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
    kwargs: dict[str, Any] = field(default_factory=dict)


#: EnvSpec fields that are not leogym env kwargs.
ENV_SPEC_ONLY = ("name", "id", "kwargs")


# -------------------------------------------------------------------------------------- agents
@dataclass
class AgentConfig:
    """Fields shared by every SB3 agent.

    :param name: algorithm key in :data:`leogym.agents.algos.ALGOS` (``ppo``, ``a2c``, ``sac``,
        ``td3``, ``dqn``, ``recurrent_ppo``).
    :param policy: SB3 policy alias (``MlpPolicy``; ``MlpLstmPolicy`` for RecurrentPPO).
    :param learning_rate: optimiser step size.
    :param gamma: discount factor.
    :param net_arch: hidden layer sizes of the policy (and value/critic) networks.
    :param activation: ``tanh`` or ``relu``.
    :param device: torch device (``cpu``, ``cuda``, ``auto``).
    :param extra: further constructor kwargs of the SB3 class, passed as they are.
    """

    name: str = MISSING
    policy: str = "MlpPolicy"
    learning_rate: float = 3e-4
    gamma: float = 0.99
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    activation: str = "tanh"
    device: str = "cpu"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class OnPolicyAgentConfig(AgentConfig):
    """On-policy (A2C, PPO) fields: rollout length and advantage estimation."""

    n_steps: int = 2048
    gae_lambda: float = 0.95
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


@dataclass
class PPOConfig(OnPolicyAgentConfig):
    """PPO (Schulman et al., arXiv:1707.06347) as implemented by SB3."""

    name: str = "ppo"
    batch_size: int = 64
    n_epochs: int = 10
    clip_range: float = 0.2
    target_kl: float | None = None


@dataclass
class RecurrentPPOConfig(PPOConfig):
    """PPO with an LSTM policy (sb3-contrib ``RecurrentPPO``)."""

    name: str = "recurrent_ppo"
    policy: str = "MlpLstmPolicy"
    lstm_hidden_size: int = 64
    n_lstm_layers: int = 1


@dataclass
class A2CConfig(OnPolicyAgentConfig):
    """A2C (Mnih et al., ICML 2016) as implemented by SB3."""

    name: str = "a2c"
    learning_rate: float = 7e-4
    n_steps: int = 5
    gae_lambda: float = 1.0
    use_rms_prop: bool = True


@dataclass
class OffPolicyAgentConfig(AgentConfig):
    """Off-policy (SAC, TD3, DQN) fields: replay buffer and update schedule."""

    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "relu"
    buffer_size: int = 100_000
    learning_starts: int = 1000
    batch_size: int = 256
    tau: float = 0.005
    train_freq: int = 1
    gradient_steps: int = 1


@dataclass
class SACConfig(OffPolicyAgentConfig):
    """SAC (Haarnoja et al., arXiv:1812.05905) as implemented by SB3.

    :param ent_coef: entropy coefficient: a number, ``auto`` or ``auto_<init>`` (learned).
    """

    name: str = "sac"
    ent_coef: str = "auto"


@dataclass
class TD3Config(OffPolicyAgentConfig):
    """TD3 (Fujimoto et al., ICML 2018) as implemented by SB3.

    :param action_noise_std: standard deviation of the Gaussian exploration noise (actions in
        [-1, 1]); 0 disables it.
    """

    name: str = "td3"
    learning_rate: float = 1e-3
    policy_delay: int = 2
    target_policy_noise: float = 0.2
    target_noise_clip: float = 0.5
    action_noise_std: float = 0.1


@dataclass
class DQNConfig(OffPolicyAgentConfig):
    """DQN (Mnih et al., Nature 2015) as implemented by SB3; needs a ``Discrete`` action space
    (``env=scheduler env.action_mode=discrete``)."""

    name: str = "dqn"
    learning_rate: float = 1e-4
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    tau: float = 1.0
    train_freq: int = 4
    target_update_interval: int = 1000
    exploration_fraction: float = 0.1
    exploration_initial_eps: float = 1.0
    exploration_final_eps: float = 0.05


#: agent name -> schema (stored as ``agent/base_<name>``)
AGENT_SCHEMAS: dict[str, type[AgentConfig]] = {
    "ppo": PPOConfig,
    "recurrent_ppo": RecurrentPPOConfig,
    "a2c": A2CConfig,
    "sac": SACConfig,
    "td3": TD3Config,
    "dqn": DQNConfig,
}


# -------------------------------------------------------------------------------------- train
@dataclass
class TrainConfig:
    """How ``leogym-train`` runs.

    :param total_timesteps: env steps to train for, summed over the ``n_envs`` envs. Resuming
        carries the step count on, so this is the target of the whole run.
    :param n_envs: training envs, one subprocess (one ns-3 simulator) each.
    :param start_method: multiprocessing start method of the env workers.
    :param eval_freq: evaluate every this many timesteps (0 = never); the eval env lives in its
        own subprocess too.
    :param eval_episodes: episodes per evaluation.
    :param checkpoint_freq: save a checkpoint every this many timesteps (0 = only at the end
        and on interruption).
    :param save_replay_buffer: save off-policy replay buffers with checkpoints (for resuming).
    :param progress: show a progress bar.
    :param tensorboard: write TensorBoard event files under ``<run>/tb``.
    :param log_interval: SB3 log interval (in rollouts for on-policy, episodes for off-policy).
    :param torch_threads: torch intra-op threads in the trainer process.
    :param on_worker_death: when an env worker process dies (killed, crashed, or its env
        raised): ``stop`` (save a checkpoint, report the worker's env and seed, exit) or
        ``restart`` (report, replace the envs, truncate their episodes, train on; at most 3
        times). See :mod:`leogym.agents.worker_faults`.
    """

    total_timesteps: int = 100_000
    n_envs: int = 2
    start_method: str = "forkserver"
    eval_freq: int = 10_000
    eval_episodes: int = 2
    checkpoint_freq: int = 10_000
    save_replay_buffer: bool = True
    progress: bool = True
    tensorboard: bool = True
    log_interval: int = 1
    torch_threads: int = 1
    on_worker_death: str = "stop"


# --------------------------------------------------------------------------------------- eval
@dataclass
class MetricsConfig:
    """Parameters of the per-episode metrics (definitions in :mod:`leogym.agents.metrics`).

    :param convergence_tolerance: goodput band around the final mean (0.1 = ±10 %).
    :param convergence_window_s: trailing moving-average window applied to goodput.
    :param convergence_tail_fraction: the final mean is taken over this last fraction of the
        episode.
    :param handover_guard_s: steps ending less than this long after a handover are excused
        from the band (handover dips are not non-convergence).
    :param rtt_percentiles: RTT percentiles to report (``rtt_p95_ms`` etc.).
    """

    convergence_tolerance: float = 0.1
    convergence_window_s: float = 1.0
    convergence_tail_fraction: float = 0.5
    handover_guard_s: float = 1.0
    rtt_percentiles: list[float] = field(default_factory=lambda: [50.0, 95.0, 99.0])


@dataclass
class EvalConfig:
    """How ``leogym-eval`` runs.

    :param scenarios: the scenario suite, by name (``conf/scenario/<name>.yaml``); empty =
        the composed ``scenario`` group (with any overrides given on the command line).
    :param seeds: one episode per seed, scenario and policy; ``reset(seed=s)``.
    :param agents: trained agents to evaluate: label -> run directory or checkpoint ``.zip``.
    :param checkpoint: for run directories, which model: ``final``, ``best`` (falls back to
        final) or ``latest`` (the newest periodic checkpoint).
    :param deterministic: use the agents' deterministic actions.
    :param fallback_cc: a baseline's congestion controller where the env leaves CC to the
        agent (``cc=external``), e.g. for scheduler baselines on ``LeoCC-v0``.
    :param fallback_scheduler: a baseline's scheduler where the env leaves scheduling to the
        agent, e.g. for CC baselines on ``LeoScheduler-v0``.
    :param n_workers: episodes run in parallel, each worker a subprocess.
    :param start_method: multiprocessing start method of the workers.
    :param traces: save per-step traces (``traces/*.parquet``), used by the notebooks.
    :param plots: write the summary plots.
    :param progress: show a progress bar.
    :param metrics: metric parameters.
    :param on_worker_death: when a worker process dies (killed, crashed) mid-episode:
        ``continue`` (record that episode as failed with its env and seed, rerun the other
        episodes it interrupted in fresh workers; at most 3 times) or ``stop`` (report and
        exit; finished episodes are saved either way, and ``resume`` retries failed ones).
    """

    scenarios: list[str] = field(default_factory=list)
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    agents: dict[str, str] = field(default_factory=dict)
    checkpoint: str = "final"
    deterministic: bool = True
    fallback_cc: str = "cubic"
    fallback_scheduler: str = "minrtt"
    n_workers: int = 2
    start_method: str = "forkserver"
    traces: bool = True
    plots: bool = True
    progress: bool = True
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    on_worker_death: str = "continue"


@dataclass
class BaselineSpec:
    """One analytic baseline or classic algorithm (files in ``conf/baseline/``).

    :param name: name in the :mod:`leogym.baselines` registry.
    :param label: display name in tables and plots (default: ``name``).
    :param params: algorithm parameters, as the baseline's factory names them (e.g. MACO's
        ``gamma``; see ``leogym.baselines.<name>``); they reach the native implementation
        through the env's ``cc_params`` or ``scheduler_params``.
    :param env: extra env kwargs for this baseline (e.g. ``{cc: olia}`` to pair a scheduler
        with a coupled CC).
    """

    name: str = MISSING
    label: str = ""
    params: dict[str, float] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)


@dataclass
class BenchmarkConfig:
    """The main job (``leogym-run``): train, evaluate against baselines, leaderboard.

    :param agent_label: the trained agent's label in the leaderboard.
    :param sort_by: leaderboard column to sort by (descending): a metric of the results table.
    """

    agent_label: str = "PPO"
    sort_by: str = "goodput_mbps"


# --------------------------------------------------------------------------------------- root
@dataclass
class LeogymConfig:
    """Root schema of all leogym apps (stored as ``base_config``).

    :param seed: master seed: torch, NumPy, Python and the training envs' first resets.
    :param resume: a run directory (or a checkpoint ``.zip`` in it) to continue. The run's saved
        config is used; only ``train.total_timesteps`` may be raised.
    :param env: the env (group ``env``).
    :param scenario: the scenario (group ``scenario``, schema
        :class:`leogym.scenario.ScenarioConfig`).
    :param agent: the agent (group ``agent``).
    """

    seed: int = 0
    resume: str | None = None
    env: EnvSpec = field(default_factory=EnvSpec)
    scenario: ScenarioConfig = field(default_factory=ScenarioConfig)
    agent: Any = MISSING
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    baseline: dict[str, BaselineSpec] = field(default_factory=dict)
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)


# ---------------------------------------------------------------------------------- registry
_REGISTERED = False


def register_configs() -> None:
    """Store the schemas in Hydra's ConfigStore and register leogym's resolvers. Idempotent."""
    global _REGISTERED
    if _REGISTERED:
        return
    from hydra.core.config_store import ConfigStore
    from leogym.agents.resolvers import register_resolvers

    cs = ConfigStore.instance()
    cs.store(name="base_config", node=LeogymConfig)
    cs.store(group="env", name="base_env", node=EnvSpec)
    for name, schema in AGENT_SCHEMAS.items():
        cs.store(group="agent", name=f"base_{name}", node=schema)
    cs.store(group="scenario", name="base_scenario", node=ScenarioConfig)
    register_resolvers()
    _REGISTERED = True


# -------------------------------------------------------------------------------- validation
def validate_config(
    cfg: LeogymConfig, sections: tuple[str, ...] = ("env", "agent", "train")
) -> None:
    """Check value ranges of the given sections; raise :class:`ConfigError` naming the field.

    :param cfg: the config as objects (``OmegaConf.to_object``) or a ``DictConfig``.
    :param sections: which sections to check (``env``, ``agent``, ``train``, ``eval``); ``env``
        includes the scenario (:meth:`leogym.scenario.ScenarioConfig.validate`).
    """
    _int_range("seed", cfg.seed, 0, _MAX_SEED)
    if "env" in sections:
        _validate_env(cfg.env)
        if cfg.env.id.startswith("leogym/"):
            _validate_scenario(cfg.scenario)
    if "agent" in sections:
        _validate_agent(cfg.agent)
    if "train" in sections:
        _validate_train(cfg.train)
    if "eval" in sections:
        _validate_eval(cfg.eval, cfg.baseline)


def _validate_env(env: Any) -> None:
    if not isinstance(env.id, str) or not env.id:
        raise ConfigError("env.id: must be a Gymnasium env id")
    if env.id.startswith("leogym/"):
        from leogym.envs.registration import ENV_IDS

        if env.id not in ENV_IDS:
            raise ConfigError(f"env.id: unknown leogym env {env.id!r}; known: {sorted(ENV_IDS)}")
        if env.kwargs:
            raise ConfigError(
                "env.kwargs: only for non-leogym ids; set leogym env options as env.<field>"
            )
        try:
            EnvConfig.from_kwargs(scenario=None, **env_kwargs(env))
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc)) from exc


def _validate_scenario(scenario: Any) -> None:
    from leogym.scenario import load_scenario

    if isinstance(scenario, ScenarioConfig):
        scenario.validate()
    else:
        load_scenario(scenario)
    # ScenarioConfigError is a ValueError whose message starts with the field path


def _validate_agent(agent: Any) -> None:
    from leogym.agents.algos import ALGOS

    name = agent.name
    if name not in ALGOS:
        raise ConfigError(f"agent.name: unknown agent {name!r}; known: {sorted(ALGOS)}")
    _positive("agent.learning_rate", agent.learning_rate)
    if not 0.0 < agent.gamma <= 1.0:
        raise ConfigError(f"agent.gamma: must be in (0, 1] (got {agent.gamma!r})")
    if not agent.net_arch or any(int(n) < 1 for n in agent.net_arch):
        raise ConfigError(
            f"agent.net_arch: must be a non-empty list of sizes >= 1 (got {list(agent.net_arch)!r})"
        )
    if agent.activation not in ("tanh", "relu"):
        raise ConfigError(f"agent.activation: must be 'tanh' or 'relu' (got {agent.activation!r})")
    ints = {
        "n_steps": 1,
        "batch_size": 2,
        "n_epochs": 1,
        "buffer_size": 1,
        "learning_starts": 0,
        "train_freq": 1,
        "gradient_steps": 1,
        "target_update_interval": 1,
        "policy_delay": 1,
        "lstm_hidden_size": 1,
        "n_lstm_layers": 1,
    }
    for key, lo in ints.items():
        if hasattr(agent, key):
            _int_range(f"agent.{key}", getattr(agent, key), lo, 10**12)
    fractions = (
        "gae_lambda",
        "tau",
        "exploration_fraction",
        "exploration_initial_eps",
        "exploration_final_eps",
    )
    for key in fractions:
        if hasattr(agent, key):
            value = getattr(agent, key)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"agent.{key}: must be in [0, 1] (got {value!r})")
    for key in (
        "ent_coef",
        "vf_coef",
        "max_grad_norm",
        "clip_range",
        "action_noise_std",
        "target_policy_noise",
        "target_noise_clip",
    ):
        if hasattr(agent, key) and not isinstance(getattr(agent, key), str):
            value = getattr(agent, key)
            if not math.isfinite(value) or value < 0:
                raise ConfigError(f"agent.{key}: must be a finite number >= 0 (got {value!r})")


def _validate_train(train: Any) -> None:
    _int_range("train.total_timesteps", train.total_timesteps, 1, 10**12)
    _int_range("train.n_envs", train.n_envs, 1, 256)
    _start_method("train.start_method", train.start_method)
    _int_range("train.eval_freq", train.eval_freq, 0, 10**12)
    _int_range("train.eval_episodes", train.eval_episodes, 1, 10_000)
    _int_range("train.checkpoint_freq", train.checkpoint_freq, 0, 10**12)
    _int_range("train.log_interval", train.log_interval, 1, 10**9)
    _int_range("train.torch_threads", train.torch_threads, 1, 1024)
    if train.on_worker_death not in ("stop", "restart"):
        raise ConfigError(
            f"train.on_worker_death: must be 'stop' or 'restart' (got {train.on_worker_death!r})"
        )


def _validate_eval(ev: Any, baselines: Any) -> None:
    if not ev.seeds:
        raise ConfigError("eval.seeds: needs at least one seed")
    for i, s in enumerate(ev.seeds):
        _int_range(f"eval.seeds[{i}]", s, 0, _MAX_SEED)
    if len(set(ev.seeds)) != len(ev.seeds):
        raise ConfigError(f"eval.seeds: seeds must be distinct (got {list(ev.seeds)})")
    for i, name in enumerate(ev.scenarios):
        if not isinstance(name, str) or not name:
            raise ConfigError(f"eval.scenarios[{i}]: must be a scenario name (got {name!r})")
    if ev.checkpoint not in ("final", "best", "latest"):
        raise ConfigError(
            f"eval.checkpoint: must be 'final', 'best' or 'latest' (got {ev.checkpoint!r})"
        )
    _int_range("eval.n_workers", ev.n_workers, 1, 256)
    if ev.on_worker_death not in ("continue", "stop"):
        raise ConfigError(
            f"eval.on_worker_death: must be 'continue' or 'stop' (got {ev.on_worker_death!r})"
        )
    _start_method("eval.start_method", ev.start_method)
    m = ev.metrics
    if not 0.0 < m.convergence_tolerance < 1.0:
        raise ConfigError(
            "eval.metrics.convergence_tolerance: must be in (0, 1) "
            f"(got {m.convergence_tolerance!r})"
        )
    _positive("eval.metrics.convergence_window_s", m.convergence_window_s)
    if not 0.0 < m.convergence_tail_fraction <= 1.0:
        raise ConfigError(
            "eval.metrics.convergence_tail_fraction: must be in (0, 1] "
            f"(got {m.convergence_tail_fraction!r})"
        )
    if not m.handover_guard_s >= 0.0:
        raise ConfigError(
            f"eval.metrics.handover_guard_s: must be >= 0 (got {m.handover_guard_s!r})"
        )
    for i, p in enumerate(m.rtt_percentiles):
        if not 0.0 <= p <= 100.0:
            raise ConfigError(f"eval.metrics.rtt_percentiles[{i}]: must be in [0, 100] (got {p!r})")
    for label, path in ev.agents.items():
        if not path:
            raise ConfigError(f"eval.agents.{label}: needs a run directory or checkpoint path")
    for key, spec in baselines.items():
        if not spec.name:
            raise ConfigError(f"baseline.{key}.name: must name a leogym baseline")


def env_kwargs(env: Any) -> dict[str, Any]:
    """The ``gymnasium.make`` kwargs of an :class:`EnvSpec` (plain Python values, no scenario).

    :param env: an :class:`EnvSpec` or a ``DictConfig`` of one.
    :return: for leogym ids the :class:`~leogym.envs.config.EnvConfig` fields; otherwise
        ``env.kwargs``.
    """
    from omegaconf import DictConfig, OmegaConf

    if isinstance(env, DictConfig):
        data: Any = OmegaConf.to_container(env, resolve=True)
    else:
        from dataclasses import asdict

        data = asdict(env)
    assert isinstance(data, dict)
    if not str(data["id"]).startswith("leogym/"):
        return dict(data.get("kwargs") or {})
    out = {k: v for k, v in data.items() if k not in ENV_SPEC_ONLY}
    if all(v is None for v in (out.get("transport") or {}).values()):
        out.pop("transport", None)  # all unset: the core's defaults (episode keys unchanged)
    return out


def env_spec_fields() -> set[str]:
    """Names of the EnvSpec fields that are env kwargs (for drift checks against EnvConfig)."""
    return {f.name for f in fields(EnvSpec)} - set(ENV_SPEC_ONLY)


def _int_range(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}: must be an integer (got {value!r})")
    if not lo <= value <= hi:
        if lo in (0, 1) and value < lo:
            raise ConfigError(f"{name}: must be >= {lo} (got {value!r})")
        raise ConfigError(f"{name}: must be in [{lo}, {hi}] (got {value!r})")


def _positive(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{name}: must be a finite number (got {value!r})")
    if value <= 0:
        raise ConfigError(f"{name}: must be > 0 (got {value!r})")


def _start_method(name: str, value: str) -> None:
    if value not in START_METHODS:
        raise ConfigError(f"{name}: must be one of {START_METHODS} (got {value!r})")
