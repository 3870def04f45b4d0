"""Malformed, unexpected or missing messages: clear errors, clean shutdown, never a hang."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import psutil
import pytest
import zmq
from ns3gym_helpers import Background
from ns3gym_reference import cpp_box_container, cpp_box_space, cpp_discrete_space
from ns3gym_toy_envs import CounterEnv

import leogym  # noqa: F401
from leogym.envs.ns3gym_env import Ns3GymEnv
from leogym.ns3gym import (
    Ns3GymError,
    Ns3GymProtocolError,
    Ns3GymServer,
    Ns3GymSpaceError,
    Ns3GymTimeoutError,
)
from leogym.ns3gym import messages as pb

pytestmark = pytest.mark.timeout(30)

RECV_MS = 5000


def _init_msg() -> pb.SimInitMsg:
    init = pb.SimInitMsg()
    init.obsSpace.CopyFrom(cpp_box_space(0, 10, [2], "uint32_t"))
    init.actSpace.CopyFrom(cpp_discrete_space(3))
    return init


def _state(values: list[int], **fields: Any) -> pb.EnvStateMsg:
    state = pb.EnvStateMsg(**fields)
    state.obsData.CopyFrom(cpp_box_container(values, [2], "uint32_t"))
    return state


def _raw_sim(port: int, steps: list[bytes | None]) -> Background:
    """A REQ peer that sends each item and collects the answers; ``None`` means go silent."""

    def run() -> list[bytes]:
        context = zmq.Context()
        sock = context.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(f"tcp://127.0.0.1:{port}")
        answers = []
        try:
            for data in steps:
                if data is None:
                    time.sleep(1.5)
                    break
                sock.send(data)
                if not sock.poll(RECV_MS):
                    break
                answers.append(sock.recv())
        finally:
            sock.close(linger=0)
            context.term()
        return answers

    return Background(run)


def _raw_agent(port: int, script: Callable[[zmq.Socket], Any]) -> Background:
    """A REP peer bound on 127.0.0.1:port running ``script(socket)``."""
    context = zmq.Context()
    sock = context.socket(zmq.REP)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(f"tcp://127.0.0.1:{port}")

    def run() -> Any:
        try:
            return script(sock)
        finally:
            sock.close(linger=0)
            context.term()

    return Background(run)


def _recv(sock: zmq.Socket, cls: Any) -> Any:
    assert sock.poll(RECV_MS), f"no {cls.DESCRIPTOR.name}"
    return cls.FromString(sock.recv())


def _client(port: int, **kwargs: Any) -> Ns3GymEnv:
    kwargs.setdefault("handshake_timeout_s", 5.0)
    kwargs.setdefault("step_timeout_s", 5.0)
    return Ns3GymEnv(port=port, **kwargs)


# -- client side ----------------------------------------------------------------------------


def test_client_times_out_when_no_simulation_connects(port: int) -> None:
    start = time.monotonic()
    with pytest.raises(Ns3GymTimeoutError, match=r"no SimInitMsg \(handshake\) .* within 0.3 s"):
        _client(port, handshake_timeout_s=0.3)
    assert time.monotonic() - start < 5.0
    # The socket was released: the port can be bound again at once.
    context = zmq.Context()
    sock = context.socket(zmq.REP)
    sock.bind(f"tcp://127.0.0.1:{port}")
    sock.close(linger=0)
    context.term()


def test_client_times_out_when_the_simulation_goes_silent(port: int) -> None:
    sim = _raw_sim(
        port, [_init_msg().SerializeToString(), _state([1, 2]).SerializeToString(), None]
    )
    env = _client(port, step_timeout_s=0.3)
    try:
        obs, _ = env.reset()
        np.testing.assert_array_equal(obs, [1, 2])
        with pytest.raises(Ns3GymTimeoutError, match=r"no EnvStateMsg after step 1 .* 0.3 s"):
            env.step(1)
        with pytest.raises(Ns3GymError, match=r"no episode in progress"):
            env.step(1)
    finally:
        env.close()
    answers = sim.result()
    assert pb.SimInitAck.FromString(answers[0]).done


def test_client_rejects_an_unknown_any_type_url(port: int) -> None:
    state = _state([1, 2])
    state.obsData.data.type_url = "type.googleapis.com/ns3opengym.NotAContainer"
    sim = _raw_sim(port, [_init_msg().SerializeToString(), state.SerializeToString()])
    with pytest.raises(
        Ns3GymProtocolError,
        match=r"ns3opengym\.NotAContainer.*expected a "
        r"ns3opengym\.BoxDataContainer",
    ):
        _client(port)
    assert sim.result()[-1] == bytes.fromhex("1001")


def test_client_rejects_garbage_and_incomplete_handshakes(port: int) -> None:
    sim = _raw_sim(port, [b"\xff\x01not protobuf"])
    with pytest.raises(Ns3GymProtocolError, match=r"SimInitMsg \(handshake\): cannot decode"):
        _client(port)
    # The simulation is answered with a stop (ns-3 exits on it), not left waiting.
    assert sim.result() == [bytes.fromhex("1001")]
    init = _init_msg()
    init.ClearField("obsSpace")
    sim = _raw_sim(port, [init.SerializeToString()])
    with pytest.raises(Ns3GymProtocolError, match="SimInitMsg has no obsSpace"):
        _client(port)
    assert sim.result() == [pb.SimInitAck(done=True).SerializeToString()]


def test_client_rejects_a_state_in_place_of_an_init(port: int) -> None:
    sim = _raw_sim(port, [_state([1, 2], reward=1.0).SerializeToString()])
    with pytest.raises(Ns3GymProtocolError, match=r"SimInitMsg carries field number"):
        _client(port)
    assert sim.result() == [bytes.fromhex("1001")]


def test_client_missing_observation(port: int) -> None:
    no_obs = pb.EnvStateMsg(reward=1.0)
    final_no_obs = pb.EnvStateMsg(reward=2.0, isGameOver=True)
    sim = _raw_sim(
        port,
        [
            _init_msg().SerializeToString(),
            _state([1, 2]).SerializeToString(),
            final_no_obs.SerializeToString(),
        ],
    )
    env = _client(port)
    try:
        env.reset()
        # A final state without obsData (issue #80 upstream gave None): the last obs is repeated.
        obs, reward, terminated, truncated, info = env.step(0)
        np.testing.assert_array_equal(obs, [1, 2])
        assert (reward, terminated, truncated) == (2.0, False, True)
        assert info == {"ns3gym_missing_obs": True, "ns3gym_reason": "SimulationEnd"}
    finally:
        env.close()
    answers = sim.result()
    assert pb.EnvActMsg.FromString(answers[-1]).stopSimReq

    sim = _raw_sim(port, [_init_msg().SerializeToString(), no_obs.SerializeToString()])
    with pytest.raises(Ns3GymProtocolError, match=r"EnvStateMsg #0 .*: no obsData"):
        _client(port)
    assert sim.result()[-1] == bytes.fromhex("1001")


def test_client_checks_actions_before_sending(port: int) -> None:
    sim = _raw_sim(
        port,
        [
            _init_msg().SerializeToString(),
            _state([1, 2]).SerializeToString(),
            _state([3, 4], isGameOver=True, reason=1).SerializeToString(),
        ],
    )
    env = _client(port)
    try:
        env.reset()
        with pytest.raises(Ns3GymSpaceError, match=r"action: 5 is not in Discrete\(3\)"):
            env.step(5)
        obs, _, terminated, truncated, info = env.step(2)  # the episode is still intact
        assert (terminated, truncated, info["ns3gym_reason"]) == (True, False, "GameOver")
        np.testing.assert_array_equal(obs, [3, 4])
        with pytest.raises(Ns3GymError, match="no episode in progress"):
            env.step(1)
    finally:
        env.close()
    answers = sim.result()
    act = pb.EnvActMsg.FromString(answers[1])
    assert (
        not act.stopSimReq
        and pb.unpack_any(act.actData.data, pb.DiscreteDataContainer, "x").data == 2
    )
    assert answers[2] == bytes.fromhex("1001")  # stop, immediately, without actData


def test_client_sockets_listen_on_loopback_only(port: int) -> None:
    env_inner = CounterEnv()
    server = Ns3GymServer(env_inner, port, idle_timeout_s=5.0)
    served = Background(lambda: server.serve(episodes=1))
    env = gymnasium.make("leogym/Ns3Gym-v0", port=port, handshake_timeout_s=5.0)
    try:
        assert env.unwrapped.endpoint == f"tcp://127.0.0.1:{port}"
        listening = [
            c
            for c in psutil.Process().net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        ]
        assert listening, "the client should be listening"
        assert {c.laddr.ip for c in listening} == {"127.0.0.1"}
        env.reset()
    finally:
        env.close()
    served.result()
    server.close()


# -- server side ----------------------------------------------------------------------------


def _serve_counter(port: int, **kwargs: Any) -> tuple[Ns3GymServer, Background]:
    kwargs.setdefault("idle_timeout_s", 5.0)
    kwargs.setdefault("step_timeout_s", 5.0)
    server = Ns3GymServer(CounterEnv(), port, **kwargs)

    def run() -> Any:
        try:
            return server.serve(episodes=1)
        finally:
            server.close()

    return server, Background(run)


def _agent_sends(bad: pb.EnvActMsg) -> Callable[[zmq.Socket], Any]:
    def script(sock: zmq.Socket) -> Any:
        _recv(sock, pb.SimInitMsg)
        sock.send(pb.SimInitAck(done=True).SerializeToString())
        _recv(sock, pb.EnvStateMsg)
        sock.send(bad.SerializeToString())
        final = _recv(sock, pb.EnvStateMsg)
        sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString())
        return final

    return script


def test_server_rejects_an_action_without_data_or_stop(port: int) -> None:
    agent = _raw_agent(port, _agent_sends(pb.EnvActMsg()))
    _, served = _serve_counter(port)
    with pytest.raises(Ns3GymProtocolError, match=r"no actData and no stopSimReq"):
        served.result()
    final = agent.result()  # the agent was released with a final state, not left hanging
    assert final.isGameOver and final.reason == pb.Reason.SimulationEnd
    assert "no actData" in json.loads(final.info)["ns3gym_error"]


def test_server_rejects_an_action_of_the_wrong_type(port: int) -> None:
    bad = pb.EnvActMsg()
    bad.actData.CopyFrom(cpp_box_container([1], [1], "uint32_t"))
    agent = _raw_agent(port, _agent_sends(bad))
    _, served = _serve_counter(port)
    with pytest.raises(Ns3GymProtocolError, match=r"DataContainer.type is Box, expected Discrete"):
        served.result()
    assert agent.result().isGameOver


def test_server_times_out_on_a_silent_agent(port: int) -> None:
    def silent(sock: zmq.Socket) -> None:
        _recv(sock, pb.SimInitMsg)
        sock.send(pb.SimInitAck(done=True).SerializeToString())
        _recv(sock, pb.EnvStateMsg)
        time.sleep(1.0)

    agent = _raw_agent(port, silent)
    _, served = _serve_counter(port, step_timeout_s=0.3)
    with pytest.raises(Ns3GymTimeoutError, match=r"no EnvActMsg answering state #0 .* 0.3 s"):
        served.result()
    agent.result()


def test_server_without_agent_gives_up_after_the_idle_timeout(port: int) -> None:
    server = Ns3GymServer(CounterEnv(), port, idle_timeout_s=0.4)
    try:
        with pytest.raises(Ns3GymTimeoutError, match=r"no agent answered SimInitMsg"):
            server.serve()
    finally:
        server.close()


def test_server_stops_on_stop_in_the_init_ack(port: int) -> None:
    def script(sock: zmq.Socket) -> None:
        _recv(sock, pb.SimInitMsg)
        sock.send(pb.SimInitAck(done=True, stopSimReq=True).SerializeToString())

    agent = _raw_agent(port, script)
    server = Ns3GymServer(CounterEnv(), port, idle_timeout_s=5.0)
    try:
        records = server.serve()  # no episode limit: the stop ends serving (upstream: exit)
    finally:
        server.close()
    assert [r.end for r in records] == ["init_stop"]
    agent.result()


def test_server_continues_after_game_over_when_answered_with_an_action(port: int) -> None:
    """The C++ side applies an ordinary answer to a GameOver state and goes on
    (docs/specs/ns3gym-protocol.md#game-over-simulation-end-and-stop)."""

    def act(sock: zmq.Socket, value: int) -> pb.EnvStateMsg:
        msg = pb.EnvActMsg()
        msg.actData.type = pb.SpaceType.Discrete
        pb.pack_any(msg.actData.data, pb.DiscreteDataContainer(data=value))
        sock.send(msg.SerializeToString())
        return _recv(sock, pb.EnvStateMsg)

    def script(sock: zmq.Socket) -> list[pb.EnvStateMsg]:
        _recv(sock, pb.SimInitMsg)
        sock.send(pb.SimInitAck(done=True).SerializeToString())
        _recv(sock, pb.EnvStateMsg)
        over = act(sock, 0)  # action 0 ends the counter game
        again = act(sock, 4)  # not a stop: the game restarts
        sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString())
        return [over, again]

    agent = _raw_agent(port, script)
    _, served = _serve_counter(port)
    over, again = agent.result()
    assert over.isGameOver and over.reason == pb.Reason.GameOver
    assert not again.isGameOver
    box = pb.unpack_any(again.obsData.data, pb.BoxDataContainer, "x")
    assert list(box.uintData) == [0, 1, 2, 3, 0]  # a fresh initial state
    assert [r.end for r in served.result()] == ["stopped"]


