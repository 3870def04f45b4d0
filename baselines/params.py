"""Shared plumbing of the paper baselines: typed parameters → native attributes → a policy.

Each paper baseline (:mod:`~leogym.baselines.maco`, :mod:`~leogym.baselines.alcs`,
:mod:`~leogym.baselines.freeze`) declares its parameters as a dataclass whose fields, made with
:func:`param`, carry the name of the ns-3 attribute they set and its range (the attribute
checker's, in the attribute's unit; ``tests/baselines/test_params_native.py`` compares every
default and range with ``leogym._core.algorithm_parameters()``). This module turns an instance
into the ``cc_params`` / ``scheduler_params`` dict the native core takes, and builds the
:class:`~leogym.baselines.base.NativePolicy`. :func:`baseline_env_kwargs` routes a baseline's
settings (its algorithm, its parameters, per-baseline env kwargs) into the env it runs in, for
every baseline alike (``leogym-eval`` uses it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from leogym import schema
from leogym.baselines.base import NativePolicy
from leogym.schema import bounded

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "PARAMS_KEYS",
    "baseline_env_kwargs",
    "make_params",
    "native_params",
    "native_policy",
    "param",
]

P = TypeVar("P", bound="DataclassInstance")


def param(default: Any, native: str, lo: float | None = None, hi: float | None = None) -> Any:
    """A parameter field: its default, the ns-3 attribute it sets and the attribute's range.

    :param default: the paper's (or the spec's recommended) value.
    :param native: the ns-3 attribute name (``"Gamma"``).
    :param lo: smallest accepted value (``None`` for booleans).
    :param hi: largest accepted value.
    """
    meta: dict[str, Any] = {"native": native}
    if lo is not None or hi is not None:
        meta.update(bounded(lo, hi))
    return dataclasses.field(default=default, metadata=meta)


def native_params(params: Any, only_changed: bool = False) -> dict[str, float]:
    """The native attribute dict of a parameter dataclass.

    :param params: a parameter dataclass instance.
    :param only_changed: keep only the values that differ from the dataclass defaults.
    :return: ``{native attribute name: float}`` (booleans become 0/1).
    """
    out: dict[str, float] = {}
    default = type(params)()
    for f in dataclasses.fields(params):
        native = f.metadata.get("native")
        if native is None:
            continue
        value = getattr(params, f.name)
        if only_changed and value == getattr(default, f.name):
            continue
        out[native] = float(value)
    return out


def make_params(cls: type[P], prefix: str, **kwargs: Any) -> P:
    """Build ``cls(**kwargs)`` and check it (:func:`leogym.schema.check`); an unknown, mistyped
    or out-of-range keyword is a ``ValueError`` naming it.

    Keywords are the dataclass's field names (``gamma``) or the native attribute names they
    set (``Gamma``), so that configs written with either work; as in native configs, booleans
    may be given as 0 / 1 and integers as integral floats.

    :param cls: the parameter dataclass.
    :param prefix: how the parameters are called in errors, e.g. ``"baseline.maco"``.
    """
    names = [f.name for f in dataclasses.fields(cls)]
    aliases = {
        f.metadata["native"]: f.name for f in dataclasses.fields(cls) if "native" in f.metadata
    }
    renamed: dict[str, Any] = {}
    for key, value in kwargs.items():
        field_name = aliases.get(key, key)
        if field_name in renamed:
            raise ValueError(f"{prefix}.{field_name}: given twice (as {key!r} too)")
        renamed[field_name] = value
    kwargs = renamed
    default = cls()
    for key, value in list(kwargs.items()):
        if key not in names:
            raise ValueError(f"{prefix}.{key}: unknown parameter (known: {', '.join(names)})")
        kind = type(getattr(default, key))
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if kind is bool and not isinstance(value, bool):
            if not (number and value in (0, 1)):
                raise ValueError(f"{prefix}.{key}: must be a bool (or 0 / 1) (got {value!r})")
            kwargs[key] = bool(value)  # native booleans are given as 0 / 1
        elif kind is int and number and float(value).is_integer():
            kwargs[key] = int(value)
    return schema.check(cls(**kwargs), prefix)


def native_policy(
    name: str, overrides: dict[str, Any], citation: str, params: Any, params_key: str
) -> NativePolicy:
    """A :class:`NativePolicy` whose ``env_overrides`` select the algorithm and carry the
    parameters that differ from the paper defaults (under ``params_key``: ``"cc_params"`` or
    ``"scheduler_params"``); ``params`` holds the full native attribute dict."""
    env = dict(overrides)
    changed = native_params(params, only_changed=True)
    if changed:
        env[params_key] = changed
    return NativePolicy(
        name=name, env_overrides=env, citation=citation, params=native_params(params)
    )


#: The env kwargs that carry a native algorithm's attribute values.
PARAMS_KEYS = ("cc_params", "scheduler_params")


def baseline_env_kwargs(
    policy: NativePolicy,
    given: Mapping[str, Any],
    env: Mapping[str, Any],
    extra: Mapping[str, Any],
    *,
    fallback_cc: str,
    fallback_scheduler: str,
    gain: float | None = None,
) -> dict[str, Any]:
    """The env kwargs a baseline runs with: where each of its settings goes.

    :param policy: the baseline (:func:`~leogym.baselines.make_baseline`).
    :param given: the parameters it was made with (``baseline.<key>.params``). A baseline
        whose factory routes them itself puts them in its ``env_overrides``; for one that does
        not (the classic algorithms) they are native attribute values of the algorithm it
        selects, and go to ``cc_params`` (it selects a ``cc``) or ``scheduler_params``.
    :param env: the evaluation env's kwargs, the starting point.
    :param extra: env kwargs given for this baseline (``baseline.<key>.env``), applied last;
        ``cc_params`` / ``scheduler_params`` are merged key by key, the rest replaced.
    :param fallback_cc: the congestion control that replaces ``external`` (a baseline is a
        native controller: an env control left to an agent would stay frozen).
    :param fallback_scheduler: the scheduler that replaces ``external``.
    :param gain: a fixed gain on the baseline's windows (``baseline.<key>.gain``): its
        congestion controller becomes the residual mode's base, whose window the policy's
        constant action scales (:func:`~leogym.baselines.bind`).
    :return: a new kwargs dict; ``action_mode="residual"`` becomes ``"continuous"``, since a
        baseline takes no actions and the agents' hybrid mode does not apply to it, unless a
        ``gain`` puts its controller under the residual mode (``cc="external"``,
        ``residual_base`` the controller).
    """
    kwargs = dict(env)
    overrides = dict(policy.env_overrides)
    if given and not any(k in overrides for k in PARAMS_KEYS):
        target = "cc_params" if "cc" in overrides else "scheduler_params"
        overrides[target] = {k: float(v) for k, v in policy.params.items()}
    for key, value in {**overrides, **dict(extra)}.items():
        if key in PARAMS_KEYS:
            kwargs[key] = {**kwargs.get(key, {}), **dict(value)}
        else:
            kwargs[key] = value
    if kwargs.get("cc") == "external":
        kwargs["cc"] = fallback_cc
    if kwargs.get("scheduler") == "external":
        kwargs["scheduler"] = fallback_scheduler
    # A baseline runs one controller: an agent's second one (residual_alternate), and the
    # hysteresis of the choice between them, are not its.
    kwargs.pop("residual_alternate", None)
    kwargs.pop("residual_switch_margin", None)
    if gain is not None:
        kwargs.update(action_mode="residual", residual_base=kwargs.get("cc"), cc="external")
    elif kwargs.get("action_mode") == "residual":
        kwargs["action_mode"] = "continuous"
    return kwargs
