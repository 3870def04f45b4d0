"""The checks of a composed config (:func:`validate_config`): the fields' own ranges and
choices, and what relates several fields or needs the registries, raising
:class:`ConfigError` naming the field before anything runs."""

from __future__ import annotations

from typing import Any

from leogym import schema
from leogym.agents.config.agents import AGENT_SCHEMAS
from leogym.agents.config.common import ConfigError
from leogym.agents.config.env import MULTI_FLOW_ID, EnvSpec
from leogym.agents.config.evaluation import BaselineSpec, EvalConfig
from leogym.agents.config.root import LeogymConfig
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.flows import expanded_flows
from leogym.schema import FieldError

__all__ = ["validate_config"]


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
        from leogym.agents.sb3.algos import check_actor_lr_scale

        check_actor_lr_scale(cfg.agent)
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
        if cfg.train.mixture.scenarios:
            from leogym.agents.mixture import check_mixture

            check_mixture(cfg, ConfigError)
        if "agent" in sections:
            _validate_initial_log_std(cfg)
        if cfg.train.eval_suite:
            _validate_eval_suite(cfg)
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


def _validate_eval_suite(cfg: LeogymConfig) -> None:
    """``train.eval_suite``: a periodic evaluation to run it, and scenarios that suit the env."""
    from leogym.agents.runtime.app import suite_scenarios

    where = "train.eval_suite"
    if cfg.train.eval_freq == 0:
        raise ConfigError(where, "needs the periodic evaluation it runs: train.eval_freq > 0")
    if not cfg.env.id.startswith("leogym/"):
        raise ConfigError(where, f"runs leogym's envs only, not env.id={cfg.env.id}")
    if cfg.env.flows.agents:
        raise ConfigError(where, "runs single-agent training only, not env.flows.agents=true")
    _validate_suite(cfg.env, suite_scenarios(cfg.train.eval_suite), [], where)


def _validate_suite(
    env: EnvSpec, names: list[str], peers: list[str], where: str = "eval.scenarios"
) -> None:
    """Each scenario of ``names`` (``eval.scenarios``, or the suite ``where`` names) loads and
    suits the env options, with each of ``eval.peers``."""
    from leogym.agents.coexistence import with_peers
    from leogym.scenario import load_scenario

    for i, name in enumerate(names):
        try:
            scenario = load_scenario(name)
            _validate_env_on(env, scenario)
        except FieldError as exc:
            raise ConfigError(f"{where}[{i}]", f"scenario {name!r}: {exc}") from None
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


def _validate_initial_log_std(cfg: LeogymConfig) -> None:
    """``agent.initial_log_std`` against the action space the training env will have
    (:meth:`leogym.envs.leo_env.LeoEnv.action_space_for`), as the model's build checks it."""
    values = getattr(cfg.agent, "initial_log_std", None)
    if values is None or not cfg.env.id.startswith("leogym/"):
        return
    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    from leogym.agents.sb3.algos import check_initial_log_std, sb3_kwargs
    from leogym.envs.leo_env import LeoEnv

    entry = gymnasium.spec(cfg.env.id).entry_point
    env_class = load_env_creator(entry) if isinstance(entry, str) else entry
    if not (isinstance(env_class, type) and issubclass(env_class, LeoEnv)):
        return  # not one of leogym's Gymnasium envs: its model's build checks it
    space = env_class.action_space_for(cfg.env)
    check_initial_log_std(list(values), space, sb3_kwargs(cfg.agent, space))


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
        schema.check(spec, f"baseline.{key}", ConfigError)