def test_server_ignores_the_answer_to_a_simulation_end(port: int) -> None:
    def script(sock: zmq.Socket) -> pb.EnvStateMsg:
        _recv(sock, pb.SimInitMsg)
        sock.send(pb.SimInitAck(done=True).SerializeToString())
        state = _recv(sock, pb.EnvStateMsg)
        for value in (1, 2, 3):  # the counter truncates after 3 steps
            msg = pb.EnvActMsg()
            msg.actData.type = pb.SpaceType.Discrete
            pb.pack_any(msg.actData.data, pb.DiscreteDataContainer(data=value))
            sock.send(msg.SerializeToString())
            state = _recv(sock, pb.EnvStateMsg)
        sock.send(pb.EnvActMsg().SerializeToString())  # neither action nor stop: ignored
        return state

    agent = _raw_agent(port, script)
    _, served = _serve_counter(port)
    final = agent.result()
    assert final.isGameOver and final.reason == pb.Reason.SimulationEnd
    assert "reason" not in {f.name for f, _ in final.ListFields()}  # SimulationEnd = default
    assert [r.end for r in served.result()] == ["simulation_end"]


def test_server_recovers_when_its_first_init_lands_in_a_stale_socket(port: int) -> None:
    """Between episodes the upstream agent keeps its old REP bound until reset(): a SimInitMsg
    sent then is lost with that socket. The server resends it on a fresh socket once the old
    connection drops, and only then (no duplicates reach a live agent)."""
    context = zmq.Context()
    stale = context.socket(zmq.REP)
    stale.setsockopt(zmq.LINGER, 0)
    stale.bind(f"tcp://127.0.0.1:{port}")
    server = Ns3GymServer(CounterEnv(), port, idle_timeout_s=5.0)
    served = Background(lambda: server.serve(episodes=1))
    time.sleep(0.5)  # the first SimInitMsg is now queued in the stale socket
    stale.close(linger=0)
    context.term()
    env = gymnasium.make("leogym/Ns3Gym-v0", port=port, handshake_timeout_s=5.0)
    try:
        obs, _ = env.reset()
        np.testing.assert_array_equal(obs, [0, 1, 2, 3, 0])
    finally:
        env.close()
    assert [r.end for r in served.result()] == ["stopped"]
    server.close()


