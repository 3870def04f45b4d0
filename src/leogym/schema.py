"""One schema per concept: field constraints live on the dataclass fields, one checker reads them.

Every config of leogym (scenario, env, apps, baseline parameters) is a plain dataclass. A field
states its type in its annotation, its default in ``field(default=...)``, its doc in the class
docstring, and its range or choices in its metadata, built with the helpers below::

    @dataclass
    class Knobs:
        step_ms: float = field(default=100.0, metadata=bounded(1, 60_000))
        mode: str = field(default="fast", metadata=choice("fast", "slow"))
        spans: list[float] = field(default_factory=list, metadata=interval(0, 90))

:func:`check` walks an instance (nested dataclasses and lists of them included) and raises
:class:`FieldError` on the first value that breaks its field's annotation or metadata, naming the
dotted path (``env.step_ms: must be in [1, 60000] (got -5)``). Rules that relate several fields
(``episode_s >= step_ms``) are a dataclass's ``_check_relations(path, error)`` method, which
:func:`check` calls once the class's own fields are known to be well-typed and in range; it
raises ``error`` (a :class:`FieldError` class) naming the field.

Accepted types: ``int`` (not ``bool``), ``float`` (an ``int`` or ``float``, finite), ``bool``
(NumPy's too), ``str``, ``X | None``, ``list[X]``, ``dict[str, X]``, nested dataclasses and
``Any`` (not checked).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn, Union

import numpy as np

__all__ = [
    "FieldError",
    "bounded",
    "check",
    "check_field",
    "choice",
    "duration",
    "interval",
    "numbers",
    "build",
    "describe_range",
    "exit_with_error",
    "fail",
    "full_error_wanted",
]


class FieldError(ValueError):
    """A config value is invalid. The message starts with the dotted path of the field
    (``env.step_ms: must be in [1, 60000] (got -5)``); :attr:`field` holds that path.

    :param field: dotted field path, e.g. ``scenario.paths[1].queue.size``; or, with no
        ``message``, the whole text ``"<field>: <message>"``.
    :param message: what is wrong, phrased as a requirement.
    """

    def __init__(self, field: str, message: str | None = None) -> None:
        if message is None:
            field, _, message = field.partition(": ")
        self.field = field
        super().__init__(f"{field}: {message}" if message else field)


def shown(value: Any) -> str:
    """A value as error messages show it: strings quoted, numbers as they are."""
    return repr(value) if isinstance(value, str) else str(value)


def fail(
    error: type[FieldError], path: str, requirement: str, got: Any = dataclasses.MISSING
) -> FieldError:
    """The canonical ``<path>: <requirement> (got <value>)`` error, to be raised by the caller."""
    if got is dataclasses.MISSING:
        return error(path, requirement)
    return error(path, f"{requirement} (got {shown(got)})")


# ------------------------------------------------------------------------------- metadata
def bounded(
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> dict[str, Any]:
    """Field metadata: the value (each element, for a list) lies in ``[lo, hi]``.

    :param lo: lower bound (``None``: none).
    :param hi: upper bound (``None``: none).
    :param lo_open: exclude ``lo`` itself (``(lo, hi]``).
    :param hi_open: exclude ``hi`` itself (``[lo, hi)``).
    """
    return {"range": (lo, hi, lo_open, hi_open)}


#: ns-3's time resolution (its default: one nanosecond), in the units of leogym's time fields.
NS3_RESOLUTION = {"s": 1e-9, "ms": 1e-6}


def duration(
    lo: float | None = None,
    hi: float | None = None,
    *,
    unit: str = "s",
    lo_open: bool = False,
    hi_open: bool = False,
    nonzero_min: float | None = None,
    why: str = "",
) -> dict[str, Any]:
    """Field metadata for a time the native core hands to ns-3, in ``unit`` (``"s"`` or
    ``"ms"``): the range of :func:`bounded`, and a value other than 0 must be at least
    ``nonzero_min`` (default: ns-3's resolution, one nanosecond: ns-3 counts time in whole
    nanoseconds, so a shorter time becomes 0, which its attribute checkers refuse with an abort
    and its timers turn into an endless loop of zero-delay events).

    :param nonzero_min: the shortest non-zero value, in ``unit``; at least one nanosecond.
    :param why: the reason for ``nonzero_min``, shown in the error.
    """
    tick = NS3_RESOLUTION[unit]
    floor = tick if nonzero_min is None else max(nonzero_min, tick)
    reason = why or "ns-3 counts time in whole nanoseconds"
    return {**bounded(lo, hi, lo_open=lo_open, hi_open=hi_open), "nonzero_min": (floor, reason)}


def choice(*options: str | Callable[[], Iterable[str]]) -> dict[str, Any]:
    """Field metadata: the value is one of ``options``.

    A single callable stands for options known only at run time (the native core's algorithm
    names); it is called when a value is checked.
    """
    if len(options) == 1 and callable(options[0]):
        return {"choices": options[0]}
    return {"choices": tuple(options)}


def interval(lo: float = -math.inf, hi: float = math.inf) -> dict[str, Any]:
    """Field metadata for a ``list[float]`` that is empty or a ``[low, high]`` pair within
    ``[lo, hi]`` (a uniform sampling range)."""
    return {"interval": (lo, hi)}


def numbers(**extra: Any) -> dict[str, Any]:
    """Field metadata for a ``dict[str, float]`` of native parameters whose values may also be
    booleans (the core takes them as 0 / 1); ``extra`` adds further metadata."""
    return {"bool_values": True, **extra}


def merge(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """Several metadata mappings as one."""
    out: dict[str, Any] = {}
    for p in parts:
        out.update(p)
    return out


def describe_range(rng: tuple[Any, Any, bool, bool]) -> str:
    """``must be in [1, 60000]``, ``must be > 0``, ... for a :func:`bounded` range."""
    lo, hi, lo_open, hi_open = rng
    if lo is not None and hi is not None:
        left, right = "(" if lo_open else "[", ")" if hi_open else "]"
        return f"must be in {left}{_num(lo)}, {_num(hi)}{right}"
    if lo is not None:
        return f"must be {'>' if lo_open else '>='} {_num(lo)}"
    return f"must be {'<' if hi_open else '<='} {_num(hi)}"


def _num(x: float) -> str:
    """A bound as messages show it: ints in full, floats short (``1e6``, ``1e-6``, ``0.5``)."""
    if isinstance(x, int):
        return str(x)
    return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


# -------------------------------------------------------------------------------- checker
def check(obj: Any, path: str, error: type[FieldError] = FieldError) -> Any:
    """Check every field of the dataclass instance ``obj`` (recursively) against its annotation
    and metadata, then its ``_check_relations``; raise on the first problem.

    :param obj: a dataclass instance.
    :param path: the dotted path of ``obj`` in error messages (``env``, ``scenario``, ...).
    :param error: the exception class raised (a :class:`FieldError`).
    :return: ``obj``.
    :raises FieldError: (of class ``error``) naming the field.
    """
    _check_dataclass(obj, path, error)
    return obj


def check_field(obj: Any, name: str, path: str, error: type[FieldError] = FieldError) -> None:
    """Check the one field ``name`` of the dataclass instance ``obj`` (named ``path``)."""
    f = next(f for f in _fields(type(obj)) if f.name == name)
    _check_value(getattr(obj, name), _hints(type(obj))[name], f.metadata, path, error)


_HINTS: dict[type, dict[str, Any]] = {}
_FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved type hints of a dataclass (once per class and process)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    """The fields of a dataclass (once per class and process)."""
    if cls not in _FIELDS:
        _FIELDS[cls] = dataclasses.fields(cls)
    return _FIELDS[cls]


def _check_dataclass(obj: Any, path: str, error: type[FieldError]) -> None:
    cls = type(obj)
    hints = _hints(cls)
    for f in _fields(cls):
        _check_value(getattr(obj, f.name), hints[f.name], f.metadata, f"{path}.{f.name}", error)
    relations = getattr(obj, "_check_relations", None)
    if relations is not None:
        relations(path, error)


def _optional(tp: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``; ``(tp, False)`` otherwise."""
    origin = typing.get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0], True
    return tp, False


