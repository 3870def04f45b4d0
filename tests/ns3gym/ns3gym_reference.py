"""Reference peers for the ns3-gym conformance tests, written from the protocol spec.

They model the two upstream sides as docs/specs/ns3gym-protocol.md describes them, and
deliberately share no code with ``leogym.ns3gym`` beyond the message classes (whose schema
test_ns3gym_messages.py checks against protoc): spaces and values are built the way the upstream
code builds them, ``Any`` is packed with protobuf's own ``Pack``/``Unpack``, and sockets are raw
pyzmq. Unlike upstream, every receive has a deadline.

* :class:`ReferenceAgent` behaves like upstream's Python ``ns3gym.Ns3Env`` with
  ``startSim=False`` (docs/specs/ns3gym-protocol.md#message-flow and
  #upstream-clients-spaces-and-values): old gym API, spaces mapped as the client
  did with NumPy < 1.24 (``np.int``/``np.float`` meant int64/float64), actions packed by the
  Python type of the action space, automatic stop on game over, re-bind on reset.
* :class:`ReferenceSim` behaves like the C++ ``OpenGymInterface``
  (docs/specs/ns3gym-protocol.md#what-the-c-side-puts-in-the-messages, #handshake to
  #game-over-simulation-end-and-stop):
  lazy init on the first notification, one ``EnvStateMsg`` per notification, exit on
  ``stopSimReq``, ``NotifySimulationEnd`` ignoring the reply's content, and continuing after a
  GameOver when the answer is an ordinary action.

Scenarios (the same toy games as ns3gym_toy_envs.py, written as C++-style callbacks):

* ``counter``: obs ``Box(0, 10, (5,), uint32_t)`` = ``[t, t+1, t+2, t+3, last action]``, action
  ``Discrete(5)``; reward ``0.1 * t``; info ``{"t":<t>}``; game over when the last action was 0;
  three periodic notifications, then ``NotifySimulationEnd``.
* ``allspaces``: Dict obs with a float, double, int32_t and uint32_t Box, a Discrete and a nested
  Tuple; Tuple action of Discrete and Boxes of all four wire dtypes; the obs echoes the action;
  game over after two steps.
* ``dictact``: obs ``Discrete(10)``; Dict action ``{"a": Discrete(3), "b": Box(0, 5, (2,),
  uint32_t)}``; obs = ``(a + b0 + b1) % 10``; reward 1; simulation end after two steps.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import numpy as np
import zmq
from gymnasium import spaces

from leogym.ns3gym import messages as pb
from leogym.ns3gym.transcript import Transcript

TIMEOUT_S = 10.0

# -- C++-side builders (OpenGymBoxSpace, OpenGymBoxContainer<T>, ...) ------------------------

#: ns-3 TypeNameGet<T>() names and the wire dtype the C++ module derives from them.
_CPP_DTYPES = {
    "int8_t": pb.Dtype.INT,
    "int16_t": pb.Dtype.INT,
    "int32_t": pb.Dtype.INT,
    "int64_t": pb.Dtype.INT,
    "uint8_t": pb.Dtype.UINT,
    "uint16_t": pb.Dtype.UINT,
    "uint32_t": pb.Dtype.UINT,
    "uint64_t": pb.Dtype.UINT,
    "float": pb.Dtype.FLOAT,
    "double": pb.Dtype.DOUBLE,
}


def cpp_box_space(low: float, high: float, shape: list[int], type_name: str) -> pb.SpaceDescription:
    desc = pb.SpaceDescription(type=pb.SpaceType.Box)
    desc.space.Pack(
        pb.BoxSpace(
            low=low, high=high, shape=shape, dtype=_CPP_DTYPES.get(type_name, pb.Dtype.FLOAT)
        )
    )
    return desc


def cpp_discrete_space(n: int) -> pb.SpaceDescription:
    desc = pb.SpaceDescription(type=pb.SpaceType.Discrete)
    desc.space.Pack(pb.DiscreteSpace(n=n))
    return desc


def cpp_tuple_space(elements: list[pb.SpaceDescription]) -> pb.SpaceDescription:
    desc = pb.SpaceDescription(type=pb.SpaceType.Tuple)
    desc.space.Pack(pb.TupleSpace(element=elements))
    return desc


def cpp_dict_space(elements: dict[str, pb.SpaceDescription]) -> pb.SpaceDescription:
    # std::map: sorted by key; each element carries its key in `name`.
    payload = pb.DictSpace()
    for key in sorted(elements):
        child = payload.element.add()
        child.CopyFrom(elements[key])
        child.name = key
    desc = pb.SpaceDescription(type=pb.SpaceType.Dict)
    desc.space.Pack(payload)
    return desc


def cpp_box_container(values: list[float], shape: list[int], type_name: str) -> pb.DataContainer:
    dtype = _CPP_DTYPES.get(type_name, pb.Dtype.FLOAT)
    box = pb.BoxDataContainer(dtype=dtype, shape=shape)
    field = {
        pb.Dtype.INT: box.intData,
        pb.Dtype.UINT: box.uintData,
        pb.Dtype.FLOAT: box.floatData,
        pb.Dtype.DOUBLE: box.doubleData,
    }[dtype]
    field.extend(values)
    container = pb.DataContainer(type=pb.SpaceType.Box)
    container.data.Pack(box)
    return container


def cpp_discrete_container(value: int) -> pb.DataContainer:
    container = pb.DataContainer(type=pb.SpaceType.Discrete)
    container.data.Pack(pb.DiscreteDataContainer(data=value))
    return container


def cpp_tuple_container(elements: list[pb.DataContainer]) -> pb.DataContainer:
    container = pb.DataContainer(type=pb.SpaceType.Tuple)
    container.data.Pack(pb.TupleDataContainer(element=elements))
    return container


def cpp_dict_container(elements: dict[str, pb.DataContainer]) -> pb.DataContainer:
    payload = pb.DictDataContainer()
    for key in sorted(elements):
        child = payload.element.add()
        child.CopyFrom(elements[key])
        child.name = key
    container = pb.DataContainer(type=pb.SpaceType.Dict)
    container.data.Pack(payload)
    return container


def cpp_read_action(container: pb.DataContainer) -> Any:
    """Decode actData as the C++ side does: typed by dtype, shape ignored."""
    if container.type == pb.SpaceType.Discrete:
        inner = pb.DiscreteDataContainer()
        assert container.data.Unpack(inner)
        return inner.data
    if container.type == pb.SpaceType.Box:
        inner = pb.BoxDataContainer()
        assert container.data.Unpack(inner)
        field = {
            pb.Dtype.INT: inner.intData,
            pb.Dtype.UINT: inner.uintData,
            pb.Dtype.DOUBLE: inner.doubleData,
        }.get(inner.dtype, inner.floatData)
        return ("box", pb.enum_name("Dtype", inner.dtype), list(field))
    if container.type == pb.SpaceType.Tuple:
        inner = pb.TupleDataContainer()
        assert container.data.Unpack(inner)
        return tuple(cpp_read_action(e) for e in inner.element)
    if container.type == pb.SpaceType.Dict:
        inner = pb.DictDataContainer()
        assert container.data.Unpack(inner)
        return {e.name: cpp_read_action(e) for e in inner.element}
    return None  # an unset type: the C++ side hands the scenario a null pointer


# -- scenarios: C++-style callbacks ---------------------------------------------------------


class CounterScenario:
    """The ``counter`` game (see the module docstring)."""

    steps = 3

    def __init__(self) -> None:
        self.t = 0
        self.last = 0

    def obs_space(self) -> pb.SpaceDescription:
        return cpp_box_space(0, 10, [5], "uint32_t")

    def act_space(self) -> pb.SpaceDescription:
        return cpp_discrete_space(5)

    def obs(self) -> pb.DataContainer:
        t = self.t
        return cpp_box_container([t, t + 1, t + 2, t + 3, self.last], [5], "uint32_t")

    def reward(self) -> float:
        return 0.1 * self.t

    def game_over(self) -> bool:
        return self.t > 0 and self.last == 0

    def info(self) -> str:
        return f'{{"t":{self.t}}}'

    def execute(self, action: Any) -> None:
        self.last = int(action)
        self.t += 1

    def run(self, sim: ReferenceSim) -> None:
        # ScheduleNextStateRead every step from t = 0; then Simulator::Run returns.
        for _ in range(self.steps):
            sim.notify()
        sim.notify_simulation_end()


class AllSpacesScenario:
    """The ``allspaces`` game (see the module docstring)."""

    def __init__(self) -> None:
        self.t = 0
        self.d = 0
        self.f = [0.0, 0.0]
        self.g = [0.0, 0.0]
        self.i = [0, 0]
        self.u = [0, 0]

    def obs_space(self) -> pb.SpaceDescription:
        return cpp_dict_space(
            {
                "count": cpp_discrete_space(4),
                "f32": cpp_box_space(-1, 1, [3], "float"),
                "f64": cpp_box_space(-1000, 1000, [2], "double"),
                "i32": cpp_box_space(-100, 100, [2], "int32_t"),
                "nested": cpp_tuple_space(
                    [cpp_discrete_space(3), cpp_box_space(0, 255, [2], "uint8_t")]
                ),
                "u32": cpp_box_space(0, 1000, [2], "uint32_t"),
            }
        )

    def act_space(self) -> pb.SpaceDescription:
        return cpp_tuple_space(
            [
                cpp_discrete_space(4),
                cpp_box_space(-1, 1, [2], "float"),
                cpp_box_space(-1000, 1000, [2], "double"),
                cpp_box_space(-100, 100, [2], "int32_t"),
                cpp_box_space(0, 1000, [2], "uint32_t"),
            ]
        )

    def obs(self) -> pb.DataContainer:
        t = self.t
        return cpp_dict_container(
            {
                "count": cpp_discrete_container(t),
                "f32": cpp_box_container([self.f[0], self.f[1], 0.1 * t], [3], "float"),
                "f64": cpp_box_container(self.g, [2], "double"),
                "i32": cpp_box_container(self.i, [2], "int32_t"),
                "nested": cpp_tuple_container(
                    [
                        cpp_discrete_container(self.d % 3),
                        cpp_box_container([t, 2 * t], [2], "uint8_t"),
                    ]
                ),
                "u32": cpp_box_container(self.u, [2], "uint32_t"),
            }
        )

    def reward(self) -> float:
        return float(self.d)

    def game_over(self) -> bool:
        return self.t == 2

    def info(self) -> str:
        return ""

    def execute(self, action: Any) -> None:
        d, f, g, i, u = action
        # An OpenGymBoxContainer<float> arrives for the double Box (upstream client quirk).
        assert f[:2] == ("box", "FLOAT") and g[:2] == ("box", "FLOAT"), action
        assert i[:2] == ("box", "INT") and u[:2] == ("box", "UINT"), action
        self.d, self.f, self.g, self.i, self.u = d, f[2], g[2], i[2], u[2]
        self.t += 1

    def run(self, sim: ReferenceSim) -> None:
        for _ in range(10):
            sim.notify()


class DictActScenario:
    """The ``dictact`` game (see the module docstring)."""

    steps = 2

    def __init__(self) -> None:
        self.value = 0
        self.t = 0

    def obs_space(self) -> pb.SpaceDescription:
        return cpp_discrete_space(10)

    def act_space(self) -> pb.SpaceDescription:
        return cpp_dict_space(
            {"a": cpp_discrete_space(3), "b": cpp_box_space(0, 5, [2], "uint32_t")}
        )

    def obs(self) -> pb.DataContainer:
        return cpp_discrete_container(self.value)

    def reward(self) -> float:
        return 1.0 if self.t > 0 else 0.0  # nothing earned before the first action

    def game_over(self) -> bool:
        return False

    def info(self) -> str:
        return ""

    def execute(self, action: Any) -> None:
        b = action["b"]
        assert b[:2] == ("box", "UINT"), action
        self.value = (action["a"] + b[2][0] + b[2][1]) % 10
        self.t += 1

    def run(self, sim: ReferenceSim) -> None:
        for _ in range(self.steps):
            sim.notify()
        sim.notify_simulation_end()


SCENARIOS = {"counter": CounterScenario, "allspaces": AllSpacesScenario, "dictact": DictActScenario}


# -- the C++ side ----------------------------------------------------------------------------


class SimExit(Exception):
    """Stands for std::exit(0) after a stop request."""


class ReferenceSim:
    """C++ ``OpenGymInterface`` (one instance = one ns-3 process = one episode)."""

    def __init__(self, port: int, scenario: Any, pids: tuple[int, int] | None = None) -> None:
        self.port = port
        self.scenario = scenario
        self.pids = pids if pids is not None else (os.getpid(), os.getppid())
        self.transcript = Transcript()
        self._context = zmq.Context()
        self._socket: zmq.Socket | None = None
        self._init_done = False
        self._sim_end = False

    def _send_recv(self, msg: Any, reply_cls: Any) -> Any:
        assert self._socket is not None
        self.transcript.record("sim", msg)
        self._socket.send(msg.SerializeToString())
        if not self._socket.poll(int(TIMEOUT_S * 1000)):
            raise TimeoutError(f"reference sim: no answer to {msg.DESCRIPTOR.name}")
        reply = reply_cls.FromString(self._socket.recv())
        self.transcript.record("agent", reply)
        return reply

    def _init(self) -> None:
        self._init_done = True
        init = pb.SimInitMsg(simProcessId=self.pids[0], wafShellProcessId=self.pids[1])
        init.obsSpace.CopyFrom(self.scenario.obs_space())
        init.actSpace.CopyFrom(self.scenario.act_space())
        self._socket = self._context.socket(zmq.REQ)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.connect(f"tcp://localhost:{self.port}")
        ack = self._send_recv(init, pb.SimInitAck)
        if ack.stopSimReq:
            raise SimExit("stop requested in SimInitAck")

    def _state(self) -> pb.EnvStateMsg:
        state = pb.EnvStateMsg()
        obs = self.scenario.obs()
        if obs is not None:
            state.obsData.CopyFrom(obs)
        state.reward = self.scenario.reward()
        game_over = self.scenario.game_over() or self._sim_end
        state.isGameOver = game_over
        if game_over:
            state.reason = pb.Reason.SimulationEnd if self._sim_end else pb.Reason.GameOver
        state.info = self.scenario.info()
        return state

    def notify(self) -> None:
        """NotifyCurrentState: send the state, apply the answer (or exit on stop)."""
        if not self._init_done:
            self._init()
        reply = self._send_recv(self._state(), pb.EnvActMsg)
        if reply.stopSimReq:
            raise SimExit("stop requested in EnvActMsg")
        self.scenario.execute(cpp_read_action(reply.actData))

    def notify_simulation_end(self) -> None:
        """NotifySimulationEnd: one final state; the answer's content is ignored."""
        if not self._init_done:
            return
        self._sim_end = True
        self._send_recv(self._state(), pb.EnvActMsg)

    def run(self) -> str:
        """Run the scenario; return how the process ended."""
        try:
            self.scenario.run(self)
            return "simulation_end"
        except SimExit as exc:
            return str(exc)
        finally:
            if self._socket is not None:
                self._socket.close(linger=0)
            self._context.term()


