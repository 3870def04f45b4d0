"""Typed schemas of leogym's Hydra apps (``leogym-train``, ``leogym-eval``, ``leogym-run``).

Every knob of the apps is a field of a dataclass below. :func:`register_configs` stores them in
Hydra's ``ConfigStore``; the YAML files under ``conf/`` extend them and hold only deltas. Hydra
checks types and unknown keys when it composes the config; :func:`validate_config` checks the
ranges and choices the fields carry (:mod:`leogym.schema`) and raises :class:`ConfigError`
naming the field (``train.total_timesteps: must be >= 1 (got -5)``). The env section's options
are :class:`leogym.envs.config.EnvOptions`, the same schema ``gymnasium.make`` takes.

The three apps share one root schema, :class:`LeogymConfig`, so an experiment preset
(``experiment=maco``) works with all of them. Each app reads the sections it needs:

==========  ============================================================
app         sections
==========  ============================================================
train       ``seed``, ``env``, ``scenario``, ``agent``, ``train`` (``ray``)
evaluate    ``seed``, ``env``, ``scenario``, ``eval``, ``baseline`` (``ray``)
main_job    all of them, plus ``main_job``
==========  ============================================================

``ray`` is read only with ``train.vec_env=ray`` or ``eval.backend=ray``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from omegaconf import MISSING

from leogym import schema
from leogym.agents.competitors import CompetitorsConfig
from leogym.agents.curriculum import CurriculumConfig
from leogym.agents.warm_start import WarmStartConfig
from leogym.envs.config import EnvOptions
from leogym.envs.multi_agent import FairnessConfig
from leogym.native import cc_algorithms, core, schedulers
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.flows import expanded_flows
from leogym.schema import FieldError, bounded, choice

__all__ = [
    "A2CConfig",
    "AgentConfig",
    "BaselineSpec",
    "MainJobConfig",
    "ConfigError",
    "DQNConfig",
    "EnvSpec",
    "FlowsSpec",
    "EvalConfig",
    "LeogymConfig",
    "SuiteInfo",
    "MetricsConfig",
    "OffPolicyAgentConfig",
    "OnPolicyAgentConfig",
    "PPOConfig",
    "RayConfig",
    "RecurrentPPOConfig",
    "SACConfig",
    "TD3Config",
    "TrainConfig",
    "AGENT_SCHEMAS",
    "AggregateConfig",
    "register_configs",
    "validate_config",
]

#: Largest seed (NumPy and torch take 32-bit seeds).
MAX_SEED = 2**31 - 1
START_METHODS = ("forkserver", "spawn", "fork")
#: Where ``leogym-train`` runs its envs (``train.vec_env``).
VEC_ENVS = ("subproc", "ray")
#: Where ``leogym-eval`` runs its episodes (``eval.backend``).
EVAL_BACKENDS = ("subproc", "ray")
ACTIVATIONS = ("tanh", "relu")
POSITIVE = bounded(0.0, lo_open=True)
FRACTION = bounded(0.0, 1.0)


class ConfigError(FieldError):
    """An invalid config value; the message starts with the field's path (:attr:`field`)."""


# ---------------------------------------------------------------------------------------- env
#: The Gymnasium id whose flows :class:`FlowsSpec` configures.
MULTI_FLOW_ID = "leogym/LeoMultiFlowCC-v0"


@dataclass
class FlowsSpec:
    """The flows of ``leogym/LeoMultiFlowCC-v0`` (docs/multi_agent.md): several flows on one
    bottleneck, flow 0 the agent's (or the baseline's).

    :param n_flows: how many flows (``None``: the scenario's own ``traffic.flows``); else the
        connection plus ``n_flows - 1`` copies of the scenario's one ``mpquic`` flow entry.
    :param others: the controls of the other ``mpquic`` flows: empty (the scenario's own), one
        name for all of them, or one per flow; a leogym controller (``cubic``, ``bbr``, ...) or
        an ns-3 TCP (``TcpCubic``, ``TcpBbr``: that flow becomes ns-3 TCP).
    :param agents: train every flow as an agent with one shared policy (parameter sharing over
        the PettingZoo env :class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv`; ``others``
        must then be empty); evaluation still runs ``LeoMultiFlowCC-v0``, the policy on flow 0
        beside ``others``.
    :param fairness: the multi-agent reward's fairness terms (only with ``agents``).
    """

    n_flows: int | None = field(default=None, metadata=bounded(1, 64))
    others: list[str] = field(default_factory=list)
    agents: bool = False
    fairness: FairnessConfig = field(default_factory=FairnessConfig)

    @property
    def is_set(self) -> bool:
        """Whether any field differs from its default (the scenario's flows as they are)."""
        return self != FlowsSpec()

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if not self.agents and self.fairness != FairnessConfig():
            raise error(
                f"{path}.fairness", "only for env.flows.agents=true (the multi-agent reward)"
            )
        for k, name in enumerate(self.others):
            if "external" in name:
                raise error(
                    f"{path}.others[{k}]",
                    "'external' needs a policy to drive it; the apps take controller names",
                )
            known = {n for n in cc_algorithms() if "external" not in n}
            known |= set(core().tcp_variants())
            if name not in known:
                raise schema.fail(
                    error, f"{path}.others[{k}]", f"must be one of {', '.join(sorted(known))}", name
                )


