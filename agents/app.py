"""Plumbing shared by the Hydra apps: config path, typed configs, run directories, resuming.

The configs ship inside the package (``leogym.conf``), found through ``pkg://leogym.conf``, so
the apps work from a source checkout, an editable install and a wheel alike.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leogym.agents.config import AGENT_SCHEMAS, ConfigError, LeogymConfig
from leogym.agents.resolvers import find_run_dir, register_resolvers
from leogym.agents.run_info import read_run_config, record_invocation, write_run_files
from omegaconf import DictConfig, OmegaConf

from leogym.scenario.config import ScenarioConfig

__all__ = ["CONFIG_PATH", "RunContext", "compose", "prepare_run", "to_objects", "typed"]

CONFIG_PATH = "pkg://leogym.conf"
log = logging.getLogger("leogym.agents")

# Launchers that run jobs in other processes (submitit, Ray) unpickle the task function there
# and resolve ``hydra.run.dir`` before calling it: the resolvers must exist on import.
register_resolvers()


def typed(cfg: DictConfig) -> DictConfig:
    """Merge ``cfg`` into the schemas (root, agent by ``agent.name``, ScenarioConfig), so a config
    read back from a run directory is checked exactly like a freshly composed one."""
    data = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(data, dict)
    data.pop("hydra", None)
    agent = data.pop("agent", None)
    scenario = data.pop("scenario", None)
    out = OmegaConf.merge(OmegaConf.structured(LeogymConfig), data)
    if isinstance(agent, dict):
        name = agent.get("name")
        if name not in AGENT_SCHEMAS:
            raise ConfigError(f"agent.name: unknown agent {name!r}; known: {sorted(AGENT_SCHEMAS)}")
        out.agent = OmegaConf.merge(OmegaConf.structured(AGENT_SCHEMAS[name]), agent)
    if scenario is not None:
        out.scenario = OmegaConf.merge(OmegaConf.structured(ScenarioConfig), scenario)
    assert isinstance(out, DictConfig)
    return out


def to_objects(cfg: DictConfig) -> LeogymConfig:
    """The config as dataclass objects (``OmegaConf.to_object`` after :func:`typed`)."""
    obj = OmegaConf.to_object(typed(cfg))
    assert isinstance(obj, LeogymConfig)
    return obj


def scenario_payload(scenario: Any) -> Any:
    """What the env gets as ``scenario=``: a name stays a name; a config becomes a plain dict."""
    if scenario is None or isinstance(scenario, (str, Path)):
        return scenario
    if isinstance(scenario, DictConfig):
        return OmegaConf.to_container(scenario, resolve=True)
    from dataclasses import asdict, is_dataclass

    if is_dataclass(scenario) and not isinstance(scenario, type):
        return asdict(scenario)
    return scenario


def scenario_name(scenario: Any, default: str = "custom") -> str:
    """The display name of a scenario config, name or dict."""
    if isinstance(scenario, (str, Path)):
        return (
            Path(str(scenario)).stem if str(scenario).endswith((".yaml", ".yml")) else str(scenario)
        )
    if isinstance(scenario, dict):
        return str(scenario.get("name") or default)
    return str(getattr(scenario, "name", None) or default)


@dataclass
class RunContext:
    """Where a run writes, and whether it continues an earlier one.

    :param run_dir: the run directory.
    :param cfg: the config in effect (for a resumed run: the saved one).
    :param resumed: this invocation continues an earlier run.
    :param overrides: the command-line overrides of this invocation.
    """

    run_dir: Path
    cfg: DictConfig
    resumed: bool
    overrides: list[str]


# Overrides a resumed run accepts besides `resume` itself.
_RESUME_ALLOWED = (
    "train.total_timesteps",
    "train.progress",
    "eval.progress",
    "eval.n_workers",
    "hydra.",
)


def prepare_run(cfg: DictConfig, *, app: str, seeds: dict[str, Any]) -> RunContext:
    """Resolve the run directory of a Hydra job and write (or append to) its provenance files.

    A new run writes ``config.yaml``, ``overrides.yaml`` and ``run_info.json``. With
    ``resume=<dir or checkpoint>`` the run directory's saved config is used, merged with
    the few overrides a resume may change (``train.total_timesteps`` and display options);
    any other override is an error naming it.
    """
    from hydra.core.hydra_config import HydraConfig

    hc = HydraConfig.get()
    overrides = list(hc.overrides.task)
    if cfg.get("resume"):
        run_dir = find_run_dir(cfg.resume)
        saved = read_run_config(run_dir)
        changes = []
        for item in overrides:
            key = item.split("=", 1)[0].lstrip("+~")
            if key == "resume":
                continue
            if not key.startswith(_RESUME_ALLOWED):
                raise ConfigError(
                    f"{key}: cannot be changed when resuming (the run's saved config is used); "
                    f"a resume accepts only {', '.join(k.rstrip('.') for k in _RESUME_ALLOWED)}"
                )
            changes.append(item)
        merged = OmegaConf.merge(
            saved, OmegaConf.from_dotlist([c for c in changes if not c.startswith("hydra.")])
        )
        merged.resume = str(cfg.resume)
        assert isinstance(merged, DictConfig)
        record_invocation(run_dir, overrides, resumed_from=str(cfg.resume))
        return RunContext(run_dir, merged, True, overrides)
    run_dir = Path(hc.runtime.output_dir)
    write_run_files(run_dir, cfg, app=app, overrides=overrides, seeds=seeds)
    return RunContext(run_dir, cfg, False, overrides)


def compose(config_name: str, overrides: list[str] | None = None) -> DictConfig:
    """Compose an app config outside a Hydra job (tests, notebooks, scripts).

    :param config_name: ``train``, ``evaluate`` or ``benchmark``.
    :param overrides: Hydra override strings.
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module
    from leogym.agents.config import register_configs

    register_configs()
    with initialize_config_module(config_module="leogym.conf", version_base="1.3"):
        cfg = hydra_compose(config_name=config_name, overrides=list(overrides or []))
    return cfg


def configure_logging() -> None:
    """INFO logs of leogym's apps to stderr (Hydra also copies them into ``<run>/<app>.log``)."""
    logging.getLogger("leogym").setLevel(logging.INFO)
