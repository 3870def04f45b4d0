"""Plumbing shared by the Hydra apps: config path, typed configs, run directories, resuming.

The configs ship inside the package (``leogym.conf``), found through ``pkg://leogym.conf``, so
the apps work from a source checkout, an editable install and a wheel alike.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from leogym.agents.config import AGENT_SCHEMAS, ConfigError, LeogymConfig
from leogym.agents.runtime.resolvers import find_run_dir, register_resolvers
from leogym.agents.runtime.run_info import read_run_config, record_invocation, write_run_files
from leogym.scenario.config import ScenarioConfig
from leogym.schema import FULL_ERROR_ENV, FieldError, exit_with_error, full_error_wanted

__all__ = [
    "CONFIG_PATH",
    "RunContext",
    "anchor_scenario_files",
    "compose",
    "config_error_line",
    "config_task",
    "env_scenario",
    "prepare_run",
    "run_app",
    "suite_scenarios",
    "to_objects",
    "typed",
]

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


def env_scenario(env_id: str, scenario: Any) -> Any:
    """What the envs of workers get as ``scenario=``: for a leogym env, the
    :class:`ScenarioConfig`, converted and validated once, here. Each worker receives it
    pickled, with its validation stamp, and so neither converts a dict again nor checks the
    config again (:func:`leogym.scenario.validation.ensure_validated`). Other envs take no
    scenario: :func:`scenario_payload` as it is.

    :raises ScenarioConfigError: an invalid scenario, naming the field.
    """
    if scenario is None or not env_id.startswith("leogym/"):
        return scenario_payload(scenario)
    from leogym.scenario import load_scenario

    if not isinstance(scenario, (ScenarioConfig, str, Path)):
        scenario = scenario_payload(scenario)
    return load_scenario(scenario)


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
    "eval.backend",
    "train.vec_env",
    "ray.",
    "hydra.",
)


def prepare_run(cfg: DictConfig, *, app: str, seeds: dict[str, Any]) -> RunContext:
    """Resolve the run directory of a Hydra job and write (or append to) its provenance files.

    A new run writes ``config.yaml``, ``overrides.yaml`` and ``run_info.json``. With
    ``resume=<dir or checkpoint>`` the run directory's saved config is used, merged with
    the few overrides a resume may change (``train.total_timesteps``, display options, and
    where the envs run: ``train.vec_env``, ``eval.backend``, ``eval.n_workers``, ``ray.*``);
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


def suite_scenarios(name: str) -> list[str]:
    """The scenario names of the shipped suite ``name``: ``eval.scenarios`` of
    ``conf/suite/<name>.yaml``, as ``suite=<name>`` composes them.

    :raises ConfigError: no such suite is shipped (names ``suite``).
    """
    from importlib import resources

    file = resources.files("leogym.conf").joinpath("suite").joinpath(f"{name}.yaml")
    if "/" in name or not file.is_file():
        raise ConfigError("suite", f"no shipped suite named {name!r} (conf/suite/)")
    return [str(s) for s in OmegaConf.load(str(file)).eval.scenarios]


def compose(config_name: str, overrides: list[str] | None = None) -> DictConfig:
    """Compose an app config outside a Hydra job (tests, notebooks, scripts).

    :param config_name: ``train``, ``evaluate`` or ``main_job``.
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


# ---------------------------------------------------------------------------- bad configs
#: True while :func:`run_app` reports config errors in one line (the user did not ask for
#: Hydra's full error report).
_ONE_LINE = False


def config_error_line(exc: BaseException) -> str | None:
    """The one line that reports a config error, naming the field; ``None`` for other errors.

    Config errors are leogym's :class:`~leogym.schema.FieldError` (a value out of range, an
    unknown name, ...) and Hydra's composition errors (a value of the wrong type, an unknown
    key or config group option, an override that does not parse).
    """
    from hydra.errors import HydraException, MissingConfigException, OverrideParseException
    from omegaconf.errors import OmegaConfBaseException

    if isinstance(exc, FieldError):
        return str(exc)
    if isinstance(exc, OverrideParseException):
        return f"{exc.override}: {exc.message.split(chr(10) + 'See https')[0]}"
    if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and exc.options:
        group, _, option = exc.missing_cfg_file.rpartition("/")
        options = [o for o in exc.options if not o.startswith("base_")]  # the schemas
        return (
            f"{group or 'config'}: no option {option!r} ({exc.missing_cfg_file} not found); "
            f"options: {', '.join(options)}"
        )
    for e in (exc, exc.__cause__):
        if isinstance(e, OmegaConfBaseException):
            key = getattr(e, "full_key", None)
            what = str(e).split("\n    full_key:")[0]
            return f"{key}: {what}" if key else what
    if isinstance(exc, HydraException):
        return str(exc).split("\nConfig search path:")[0]
    return None


def anchor_scenario_files(cfg: DictConfig, choice: str | None = None) -> None:
    """Make the relative data-file names of a composed scenario group option absolute, in place.

    ``scenario=heldout/starlink_replay`` names trace files relative to its YAML file
    (``data/replay_bw.txt``), as loading the scenario by name reads them; Hydra's composition
    forgets that file. Fields the command line changed stay as given.

    :param cfg: an app config with a ``scenario`` node.
    :param choice: the scenario group's option; default: the running Hydra job's choice.
    """
    from leogym.scenario.loader import anchored_file_fields

    if choice is None:
        from hydra.core.hydra_config import HydraConfig

        if not HydraConfig.initialized():
            return
        choice = HydraConfig.get().runtime.choices.get("scenario")
    scenario = cfg.get("scenario")
    if not choice or not isinstance(scenario, DictConfig):
        return
    data = OmegaConf.to_container(scenario, resolve=True)
    assert isinstance(data, dict)
    fields = anchored_file_fields({str(k): v for k, v in data.items()}, str(choice))
    for key, value in fields.items():
        OmegaConf.update(cfg, f"scenario.{key}", value, merge=False)


def config_task(prog: str) -> Callable[[Callable[[DictConfig], Any]], Callable[[DictConfig], Any]]:
    """Decorate a Hydra task function (under ``@hydra.main``) so that, run by :func:`run_app`,
    a config error it raises ends the app with one line naming the field and exit status 2,
    instead of Hydra's traceback. The task sees the scenario's data files anchored
    (:func:`anchor_scenario_files`)."""

    def wrap(task: Callable[[DictConfig], Any]) -> Callable[[DictConfig], Any]:
        @functools.wraps(task)
        def run(cfg: DictConfig) -> Any:
            try:
                anchor_scenario_files(cfg)
                return task(cfg)
            except FieldError as exc:
                if not _ONE_LINE:
                    raise
                exit_with_error(prog, str(exc))

        return run

    return wrap


def run_app(prog: str, hydra_main: Callable[[], Any]) -> None:
    """Run an app's ``@hydra.main`` function. A bad config (a bad value, type, key or group
    option on the command line or in a YAML file) ends it with one line on stderr,
    ``<prog>: error: <field>: <what is wrong>``, and exit status 2; ``HYDRA_FULL_ERROR=1``
    gives Hydra's full report with the traceback instead. Other errors keep their traceback.
    """
    global _ONE_LINE
    if full_error_wanted():
        hydra_main()
        return
    _ONE_LINE = True
    # Hydra then raises composition errors to us instead of printing them (restored below)
    os.environ[FULL_ERROR_ENV] = "1"
    try:
        hydra_main()
    except Exception as exc:
        line = config_error_line(exc)
        if line is None:
            raise
        exit_with_error(prog, line)
    finally:
        os.environ.pop(FULL_ERROR_ENV, None)
        _ONE_LINE = False