@dataclass
class EnvSpec(EnvOptions):
    """Which leogym env to make: its :class:`~leogym.envs.config.EnvOptions` (every env option,
    defined there once) and what the apps need besides.

    The scenario is not here: it is the ``scenario`` group of the root config.

    :param name: short name used in run directories (``cc``, ``scheduler``, ``joint``).
    :param id: Gymnasium id, e.g. ``leogym/LeoCC-v0``. Ids outside ``leogym/`` are made with
        ``kwargs`` only (a debugging aid: any registered Gymnasium env trains and evaluates, with
        the network metrics left empty).
    :param kwargs: extra ``gymnasium.make`` kwargs for a non-leogym id; must be empty for
        leogym ids, whose kwargs are the :class:`~leogym.envs.config.EnvOptions` fields.
    :param flows: the flows of ``leogym/LeoMultiFlowCC-v0`` (:class:`FlowsSpec`).
    """

    name: str = "cc"
    id: str = "leogym/LeoCC-v0"
    kwargs: dict[str, Any] = field(default_factory=dict)
    flows: FlowsSpec = field(default_factory=FlowsSpec)

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        super()._check_relations(path, error)
        if not self.id:
            raise error(f"{path}.id", "must be a Gymnasium env id")
        if self.flows.is_set and self.id != MULTI_FLOW_ID:
            raise error(f"{path}.flows", f"only for {MULTI_FLOW_ID} (env.id is {self.id!r})")
        if self.id.startswith("leogym/"):
            from leogym.envs.registration import ENV_IDS

            if self.id not in ENV_IDS:
                raise schema.fail(
                    error, f"{path}.id", f"must be one of {', '.join(sorted(ENV_IDS))}", self.id
                )
            if self.kwargs:
                raise error(
                    f"{path}.kwargs",
                    "only for non-leogym ids; set leogym env options as env.<field>",
                )


# -------------------------------------------------------------------------------------- agents
@dataclass
class AgentConfig:
    """Fields shared by every SB3 agent.

    :param name: algorithm key in :data:`AGENT_SCHEMAS` (``ppo``, ``a2c``, ``sac``,
        ``td3``, ``dqn``, ``recurrent_ppo``).
    :param policy: SB3 policy alias (``MlpPolicy``; ``MlpLstmPolicy`` for RecurrentPPO).
    :param learning_rate: optimiser step size.
    :param gamma: discount factor.
    :param net_arch: hidden layer sizes of the policy (and value/critic) networks.
    :param activation: ``tanh`` or ``relu``.
    :param device: torch device (``cpu``, ``cuda``, ``auto``).
    :param extra: further constructor kwargs of the SB3 class, passed as they are.

    Each concrete schema also says, in class variables that are not config fields, which SB3
    class runs it and what it can drive; :data:`leogym.agents.sb3.algos.ALGOS` is read from
    them, and :data:`AGENT_SCHEMAS` from the ``name`` defaults, so an algorithm is declared
    once, on its schema.
    """

    #: the SB3 class, as ``module.Class``
    sb3_class: ClassVar[str]
    #: names of the Gymnasium action space classes it can act in
    action_spaces: ClassVar[tuple[str, ...]] = ("Box", "Discrete", "MultiDiscrete")
    #: has a replay buffer (saved with checkpoints)
    off_policy: ClassVar[bool] = False
    #: ``predict`` carries an LSTM state
    recurrent: ClassVar[bool] = False

    name: str = MISSING
    policy: str = "MlpPolicy"
    learning_rate: float = field(default=3e-4, metadata=POSITIVE)
    gamma: float = field(default=0.99, metadata=bounded(0.0, 1.0, lo_open=True))
    net_arch: list[int] = field(default_factory=lambda: [64, 64], metadata=bounded(1))
    activation: str = field(default="tanh", metadata=choice(*ACTIVATIONS))
    device: str = "cpu"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class OnPolicyAgentConfig(AgentConfig):
    """On-policy (A2C, PPO) fields: rollout length and advantage estimation."""

    n_steps: int = field(default=2048, metadata=bounded(1))
    gae_lambda: float = field(default=0.95, metadata=FRACTION)
    ent_coef: float = field(default=0.0, metadata=bounded(0.0))
    vf_coef: float = field(default=0.5, metadata=bounded(0.0))
    max_grad_norm: float = field(default=0.5, metadata=bounded(0.0))


