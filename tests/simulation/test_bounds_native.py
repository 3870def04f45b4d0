"""Issue 33: values that used to abort ns-3 (a DualPI2 update period rounding to 0 ns) or hang
a step (a PIE update period or an on/off period of ~0) are refused with a FieldError naming the
field before ns-3 sees them. Each case runs in its own interpreter with a timeout, so an abort
or a hang (the old behaviour) fails the test instead of killing or stalling the session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import yaml

from leogym.schema import FieldError

pytestmark = pytest.mark.native

TINY = Path(__file__).resolve().parents[2] / "conf" / "scenario" / "tiny.yaml"

#: Builds the env from a JSON scenario, resets it and runs one 1 ms step; prints the error.
_CHILD = """
import json, sys
import gymnasium as gym
import leogym.envs  # noqa: F401
from leogym.schema import FieldError
scenario = json.loads(sys.argv[1])
try:
    env = gym.make("leogym/LeoCC-v0", scenario=scenario, cc="cubic", step_ms=1.0, episode_s=0.01)
    env.reset(seed=1)
    env.step(env.action_space.sample())
except FieldError as exc:
    print("FieldError", exc)
    sys.exit(0)
print("ran")
"""


def _tiny() -> dict[str, Any]:
    with TINY.open(encoding="utf-8") as f:
        return dict(yaml.safe_load(f))


def _child(scenario: dict[str, Any]) -> str:
    """The child's output; fails on an abort (a signal) or a hang (the timeout)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(scenario)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("one 1 ms step did not return within 60 s (a zero-delay event loop)")
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout.strip()


def _queue(**queue: Any) -> dict[str, Any]:
    d = _tiny()
    d["paths"][0].setdefault("queue", {}).update(queue)
    return d


def _udp_flow(**flow: Any) -> dict[str, Any]:
    d = _tiny()
    route = d["paths"][0].get("name") or "satellite0"
    d.setdefault("traffic", {})["flows"] = [{"transport": "udp_onoff", "routes": [route], **flow}]
    return d


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    ("scenario", "field"),
    [
        (_queue(discipline="dualpi2", t_update_ms=4e-7), "scenario.paths[0].queue.t_update_ms"),
        (_queue(discipline="dualpi2", target_ms=4e-7), "scenario.paths[0].queue.target_ms"),
        (_queue(discipline="pie", t_update_ms=4e-7), "scenario.paths[0].queue.t_update_ms"),
        (_udp_flow(on_s=1e-10), "scenario.traffic.flows[0].on_s"),
        (_udp_flow(on_s=0.5, off_s=1e-10), "scenario.traffic.flows[0].off_s"),
    ],
    ids=["dualpi2-t_update", "dualpi2-target", "pie-t_update", "onoff-on", "onoff-off"],
)
def test_unrepresentable_times_are_refused_before_ns3(scenario: dict[str, Any], field: str) -> None:
    assert _child(scenario).startswith(f"FieldError {field}: ")


@pytest.mark.timeout(240)
def test_the_floors_themselves_run() -> None:
    """At the floors (1 us queue timers, 1 ms on/off periods) one step runs."""
    d = _queue(discipline="dualpi2", t_update_ms=1e-3)
    route = d["paths"][0].get("name") or "satellite0"
    d.setdefault("traffic", {})["flows"] = [
        {"transport": "udp_onoff", "routes": [route], "on_s": 1e-3, "off_s": 1e-3}
    ]
    assert _child(d) == "ran"


@pytest.mark.parametrize(
    ("transport", "field"),
    [
        ({"receive_window_bytes": 1024}, "env.transport.receive_window_bytes"),
        ({"subflow_paths": [0, 0]}, "env.transport.subflow_paths"),
        ({"subflow_paths": [3]}, "env.transport.subflow_paths[0]"),
        ({"max_ack_delay_s": 1e-10}, "env.transport.max_ack_delay_s"),
    ],
)
def test_env_transport_options_are_refused_at_construction(
    transport: dict[str, Any], field: str
) -> None:
    import leogym.envs  # noqa: F401

    with pytest.raises(FieldError) as err:
        gym.make("leogym/LeoCC-v0", scenario=_tiny(), cc="cubic", transport=transport)
    assert err.value.field == field, str(err.value)
