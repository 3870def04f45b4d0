"""Python's schema and the native core's config checker accept the same values.

The Python fields that become native config entries (``env.transport.*``,
``scenario.traffic.packet_bytes``) carry their ranges and choices as :mod:`leogym.schema`
metadata; the core checks the same keys again (``ConfigFromDict`` in
``cpp/bindings/bind-simulation.cc``). These tests probe the core at every Python bound: the
bound passes, the nearest value beyond it fails naming the key, so neither side can drift.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from leogym.native import core
from leogym.scenario.config import MAX_PACKET_BYTES, TrafficConfig
from leogym.schema import FieldError, check
from leogym.simulation import TransportOptions

#: Native config keys that need another key to be checked alone.
COMPANIONS = {"packet_bytes": lambda v: {"mtu": max(1500, int(v) + 28)}}


def _outside(value: float, direction: float, integer: bool) -> float:
    return value + direction if integer else math.nextafter(value, direction * math.inf)


def _native(key: str, value: object, is_list: bool) -> dict:
    cfg = {key: [value] if is_list else value}
    if key in COMPANIONS and not is_list:
        cfg.update(COMPANIONS[key](value))
    return cfg


def _probe(key: str, meta: dict, integer: bool, is_list: bool) -> None:
    c = core()
    lo, hi, lo_open, hi_open = meta["range"]
    assert not lo_open and not hi_open  # the core's ranges are closed
    for bound, direction in ((lo, -1.0), (hi, 1.0)):
        assert bound is not None, f"{key}: the core bounds it on both sides"
        c.validate_simulation_config(_native(key, bound, is_list))
        outside = _outside(bound, direction, integer)
        with pytest.raises(ValueError, match=rf"config\.{key}"):
            c.validate_simulation_config(_native(key, outside, is_list))


@pytest.mark.parametrize("f", dataclasses.fields(TransportOptions), ids=lambda f: f.name)
def test_transport_options_have_the_cores_ranges(f: dataclasses.Field) -> None:
    hint = str(f.type)
    is_list = hint.startswith("list[")
    if "range" in f.metadata:
        _probe(f.name, f.metadata, "int" in hint, is_list)
    elif "choices" in f.metadata:
        for option in f.metadata["choices"]:
            core().validate_simulation_config(_native(f.name, option, is_list))
        with pytest.raises(ValueError, match=rf"config\.{f.name}"):
            core().validate_simulation_config(_native(f.name, "no-such-option", is_list))
    else:  # booleans: anything else is refused on both sides
        assert "bool" in hint, f.name
        core().validate_simulation_config(_native(f.name, True, is_list))
        with pytest.raises(ValueError, match=rf"config\.{f.name}"):
            core().validate_simulation_config(_native(f.name, "yes", is_list))
        with pytest.raises(FieldError, match=rf"env\.transport\.{f.name}"):
            check(TransportOptions(**{f.name: "yes"}), "env.transport")


def test_packet_bytes_is_a_jumbo_frames_udp_payload() -> None:
    """9000-byte jumbo MTU - 20 B IPv4 header - 8 B UDP header = 8972 B (RFC 791, RFC 768), on
    both sides."""
    assert MAX_PACKET_BYTES == 9000 - 20 - 8 == 8972
    meta = next(f for f in dataclasses.fields(TrafficConfig) if f.name == "packet_bytes").metadata
    assert meta["range"][:2] == (64, 8972)
    _probe("packet_bytes", meta, integer=True, is_list=False)
