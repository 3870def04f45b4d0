"""Load a :class:`ScenarioConfig` from a name, a YAML file, a mapping or a DictConfig.

Names refer to the YAML files of the Hydra group ``conf/scenario/`` shipped in the package
``leogym.conf`` (found with :mod:`importlib.resources`, so it works from a source tree, an
editable install and a wheel). A YAML file or mapping holds only the fields that differ from the
dataclass defaults; unknown keys and wrong types are errors naming the field path. A top-level
``defaults`` list (Hydra) is ignored.

Relative file names inside a YAML file (TLE, traces) are taken relative to that file's folder;
in a mapping they are relative to the working directory.

Each YAML file is read and converted once per process (its converted config is kept, keyed by
the file's path, modification time, size and inode, and every load returns a fresh copy of it).
A mapping is converted each time it is loaded: a caller that needs the scenario more than once
keeps the :class:`ScenarioConfig`. Every load is validated
(:func:`leogym.scenario.validation.ensure_validated`: a copy of a config that passed and is
unchanged since is not checked again).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import types
import typing
from collections import OrderedDict
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Union

from omegaconf import DictConfig, OmegaConf

from leogym.scenario.config import ScenarioConfig
from leogym.scenario.errors import ROOT, ScenarioConfigError, field_error
from leogym.scenario.validation import ensure_validated

__all__ = [
    "anchored_file_fields",
    "available_scenarios",
    "load_scenario",
    "scenario_from_dict",
]

_GROUP = "scenario"
#: Converted configs kept (least recently used ones are forgotten first).
_MEMO_SIZE = 64
_CONVERTED: OrderedDict[tuple, ScenarioConfig] = OrderedDict()


def _memo(key: tuple | None, convert: Callable[[], ScenarioConfig]) -> ScenarioConfig:
    """A fresh copy of ``convert()``'s config, converted once per ``key`` (``None``: always)."""
    if key is None:
        return convert()
    cfg = _CONVERTED.get(key)
    if cfg is None:
        cfg = convert()
        _CONVERTED[key] = cfg
        if len(_CONVERTED) > _MEMO_SIZE:
            _CONVERTED.popitem(last=False)
    else:
        _CONVERTED.move_to_end(key)
    return copy.deepcopy(cfg)


def _file_key(file: Path) -> tuple | None:
    try:
        st = os.stat(file)
    except OSError:
        return None
    return ("file", os.path.abspath(file), st.st_mtime_ns, st.st_size, st.st_ino)


def _conf_dir() -> Path:
    return Path(str(resources.files("leogym.conf").joinpath(_GROUP)))


def available_scenarios() -> list[str]:
    """Names of the scenarios shipped in ``conf/scenario/``."""
    folder = _conf_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.yaml"))


