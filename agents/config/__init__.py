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

The schemas live in one module per section, and this package re-exports every public name, so
``from leogym.agents.config import ...`` is the one import users need:

=================  ===============================================================
module             what
=================  ===============================================================
``common``         :class:`ConfigError` and the ranges and choices sections share
``env``            :class:`EnvSpec`, :class:`FlowsSpec`, :func:`env_kwargs`
``agents``         one schema per algorithm, :data:`AGENT_SCHEMAS`
``train``          :class:`TrainConfig`
``evaluation``     :class:`EvalConfig` and its parts, :class:`BaselineSpec`
``root``           :class:`LeogymConfig`, :class:`RayConfig`, :class:`MainJobConfig`,
                   :func:`register_configs`
``validation``     :func:`validate_config`
=================  ===============================================================
"""

from __future__ import annotations

from leogym.agents.config.agents import (
    AGENT_SCHEMAS,
    A2CConfig,
    AgentConfig,
    DQNConfig,
    OffPolicyAgentConfig,
    OnPolicyAgentConfig,
    PPOConfig,
    RecurrentPPOConfig,
    SACConfig,
    TD3Config,
)
from leogym.agents.config.common import (
    ACTIVATIONS,
    EVAL_BACKENDS,
    FRACTION,
    MAX_SEED,
    POSITIVE,
    START_METHODS,
    VEC_ENVS,
    ConfigError,
)
from leogym.agents.config.env import (
    MULTI_FLOW_ID,
    EnvSpec,
    FlowsSpec,
    env_kwargs,
    multi_agent_kwargs,
)
from leogym.agents.config.evaluation import (
    AggregateConfig,
    BaselineSpec,
    EvalConfig,
    MetricsConfig,
    SuiteInfo,
)
from leogym.agents.config.root import LeogymConfig, MainJobConfig, RayConfig, register_configs
from leogym.agents.config.train import TrainConfig
from leogym.agents.config.validation import validate_config

__all__ = [
    "ACTIVATIONS",
    "AGENT_SCHEMAS",
    "EVAL_BACKENDS",
    "FRACTION",
    "MAX_SEED",
    "MULTI_FLOW_ID",
    "POSITIVE",
    "START_METHODS",
    "VEC_ENVS",
    "A2CConfig",
    "AgentConfig",
    "AggregateConfig",
    "BaselineSpec",
    "ConfigError",
    "DQNConfig",
    "EnvSpec",
    "EvalConfig",
    "FlowsSpec",
    "LeogymConfig",
    "MainJobConfig",
    "MetricsConfig",
    "OffPolicyAgentConfig",
    "OnPolicyAgentConfig",
    "PPOConfig",
    "RayConfig",
    "RecurrentPPOConfig",
    "SACConfig",
    "SuiteInfo",
    "TD3Config",
    "TrainConfig",
    "env_kwargs",
    "multi_agent_kwargs",
    "register_configs",
    "validate_config",
]
