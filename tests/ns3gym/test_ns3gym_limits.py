"""Bounds on what a peer may send: bad action values, message size, space depth and size.

* The server refuses an action that is not an element of the env's action space (NaN, inf, out
  of its bounds) as a protocol error naming the field and value: the agent gets a final state
  naming the error, and ``leogym-ns3gym-serve`` ends in one line (exit 1), never a traceback.
* The client refuses a message longer than ``max_message_bytes``, and a space description that
  nests deeper than ``MAX_SPACE_DEPTH`` or adds up to more than ``MAX_SPACE_ELEMENTS``, with an
  ``Ns3GymProtocolError`` naming what was wrong (not a RecursionError or MemoryError).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import gymnasium
import numpy as np
import pytest
import zmq
from gymnasium import spaces
from ns3gym_helpers import Background
from ns3gym_reference import cpp_box_space, cpp_discrete_space, cpp_tuple_space

from leogym.envs.ns3gym_env import Ns3GymEnv
from leogym.ns3gym import Ns3GymProtocolError, Ns3GymServer
from leogym.ns3gym import messages as pb
from leogym.ns3gym.spaces import MAX_SPACE_DEPTH, description_to_space

pytestmark = pytest.mark.timeout(60)

RECV_MS = 5000


class BoxActEnv(gymnasium.Env):
    """Observations 0, 1, 2, ...; actions in Box([-1, 1]^2); never ends by itself."""

    def __init__(self) -> None:
        self.observation_space = spaces.Box(0, 100, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.0], dtype=np.float32), {}

    def step(self, action: Any):
        self.t += 1
        return np.array([self.t], dtype=np.float32), 1.0, False, False, {}


def _action(values: list[float]) -> pb.EnvActMsg:
    payload = pb.BoxDataContainer(dtype=pb.Dtype.FLOAT, shape=[len(values)], floatData=values)
    msg = pb.EnvActMsg()
    msg.actData.type = pb.SpaceType.Box
    pb.pack_any(msg.actData.data, payload)
    return msg


def _raw_agent(port: int, bad: pb.EnvActMsg) -> Background:
    """A REP peer that acks the handshake, answers state #0 with ``bad`` and returns the state
    that follows (answering it with a stop)."""
    context = zmq.Context()
    sock = context.socket(zmq.REP)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(f"tcp://127.0.0.1:{port}")

    def recv(cls: Any) -> Any:
        assert sock.poll(RECV_MS), f"no {cls.DESCRIPTOR.name}"
        return cls.FromString(sock.recv())

    def run() -> pb.EnvStateMsg:
        try:
            recv(pb.SimInitMsg)
            sock.send(pb.SimInitAck(done=True).SerializeToString())
            recv(pb.EnvStateMsg)
            sock.send(bad.SerializeToString())
            after = recv(pb.EnvStateMsg)
            sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString())
            return after
        finally:
            sock.close(linger=0)
            context.term()

    return Background(run)


BAD_ACTIONS = [
    ([float("nan"), 0.0], r"\[0\]: value nan at index \[0\] is not a finite number"),
    ([0.0, float("inf")], r"\[0\]: value inf at index \[1\] is not a finite number"),
    ([0.5, 5.0], r"\[0\]: value 5.0 at index \[1\] is outside \[-1.0, 1.0\]"),
]


@pytest.mark.parametrize(("values", "match"), BAD_ACTIONS, ids=["nan", "inf", "range"])
def test_server_refuses_an_action_outside_the_action_space(
    port: int, values: list[float], match: str
) -> None:
    agent = _raw_agent(port, _action(values))
    server = Ns3GymServer(BoxActEnv(), port, idle_timeout_s=5.0, step_timeout_s=5.0)
    try:
        with pytest.raises(Ns3GymProtocolError, match=r"EnvActMsg\(state #0\)\.actData: value"):
            server.serve(episodes=1)
    finally:
        server.close()
    final = agent.result()  # released with a final state naming the error, not a next state
    assert final.isGameOver and final.reason == pb.Reason.SimulationEnd
    error = json.loads(final.info)["ns3gym_error"]
    assert error.startswith("Ns3GymProtocolError: EnvActMsg(state #0).actData: value"), error
    assert " at index " in error


def test_server_accepts_actions_on_the_bounds(port: int) -> None:
    agent = _raw_agent(port, _action([-1.0, 1.0]))
    server = Ns3GymServer(BoxActEnv(), port, idle_timeout_s=5.0, step_timeout_s=5.0)
    try:
        (record,) = server.serve(episodes=1)
    finally:
        server.close()
    after = agent.result()
    assert not after.isGameOver and record.end == "stopped" and record.steps == 1


class PerElementEnv(BoxActEnv):
    """Actions in a float64 Box with per-element bounds [-1, 0.1] x [-0.5, 1]."""

    def __init__(self) -> None:
        super().__init__()
        self.action_space = spaces.Box(
            np.array([-1.0, -0.5]), np.array([0.1, 1.0]), dtype=np.float64
        )
        self.actions: list[np.ndarray] = []

    def step(self, action: Any):
        self.actions.append(action)
        return super().step(action)


@pytest.mark.parametrize(
    "values",
    [[np.float32(0.1), 1.0], [0.9, -0.9]],
    ids=["float32-of-a-float64-bound", "per-element-bound"],
)
def test_server_checks_the_bounds_it_sent(port: int, values: list[float]) -> None:
    """The agent was told [-1, 1] (the enclosing interval, float32): a bound sent as FLOAT and
    a value beyond a per-element bound it could not know reach the env."""
    env = PerElementEnv()
    agent = _raw_agent(port, _action([float(v) for v in values]))
    server = Ns3GymServer(env, port, idle_timeout_s=5.0, step_timeout_s=5.0)
    try:
        (record,) = server.serve(episodes=1)
    finally:
        server.close()
    assert not agent.result().isGameOver and record.steps == 1
    np.testing.assert_array_equal(env.actions[0], np.array(values, dtype=np.float32))


@pytest.mark.parametrize("value", ["nan", "inf", "-3.5"])
def test_cli_ends_in_one_line_on_a_bad_action(port: int, value: str) -> None:
    """Pendulum-v1's torque is a Box [-2, 2]: the server ends with exit status 1 and one line
    naming the field and value, no traceback."""
    agent = _raw_agent(port, _action([float(value)]))
    done = subprocess.run(
        [sys.executable, "-m", "leogym.ns3gym.cli", "--port", str(port), "env=Pendulum-v1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert agent.result().isGameOver
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(
        "leogym-ns3gym-serve: Ns3GymProtocolError: EnvActMsg(state #0).actData: value "
    ), lines[0]


# -- the client: message size, space depth and size -----------------------------------------


def _nested(depth: int) -> pb.SpaceDescription:
    """A Discrete inside ``depth - 1`` one-element Tuples (``depth`` levels in all)."""
    desc = cpp_discrete_space(2)
    for _ in range(depth - 1):
        desc = cpp_tuple_space([desc])
    return desc


def test_space_nesting_is_bounded() -> None:
    description_to_space(_nested(MAX_SPACE_DEPTH), "obs")  # the deepest accepted
    with pytest.raises(Ns3GymProtocolError, match=rf"nests deeper than {MAX_SPACE_DEPTH} levels"):
        description_to_space(_nested(MAX_SPACE_DEPTH + 1), "obs")
    # far past Python's recursion limit: still a protocol error naming the path
    with pytest.raises(Ns3GymProtocolError, match=r"^obs(\.element\[0\]){32}: the space"):
        description_to_space(_nested(2000), "obs")


def test_space_size_is_bounded() -> None:
    # 2**40 values: refused before any bounds array is allocated
    huge = cpp_box_space(0, 1, [2**20, 2**20], "float")
    with pytest.raises(
        Ns3GymProtocolError,
        match=r"^obs: a Box of shape \[1048576, 1048576\] takes the space description past "
        r"1000000 elements",
    ):
        description_to_space(huge, "obs")
    wide = cpp_tuple_space([cpp_discrete_space(2)] * 6)  # 6 entries + 6 Discretes = 12
    assert len(description_to_space(wide, "obs", max_elements=12)) == 6
    with pytest.raises(Ns3GymProtocolError, match=r"past 11 elements"):
        description_to_space(wide, "obs", max_elements=11)


def _raw_sim(port: int, init: pb.SimInitMsg) -> Background:
    """A REQ peer that sends ``init`` and returns the answer (``None`` if there is none)."""

    def run() -> bytes | None:
        context = zmq.Context()
        sock = context.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(f"tcp://127.0.0.1:{port}")
        try:
            sock.send(init.SerializeToString())
            return sock.recv() if sock.poll(RECV_MS) else None
        finally:
            sock.close(linger=0)
            context.term()

    return Background(run)


def _init(obs: pb.SpaceDescription) -> pb.SimInitMsg:
    init = pb.SimInitMsg()
    init.obsSpace.CopyFrom(obs)
    init.actSpace.CopyFrom(cpp_discrete_space(3))
    return init


@pytest.mark.parametrize(
    ("obs", "match"),
    [
        (_nested(5000), r"SimInitMsg\.obsSpace(\.element\[0\]){32}: the space description nests"),
        (
            cpp_box_space(0, 1, [100000, 100000], "double"),
            r"SimInitMsg\.obsSpace: a Box of shape \[100000, 100000\] takes the space",
        ),
    ],
    ids=["deep", "huge"],
)
def test_client_refuses_a_deep_or_huge_space(port: int, obs: pb.SpaceDescription, match) -> None:
    sim = _raw_sim(port, _init(obs))
    with pytest.raises(Ns3GymProtocolError, match=match):
        Ns3GymEnv(port=port, handshake_timeout_s=5.0, step_timeout_s=5.0)
    sim.result()


def test_client_refuses_a_message_over_its_size_limit(port: int) -> None:
    init = _init(cpp_discrete_space(2))
    init.obsSpace.name = "x" * 2000
    size = init.ByteSize()
    sim = _raw_sim(port, init)
    start = time.monotonic()
    with pytest.raises(
        Ns3GymProtocolError,
        match=rf"^SimInitMsg \(handshake\): a message of {size} bytes, longer than "
        r"max_message_bytes=1000$",
    ):
        Ns3GymEnv(port=port, handshake_timeout_s=5.0, max_message_bytes=1000)
    assert time.monotonic() - start < 4.0  # refused at once, not timed out
    sim.result()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "64"])
def test_max_message_bytes_must_be_a_positive_integer(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"^max_message_bytes: must be an integer >= 1"):
        Ns3GymEnv(port=0, max_message_bytes=bad)
