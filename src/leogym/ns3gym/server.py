"""Serve a Gymnasium env to ns3-gym agents, playing the part of an ns-3 OpenGym simulation.

One episode is one connection, as one ns-3 process is upstream:

1. ``env.reset()`` happens once an agent has answered ``SimInitMsg`` (sent with the env's
   observation and action spaces) with ``SimInitAck``; ``SimInitAck.stopSimReq`` ends serving
   (upstream: the process exits).
2. ``EnvStateMsg`` #0 carries the reset observation (reward 0); every ``EnvActMsg`` answer is
   applied with ``env.step`` and the next state is sent.
3. ``terminated`` is sent as ``isGameOver`` with ``reason = GameOver`` (always explicit on the
   wire); ``truncated`` (alone) as ``isGameOver`` with ``reason = SimulationEnd``.
4. ``EnvActMsg.stopSimReq`` ends the episode (upstream: ``std::exit(0)``). After a SimulationEnd
   state the answer's content is ignored and the episode ends, as after ``NotifySimulationEnd``.
   After a GameOver state an ordinary action (not a stop) continues the session, as the C++ side
   allows: the env is reset and the next state is the new initial observation.
5. The socket is closed; the next episode connects again (the agent re-binds on ``reset()``).

Errors are never silent and never hang the server: a malformed or unexpected answer, or an
action that is not an element of the env's action space (NaN, inf, out of its bounds), raises
:class:`~leogym.ns3gym.errors.Ns3GymProtocolError` after a best-effort final state
(``isGameOver``, SimulationEnd, info ``{"ns3gym_error": ...}``) so the agent is released too; an
agent that stops answering (or closes its connection: noticed at once) raises
:class:`~leogym.ns3gym.errors.Ns3GymTimeoutError`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any, Literal

import gymnasium
import zmq

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymError, Ns3GymProtocolError, Ns3GymTimeoutError
from leogym.ns3gym.info import encode_info
from leogym.ns3gym.sim import SimPeer
from leogym.ns3gym.spaces import space_to_description
from leogym.ns3gym.transcript import Transcript
from leogym.ns3gym.values import check_in_space, container_to_value, value_to_container

__all__ = ["Ns3GymServer", "EpisodeRecord", "ERROR_INFO_KEY"]

_log = logging.getLogger(__name__)

#: Info key of the final state the server sends when it aborts an episode.
ERROR_INFO_KEY = "ns3gym_error"

EpisodeEnd = Literal["stopped", "game_over", "simulation_end", "init_stop"]


@dataclass(frozen=True)
class EpisodeRecord:
    """How one served episode (one connection) ended.

    :param end: ``"stopped"`` (the agent sent a stop), ``"game_over"`` (stop after a GameOver
        state), ``"simulation_end"`` (after a truncation), ``"init_stop"`` (stop in the handshake).
    :param steps: actions applied with ``env.step``.
    :param total_reward: sum of the rewards sent.
    """

    end: EpisodeEnd
    steps: int
    total_reward: float


class Ns3GymServer:
    """Expose ``env`` to ns3-gym agents through a REQ socket that connects to ``host:port``.

    The server only connects; it never listens.

    :param env: the environment (its spaces must be expressible on the wire, see
        :func:`leogym.ns3gym.spaces.space_to_description`).
    :param port: the agent's port.
    :param host: the agent's address.
    :param seed: seed of the first ``env.reset`` (later episodes continue the env's RNG).
    :param step_timeout_s: how long to wait for the agent's answer to a state. Agents may think
        between steps (training updates), so this is generous.
    :param idle_timeout_s: how long to wait for an agent to answer ``SimInitMsg`` (``None``:
        forever). After the first episode, an idle agent ends :meth:`serve` normally: upstream
        agents say no goodbye.
    :param send_pids: put this process's pid/ppid into ``SimInitMsg`` as ns-3 does. Off by
        default: an upstream client whose ``close()`` worked would SIGTERM those pids.
    :param transcript: where to record decoded traffic, or ``None``.
    :raises Ns3GymSpaceError: a space of ``env`` has no wire encoding.
    """

    def __init__(
        self,
        env: gymnasium.Env,
        port: int,
        *,
        host: str = "127.0.0.1",
        seed: int | None = None,
        step_timeout_s: float | None = 300.0,
        idle_timeout_s: float | None = 60.0,
        send_pids: bool = False,
        transcript: Transcript | None = None,
    ) -> None:
        if not 0 < int(port) <= 65535:
            raise ValueError(f"port must be in 1..65535, got {port}")
        self.env = env
        self.port = int(port)
        self.host = host
        self.seed = seed
        self.step_timeout_s = step_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.transcript = transcript
        self._init = pb.SimInitMsg(
            simProcessId=os.getpid() if send_pids else 0,
            wafShellProcessId=os.getppid() if send_pids else 0,
        )
        self._init.obsSpace.CopyFrom(space_to_description(env.observation_space))
        self._init.actSpace.CopyFrom(space_to_description(env.action_space))
        self._context = zmq.Context()
        self._episodes = 0

    # -- one episode --------------------------------------------------------------------------

    def _state(
        self, obs: Any, reward: float, game_over: bool, reason: int, info: dict[str, Any]
    ) -> pb.EnvStateMsg:
        state = pb.EnvStateMsg(reward=float(reward), isGameOver=game_over, info=encode_info(info))
        if game_over:
            state.reason = reason
        state.obsData.CopyFrom(value_to_container(self.env.observation_space, obs, "observation"))
        return state

    def serve_episode(self) -> EpisodeRecord | None:
        """Serve one episode to the next agent that connects.

        :return: how it ended, or ``None`` if no agent answered within ``idle_timeout_s``.
        :raises Ns3GymProtocolError: the agent sent something malformed or unexpected.
        :raises Ns3GymTimeoutError: the agent stopped answering during the episode.
        """
        peer = SimPeer(self._context, self.port, self.host, self.transcript)
        steps = 0
        total = 0.0
        try:
            ack = peer.handshake(self._init, self.idle_timeout_s)
            if ack is None:
                return None
            if ack.stopSimReq:
                return EpisodeRecord("init_stop", 0, 0.0)
            obs, info = self.env.reset(seed=self.seed if self._episodes == 0 else None)
            self._episodes += 1
            state = self._state(obs, 0.0, False, pb.Reason.SimulationEnd, info)
            while True:
                reply = peer.request(
                    state, f"EnvActMsg answering state #{steps}", self.step_timeout_s
                )
                if state.isGameOver:
                    if state.reason == pb.Reason.SimulationEnd:
                        return EpisodeRecord("simulation_end", steps, total)
                    if reply.stopSimReq:
                        return EpisodeRecord("game_over", steps, total)
                    _log.info("agent continued after GameOver: resetting the env, same connection")
                    obs, info = self.env.reset()
                    state = self._state(obs, 0.0, False, pb.Reason.SimulationEnd, info)
                    continue
                if reply.stopSimReq:
                    return EpisodeRecord("stopped", steps, total)
                if not reply.HasField("actData"):
                    raise Ns3GymProtocolError(
                        f"EnvActMsg answering state #{steps}: no actData and no stopSimReq "
                        "(an ns-3 scenario would dereference a null action)"
                    )
                where = f"EnvActMsg(state #{steps}).actData"
                action = container_to_value(self.env.action_space, reply.actData, where)
                check_in_space(self.env.action_space, action, where)  # NaN, inf, out of range
                obs, reward, terminated, truncated, info = self.env.step(action)
                steps += 1
                total += float(reward)
                reason = pb.Reason.GameOver if terminated else pb.Reason.SimulationEnd
                state = self._state(obs, float(reward), bool(terminated or truncated), reason, info)
        except Ns3GymTimeoutError:
            raise
        except Exception as exc:
            self._release_agent(peer, exc)
            raise
        finally:
            peer.close()

    def _release_agent(self, peer: SimPeer, exc: BaseException) -> None:
        """Best effort: end the agent's episode with a final state naming the error."""
        if not peer.can_send:
            return
        final = pb.EnvStateMsg(
            isGameOver=True,
            reason=pb.Reason.SimulationEnd,
            info=encode_info({ERROR_INFO_KEY: f"{type(exc).__name__}: {exc}"}),
        )
        wait = 5.0 if self.step_timeout_s is None else min(5.0, self.step_timeout_s)
        try:
            peer.request(final, "EnvActMsg answering the error state", wait)
        except Ns3GymError:
            pass

    # -- many episodes ------------------------------------------------------------------------

    def serve(self, episodes: int | None = None) -> list[EpisodeRecord]:
        """Serve episodes until ``episodes`` are done, the agent goes idle or asks to stop.

        :param episodes: number of episodes to serve (``None``: until idle).
        :return: one record per episode served.
        :raises Ns3GymTimeoutError: no agent answered the very first ``SimInitMsg``.
        """
        records: list[EpisodeRecord] = []
        while episodes is None or len(records) < episodes:
            record = self.serve_episode()
            if record is None:
                if not records:
                    raise Ns3GymTimeoutError(
                        f"no agent answered SimInitMsg on tcp://{self.host}:{self.port} within "
                        f"{self.idle_timeout_s:g} s"
                    )
                break
            records.append(record)
            _log.info("episode %d ended: %s after %d steps", len(records), record.end, record.steps)
            if record.end == "init_stop":
                break
        return records

    def close(self) -> None:
        """Release the ZMQ context (the env is not closed; it belongs to the caller)."""
        if not self._context.closed:
            self._context.term()
