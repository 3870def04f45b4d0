"""Validation of :class:`~leogym.scenario.config.ScenarioConfig` (everything ns-3 will consume).

Types, ranges and choices of single fields are the fields' own (:mod:`leogym.schema` metadata in
:mod:`leogym.scenario.config`), checked by :func:`leogym.schema.check`. The rest, rules that
relate several fields and the files the config names (TLE, traces, parsed before any simulation
starts), is :func:`leogym.scenario.relations.check_relations`, which this module runs after
the fields' checks.

Every error is a :class:`~leogym.scenario.errors.ScenarioConfigError` whose message starts with
the field path (``scenario.paths[1].queue.size: must be > 0 (got 0)``).

Validation is explicit: :func:`validate_scenario` checks the whole config every time it is
called, where a config is made (:func:`leogym.scenario.load_scenario`, and
:func:`leogym.scenario.sample_scenario` for each draw). It stamps the config it passed with what
it passed: a copy of its values, the working directory that relative file names depend on and
the version of each file they name. A consumer that must not run on an unchecked config
(:func:`leogym.scenario.build_timeline`) calls :func:`ensure_validated`, which checks again only
a config without that stamp or changed since (a value, its type, the directory or a file), so
an env's reset loop does not check the same scenario again. The stamp travels with the object
(copies and pickles keep it); nothing is remembered per process.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from leogym import schema
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.errors import ROOT, ScenarioConfigError
from leogym.scenario.files import file_stamp
from leogym.scenario.links.replay import check_replay_files
from leogym.scenario.relations import check_relations

__all__ = ["ensure_validated", "validate_scenario", "validation_count"]

#: The attribute of a config that :func:`validate_scenario` passed: its :class:`_Stamp`.
_STAMP = "_validated_as"
_CHECKS = [0]


@dataclass(frozen=True)
class _Stamp:
    """What a config was validated as.

    :param values: a copy of the config's values when it passed.
    :param cwd: the working directory then (relative file names depend on it).
    :param files: the version of each file it names (:func:`_file_stamps`).
    """

    values: ScenarioConfig
    cwd: str
    files: tuple

    def holds_for(self, cfg: ScenarioConfig) -> bool:
        """Whether ``cfg`` is still what passed: the same values of the same types, the same
        working directory and the same files."""
        return (
            _same(self.values, cfg) and self.cwd == os.getcwd() and self.files == _file_stamps(cfg)
        )


def _same(a: Any, b: Any) -> bool:
    """``a`` and ``b`` hold the same values of the same types, all the way down (``1`` and
    ``1.0`` or ``True`` differ, as a config field would see them)."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def validation_count() -> int:
    """How many full validations this process has run (for tests and benchmarks)."""
    return _CHECKS[0]


def validate_scenario(cfg: ScenarioConfig) -> ScenarioConfig:
    """Validate a whole scenario, every time; see the module docstring.

    :param cfg: the config; stamped as validated when it passes.
    :return: ``cfg``, for chaining.
    :raises ScenarioConfigError: on the first invalid field, naming its path, e.g.
        ``scenario.constellation.altitude_km: must be in (0, 50000] (got -5)``.
    """
    if not isinstance(cfg, ScenarioConfig):
        raise ScenarioConfigError(ROOT, f"expected a ScenarioConfig, got {type(cfg).__name__}")
    vars(cfg).pop(_STAMP, None)
    _CHECKS[0] += 1
    schema.check(cfg, ROOT, ScenarioConfigError)  # every field, and each part's own relations
    for i, path in enumerate(cfg.paths):
        check_replay_files(path.satellite.replay, f"{ROOT}.paths[{i}].satellite.replay")
    check_relations(cfg)
    vars(cfg)[_STAMP] = _Stamp(copy.deepcopy(cfg), os.getcwd(), _file_stamps(cfg))
    return cfg


def ensure_validated(cfg: ScenarioConfig) -> ScenarioConfig:
    """``cfg``, validated by :func:`validate_scenario` unless it passed it and is unchanged
    since (its values and their types, the working directory and the files it names).

    :raises ScenarioConfigError: as :func:`validate_scenario`.
    """
    if isinstance(cfg, ScenarioConfig):
        stamp = vars(cfg).get(_STAMP)
        if isinstance(stamp, _Stamp) and stamp.holds_for(cfg):
            return cfg
    return validate_scenario(cfg)


def _file_stamps(cfg: ScenarioConfig) -> tuple:
    """The version (``os.stat`` stamp, ``None`` if missing) of every file the config names, so
    that an edited or deleted file is checked again."""
    names = [cfg.constellation.tle_file, *cfg.sampling.trace_choices]
    for p in cfg.paths:
        names += [p.terrestrial.trace_down, p.terrestrial.trace_up]
        names += p.satellite.replay.files()
    return tuple(file_stamp(n) for n in names if n)
