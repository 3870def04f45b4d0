"""The ``agent`` section: one schema per algorithm leogym trains, each declaring the SB3
class that runs it (:data:`AGENT_SCHEMAS`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from omegaconf import MISSING

from leogym.agents.config.common import ACTIVATIONS, FRACTION, POSITIVE
from leogym.schema import bounded, choice

__all__ = [
    "AGENT_SCHEMAS",
    "A2CConfig",
    "AgentConfig",
    "DQNConfig",
    "OffPolicyAgentConfig",
    "OnPolicyAgentConfig",
    "PPOConfig",
    "RecurrentPPOConfig",
    "SACConfig",
    "TD3Config",
]


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
    """On-policy (A2C, PPO) fields: rollout length, advantage estimation and the Gaussian
    policy's starting exploration noise.

    :param initial_log_std: the natural log of the policy's initial standard deviation, one
        value per entry of a Box action (``None``: SB3's ``log_std_init`` for every entry, 0
        unless ``extra.policy_kwargs`` sets it). Entries of one action that need different
        noise (the residual mode's gains and its choices of controller,
        docs/workflows.md) start apart; PPO then learns each.
    """

    n_steps: int = field(default=2048, metadata=bounded(1))
    gae_lambda: float = field(default=0.95, metadata=FRACTION)
    ent_coef: float = field(default=0.0, metadata=bounded(0.0))
    vf_coef: float = field(default=0.5, metadata=bounded(0.0))
    max_grad_norm: float = field(default=0.5, metadata=bounded(0.0))
    initial_log_std: list[float] | None = None


@dataclass
class PPOConfig(OnPolicyAgentConfig):
    """PPO (Schulman et al., arXiv:1707.06347) as implemented by SB3.

    :param target_kl: stop an update's epochs once the approximate KL divergence passes this
        (SB3 stops the critic's epochs with the actor's).
    :param actor_lr_scale: the actor's step size as a fraction of ``learning_rate``; the
        critic keeps ``learning_rate`` (:mod:`leogym.agents.sb3.actor_step`). Below 1 it
        keeps a low-noise policy's updates small without starving the critic.
    """

    sb3_class: ClassVar[str] = "stable_baselines3.PPO"

    name: str = "ppo"
    batch_size: int = field(default=64, metadata=bounded(2))
    n_epochs: int = field(default=10, metadata=bounded(1))
    clip_range: float = field(default=0.2, metadata=bounded(0.0))
    target_kl: float | None = field(default=None, metadata=bounded(0.0, lo_open=True))
    actor_lr_scale: float = field(default=1.0, metadata=bounded(0.0, 1.0, lo_open=True))


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