def _check_value(
    value: Any, tp: Any, meta: Mapping[str, Any], path: str, error: type[FieldError]
) -> None:
    tp, optional = _optional(tp)
    if value is None:
        if optional or tp is Any:
            return
        raise fail(error, path, "must not be null", value)
    if tp is Any:
        return
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, tp):
            raise fail(error, path, f"must be a {tp.__name__}", type(value).__name__)
        _check_dataclass(value, path, error)
        return
    origin = typing.get_origin(tp)
    if origin is list:
        if not isinstance(value, list):
            raise fail(error, path, "must be a list", type(value).__name__)
        if "interval" in meta:
            _check_interval(value, meta["interval"], path, error)
        (elem,) = typing.get_args(tp)
        for i, item in enumerate(value):
            _check_value(item, elem, meta, f"{path}[{i}]", error)
        return
    if origin is dict:
        if not isinstance(value, Mapping):
            raise fail(error, path, "must be a mapping", type(value).__name__)
        _, elem = typing.get_args(tp)
        for key, item in value.items():
            if not isinstance(key, str):
                raise fail(error, path, "keys must be strings", key)
            if meta.get("bool_values") and isinstance(item, (bool, np.bool_)):
                continue
            _check_value(item, elem, meta, f"{path}.{key}", error)
        return
    _check_scalar(value, tp, path, error)
    rng = meta.get("range")
    if rng is not None:
        lo, hi, lo_open, hi_open = rng
        below = lo is not None and (value <= lo if lo_open else value < lo)
        above = hi is not None and (value >= hi if hi_open else value > hi)
        if below or above:
            raise fail(error, path, describe_range(rng), value)
    nonzero_min = meta.get("nonzero_min")
    if nonzero_min is not None and value != 0 and abs(value) < nonzero_min[0]:
        floor, reason = nonzero_min
        zero = "0 or " if _zero_allowed(rng) else ""
        raise fail(error, path, f"must be {zero}at least {_num(floor)} ({reason})", value)
    choices = meta.get("choices")
    if choices is not None:
        options = tuple(choices() if callable(choices) else choices)
        if value not in options:
            raise fail(error, path, f"must be one of {', '.join(options)}", value)