# -- the upstream Python client --------------------------------------------------------------


class ReferenceAgent:
    """Upstream ``ns3gym.Ns3Env(port=P, startSim=False)``, with bounded waits.

    Methods follow the old gym API: ``reset() -> obs``, ``step(a) -> (obs, reward, done, info)``.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.transcript = Transcript()
        self._context = zmq.Context()
        self._socket: zmq.Socket | None = None
        self._connect()
        self.env_dirty = False

    # Ns3ZmqBridge -----------------------------------------------------------------------------

    def _connect(self) -> None:
        self._socket = self._context.socket(zmq.REP)
        self._socket.setsockopt(zmq.LINGER, 0)
        deadline = time.monotonic() + TIMEOUT_S
        while True:  # upstream binds once; retry covers a port still held by our own old socket
            try:
                self._socket.bind(f"tcp://127.0.0.1:{self.port}")
                break
            except zmq.ZMQError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.env_stopped = False
        self.force_env_stop = False
        self.new_state_rx = False
        init = pb.SimInitMsg.FromString(self._recv())
        self.transcript.record("sim", init)
        self.sim_pid = int(init.simProcessId)
        self.action_space = self._create_space(init.actSpace)
        self.observation_space = self._create_space(init.obsSpace)
        self._send(pb.SimInitAck(done=True, stopSimReq=False))
        self._rx_env_state()

    def _recv(self) -> bytes:
        assert self._socket is not None
        if not self._socket.poll(int(TIMEOUT_S * 1000)):
            raise TimeoutError("reference agent: the simulation did not send")
        return self._socket.recv()

    def _send(self, msg: Any) -> None:
        assert self._socket is not None
        self._socket.send(msg.SerializeToString())
        self.transcript.record("agent", msg)

    def _create_space(self, desc: pb.SpaceDescription) -> Any:
        if desc.type == pb.SpaceType.Discrete:
            inner = pb.DiscreteSpace()
            desc.space.Unpack(inner)
            return spaces.Discrete(inner.n)
        if desc.type == pb.SpaceType.Box:
            inner = pb.BoxSpace()
            desc.space.Unpack(inner)
            # np.int / np.uint / np.float as they were before NumPy 1.24.
            dtype = {pb.Dtype.INT: np.int64, pb.Dtype.UINT: np.uint64}.get(inner.dtype, np.float64)
            return spaces.Box(low=inner.low, high=inner.high, shape=tuple(inner.shape), dtype=dtype)
        if desc.type == pb.SpaceType.Tuple:
            inner = pb.TupleSpace()
            desc.space.Unpack(inner)
            return spaces.Tuple(tuple(self._create_space(e) for e in inner.element))
        if desc.type == pb.SpaceType.Dict:
            inner = pb.DictSpace()
            desc.space.Unpack(inner)
            return spaces.Dict({e.name: self._create_space(e) for e in inner.element})
        return None

    def _create_data(self, container: pb.DataContainer) -> Any:
        if container.type == pb.SpaceType.Discrete:
            inner = pb.DiscreteDataContainer()
            container.data.Unpack(inner)
            return inner.data
        if container.type == pb.SpaceType.Box:
            inner = pb.BoxDataContainer()
            container.data.Unpack(inner)
            field = {
                pb.Dtype.INT: inner.intData,
                pb.Dtype.UINT: inner.uintData,
                pb.Dtype.DOUBLE: inner.doubleData,
            }.get(inner.dtype, inner.floatData)
            return np.array(field)  # 1-D, shape ignored
        if container.type == pb.SpaceType.Tuple:
            inner = pb.TupleDataContainer()
            container.data.Unpack(inner)
            return tuple(self._create_data(e) for e in inner.element)
        if container.type == pb.SpaceType.Dict:
            inner = pb.DictDataContainer()
            container.data.Unpack(inner)
            return {e.name: self._create_data(e) for e in inner.element}
        return None

    def _pack_data(self, action: Any, space: Any) -> pb.DataContainer:
        container = pb.DataContainer()
        if type(space) is spaces.Discrete:
            container.type = pb.SpaceType.Discrete
            container.data.Pack(pb.DiscreteDataContainer(data=action))
        elif type(space) is spaces.Box:
            container.type = pb.SpaceType.Box
            box = pb.BoxDataContainer(shape=[len(action)])
            if space.dtype in ["int", "int8", "int16", "int32", "int64"]:
                box.dtype = pb.Dtype.INT
                box.intData.extend(action)
            elif space.dtype in ["uint", "uint8", "uint16", "uint32", "uint64"]:
                box.dtype = pb.Dtype.UINT
                box.uintData.extend(action)
            elif space.dtype in ["float", "float32", "float64"]:
                box.dtype = pb.Dtype.FLOAT
                box.floatData.extend(action)
            else:
                box.dtype = pb.Dtype.FLOAT
                box.floatData.extend(action)
            container.data.Pack(box)
        elif type(space) is spaces.Tuple:
            container.type = pb.SpaceType.Tuple
            payload = pb.TupleDataContainer()
            # Upstream zips with the *top-level* action space (wrong for nested tuples).
            for sub_action, sub_space in zip(action, list(self.action_space.spaces), strict=True):
                payload.element.append(self._pack_data(sub_action, sub_space))
            container.data.Pack(payload)
        elif type(space) is spaces.Dict:
            container.type = pb.SpaceType.Dict
            payload = pb.DictDataContainer()
            for name, sub_action in action.items():
                sub = self._pack_data(sub_action, self.action_space.spaces[name])
                sub.name = name
                payload.element.append(sub)
            container.data.Pack(payload)
        return container

    def _rx_env_state(self) -> None:
        if self.new_state_rx:
            return
        state = pb.EnvStateMsg.FromString(self._recv())
        self.transcript.record("sim", state)
        self.obs = self._create_data(state.obsData)
        self.reward = state.reward
        self.game_over = state.isGameOver
        if self.game_over:
            if state.reason == pb.Reason.SimulationEnd:
                self.env_stopped = True
            else:
                self.force_env_stop = True
            self._send_close_command()
        self.info = state.info or {}
        self.new_state_rx = True

    def _send_close_command(self) -> None:
        self._send(pb.EnvActMsg(stopSimReq=True))
        self.new_state_rx = False

    def _send_actions(self, action: Any) -> None:
        msg = pb.EnvActMsg()
        msg.actData.CopyFrom(self._pack_data(action, self.action_space))
        msg.stopSimReq = self.force_env_stop
        self._send(msg)
        self.new_state_rx = False

    def _close_bridge(self) -> None:
        if not self.env_stopped:
            self.env_stopped = True
            self.force_env_stop = True
            self._rx_env_state()
            try:
                self._send_close_command()
            except zmq.ZMQError:
                pass  # EFSM after a GameOver: the stop was already sent (swallowed upstream)
        assert self._socket is not None
        self._socket.close(linger=1000)  # let the stop reach the simulation
        self._socket = None

    # Ns3Env -----------------------------------------------------------------------------------

    def reset(self) -> Any:
        if not self.env_dirty:
            return self.obs
        self._close_bridge()
        self.env_dirty = False
        self._connect()
        return self.obs

    def step(self, action: Any) -> tuple[Any, float, bool, Any]:
        self._send_actions(action)
        self._rx_env_state()
        self.env_dirty = True
        return self.obs, self.reward, self.game_over, self.info

    def close(self) -> None:
        if self._socket is not None:
            self._close_bridge()
        self._context.term()


def main(argv: list[str] | None = None) -> int:
    """Run one reference simulation process: ``--openGymPort=P --simSeed=S --scenario=NAME
    [--transcript=PATH]``; the transcript is appended to PATH as one JSON line."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--openGymPort", type=int, default=5555)
    parser.add_argument("--simSeed", type=int, default=0)
    parser.add_argument("--scenario", default="counter")
    parser.add_argument("--transcript", default=None)
    args = parser.parse_args(argv)
    sim = ReferenceSim(args.openGymPort, SCENARIOS[args.scenario]())
    try:
        end = sim.run()
    except TimeoutError:
        return 3
    finally:
        if args.transcript:
            with open(args.transcript, "a") as fh:
                fh.write(json.dumps({"seed": args.simSeed, "transcript": sim.transcript}) + "\n")
    print(f"reference sim: {end}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
