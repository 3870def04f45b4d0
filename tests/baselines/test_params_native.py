"""The paper baselines' Python parameters (baselines/params.py) and the native attributes they
set agree: same default, same range, same kind of value, for every parameter.

The native side is ``leogym._core.algorithm_parameters()``, which reads each ns-3 attribute's
initial value and finds its checker's bounds; the second test checks that those bounds are the
ones the core's config checker enforces.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from leogym.baselines.alcs import AlcsParams
from leogym.baselines.freeze import INNER_CCS, FreezeParams
from leogym.baselines.maco import MacoParams
from leogym.native import core

#: (parameter class, config key, algorithm name in the core)
CASES = [
    (MacoParams, "cc", "maco"),
    (AlcsParams, "scheduler", "alcs"),
    *[(FreezeParams, "cc", f"freeze+{inner}") for inner in INNER_CCS],
]
NATIVE_KIND = {
    bool: {"ns3::BooleanValue"},
    int: {"ns3::UintegerValue", "ns3::IntegerValue"},
    float: {"ns3::DoubleValue", "ns3::TimeValue"},
}


def _params(cls: type) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if "native" in f.metadata]


@pytest.mark.parametrize(("cls", "kind", "name"), CASES, ids=[c[2] for c in CASES])
def test_python_defaults_and_ranges_are_the_native_ones(cls: type, kind: str, name: str) -> None:
    native = core().algorithm_parameters(kind, name)
    fields = _params(cls)
    assert fields, cls
    for f in fields:
        attr = native.get(f.metadata["native"])
        assert attr is not None, f"{cls.__name__}.{f.name}: no native {f.metadata['native']}"
        where = f"{cls.__name__}.{f.name} ({f.metadata['native']})"
        assert attr["type"] in NATIVE_KIND[type(f.default)], where
        assert attr["default"] == f.default and type(attr["default"]) is type(f.default), (
            where,
            attr["default"],
            f.default,
        )
        lo, hi, lo_open, hi_open = f.metadata.get("range", (None, None, False, False))
        assert not lo_open and not hi_open, where  # ns-3 checkers are closed intervals
        assert (attr["min"], attr["max"]) == (lo, hi), (where, attr["min"], attr["max"], lo, hi)


def _just_outside(value: float, direction: float, attr_type: str) -> float:
    if attr_type in ("ns3::UintegerValue", "ns3::IntegerValue"):
        return value + direction
    if attr_type == "ns3::TimeValue":
        return value + direction * 1e-9  # one nanosecond, the time resolution
    return math.nextafter(value, direction * math.inf)


@pytest.mark.parametrize(("cls", "kind", "name"), CASES[:3], ids=[c[2] for c in CASES[:3]])
def test_the_reported_range_is_the_one_the_core_enforces(cls: type, kind: str, name: str) -> None:
    """Each bound ``algorithm_parameters`` reports passes the core's config check, and the
    nearest value beyond it fails, naming the parameter."""
    c = core()
    for attr_name, attr in c.algorithm_parameters(kind, name).items():
        for bound, direction in ((attr["min"], -1.0), (attr["max"], 1.0)):
            if bound is None:
                continue
            c.validate_simulation_config({kind: name, f"{kind}_params": {attr_name: bound}})
            outside = _just_outside(bound, direction, attr["type"])
            if attr["type"] == "ns3::UintegerValue" and outside < 0:
                continue  # the config's own integer check refuses it, not the range
            with pytest.raises(ValueError, match=rf"{kind}_params\.{attr_name}: "):
                c.validate_simulation_config({kind: name, f"{kind}_params": {attr_name: outside}})


def test_cc_algorithms_lists_every_accepted_name() -> None:
    """Plain controllers and every wrapper composition are listed, and each one validates."""
    c = core()
    names = c.cc_algorithms()
    plain = [n for n in names if "+" not in n]
    assert {"newreno", "cubic", "bbr", "maco", "external"} <= set(plain)
    assert {f"freeze+{p}" for p in plain} <= set(names)
    assert not any(n.endswith("+") for n in names)
    for n in names:
        c.validate_simulation_config({"cc": n})
    for n in c.schedulers():
        c.validate_simulation_config({"scheduler": n})