@dataclass
class PPOConfig(OnPolicyAgentConfig):
    """PPO (Schulman et al., arXiv:1707.06347) as implemented by SB3."""

    sb3_class: ClassVar[str] = "stable_baselines3.PPO"

    name: str = "ppo"
    batch_size: int = field(default=64, metadata=bounded(2))
    n_epochs: int = field(default=10, metadata=bounded(1))
    clip_range: float = field(default=0.2, metadata=bounded(0.0))
    target_kl: float | None = field(default=None, metadata=bounded(0.0, lo_open=True))


@dataclass
class RecurrentPPOConfig(PPOConfig):
    """PPO with an LSTM policy (sb3-contrib ``RecurrentPPO``)."""

    sb3_class: ClassVar[str] = "sb3_contrib.RecurrentPPO"
    recurrent: ClassVar[bool] = True

    name: str = "recurrent_ppo"
    policy: str = "MlpLstmPolicy"
    lstm_hidden_size: int = field(default=64, metadata=bounded(1))
    n_lstm_layers: int = field(default=1, metadata=bounded(1))


@dataclass
class A2CConfig(OnPolicyAgentConfig):
    """A2C (Mnih et al., ICML 2016) as implemented by SB3."""

    sb3_class: ClassVar[str] = "stable_baselines3.A2C"

    name: str = "a2c"
    learning_rate: float = field(default=7e-4, metadata=POSITIVE)
    n_steps: int = field(default=5, metadata=bounded(1))
    gae_lambda: float = field(default=1.0, metadata=FRACTION)
    use_rms_prop: bool = True


@dataclass
class OffPolicyAgentConfig(AgentConfig):
    """Off-policy (SAC, TD3, DQN) fields: replay buffer and update schedule."""

    action_spaces: ClassVar[tuple[str, ...]] = ("Box",)
    off_policy: ClassVar[bool] = True

    net_arch: list[int] = field(default_factory=lambda: [256, 256], metadata=bounded(1))
    activation: str = field(default="relu", metadata=choice(*ACTIVATIONS))
    buffer_size: int = field(default=100_000, metadata=bounded(1))
    learning_starts: int = field(default=1000, metadata=bounded(0))
    batch_size: int = field(default=256, metadata=bounded(2))
    tau: float = field(default=0.005, metadata=FRACTION)
    train_freq: int = field(default=1, metadata=bounded(1))
    gradient_steps: int = field(default=1, metadata=bounded(1))


@dataclass
class SACConfig(OffPolicyAgentConfig):
    """SAC (Haarnoja et al., arXiv:1812.05905) as implemented by SB3.

    :param ent_coef: entropy coefficient: a number, ``auto`` or ``auto_<init>`` (learned).
    """

    sb3_class: ClassVar[str] = "stable_baselines3.SAC"

    name: str = "sac"
    ent_coef: str = "auto"


@dataclass
class TD3Config(OffPolicyAgentConfig):
    """TD3 (Fujimoto et al., ICML 2018) as implemented by SB3.

    :param action_noise_std: standard deviation of the Gaussian exploration noise (actions in
        [-1, 1]); 0 disables it.
    """

    sb3_class: ClassVar[str] = "stable_baselines3.TD3"

    name: str = "td3"
    learning_rate: float = field(default=1e-3, metadata=POSITIVE)
    policy_delay: int = field(default=2, metadata=bounded(1))
    target_policy_noise: float = field(default=0.2, metadata=bounded(0.0))
    target_noise_clip: float = field(default=0.5, metadata=bounded(0.0))
    action_noise_std: float = field(default=0.1, metadata=bounded(0.0))


@dataclass
class DQNConfig(OffPolicyAgentConfig):
    """DQN (Mnih et al., Nature 2015) as implemented by SB3; needs a ``Discrete`` action space
    (``env=scheduler env.action_mode=discrete``)."""

    sb3_class: ClassVar[str] = "stable_baselines3.DQN"
    action_spaces: ClassVar[tuple[str, ...]] = ("Discrete",)

    name: str = "dqn"
    learning_rate: float = field(default=1e-4, metadata=POSITIVE)
    net_arch: list[int] = field(default_factory=lambda: [64, 64], metadata=bounded(1))
    tau: float = field(default=1.0, metadata=FRACTION)
    train_freq: int = field(default=4, metadata=bounded(1))
    target_update_interval: int = field(default=1000, metadata=bounded(1))
    exploration_fraction: float = field(default=0.1, metadata=FRACTION)
    exploration_initial_eps: float = field(default=1.0, metadata=FRACTION)
    exploration_final_eps: float = field(default=0.05, metadata=FRACTION)


