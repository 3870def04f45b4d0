"""Hypothesis strategies for bad input: junk values, and mutations of valid nested configs.

A *mutation* takes a valid config (a nested dict/list of plain values) and changes one to
three places in it: a leaf replaced by junk or by a scaled copy of itself, a key deleted, an
unknown key added, a list emptied, grown or replaced. Starting from valid configs keeps the
examples deep: most of them get past the type checks and reach the range checks, the
timeline builder and the native core.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
from hypothesis import strategies as st

__all__ = [
    "JUNK",
    "Path",
    "dotted",
    "get_at",
    "junk",
    "leaf_paths",
    "mutated",
    "numeric_junk",
    "set_at",
]

Path = tuple[Any, ...]


class _Opaque:
    """An object no validator knows (stands for any foreign type a user could pass)."""

    def __repr__(self) -> str:
        return "<opaque>"


#: Values that break naive code: non-finite and extreme numbers, wrong types, containers.
JUNK: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    0,
    0.0,
    -0.0,
    -1,
    -1.5,
    5e-324,
    1e-9,
    1e9,
    1e15,
    1e300,
    -1e300,
    2**31,
    2**53 + 1,
    2**63,
    -(2**63),
    2**64,
    10**30,
    True,
    False,
    None,
    "",
    "abc",
    "1.5",
    "nan",
    "-1",
    b"bytes",
    [],
    [1.0],
    [math.nan],
    {},
    {"x": 1},
    (1, 2),
    1 + 2j,
    np.float32("nan"),
    np.float64(1e308),
    np.int64(7),
    np.int8(-1),
    np.uint64(2**64 - 1),
    np.array([1.0]),
    np.array([]),
    np.array([[1.0, 2.0]]),
    _Opaque(),
]

#: Scale factors applied to a valid numeric leaf (sign flips, zero, tiny and huge values).
SCALES = [-1.0, 0.0, 1e-12, 1e-3, 0.5, 2.0, 1e3, 1e9, 1e300, math.inf, math.nan]


def junk() -> st.SearchStrategy[Any]:
    """Any junk value: from :data:`JUNK`, or a float/int/string of any size."""
    return st.one_of(
        st.sampled_from(JUNK).map(copy.deepcopy),  # a fresh copy: examples mutate containers
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.text(max_size=6),
    )


def numeric_junk() -> st.SearchStrategy[float]:
    """Floats only, weighted towards the values that break arithmetic."""
    return st.one_of(
        st.sampled_from(
            [
                math.nan,
                math.inf,
                -math.inf,
                0.0,
                -0.0,
                -1.0,
                5e-324,
                1e-300,
                1e300,
                1.7976931348623157e308,
                -1e15,
                1e15,
                2.0**63,
            ]
        ),
        st.floats(allow_nan=True, allow_infinity=True),
    )


def leaf_paths(obj: Any, prefix: Path = ()) -> Iterator[Path]:
    """Every position in a nested dict/list: containers and leaves, depth first."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaf_paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaf_paths(v, (*prefix, i))


def get_at(obj: Any, path: Path) -> Any:
    for key in path:
        obj = obj[key]
    return obj


def set_at(obj: Any, path: Path, value: Any) -> Any:
    """Return ``obj`` with ``path`` set to ``value`` (``obj`` itself when ``path`` is empty)."""
    if not path:
        return value
    get_at(obj, path[:-1])[path[-1]] = value
    return obj


def dotted(path: Path) -> str:
    """``("paths", 0, "queue", "size")`` -> ``"paths[0].queue.size"``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


@st.composite
def _mutation(draw: st.DrawFn, obj: Any) -> tuple[Any, str, Path]:
    """Apply one random mutation to ``obj`` in place; return it, a description and the path
    it changed."""
    paths = [p for p in leaf_paths(obj) if p]
    if not paths:  # everything was deleted: add an unknown key, or replace the whole object
        if isinstance(obj, dict):
            obj["bogus"] = draw(junk())
            return obj, "<root>.'bogus' added", ("bogus",)
        value = draw(junk())
        return value, f"<root> = {value!r}", ()
    path = draw(st.sampled_from(paths))
    old = get_at(obj, path)
    parent = get_at(obj, path[:-1])
    ops = ["junk", "junk", "junk"]
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        ops += ["scale", "scale", "number", "number"]
    if isinstance(parent, dict):
        ops += ["delete", "unknown_key"]
    if isinstance(old, list):
        ops += ["empty", "grow"]
    op = draw(st.sampled_from(ops))
    where = dotted(path)
    if op == "junk":
        value = draw(junk())
        set_at(obj, path, value)
        return obj, f"{where} = {value!r}", path
    if op == "scale":
        factor = draw(st.sampled_from(SCALES))
        with np.errstate(all="ignore"):
            value = float(old) * factor if not (old == 0 and math.isinf(factor)) else factor
        if isinstance(old, int) and math.isfinite(value) and abs(value) < 2**62:
            value = int(value)
        set_at(obj, path, value)
        return obj, f"{where} = {value!r} (x{factor:g})", path
    if op == "number":
        value = draw(numeric_junk())
        set_at(obj, path, value)
        return obj, f"{where} = {value!r}", path
    if op == "delete":
        del parent[path[-1]]
        return obj, f"del {where}", path
    if op == "unknown_key":
        key = draw(st.sampled_from(["bogus", "", "Duration_S", "0", "paths_"]))
        parent[key] = draw(junk())
        return obj, f"{dotted(path[:-1]) or '<root>'}.{key!r} added", (*path[:-1], key)
    if op == "empty":
        set_at(obj, path, [])
        return obj, f"{where} = []", path
    # grow: duplicate an element (or append junk)
    if old and draw(st.booleans()):
        old.append(copy.deepcopy(draw(st.sampled_from(old))))
        return obj, f"{where} grown by a copy", path
    value = draw(junk())
    old.append(value)
    return obj, f"{where} += [{value!r}]", path


@st.composite
def mutated(
    draw: st.DrawFn,
    bases: list[Any],
    max_mutations: int = 3,
) -> tuple[Any, list[str], list[Path]]:
    """A deep copy of one of ``bases`` with 1..``max_mutations`` mutations applied.

    :return: the mutated object, a description of each mutation and the paths changed.
    """
    obj = copy.deepcopy(draw(st.sampled_from(bases)))
    n = draw(st.integers(min_value=1, max_value=max_mutations))
    notes, where = [], []
    for _ in range(n):
        obj, note, path = draw(_mutation(obj))
        notes.append(note)
        where.append(path)
    return obj, notes, where