def _zero_allowed(rng: tuple[Any, Any, bool, bool] | None) -> bool:
    """Whether a :func:`bounded` range (``None``: none) admits 0."""
    if rng is None:
        return True
    lo, hi, lo_open, hi_open = rng
    above_lo = lo is None or lo < 0 or (lo == 0 and not lo_open)
    below_hi = hi is None or hi > 0 or (hi == 0 and not hi_open)
    return above_lo and below_hi


def _check_scalar(value: Any, tp: Any, path: str, error: type[FieldError]) -> None:
    if tp is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise fail(error, path, "must be true or false", value)
    elif tp is int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, int):
            raise fail(error, path, "must be an integer", value)
    elif tp is float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float)):
            raise fail(error, path, "must be a number", value)
        if not math.isfinite(value):
            raise fail(error, path, "must be finite", value)
    elif tp is str:
        if not isinstance(value, str):
            raise fail(error, path, "must be a string", value)
    else:  # pragma: no cover - a schema with a type this checker does not know
        raise TypeError(f"{path}: unsupported field type {tp!r}")


def _check_interval(
    values: list[Any], bounds: tuple[float, float], path: str, error: type[FieldError]
) -> None:
    if len(values) == 0:
        return
    if len(values) != 2:
        raise fail(error, path, "must be [] or [low, high]", list(values))
    for i, v in enumerate(values):
        _check_scalar(v, float, f"{path}[{i}]", error)
    lo, hi = bounds
    a, b = values
    if a > b:
        raise fail(error, path, "needs low <= high", list(values))
    if a < lo or b > hi:
        raise fail(error, path, f"must lie within [{_num(lo)}, {_num(hi)}]", list(values))


# --------------------------------------------------------------------------------- building
def build(cls: type, value: Any, path: str, error: type[FieldError] = FieldError) -> Any:
    """An instance of the dataclass ``cls`` from itself, ``None`` (the defaults) or a mapping
    of its fields (a dict, an OmegaConf ``DictConfig``). Values are taken as they are, lists
    (OmegaConf ``ListConfig`` too) as plain lists; nothing is checked beyond the keys.

    :raises FieldError: (of class ``error``) for a non-mapping or an unknown key, naming
        ``path``.
    """
    if isinstance(value, cls):
        return value
    if value is None:
        return cls()
    if isinstance(value, (str, bytes)) or not hasattr(value, "keys"):
        raise fail(error, path, "must be a mapping", value)
    try:
        items = {k: value[k] for k in value.keys()}
    except (TypeError, ValueError, KeyError):
        raise fail(error, path, "must be a mapping", value) from None
    known = {f.name for f in _fields(cls)}
    unknown = sorted(str(k) for k in items if k not in known)
    if unknown:
        raise error(path, f"unknown key(s) {unknown}; known: {sorted(known)}")
    return cls(**{k: _plain(v) for k, v in items.items()})


def _plain(value: Any) -> Any:
    """OmegaConf ``ListConfig`` and tuples as plain lists; everything else unchanged."""
    if value is None or isinstance(value, (str, bytes, int, float, bool, Mapping)):
        return value
    if dataclasses.is_dataclass(value):
        return value
    try:
        return list(value)
    except TypeError:
        return value


# ------------------------------------------------------------------------------ reporting
#: Set to 1 for the full traceback of a config error in the apps (Hydra's own switch).
FULL_ERROR_ENV = "HYDRA_FULL_ERROR"


def full_error_wanted() -> bool:
    """Whether the user asked for full tracebacks (``HYDRA_FULL_ERROR=1``, as Hydra reads it)."""
    return os.environ.get(FULL_ERROR_ENV) == "1"


def exit_with_error(prog: str, message: str, status: int = 2) -> NoReturn:
    """End a command-line app the way argparse ends a usage error: one line on stderr
    (``<prog>: error: <message>``, whitespace folded) and exit status 2."""
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(status)


@contextlib.contextmanager
def one_line_errors(
    prog: str, catch: type[Exception] | tuple[type[Exception], ...] = FieldError
) -> Iterator[None]:
    """In a command-line app: an exception of type ``catch`` raised inside ends the app with
    :func:`exit_with_error` (one line, status 2), or propagates with its traceback when
    :func:`full_error_wanted`."""
    try:
        yield
    except catch as exc:
        if full_error_wanted():
            raise
        exit_with_error(prog, str(exc))