#: agent name (each schema's ``name`` default) -> schema (stored as ``agent/base_<name>``); the
#: one list of the algorithms leogym trains
AGENT_SCHEMAS: dict[str, type[AgentConfig]] = {
    agent_schema.name: agent_schema
    for agent_schema in (PPOConfig, RecurrentPPOConfig, A2CConfig, SACConfig, TD3Config, DQNConfig)
}


# -------------------------------------------------------------------------------------- train
@dataclass
class TrainConfig:
    """How ``leogym-train`` runs.

    :param total_timesteps: env steps to train for, summed over the ``n_envs`` envs. Resuming
        carries the step count on, so this is the target of the whole run.
    :param n_envs: training envs, one process (one ns-3 simulator) each.
    :param vec_env: where the envs run: ``subproc`` (worker processes of this machine) or
        ``ray`` (Ray actors, on a local Ray instance or the cluster at ``ray.address``; see
        :class:`RayConfig`). Same seed, same ``n_envs``: the same trajectories either way.
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
        times). See :mod:`leogym.agents.runtime.worker_faults`.
    :param curriculum: the Genet-style curriculum (``train_dist=curriculum``; see
        :mod:`leogym.agents.curriculum`).
    :param warm_start: behaviour cloning from the baselines' logs before training
        (``train.warm_start.store``; see :mod:`leogym.agents.warm_start`).
    :param competitors: competing flows drawn per episode (``train_dist=competing``; see
        :mod:`leogym.agents.competitors`).
    :param init_from: start from this model's parameters (a ``.zip`` of the same algorithm,
        observation and action spaces: fine-tuning a trained agent under another distribution);
        the step count starts at 0 and the optimiser afresh. ``None``: a new policy.
    """

    total_timesteps: int = field(default=100_000, metadata=bounded(1))
    n_envs: int = field(default=2, metadata=bounded(1, 4096))
    vec_env: str = field(default="subproc", metadata=choice(*VEC_ENVS))
    start_method: str = field(default="forkserver", metadata=choice(*START_METHODS))
    eval_freq: int = field(default=10_000, metadata=bounded(0))
    eval_episodes: int = field(default=2, metadata=bounded(1, 10_000))
    checkpoint_freq: int = field(default=10_000, metadata=bounded(0))
    save_replay_buffer: bool = True
    progress: bool = True
    tensorboard: bool = True
    log_interval: int = field(default=1, metadata=bounded(1))
    torch_threads: int = field(default=1, metadata=bounded(1, 1024))
    on_worker_death: str = field(default="stop", metadata=choice("stop", "restart"))
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    competitors: CompetitorsConfig = field(default_factory=CompetitorsConfig)
    init_from: str | None = None


# --------------------------------------------------------------------------------------- eval
@dataclass
class MetricsConfig:
    """Parameters of the per-episode metrics (definitions in :mod:`leogym.agents.results.metrics`).

    :param convergence_tolerance: goodput band around the final mean (0.1 = ±10 %).
    :param convergence_window_s: trailing moving-average window applied to goodput.
    :param convergence_tail_fraction: the final mean is taken over this last fraction of the
        episode.
    :param handover_guard_s: steps ending less than this long after a handover are excused
        from the band (handover dips are not non-convergence).
    :param rtt_percentiles: RTT percentiles to report (``rtt_p95_ms`` etc.).
    """

    convergence_tolerance: float = field(
        default=0.1, metadata=bounded(0.0, 1.0, lo_open=True, hi_open=True)
    )
    convergence_window_s: float = field(default=1.0, metadata=POSITIVE)
    convergence_tail_fraction: float = field(default=0.5, metadata=bounded(0.0, 1.0, lo_open=True))
    handover_guard_s: float = field(default=1.0, metadata=bounded(0.0))
    rtt_percentiles: list[float] = field(
        default_factory=lambda: [50.0, 95.0, 99.0], metadata=bounded(0.0, 100.0)
    )