def test_client_reports_a_server_side_error(port: int) -> None:
    """leogym's server ends an episode it cannot continue with info {"ns3gym_error": ...}."""
    error = pb.EnvStateMsg(isGameOver=True, info='{"ns3gym_error":"Ns3GymProtocolError: boom"}')
    sim = _raw_sim(
        port,
        [
            _init_msg().SerializeToString(),
            _state([1, 2]).SerializeToString(),
            error.SerializeToString(),
        ],
    )
    env = _client(port)
    try:
        env.reset()
        with pytest.raises(Ns3GymProtocolError, match=r"aborted the episode: .*: boom"):
            env.step(1)
    finally:
        env.close()
    assert sim.result()[-1] == bytes.fromhex("1001")  # the client still released the server


def test_server_notices_at_once_when_the_agent_goes_away(port: int) -> None:
    def vanish(sock: zmq.Socket) -> None:
        _recv(sock, pb.SimInitMsg)
        sock.send(pb.SimInitAck(done=True).SerializeToString())
        _recv(sock, pb.EnvStateMsg)  # ... and the agent process ends without answering

    agent = _raw_agent(port, vanish)
    _, served = _serve_counter(port, step_timeout_s=60.0)
    start = time.monotonic()
    with pytest.raises(Ns3GymTimeoutError, match="the agent closed the connection"):
        served.result()
    assert time.monotonic() - start < 10.0  # far below the 60 s step timeout
    agent.result()
