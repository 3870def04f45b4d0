"""The SB3 algorithms leogym trains, and how a config becomes a model.

Each agent schema in :mod:`leogym.agents.config` names its SB3 class and the action spaces it
can drive (``ppo``, ``a2c`` and ``recurrent_ppo`` any of Box, Discrete, MultiDiscrete; ``sac``
and ``td3`` Box; ``dqn`` Discrete); :data:`ALGOS` is read from those schemas.

SB3 is imported lazily, so env workers that only need :mod:`leogym.envs` stay light.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gymnasium import spaces

from leogym.agents.config import AGENT_SCHEMAS, AgentConfig, ConfigError

if TYPE_CHECKING:
    from stable_baselines3.common.base_class import BaseAlgorithm

__all__ = [
    "ALGOS",
    "AlgoSpec",
    "algo_class",
    "build_model",
    "check_action_space",
    "check_actor_lr_scale",
    "check_initial_log_std",
    "load_model",
]


@dataclass(frozen=True)
class AlgoSpec:
    """An algorithm: where its class lives and what it can drive.

    :param module: import path of the module holding the class.
    :param cls: class name.
    :param action_spaces: supported Gymnasium action space classes.
    :param off_policy: has a replay buffer (saved with checkpoints).
    :param recurrent: ``predict`` carries an LSTM state.
    """

    module: str
    cls: str
    action_spaces: tuple[type[spaces.Space], ...]
    off_policy: bool = False
    recurrent: bool = False


def _spec(agent_schema: type[AgentConfig]) -> AlgoSpec:
    """The :class:`AlgoSpec` an agent schema declares in its class variables."""
    module, cls = agent_schema.sb3_class.rsplit(".", 1)
    action_spaces = tuple(getattr(spaces, name) for name in agent_schema.action_spaces)
    return AlgoSpec(module, cls, action_spaces, agent_schema.off_policy, agent_schema.recurrent)


#: agent name -> algorithm, one per schema of :data:`leogym.agents.config.AGENT_SCHEMAS`
ALGOS: dict[str, AlgoSpec] = {name: _spec(s) for name, s in AGENT_SCHEMAS.items()}

# Fields of the agent schemas that are not constructor kwargs of the SB3 class.
_NOT_KWARGS = {
    "name",
    "policy",
    "net_arch",
    "activation",
    "extra",
    "lstm_hidden_size",
    "n_lstm_layers",
    "action_noise_std",
    "initial_log_std",
    "actor_lr_scale",
}


def algo_class(name: str) -> type[BaseAlgorithm]:
    """The SB3 class of algorithm ``name``."""
    try:
        spec = ALGOS[name]
    except KeyError:
        raise ConfigError(f"agent.name: unknown agent {name!r}; known: {sorted(ALGOS)}") from None
    return getattr(importlib.import_module(spec.module), spec.cls)


def check_action_space(name: str, space: spaces.Space, env_id: str = "the env") -> None:
    """Raise :class:`ConfigError` if algorithm ``name`` cannot act in ``space``."""
    spec = ALGOS[name]
    if not isinstance(space, spec.action_spaces):
        allowed = ", ".join(s.__name__ for s in spec.action_spaces)
        hint = ""
        if (
            isinstance(space, spaces.MultiDiscrete | spaces.Discrete)
            and spaces.Box in spec.action_spaces
        ):
            hint = " (set env.action_mode=continuous)"
        elif spec.action_spaces == (spaces.Discrete,):
            hint = " (use env=scheduler env.action_mode=discrete)"
        raise ConfigError(
            f"agent.name: {name} needs a {allowed} action space, but {env_id} has "
            f"{type(space).__name__}{hint}"
        )


def _agent_dict(agent: Any) -> dict[str, Any]:
    if isinstance(agent, dict):
        return agent
    if is_dataclass(agent) and not isinstance(agent, type):
        return asdict(agent)
    from omegaconf import OmegaConf

    data: Any = OmegaConf.to_container(agent, resolve=True)
    assert isinstance(data, dict)
    return data


def sb3_kwargs(agent: Any, action_space: spaces.Space) -> dict[str, Any]:
    """Constructor kwargs of the SB3 class for an agent config (without ``policy``/``env``)."""
    import numpy as np
    import torch

    a = _agent_dict(agent)
    spec = ALGOS[a["name"]]
    kwargs = {k: v for k, v in a.items() if k not in _NOT_KWARGS}
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[a["activation"]]
    policy_kwargs: dict[str, Any] = {"net_arch": list(a["net_arch"]), "activation_fn": activation}
    if spec.recurrent:
        policy_kwargs["lstm_hidden_size"] = int(a["lstm_hidden_size"])
        policy_kwargs["n_lstm_layers"] = int(a["n_lstm_layers"])
    if a["name"] == "sac":
        coef = str(kwargs["ent_coef"])
        kwargs["ent_coef"] = coef if coef.startswith("auto") else float(coef)
    if a["name"] == "td3" and a["action_noise_std"] > 0:
        from stable_baselines3.common.noise import NormalActionNoise

        assert action_space.shape is not None  # TD3 acts in a Box (check_action_space)
        n = int(np.prod(action_space.shape))
        kwargs["action_noise"] = NormalActionNoise(np.zeros(n), np.full(n, a["action_noise_std"]))
    if a["name"] == "ppo" or spec.recurrent:
        if kwargs.get("target_kl") is None:
            kwargs.pop("target_kl", None)
    extra = dict(a.get("extra") or {})
    policy_kwargs.update(extra.pop("policy_kwargs", {}) or {})
    check_actor_lr_scale(a)
    if a.get("actor_lr_scale", 1.0) != 1.0:
        policy_kwargs["actor_lr_scale"] = float(a["actor_lr_scale"])
    kwargs.update(extra)
    kwargs["policy_kwargs"] = policy_kwargs
    return kwargs


def build_model(
    agent: Any, env: Any, *, seed: int, tensorboard_log: str | None = None, verbose: int = 0
) -> Any:
    """Create a fresh SB3 model for ``agent`` acting in the VecEnv ``env``.

    :param agent: an agent config (dataclass or ``DictConfig``).
    :param env: the training VecEnv.
    :param seed: seeds the model (torch, NumPy, Python) and the VecEnv.
    :param tensorboard_log: TensorBoard directory, or ``None``.
    """
    a = _agent_dict(agent)
    check_action_space(a["name"], env.action_space, getattr(env, "env_id", "the env"))
    cls = algo_class(a["name"])
    kwargs = sb3_kwargs(agent, env.action_space)
    log_std = a.get("initial_log_std")
    if log_std is not None:
        check_initial_log_std(list(log_std), env.action_space, kwargs)
    model = cls(
        _policy(a), env, seed=seed, verbose=verbose, tensorboard_log=tensorboard_log, **kwargs
    )
    if log_std is not None:
        import torch

        # The Gaussian policies of PPO, A2C and RecurrentPPO hold it as one Parameter.
        param = cast(torch.nn.Parameter, model.policy.log_std)
        with torch.no_grad():
            param.copy_(torch.as_tensor(log_std, dtype=param.dtype))
    return model


def _policy(agent: dict[str, Any]) -> Any:
    """The policy SB3 builds for ``agent.policy``: its alias, except that RecurrentPPO's
    ``MlpLstmPolicy`` is :class:`leogym.agents.sb3.lstm_policy.LeoLstmPolicy` (the same
    policy with a faster training pass), and PPO's ``MlpPolicy`` with an ``actor_lr_scale``
    is :class:`leogym.agents.sb3.actor_step.LeoActorCriticPolicy`."""
    if ALGOS[agent["name"]].recurrent and agent["policy"] == "MlpLstmPolicy":
        from leogym.agents.sb3.lstm_policy import LeoLstmPolicy

        return LeoLstmPolicy
    if agent.get("actor_lr_scale", 1.0) != 1.0:
        from leogym.agents.sb3.actor_step import LeoActorCriticPolicy

        return LeoActorCriticPolicy
    return agent["policy"]


def check_actor_lr_scale(agent: Any) -> None:
    """Raise :class:`ConfigError` unless ``agent.actor_lr_scale`` (other than 1) can apply:
    to ``MlpPolicy`` or ``MlpLstmPolicy``, whose Adam it splits into actor and critic groups
    (:mod:`leogym.agents.sb3.actor_step`)."""
    a = _agent_dict(agent)
    if a.get("actor_lr_scale", 1.0) == 1.0:
        return
    field = "agent.actor_lr_scale"
    if a["policy"] not in ("MlpPolicy", "MlpLstmPolicy"):
        raise ConfigError(
            f"{field}: applies to MlpPolicy and MlpLstmPolicy, not agent.policy={a['policy']!r}"
        )
    optimizer = ((a.get("extra") or {}).get("policy_kwargs") or {}).get("optimizer_class")
    if optimizer is not None:
        raise ConfigError(
            f"{field}: scales Adam's step for the actor; it cannot apply to "
            f"agent.extra.policy_kwargs.optimizer_class={optimizer!r}"
        )


def check_initial_log_std(values: list[float], space: spaces.Space, kwargs: dict[str, Any]) -> None:
    """Raise :class:`ConfigError` unless ``agent.initial_log_std`` fits ``space``: a Box
    action, one finite value per entry, and no other source of the initial noise."""
    import math

    field = "agent.initial_log_std"
    if not isinstance(space, spaces.Box) or space.shape is None or len(space.shape) != 1:
        raise ConfigError(f"{field}: needs a one-dimensional Box action space, got {space}")
    if len(values) != space.shape[0]:
        raise ConfigError(
            f"{field}: has {len(values)} entries, the action has {space.shape[0]} "
            f"(one value per action entry)"
        )
    if not all(math.isfinite(v) and -20.0 <= v <= 2.0 for v in values):
        raise ConfigError(f"{field}: each value must be finite and in [-20, 2], got {values}")
    policy_kwargs = kwargs.get("policy_kwargs", {})
    if "log_std_init" in policy_kwargs:
        raise ConfigError(
            f"{field}: set it or agent.extra.policy_kwargs.log_std_init, not both (got "
            f"{policy_kwargs['log_std_init']} there)"
        )
    if kwargs.get("use_sde"):
        raise ConfigError(
            f"{field}: generalised state-dependent exploration (use_sde) keeps "
            "its own noise parameters; unset one of them"
        )


def load_model(path: str | Path, name: str, *, env: Any = None, device: str = "cpu") -> Any:
    """Load a saved model of algorithm ``name`` (optionally attached to ``env``).

    :raises CheckpointError: the file is truncated, corrupt, or not a ``name`` model (the
        message names the file; SB3's own errors rarely do).
    """
    from leogym.agents.sb3.checkpoints import CheckpointError

    path = Path(path)
    try:
        cls = algo_class(name)
    except ConfigError as exc:
        raise CheckpointError(f"{path}: cannot load: {exc}") from exc
    try:
        return cls.load(str(path), env=env, device=device)
    except FileNotFoundError:
        raise
    except Exception as exc:  # noqa: BLE001 - SB3, zipfile, torch and pickle raise many types
        raise CheckpointError(
            f"{path}: not a loadable {name} checkpoint ({type(exc).__name__}: {exc}); the "
            "file is truncated or corrupt, or was saved by another algorithm"
        ) from exc