@dataclass
class AggregateConfig:
    """Cross-scenario aggregate statistics of an evaluation (docs/evaluation.md;
    :mod:`leogym.agents.results.aggregate`).

    :param enabled: write ``aggregate.parquet``, ``probability_of_improvement.parquet``,
        ``performance_profile.parquet`` and their plots after the summary.
    :param metrics: results columns to aggregate; each is normalised per scenario so that
        1 is the better reference (a smaller RTT is better).
    :param reference: two policy labels whose per-scenario means are the 0 (the worse of the
        two) and the 1 (the better) of the normalised score; empty: the worst and the best
        baseline of each scenario and metric.
    :param reps: bootstrap replications of every interval.
    :param confidence: coverage of the intervals.
    :param seed: seed of the bootstrap resampling (same results and seed: bit-identical
        statistics).
    """

    enabled: bool = True
    metrics: list[str] = field(default_factory=lambda: ["goodput_mbps", "rtt_p95_ms", "return"])
    reference: list[str] = field(default_factory=list)
    reps: int = field(default=2000, metadata=bounded(100, 1_000_000))
    confidence: float = field(default=0.95, metadata=bounded(0.5, 1.0, hi_open=True))
    seed: int = field(default=0, metadata=bounded(0, MAX_SEED))

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if not self.metrics:
            raise error(f"{path}.metrics", "must name at least one results column")
        if self.reference and (len(self.reference) != 2 or len(set(self.reference)) != 2):
            raise schema.fail(
                error,
                f"{path}.reference",
                "must be empty or two distinct policy labels",
                list(self.reference),
            )


@dataclass
class SuiteInfo:
    """The named, versioned scenario suite an evaluation runs (group ``suite``,
    ``conf/suite/<name>.yaml``, which also fills ``eval.scenarios``); written to the run's
    ``policies.json`` so that a published number names the suite and version it was measured on.

    :param name: the suite (``heldout``); empty: no named suite, ``eval.scenarios`` as given.
    :param version: the suite's version, raised whenever its scenarios or their files change.
    """

    name: str = ""
    version: int = field(default=0, metadata=bounded(0))


@dataclass
class EvalConfig:
    """How ``leogym-eval`` runs.

    :param scenarios: the scenario suite, by name (``conf/scenario/<name>.yaml``, or
        ``heldout/<name>`` under it) or YAML path; empty = the composed ``scenario`` group
        (with any overrides given on the command line). ``suite=heldout`` fills it.
    :param suite: the named suite these scenarios come from (set by the ``suite`` group).
    :param peers: run each scenario once per controller listed, with every competing bulk
        flow of its ``traffic.flows`` running it (``<scenario>+<peer>``; empty: the
        scenarios' own flows); see :mod:`leogym.agents.coexistence`.
    :param seeds: one episode per seed, scenario and policy; ``reset(seed=s)``.
    :param agents: trained agents to evaluate: label -> run directory or checkpoint ``.zip``.
    :param checkpoint: for run directories, which model: ``final``, ``best`` (falls back to
        final) or ``latest`` (the newest periodic checkpoint).
    :param deterministic: use the agents' deterministic actions.
    :param fallback_cc: a baseline's congestion controller where the env leaves CC to the
        agent (``cc=external``), e.g. for scheduler baselines on ``LeoCC-v0``.
    :param fallback_scheduler: a baseline's scheduler where the env leaves scheduling to the
        agent, e.g. for CC baselines on ``LeoScheduler-v0``.
    :param n_workers: episodes run in parallel, each worker a subprocess (with
        ``backend=ray``: episodes in flight on the Ray cluster at a time).
    :param backend: where episodes run: ``subproc`` (a pool of worker processes of this
        machine) or ``ray`` (Ray tasks on a local Ray instance or the cluster at
        ``ray.address``, each on ``ray.cpus_per_env`` CPUs). Same results either way.
    :param start_method: multiprocessing start method of the workers.
    :param traces: save per-step traces (``traces/*.parquet``), used by the notebooks.
    :param plots: write the summary plots.
    :param progress: show a progress bar.
    :param metrics: metric parameters.
    :param on_worker_death: when a worker process dies (killed, crashed) mid-episode:
        ``continue`` (record that episode as failed with its env and seed, rerun the other
        episodes it interrupted in fresh workers; at most 3 times) or ``stop`` (report and
        exit; finished episodes are saved either way, and ``resume`` retries failed ones).
    :param aggregate: the cross-scenario aggregate statistics (IQM, bootstrap intervals,
        probability of improvement, performance profiles).
    """

    scenarios: list[str] = field(default_factory=list)
    suite: SuiteInfo = field(default_factory=SuiteInfo)
    peers: list[str] = field(default_factory=list)
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4], metadata=bounded(0, MAX_SEED))
    agents: dict[str, str] = field(default_factory=dict)
    checkpoint: str = field(default="final", metadata=choice("final", "best", "latest"))
    deterministic: bool = True
    fallback_cc: str = field(default="cubic", metadata=choice(cc_algorithms))
    fallback_scheduler: str = field(default="minrtt", metadata=choice(schedulers))
    n_workers: int = field(default=2, metadata=bounded(1, 4096))
    backend: str = field(default="subproc", metadata=choice(*EVAL_BACKENDS))
    start_method: str = field(default="forkserver", metadata=choice(*START_METHODS))
    traces: bool = True
    plots: bool = True
    progress: bool = True
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    on_worker_death: str = field(default="continue", metadata=choice("continue", "stop"))
    aggregate: AggregateConfig = field(default_factory=AggregateConfig)


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


