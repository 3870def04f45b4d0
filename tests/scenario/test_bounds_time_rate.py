"""Issue 33: time fields ns-3 cannot represent, periods and rates no step can simulate in
bounded time, and flow settings that were silently accepted are refused up front, naming the
field (the bounds are field metadata in ``leogym.scenario.config`` and
``leogym.simulation.transport``; docs/scenario.md, "Bounds on times and rates")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from leogym.scenario import load_scenario
from leogym.scenario.config import MAX_UDP_RATE_MBPS, MIN_ONOFF_PERIOD_S, MIN_QUEUE_TIME_MS
from leogym.scenario.errors import ScenarioConfigError
from leogym.schema import FieldError, check
from leogym.simulation.transport import (
    TransportOptions,
    check_against_scenario,
    check_env_subflow_paths,
)

#: Below 1e-6 ms: rounds to 0 ns (ns-3 aborted on DualPI2, PIE looped at zero delay).
SUB_NS_MS = 4e-7


#: The shipped tiny scenario, as a YAML dict to mutate.
TINY = Path(__file__).resolve().parents[2] / "conf" / "scenario" / "tiny.yaml"


def _tiny_yaml() -> dict[str, Any]:
    with TINY.open(encoding="utf-8") as f:
        return dict(yaml.safe_load(f))


def _with_queue(**queue: Any) -> dict[str, Any]:
    d = _tiny_yaml()
    d["paths"][0].setdefault("queue", {}).update(queue)
    return d


def _with_flow(**flow: Any) -> dict[str, Any]:
    d = _tiny_yaml()
    route = d["paths"][0].get("name") or "satellite0"
    d.setdefault("traffic", {})["flows"] = [{"routes": [route], **flow}]
    return d


def _with_cross(**ct: Any) -> dict[str, Any]:
    d = _tiny_yaml()
    d.setdefault("traffic", {})["cross_traffic"] = [{"kind": "udp_onoff", **ct}]
    return d


def _refused(d: dict[str, Any], field: str) -> str:
    with pytest.raises(ScenarioConfigError) as err:
        load_scenario(d)
    assert err.value.field == field, str(err.value)
    return str(err.value)


@pytest.mark.parametrize(
    ("discipline", "key"),
    [
        ("dualpi2", "t_update_ms"),
        ("dualpi2", "target_ms"),
        ("pie", "t_update_ms"),
        ("pie", "target_ms"),
        ("codel", "interval_ms"),
        ("fq_codel", "target_ms"),
    ],
)
def test_queue_timers_below_the_floor_are_refused(discipline: str, key: str) -> None:
    _refused(
        _with_queue(discipline=discipline, **{key: SUB_NS_MS}), f"scenario.paths[0].queue.{key}"
    )
    _refused(
        _with_queue(discipline=discipline, **{key: MIN_QUEUE_TIME_MS * 0.99}),
        f"scenario.paths[0].queue.{key}",
    )


def test_queue_timers_at_the_floor_are_accepted() -> None:
    load_scenario(_with_queue(discipline="dualpi2", t_update_ms=MIN_QUEUE_TIME_MS, target_ms=1.0))
    load_scenario(_with_queue(discipline="pie", t_update_ms=MIN_QUEUE_TIME_MS))


@pytest.mark.parametrize("key", ["l4s_min_th_ms", "l4s_range_ms", "time_shift_ms"])
def test_optional_queue_times_are_zero_or_at_least_one_nanosecond(key: str) -> None:
    msg = _refused(
        _with_queue(discipline="dualpi2", **{key: SUB_NS_MS}), f"scenario.paths[0].queue.{key}"
    )
    assert "must be 0 or at least 1e-6" in msg
    load_scenario(_with_queue(discipline="dualpi2", **{key: 0.0}))
    load_scenario(_with_queue(discipline="dualpi2", **{key: 1e-6}))


@pytest.mark.parametrize("build", [_with_flow, _with_cross])
def test_onoff_periods_and_udp_rate_are_bounded(build: Any) -> None:
    prefix = (
        "scenario.traffic.flows[0]" if build is _with_flow else "scenario.traffic.cross_traffic[0]"
    )
    extra = {"transport": "udp_onoff"} if build is _with_flow else {}
    _refused(build(**extra, on_s=1e-10), f"{prefix}.on_s")
    msg = _refused(build(**extra, off_s=1e-10), f"{prefix}.off_s")
    assert re.search(r"must be 0 or at least 0\.001", msg)
    _refused(build(**extra, off_s=MIN_ONOFF_PERIOD_S / 2), f"{prefix}.off_s")
    _refused(build(**extra, rate_mbps=1e6), f"{prefix}.rate_mbps")
    load_scenario(build(**extra, on_s=MIN_ONOFF_PERIOD_S, off_s=0.0, rate_mbps=MAX_UDP_RATE_MBPS))
    load_scenario(build(**extra, on_s=MIN_ONOFF_PERIOD_S, off_s=MIN_ONOFF_PERIOD_S))


def test_start_and_stop_times_are_whole_nanoseconds() -> None:
    _refused(_with_flow(stop_s=1e-12), "scenario.traffic.flows[0].stop_s")
    _refused(_with_flow(start_s=1e-12), "scenario.traffic.flows[0].start_s")
    _refused(_with_cross(stop_s=1e-12), "scenario.traffic.cross_traffic[0].stop_s")
    d = _tiny_yaml()
    d.setdefault("traffic", {})["start_s"] = 1e-12
    _refused(d, "scenario.traffic.start_s")


@pytest.mark.parametrize(
    ("flows", "bad"),
    [
        ([{"name": "x"}, {"name": "x"}], 1),
        ([{"name": "connection"}], 0),
        ([{"name": "a.0"}, {"name": "a", "count": 2}], 1),
        ([{"name": "a", "count": 2}, {"name": "a.1"}], 1),
        ([{"name": "flow1"}, {}], 1),
    ],
)
def test_duplicate_flow_names_are_refused(flows: list[dict[str, Any]], bad: int) -> None:
    d = _tiny_yaml()
    route = d["paths"][0].get("name") or "satellite0"
    d.setdefault("traffic", {})["flows"] = [{"routes": [route], **f} for f in flows]
    msg = _refused(d, f"scenario.traffic.flows[{bad}].name")
    assert "must be unique" in msg


def test_distinct_flow_names_are_accepted() -> None:
    d = _tiny_yaml()
    route = d["paths"][0].get("name") or "satellite0"
    d.setdefault("traffic", {})["flows"] = [
        {"routes": [route], "name": "a", "count": 2},
        {"routes": [route], "name": "a.2"},
        {"routes": [route]},
    ]
    load_scenario(d)


@pytest.mark.parametrize(("key", "value"), [("cc", "TcpCubic"), ("scheduler", "roundrobin")])
def test_udp_onoff_takes_no_cc_or_scheduler(key: str, value: str) -> None:
    msg = _refused(
        _with_flow(transport="udp_onoff", **{key: value}), f"scenario.traffic.flows[0].{key}"
    )
    assert "udp_onoff" in msg


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"max_ack_delay_s": 1e-10}, "env.transport.max_ack_delay_s"),
        (
            {"recovery": "tcp", "recovery_params": {"min_rto_s": 1e-10}},
            "env.transport.recovery_params.min_rto_s",
        ),
        (
            {"recovery": "tcp", "recovery_params": {"max_rto_s": 1e-10}},
            "env.transport.recovery_params.max_rto_s",
        ),
        ({"subflow_paths": [0, 0]}, "env.transport.subflow_paths"),
        ({"subflow_paths": []}, "env.transport.subflow_paths"),
    ],
)
def test_transport_options_refused_by_the_schema(options: dict[str, Any], field: str) -> None:
    with pytest.raises(FieldError) as err:
        check(TransportOptions.coerce(options), "env.transport")
    assert err.value.field == field, str(err.value)


def test_transport_options_against_the_scenario() -> None:
    with pytest.raises(FieldError, match=r"^env\.transport\.subflow_paths\[1\]: path 2 does"):
        check_against_scenario(TransportOptions(subflow_paths=[0, 2]), 2, 1400)
    with pytest.raises(FieldError, match=r"^env\.transport\.receive_window_bytes: .*1400 B"):
        check_against_scenario(TransportOptions(receive_window_bytes=1399), 2, 1400)
    check_against_scenario(TransportOptions(subflow_paths=[1], receive_window_bytes=1400), 2, 1400)


@pytest.mark.parametrize("paths", [[1], [1, 0], [0]])
def test_an_env_takes_every_path_in_order(paths: list[int]) -> None:
    with pytest.raises(FieldError, match=r"^env\.transport\.subflow_paths: an env uses every"):
        check_env_subflow_paths(TransportOptions(subflow_paths=paths), 2)
    check_env_subflow_paths(TransportOptions(subflow_paths=[0, 1]), 2)
    check_env_subflow_paths(TransportOptions(), 2)


def test_udp_sources_together_are_bounded() -> None:
    """Each source may send the maximum, but not all of them together: cross traffic and
    ``udp_onoff`` flows, ``count`` included, add up (after ``rate_scale``)."""
    half = MAX_UDP_RATE_MBPS / 2
    d = _with_cross(rate_mbps=half, count=2)
    load_scenario(d)
    route = d["paths"][0].get("name") or "satellite0"
    d["traffic"]["flows"] = [{"transport": "udp_onoff", "routes": [route], "rate_mbps": 1.0}]
    msg = _refused(d, "scenario.traffic.flows[0].rate_mbps")
    assert "together send at most 10000 Mbit/s" in msg
    _refused(_with_cross(rate_mbps=half, count=3), "scenario.traffic.cross_traffic[0].rate_mbps")
    d["rate_scale"] = 2.0
    load_scenario(d)