def _convert(tp: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return _convert(args[0], value, path)
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise field_error(path, "must be a list", value)
        (elem,) = typing.get_args(tp)
        return [_convert(elem, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _to_dataclass(tp, value, path)
    if value is None:
        raise field_error(path, "must not be null", value)
    if tp is bool:
        if not isinstance(value, bool):
            raise field_error(path, "must be true or false", value)
        return value
    if tp is int:
        if isinstance(value, bool):
            raise field_error(path, "must be an integer", value)
        if isinstance(value, int):
            return value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
        raise field_error(path, "must be an integer", value)
    if tp is float:
        if isinstance(value, bool):
            raise field_error(path, "must be a number", value)
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise field_error(path, "must be a number", value)
    if tp is str:
        if not isinstance(value, str):
            raise field_error(path, "must be a string", value)
        return value
    raise ScenarioConfigError(path, f"unsupported field type {tp!r}")  # pragma: no cover


def _to_dataclass(cls: type, data: Any, path: str) -> Any:
    if isinstance(data, cls):
        return copy.deepcopy(data)
    if not isinstance(data, Mapping):
        raise field_error(path, f"must be a mapping of {cls.__name__} fields", data)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in fields:
            valid = ", ".join(fields)
            raise ScenarioConfigError(f"{path}.{key}", f"unknown key (valid keys: {valid})")
    kwargs = {name: _convert(hints[name], data[name], f"{path}.{name}") for name in data}
    return cls(**kwargs)


def scenario_from_dict(data: Mapping[str, Any]) -> ScenarioConfig:
    """Build a :class:`ScenarioConfig` from a (partial) mapping, without validating it.

    :param data: fields that differ from the defaults; nested mappings for nested configs.
    :raises ScenarioConfigError: unknown key or wrong type, naming the field.
    """
    body = {k: v for k, v in data.items() if k != "defaults"}
    return _to_dataclass(ScenarioConfig, body, ROOT)


def _file_slots(cfg: ScenarioConfig) -> list[tuple[str, Any, str | int]]:
    """Every field of ``cfg`` that names a data file: ``(dotted key, owner, attribute or index)``.

    The one list of such fields (TLE file, terrestrial traces, replayed traces, sampled trace
    choices), used to anchor relative names to the YAML file that holds them."""
    slots: list[tuple[str, Any, str | int]] = [
        ("constellation.tle_file", cfg.constellation, "tle_file")
    ]
    for i, path in enumerate(cfg.paths):
        for side in ("trace_down", "trace_up"):
            slots.append((f"paths.{i}.terrestrial.{side}", path.terrestrial, side))
        for name in ("bw_down", "bw_up", "delay", "csv"):
            slots.append((f"paths.{i}.satellite.replay.{name}", path.satellite.replay, name))
    for j in range(len(cfg.sampling.trace_choices)):
        slots.append((f"sampling.trace_choices.{j}", cfg.sampling.trace_choices, j))
    return slots


def _get_slot(owner: Any, at: str | int) -> Any:
    return owner[at] if isinstance(at, int) else getattr(owner, at)


def _anchored(name: Any, base: Path) -> Any:
    """``name`` relative to ``base`` unless it is empty or absolute."""
    if not name:
        return name
    p = Path(str(name)).expanduser()
    return str(p if p.is_absolute() else (base / p))


def _rebase_files(cfg: ScenarioConfig, base: Path) -> None:
    for _, owner, at in _file_slots(cfg):
        value = _anchored(_get_slot(owner, at), base)
        if isinstance(at, int):
            owner[at] = value
        else:
            setattr(owner, at, value)


def anchored_file_fields(data: Mapping[str, Any], name: str) -> dict[str, str]:
    """The data-file fields of a composed scenario ``data`` that still hold the relative names
    written in the shipped scenario ``name`` (``conf/scenario/<name>.yaml``), anchored to that
    file's folder, as ``{dotted key: absolute path}``.

    Hydra composes ``scenario=heldout/starlink_replay`` into a plain mapping and forgets the
    file it came from; its relative trace names would then be read from the working directory.
    The apps apply what this returns, so a group option finds its data files as
    :func:`load_scenario` by name does. A field the command line changed is left alone (it is
    relative to where the command runs).

    :param data: the composed scenario (plain containers).
    :param name: the scenario group's option, e.g. ``"heldout/starlink_replay"``.
    """
    file = _conf_dir() / f"{name}.yaml"
    if not file.is_file():
        return {}
    raw = OmegaConf.to_container(OmegaConf.load(file), resolve=True)
    if not isinstance(raw, Mapping):
        return {}
    shipped = scenario_from_dict(raw)  # type: ignore[arg-type]
    shipped_values = {key: _get_slot(o, at) for key, o, at in _file_slots(shipped)}
    out: dict[str, str] = {}
    for key, owner, at in _file_slots(scenario_from_dict(data)):
        value = _get_slot(owner, at)
        if value and value == shipped_values.get(key) and not Path(str(value)).is_absolute():
            out[key] = str(_anchored(value, file.parent))
    return out


def _load_yaml(file: Path) -> ScenarioConfig:
    try:
        raw = OmegaConf.to_container(OmegaConf.load(file), resolve=True)
    except Exception as exc:  # noqa: BLE001 - yaml/omegaconf raise many types
        raise ScenarioConfigError(ROOT, f"cannot read {str(file)!r}: {exc}") from exc
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ScenarioConfigError(ROOT, f"{str(file)!r} must hold a mapping")
    cfg = scenario_from_dict(raw)  # type: ignore[arg-type]
    _rebase_files(cfg, file.parent)
    return cfg


def load_scenario(
    source: str | Path | Mapping[str, Any] | DictConfig | ScenarioConfig,
    validate: bool = True,
) -> ScenarioConfig:
    """Load and validate a scenario.

    :param source: a scenario name from ``conf/scenario/`` (see :func:`available_scenarios`),
        a path to a YAML file, a mapping or ``DictConfig`` of fields, or a ``ScenarioConfig``
        (copied).
    :param validate: validate the config (default; a copy of a config that passed
        :func:`~leogym.scenario.validate_scenario` and is unchanged since is not checked again).
    :return: a new config object.
    :raises ScenarioConfigError: unknown name, unreadable file, unknown key, wrong type, or any
        validation error, naming the field path.
    """
    if isinstance(source, ScenarioConfig):
        cfg = copy.deepcopy(source)
    elif isinstance(source, DictConfig):
        container = OmegaConf.to_container(source, resolve=True)
        cfg = scenario_from_dict(container)  # type: ignore[arg-type]
    elif isinstance(source, Mapping):
        cfg = scenario_from_dict(source)
    elif isinstance(source, (str, Path)):
        text = str(source)
        as_path = Path(text).expanduser()
        if as_path.suffix in (".yaml", ".yml") or as_path.is_file():
            if not as_path.is_file():
                raise ScenarioConfigError(ROOT, f"scenario file not found: {text!r}")
            cfg = _memo(_file_key(as_path), lambda: _load_yaml(as_path))
        else:
            file = _conf_dir() / f"{text}.yaml"
            if not file.is_file():
                known = ", ".join(available_scenarios()) or "none"
                raise ScenarioConfigError(ROOT, f"unknown scenario {text!r} (known: {known})")
            cfg = _memo(_file_key(file), lambda: _load_yaml(file))
    else:
        raise ScenarioConfigError(ROOT, f"cannot load a scenario from {type(source).__name__}")
    if validate:
        ensure_validated(cfg)
    return cfg