# ---------------------------------------------------------------------------------------- ray
@dataclass
class RayConfig:
    """The Ray instance of ``train.vec_env=ray`` and ``eval.backend=ray`` (docs/workflows.md,
    "Training and evaluating on Ray"). Ray is optional: ``pip install 'leogym[distributed]'``.

    :param address: empty: start a local Ray instance for the run (and stop it after);
        ``auto``: join the cluster started on this machine with ``ray start``;
        ``host:port``: join the cluster whose head listens there (``ray start --head``'s GCS
        port, 6379 by default); ``ray://host:port``: through Ray Client.
    :param num_cpus: CPUs of the local instance (unset: every core of the machine); only
        without ``address``. Ray counts logical CPUs: more than the cores oversubscribes them.
    :param envs_per_actor: training envs per Ray actor: one remote call per actor and step
        carries all its envs (each still its own process and simulator). Raise it to cut the
        per-step overhead when the cluster has many cores per node.
    :param cpus_per_env: Ray CPUs reserved per env (an actor reserves this times its envs;
        an evaluation episode this much); 0 reserves nothing.
    :param start_timeout_s: how long the actors may wait for free CPUs before the run fails
        with what they asked for (an autoscaling cluster may need minutes).
    :param include_dashboard: start Ray's dashboard with a local instance.
    :param log_to_driver: copy the actors' stdout and stderr to this process's.
    """

    address: str = ""
    num_cpus: int | None = field(default=None, metadata=bounded(1, 65_536))
    envs_per_actor: int = field(default=1, metadata=bounded(1, 256))
    cpus_per_env: float = field(default=1.0, metadata=bounded(0.0, 1024.0))
    start_timeout_s: float = field(default=300.0, metadata=bounded(1.0, 86_400.0))
    include_dashboard: bool = False
    log_to_driver: bool = True

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        from leogym.agents.runtime.ray_support import check_address

        try:
            check_address(self.address, f"{path}.address")
        except FieldError as exc:
            raise error(str(exc)) from None
        if self.address and self.num_cpus is not None:
            raise error(
                f"{path}.num_cpus",
                "sizes a local instance only; a cluster (ray.address) has its own CPUs",
            )


