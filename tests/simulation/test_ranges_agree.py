"""Python's schema and the native core's config checker accept the same values.

The Python fields that become native config entries (``env.transport.*``,
``scenario.traffic.packet_bytes`` and ``start_s``, the ranged keys of each of
``scenario.traffic.flows``) carry their ranges and choices as
:mod:`leogym.schema` metadata, written there once; the core checks the same keys again
(``ConfigFromDict`` in ``cpp/bindings/simulation-config.cc``, ``recovery-config.cc``,
``flow-config.cc``) with the
numbers of ``cpp/bindings/config-ranges.h``, which ``tools/generate_config_ranges.py``
generates from that metadata. These tests check that the header is current and probe the core
at every Python bound: the bound passes, the nearest value beyond it fails naming the key.
``env.transport.recovery_params.*`` (``RecoveryParams``) are probed the same way inside the
native ``recovery_params`` dict, under the ``tcp`` preset (``rfc9002`` takes none).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from leogym.native import core
from leogym.scenario import load_scenario, validate_scenario
from leogym.scenario.config import (
    CORE_MAX_S,
    MAX_PACKET_BYTES,
    CrossTrafficConfig,
    FlowConfig,
    LeotpFlowConfig,
    ScenarioConfig,
    TrafficConfig,
)
from leogym.schema import FieldError, check
from leogym.simulation import RecoveryParams, TransportOptions
from leogym.simulation.transport import RECOVERIES

#: The generator of the core's range table.
GENERATOR = Path(__file__).resolve().parents[2] / "tools" / "generate_config_ranges.py"

#: The ``FlowConfig`` fields whose ranges the core takes from the table (``kFlow*``).
FLOW_KEYS = (
    "file_bytes",
    "start_s",
    "stop_s",
    "on_s",
    "off_s",
    "min_rto_s",
    "delayed_ack_s",
    "rto_granularity_s",
)

#: The ``CrossTrafficConfig`` fields whose ranges the core takes from the table (``kCross*``).
CROSS_KEYS = ("start_s", "stop_s", "on_s", "off_s")

#: The ``LeotpFlowConfig`` fields with a range: the core takes every one from the table
#: (``kLeotp*``), for a LEOTP flow's and the LEOTP connection's ``leotp`` dict.
LEOTP_KEYS = tuple(f.name for f in dataclasses.fields(LeotpFlowConfig) if "range" in f.metadata)

#: Native config keys that need another key to be checked alone.
COMPANIONS = {"packet_bytes": lambda v: {"mtu": max(1500, int(v) + 28)}}


def _outside(value: float, direction: float, integer: bool) -> float:
    return value + direction if integer else math.nextafter(value, direction * math.inf)


def _native(key: str, value: object, is_list: bool) -> dict:
    cfg = {key: [value] if is_list else value}
    if key in COMPANIONS and not is_list:
        cfg.update(COMPANIONS[key](value))
    return cfg


def _recovery_param(key: str, value: object) -> dict:
    """A native config that sets ``recovery_params[key]`` under a timer-based preset."""
    return {"recovery": "tcp", "recovery_params": {key: value}}


def _probe(
    key: str,
    meta: dict,
    integer: bool,
    is_list: bool,
    config: Callable[[object], dict] | None = None,
    field: str | None = None,
) -> None:
    """The core accepts both bounds of ``meta`` and refuses the nearest values beyond them,
    naming ``config.<field>``; ``config`` builds the native config of a value (default: the
    top-level key ``key``)."""
    c = core()
    make = config or (lambda v: _native(key, v, is_list))
    lo, hi, lo_open, hi_open = meta["range"]
    assert not lo_open and not hi_open  # the core's ranges are closed
    for bound, direction in ((lo, -1.0), (hi, 1.0)):
        assert bound is not None, f"{key}: the core bounds it on both sides"
        c.validate_simulation_config(make(bound))
        outside = _outside(bound, direction, integer)
        with pytest.raises(ValueError, match=rf"config\.{field or key}\b"):
            c.validate_simulation_config(make(outside))


#: TransportOptions fields probed as top-level native keys (recovery_params: the next test).
TOP_LEVEL = [f for f in dataclasses.fields(TransportOptions) if f.name != "recovery_params"]


@pytest.mark.parametrize("f", TOP_LEVEL, ids=lambda f: f.name)
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


@pytest.mark.parametrize("f", dataclasses.fields(RecoveryParams), ids=lambda f: f.name)
def test_recovery_params_have_the_cores_ranges(f: dataclasses.Field) -> None:
    hint = str(f.type)
    key = f.name
    field = rf"recovery_params\.{key}"
    where = "env.transport.recovery_params"
    c = core()
    if "range" in f.metadata:
        integer = "int" in hint
        _probe(key, f.metadata, integer, False, lambda v: _recovery_param(key, v), field)
        lo, hi, _, _ = f.metadata["range"]
        for bound, direction in ((lo, -1.0), (hi, 1.0)):  # and the Python side agrees
            check(RecoveryParams(**{key: bound}), where)
            outside = _outside(bound, direction, integer)
            outside = int(outside) if integer else outside
            with pytest.raises(FieldError, match=rf"^{re.escape(where)}\.{key}: must be in"):
                check(RecoveryParams(**{key: outside}), where)
    elif "choices" in f.metadata:
        for option in f.metadata["choices"]:
            c.validate_simulation_config(_recovery_param(key, option))
        with pytest.raises(ValueError, match=rf"config\.{field}"):
            c.validate_simulation_config(_recovery_param(key, "no-such-option"))
        with pytest.raises(FieldError, match=rf"^{re.escape(where)}\.{key}: must be one of"):
            check(RecoveryParams(**{key: "no-such-option"}), where)
    else:  # booleans: anything else (1 included) is refused on both sides
        assert "bool" in hint, key
        c.validate_simulation_config(_recovery_param(key, False))
        for bad in ("yes", 1):
            with pytest.raises(ValueError, match=rf"config\.{field}"):
                c.validate_simulation_config(_recovery_param(key, bad))
            with pytest.raises(FieldError, match=rf"^{re.escape(where)}\.{key}"):
                check(RecoveryParams(**{key: bad}), where)


def test_recovery_presets_are_the_cores() -> None:
    """The preset names (the core's default first), the keys of ``recovery_params`` and every
    preset's values fit the Python schema."""
    presets = core().recovery_presets()
    assert tuple(presets) == RECOVERIES and RECOVERIES[0] == "rfc9002"
    names = {f.name for f in dataclasses.fields(RecoveryParams)}
    for name, values in presets.items():
        assert set(values) == names, name
        check(RecoveryParams(**values), f"recovery_presets()[{name!r}]")


def test_recovery_relations_agree() -> None:
    """Both sides refuse timer settings under RFC 9002 (set or by default) and a cap below the
    floor; a cap of 0 means none."""
    c = core()
    for recovery in ({}, {"recovery": "rfc9002"}):
        with pytest.raises(ValueError, match=r"config\.recovery_params"):
            c.validate_simulation_config({**recovery, "recovery_params": {"min_rto_s": 1.0}})
        options = TransportOptions(**recovery, recovery_params=RecoveryParams(min_rto_s=1.0))
        with pytest.raises(FieldError, match=r"^env\.transport\.recovery_params: "):
            check(options, "env.transport")
    crossed = {"min_rto_s": 2.0, "max_rto_s": 1.0}
    with pytest.raises(ValueError, match=r"config\.recovery_params\.max_rto_s"):
        c.validate_simulation_config({"recovery": "tcp", "recovery_params": crossed})
    with pytest.raises(FieldError, match=r"^env\.transport\.recovery_params\.max_rto_s: "):
        check(
            TransportOptions(recovery="tcp", recovery_params=RecoveryParams(**crossed)),
            "env.transport",
        )
    uncapped = {"min_rto_s": 2.0, "max_rto_s": 0.0}
    c.validate_simulation_config({"recovery": "tcp", "recovery_params": uncapped})
    check(
        TransportOptions(recovery="tcp", recovery_params=RecoveryParams(**uncapped)),
        "env.transport",
    )


def test_packet_bytes_is_a_jumbo_frames_udp_payload() -> None:
    """9000-byte jumbo MTU - 20 B IPv4 header - 8 B UDP header = 8972 B (RFC 791, RFC 768), on
    both sides."""
    assert MAX_PACKET_BYTES == 9000 - 20 - 8 == 8972
    meta = next(f for f in dataclasses.fields(TrafficConfig) if f.name == "packet_bytes").metadata
    assert meta["range"][:2] == (64, 8972)
    _probe("packet_bytes", meta, integer=True, is_list=False)


@pytest.mark.native
def test_start_s_has_the_cores_range() -> None:
    """``scenario.traffic.start_s`` reaches 1e7 s (``CORE_MAX_S``) on both sides: the core
    once refused everything above 1e6 s that Python accepted."""
    meta = next(f for f in dataclasses.fields(TrafficConfig) if f.name == "start_s").metadata
    assert meta["range"][:2] == (0.0, CORE_MAX_S) == (0.0, 1e7)
    _probe("start_s", meta, integer=False, is_list=False)


@pytest.mark.timeout(60)
def test_a_start_past_1e6_s_is_refused_by_python_naming_the_field() -> None:
    """A transfer that starts in (1e6, 1e7] s cannot come from a scenario: it must start
    within the episode, and ``duration_s`` is at most 1e6 s, so Python refuses it with a
    ``FieldError`` naming ``scenario.traffic.start_s`` (the core, given it in a raw config,
    accepts it: the previous test); one past 1e7 s fails the field's own range."""
    base = load_scenario("tiny")
    longest = next(f for f in dataclasses.fields(ScenarioConfig) if f.name == "duration_s")
    assert longest.metadata["range"][1] == 1e6

    def starting(start_s: float) -> ScenarioConfig:
        traffic = dataclasses.replace(base.traffic, start_s=start_s)
        return dataclasses.replace(
            base, duration_s=1e6, timeline_dt_s=60.0, geometry_dt_s=60.0, traffic=traffic
        )

    validate_scenario(starting(1e6 - 1.0))
    for start_s in (1e6, 5e6, CORE_MAX_S):
        with pytest.raises(FieldError, match=r"^scenario\.traffic\.start_s: must be < duration_s"):
            validate_scenario(starting(start_s))
    with pytest.raises(FieldError, match=r"^scenario\.traffic\.start_s: must be in"):
        validate_scenario(starting(math.nextafter(CORE_MAX_S, math.inf)))


def _probe_item(schema: type, key: str, config: Callable[[object], dict], field: str) -> None:
    """Each bound of ``schema``'s field ``key`` in the core's config parser: a closed bound
    passes and the nearest value beyond it fails, an open bound fails and the nearest value
    inside passes; each failure names ``field``."""
    f = next(f for f in dataclasses.fields(schema) if f.name == key)
    lo, hi, lo_open, hi_open = f.metadata["range"]
    integer = "int" in str(f.type)
    c = core()
    for bound, direction, is_open in ((lo, -1.0, lo_open), (hi, 1.0, hi_open)):
        if schema is FlowConfig and key == "file_bytes" and bound == lo:
            continue  # the core's 0 is a bulk flow (a scenario's file flow has >= 1 byte)
        inside = _outside(bound, -direction, integer)
        outside = _outside(bound, direction, integer)
        accepted, refused = (inside, bound) if is_open else (bound, outside)
        c.validate_simulation_config(config(accepted))
        with pytest.raises(ValueError, match=rf"{re.escape(field)}\b"):
            c.validate_simulation_config(config(refused))


@pytest.mark.native
@pytest.mark.parametrize("key", FLOW_KEYS)
def test_flow_fields_have_the_cores_ranges(key: str) -> None:
    """``scenario.traffic.flows[i].<key>``'s bounds hold in the core's config parser (an open
    one too: ``delayed_ack_s < 0.5``, ``stop_s > 0``), the errors naming
    ``config.flows[0].<key>``. The core once checked these only when it built a simulation,
    with numbers of its own, so ``validate_simulation_config`` took any of them."""

    def config(value: object) -> dict:
        return {"flows": [{"transport": "tcp", "routes": [0], key: value}]}

    _probe_item(FlowConfig, key, config, f"config.flows[0].{key}")


@pytest.mark.native
@pytest.mark.parametrize("key", CROSS_KEYS)
def test_cross_traffic_fields_have_the_cores_ranges(key: str) -> None:
    """``scenario.traffic.cross_traffic[i].<key>``'s bounds hold in the core's config parser,
    the errors naming ``config.cross_traffic[0].<key>`` (the core once checked its own numbers
    when it built the simulation: ``on_s`` in (0, 1e7] where the schema says [0.001, 1e7])."""

    def config(value: object) -> dict:
        return {"cross_traffic": [{"kind": "udp_onoff", "path": 0, key: value}]}

    _probe_item(CrossTrafficConfig, key, config, f"config.cross_traffic[0].{key}")


@pytest.mark.native
@pytest.mark.parametrize("key", LEOTP_KEYS)
@pytest.mark.parametrize("where", ["flow", "connection"])
def test_leotp_fields_have_the_cores_ranges(key: str, where: str) -> None:
    """``scenario.traffic.flows[i].leotp.<key>`` (and the LEOTP connection's ``leotp``, whose
    ranges are a flow's): each bound holds in the core's config parser, the errors naming the
    key. The model once held its own copies of these numbers and checked them only when a
    simulation was built."""

    def config(value: object) -> dict:
        if where == "connection":
            return {"connection": "leotp", "leotp": {key: value}}
        return {"flows": [{"transport": "leotp", "routes": [0], "leotp": {key: value}}]}

    field = "config.leotp" if where == "connection" else "config.flows[0].leotp"
    _probe_item(LeotpFlowConfig, key, config, f"{field}.{key}")


def test_the_cores_range_table_is_generated_from_the_schema() -> None:
    """``cpp/bindings/config-ranges.h`` is what the generator writes from the schema today
    (a range edited on either side alone fails here), and it holds every ranged transport and
    recovery field, so no range of those is written a second time in the core."""
    spec = importlib.util.spec_from_file_location("generate_config_ranges", GENERATOR)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    text = generator.render()
    assert generator.HEADER.read_text() == text, "run tools/generate_config_ranges.py"
    for schema in (TransportOptions, RecoveryParams):
        for f in dataclasses.fields(schema):
            if "range" in f.metadata:
                assert f".{f.name}\n" in text, f.name
    assert "kTrafficPacketBytes{64LL, 8972LL}" in text
    assert "kTrafficStartS{0.0, 10000000.0}" in text
    for key in FLOW_KEYS:
        assert f"/// scenario.traffic.flows[i].{key}\n" in text, key
    for key in CROSS_KEYS:
        assert f"/// scenario.traffic.cross_traffic[i].{key}\n" in text, key
    for key in LEOTP_KEYS:
        assert f"/// scenario.traffic.flows[i].leotp.{key}\n" in text, key
    assert "kFlowStartS{0.0, 10000000.0}" in text
    assert "kFlowDelayedAckS{0.001, 0.5, false, true}" in text  # RFC 1122: less than 0.5 s