@dataclass
class MainJobConfig:
    """The main job (``leogym-run``): train, evaluate against baselines, leaderboard.

    :param agent_label: the trained agent's label in the leaderboard.
    :param sort_by: leaderboard column to sort by (descending): a metric of the results table.
    :param shipped: shipped models evaluated beside the fresh agent: label -> ``zoo:<name>``
        (:mod:`leogym.agents.zoo`), each on its own card's env settings.
    """

    agent_label: str = "PPO"
    sort_by: str = "goodput_mbps"
    shipped: dict[str, str] = field(default_factory=dict)

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        for label, ref in self.shipped.items():
            if label == self.agent_label:
                raise error(f"{path}.shipped.{label}", "must differ from main_job.agent_label")
            from leogym.agents.zoo import names

            if not ref.startswith("zoo:") or ref[len("zoo:") :] not in names():
                raise error(
                    f"{path}.shipped.{label}",
                    f"must be zoo:<name>, a shipped model ({', '.join(names())}; got {ref!r})",
                )


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
    :param ray: the Ray instance of ``train.vec_env=ray`` and ``eval.backend=ray``.
    """

    seed: int = field(default=0, metadata=bounded(0, MAX_SEED))
    resume: str | None = None
    env: EnvSpec = field(default_factory=EnvSpec)
    scenario: ScenarioConfig = field(default_factory=ScenarioConfig)
    agent: Any = MISSING
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    baseline: dict[str, BaselineSpec] = field(default_factory=dict)
    main_job: MainJobConfig = field(default_factory=MainJobConfig)
    ray: RayConfig = field(default_factory=RayConfig)


# ---------------------------------------------------------------------------------- registry
_REGISTERED = False


def register_configs() -> None:
    """Store the schemas in Hydra's ConfigStore and register leogym's resolvers. Idempotent."""
    global _REGISTERED
    if _REGISTERED:
        return
    from hydra.core.config_store import ConfigStore

    from leogym.agents.runtime.resolvers import register_resolvers

    cs = ConfigStore.instance()
    cs.store(name="base_config", node=LeogymConfig)
    cs.store(group="env", name="base_env", node=EnvSpec)
    for name, agent_schema in AGENT_SCHEMAS.items():
        cs.store(group="agent", name=f"base_{name}", node=agent_schema)
    cs.store(group="scenario", name="base_scenario", node=ScenarioConfig)
    register_resolvers()
    _REGISTERED = True


# -------------------------------------------------------------------------------- validation
def validate_config(
    cfg: LeogymConfig, sections: tuple[str, ...] = ("env", "agent", "train")
) -> None:
    """Check the given sections against their schemas; raise :class:`ConfigError` naming the
    field.

    Ranges and choices are the fields' own (:mod:`leogym.schema`); what relates several fields
    or needs the registries is below.

    :param cfg: the config as objects (``OmegaConf.to_object``) or a ``DictConfig``.
    :param sections: which sections to check (``env``, ``agent``, ``train``, ``eval``); ``env``
        includes the scenario (:meth:`leogym.scenario.ScenarioConfig.validate`), ``train`` and
        ``eval`` the ``ray`` section.
    """
    from omegaconf import DictConfig

    if isinstance(cfg, DictConfig):
        from leogym.agents.runtime.app import to_objects

        cfg = to_objects(cfg)
    schema.check_field(cfg, "seed", "seed", ConfigError)
    if "env" in sections:
        schema.check(cfg.env, "env", ConfigError)
        if cfg.env.id.startswith("leogym/"):
            _validate_env_on(cfg.env, _validate_scenario(cfg.scenario))
    if "agent" in sections:
        name = getattr(cfg.agent, "name", None)
        if name not in AGENT_SCHEMAS:
            raise schema.fail(
                ConfigError,
                "agent.name",
                f"must be one of {', '.join(sorted(AGENT_SCHEMAS))}",
                name,
            )
        schema.check(cfg.agent, "agent", ConfigError)
    if "train" in sections:
        schema.check(cfg.train, "train", ConfigError)
        if cfg.env.flows.agents and cfg.env.flows.others:
            raise ConfigError(
                "env.flows.others",
                "every flow is an agent when training with env.flows.agents=true; leave "
                "others empty (evaluations take them)",
            )
        if cfg.train.curriculum.enabled:
            from leogym.agents.curriculum import check_curriculum

            check_curriculum(cfg, ConfigError)
        if cfg.train.warm_start.store:
            from leogym.agents.warm_start import check_warm_start

            check_warm_start(cfg, ConfigError)
        if cfg.train.competitors.enabled:
            from leogym.agents.competitors import check_competitors

            check_competitors(cfg, ConfigError)
    if "eval" in sections:
        _validate_eval(cfg.eval, cfg.baseline)
        if "env" in sections and cfg.env.id.startswith("leogym/"):
            _validate_suite(cfg.env, cfg.eval.scenarios, cfg.eval.peers)
    if "main_job" in sections:
        schema.check(cfg.main_job, "main_job", ConfigError)
    if "train" in sections or "eval" in sections:
        schema.check(cfg.ray, "ray", ConfigError)
    if "train" in sections and cfg.train.vec_env == "ray":
        _check_ray_importable("train.vec_env")
    if "eval" in sections and cfg.eval.backend == "ray":
        _check_ray_importable("eval.backend")


def _check_ray_importable(field_path: str) -> None:
    """Raise :class:`ConfigError` naming ``field_path`` when Ray, which it asks for, cannot be
    imported (before a run directory exists or any training runs)."""
    from leogym.agents.runtime.ray_support import RayUnavailableError, import_ray

    try:
        import_ray(f"{field_path}=ray")
    except RayUnavailableError as exc:
        raise ConfigError(field_path, str(exc)) from None


def _validate_scenario(scenario: Any) -> ScenarioConfig:
    from leogym.scenario import load_scenario

    # ScenarioConfigError is a FieldError whose message starts with the field path
    return load_scenario(scenario)


def _validate_suite(env: EnvSpec, names: list[str], peers: list[str]) -> None:
    """Each scenario of ``eval.scenarios`` loads and suits the env options, with each of
    ``eval.peers``."""
    from leogym.agents.coexistence import with_peers
    from leogym.scenario import load_scenario

    for i, name in enumerate(names):
        try:
            scenario = load_scenario(name)
            _validate_env_on(env, scenario)
        except FieldError as exc:
            raise ConfigError(f"eval.scenarios[{i}]", f"scenario {name!r}: {exc}") from None
        for k, peer in enumerate(peers):
            try:
                _validate_env_on(env, with_peers(scenario, peer, f"eval.peers[{k}]"))
            except FieldError as exc:
                raise ConfigError(str(exc)) from None


def _validate_env_on(env: EnvSpec, scenario: ScenarioConfig) -> None:
    """The checks a leogym env makes when it is built, relating its options to the scenario
    (:meth:`~leogym.envs.config.EnvOptions.fit_scenario`; ``env.flows`` applied as
    ``LeoMultiFlowCC-v0`` applies them), made here so that they fail before anything runs."""
    if env.id == MULTI_FLOW_ID:
        from leogym.envs.multi_flow import set_flow_controls, set_flow_count

        try:
            if env.flows.n_flows is not None:
                scenario = set_flow_count(scenario, env.flows.n_flows, "env.flows.n_flows")
            if env.flows.others:
                others = list(env.flows.others)
                n_mp = sum(fc.transport == "mpquic" for _, fc in expanded_flows(scenario))
                controls = others * n_mp if len(others) == 1 else others
                scenario = set_flow_controls(scenario, controls, "env.flows.others")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    env.fit_scenario(scenario, "env", ConfigError, flows_driven=env.flows.agents)


def _validate_eval(ev: EvalConfig, baselines: dict[str, BaselineSpec]) -> None:
    schema.check(ev, "eval", ConfigError)
    if not ev.seeds:
        raise ConfigError("eval.seeds", "needs at least one seed")
    if len(set(ev.seeds)) != len(ev.seeds):
        raise ConfigError("eval.seeds", f"seeds must be distinct (got {list(ev.seeds)})")
    for i, name in enumerate(ev.scenarios):
        if not name:
            raise schema.fail(ConfigError, f"eval.scenarios[{i}]", "must be a scenario name", name)
    if ev.peers:
        from leogym.agents.coexistence import peer_controls

        known = peer_controls()
        for k, name in enumerate(ev.peers):
            if name not in known:
                raise schema.fail(
                    ConfigError,
                    f"eval.peers[{k}]",
                    f"must be one of {', '.join(sorted(known))}",
                    name,
                )
    for label, path in ev.agents.items():
        if not path:
            raise ConfigError(f"eval.agents.{label}", "needs a run directory or checkpoint path")
    for key, spec in baselines.items():
        if not spec.name:
            raise ConfigError(f"baseline.{key}.name", "must name a leogym baseline")


def env_kwargs(env: Any) -> dict[str, Any]:
    """The ``gymnasium.make`` kwargs of an :class:`EnvSpec` (plain Python values, no scenario).

    :param env: an :class:`EnvSpec` or a ``DictConfig`` of one.
    :return: for leogym ids the :class:`~leogym.envs.config.EnvOptions` fields (with
        ``n_flows`` and ``others`` from ``env.flows`` where set); otherwise ``env.kwargs``.
    """
    from omegaconf import DictConfig, OmegaConf

    if isinstance(env, DictConfig):
        data: Any = OmegaConf.to_container(env, resolve=True)
    else:
        data = asdict(env)
    assert isinstance(data, dict)
    if not str(data["id"]).startswith("leogym/"):
        return dict(data.get("kwargs") or {})
    out = {f.name: data[f.name] for f in fields(EnvOptions) if f.name in data}
    if _all_unset(out.get("transport")):
        out.pop("transport", None)  # all unset: the core's defaults (episode keys unchanged)
    if out.get("connection") == "mpquic":  # the default connection: no LEOTP settings
        out.pop("connection")
        out.pop("leotp", None)
    flows = data.get("flows") or {}
    if flows.get("n_flows") is not None:
        out["n_flows"] = int(flows["n_flows"])
    others = list(flows.get("others") or [])
    if others:
        out["others"] = others[0] if len(others) == 1 else others
    return out


def multi_agent_kwargs(env: Any) -> dict[str, Any]:
    """The :class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv` kwargs (no scenario) of an
    :class:`EnvSpec` with ``flows.agents``: the env options, ``n_flows`` and ``fairness``."""
    from omegaconf import DictConfig, OmegaConf

    data: Any = (
        OmegaConf.to_container(env, resolve=True) if isinstance(env, DictConfig) else asdict(env)
    )
    out = env_kwargs(env)
    out["fairness"] = dict(data["flows"]["fairness"])
    return out


def _all_unset(section: Any) -> bool:
    """Whether every option of a (nested) options mapping is ``None``."""
    if isinstance(section, dict):
        return all(_all_unset(v) for v in section.values())
    return section is None
