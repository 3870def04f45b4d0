"""The agent role of the ns3-gym protocol: a REP socket that a simulation connects to.

:class:`AgentPeer` owns the ZMQ context and the REP socket. Each episode is a new connection from
the simulation (a new ns-3 process upstream) and starts with a new handshake. The socket itself
may stay bound between episodes (the client re-binds only after an error). It enforces the order
of the exchange: ``SimInitMsg`` -> ``SimInitAck``, then ``EnvStateMsg`` -> ``EnvActMsg`` until
the episode ends; every receive has a deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import zmq
from google.protobuf.message import Message

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymError, Ns3GymProtocolError
from leogym.ns3gym.transcript import Transcript
from leogym.ns3gym.wire import DEFAULT_MAX_MESSAGE_BYTES, Channel, check_max_message_bytes

__all__ = ["AgentPeer"]

M = TypeVar("M", bound=Message)


class AgentPeer:
    """Bind a REP socket and answer one simulation at a time.

    :param port: TCP port; 0 picks a free ephemeral port on the first :meth:`bind` and keeps it
        for later episodes.
    :param host: interface to bind. The default ``127.0.0.1`` keeps the socket off the network;
        upstream bound ``*`` (all interfaces).
    :param transcript: where to record decoded traffic, or ``None``.
    :param max_message_bytes: longest message accepted from the simulation.
    """

    def __init__(
        self,
        port: int = 0,
        host: str = "127.0.0.1",
        transcript: Transcript | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        if not 0 <= int(port) <= 65535:
            raise ValueError(f"port must be in 0..65535, got {port}")
        self.max_message_bytes = check_max_message_bytes(max_message_bytes)
        self.port = int(port)
        self.host = host
        self.transcript = transcript
        self._context = zmq.Context()
        self._channel: Channel | None = None
        #: Whether a message was received and not answered yet (the REP socket owes a reply).
        self.owes_reply = False

    @property
    def bound(self) -> bool:
        """Whether a socket is bound."""
        return self._channel is not None

    @property
    def endpoint(self) -> str:
        """The bound endpoint, e.g. ``tcp://127.0.0.1:5555`` (empty when not bound)."""
        if self._channel is None:
            return ""
        value = self._channel.socket.getsockopt(zmq.LAST_ENDPOINT)
        return value.decode() if isinstance(value, bytes) else str(value)

    def bind(self, retry_s: float = 2.0) -> int:
        """Open and bind a fresh REP socket (closing any previous one).

        :param retry_s: how long to retry while the port is still held by a closing socket.
        :return: the bound port.
        :raises Ns3GymError: the port cannot be bound.
        """
        self.unbind()
        socket = self._context.socket(zmq.REP)
        socket.setsockopt(zmq.LINGER, 0)
        deadline = time.monotonic() + retry_s
        while True:
            try:
                if self.port == 0:
                    socket.bind(f"tcp://{self.host}:*")
                    endpoint = socket.getsockopt_string(zmq.LAST_ENDPOINT)
                    self.port = int(endpoint.rsplit(":", 1)[1])
                else:
                    socket.bind(f"tcp://{self.host}:{self.port}")
                break
            except zmq.ZMQError as exc:
                if exc.errno == zmq.EADDRINUSE and time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                socket.close(linger=0)
                raise Ns3GymError(f"cannot bind tcp://{self.host}:{self.port}: {exc}") from exc
        self._channel = Channel(
            socket,
            role="agent",
            peer="simulation",
            transcript=self.transcript,
            max_message_bytes=self.max_message_bytes,
        )
        if self.transcript is not None:
            self.transcript.mark("bind")
        return self.port

    def _require(self) -> Channel:
        if self._channel is None:
            raise Ns3GymError("the agent socket is not bound")
        return self._channel

    def handshake(
        self, timeout_s: float | None, liveness: Callable[[], None] | None = None
    ) -> pb.SimInitMsg:
        """Receive ``SimInitMsg`` and answer ``SimInitAck{done: true}``.

        :param timeout_s: how long to wait for the simulation (``None``: no limit).
        :param liveness: called while waiting; raises if the simulation is known to be gone.
        :return: the init message.
        """
        self._require().liveness = liveness
        init = self._recv(pb.SimInitMsg, "SimInitMsg (handshake)", timeout_s)
        self._send(pb.SimInitAck(done=True, stopSimReq=False))
        return init

    def _recv(self, cls: type[M], expecting: str, timeout_s: float | None) -> M:
        channel = self._require()
        try:
            msg = channel.recv(cls, expecting, timeout_s)
        except Ns3GymProtocolError:
            self.owes_reply = True  # a frame arrived, malformed
            raise
        self.owes_reply = True
        return msg

    def _send(self, msg: Message) -> None:
        self._require().send(msg)
        self.owes_reply = False

    def recv_state(
        self, expecting: str, timeout_s: float | None, liveness: Callable[[], None] | None = None
    ) -> pb.EnvStateMsg:
        """Receive the next ``EnvStateMsg``.

        :param expecting: description for error messages, e.g. ``"EnvStateMsg after step 3"``.
        :param timeout_s: the limit (``None``: no limit).
        :param liveness: called while waiting.
        :return: the state.
        """
        self._require().liveness = liveness
        return self._recv(pb.EnvStateMsg, expecting, timeout_s)

    def send_action(self, act_data: pb.DataContainer) -> None:
        """Answer the pending state with an action.

        :param act_data: the packed action.
        """
        msg = pb.EnvActMsg(stopSimReq=False)
        msg.actData.CopyFrom(act_data)
        self._send(msg)

    def send_stop(self) -> None:
        """Answer the pending state with ``EnvActMsg{stopSimReq: true}`` (no action)."""
        self._send(pb.EnvActMsg(stopSimReq=True))

    def release(self) -> None:
        """Best effort after an error: if a reply is owed, answer with a stop request.

        ``EnvActMsg{stopSimReq: true}`` and ``SimInitAck{stopSimReq: true}`` are the same bytes
        (``10 01``), and an ns-3 scenario exits on either, so the simulation is not left waiting.
        """
        if self._channel is not None and self.owes_reply:
            try:
                self.send_stop()
            except (Ns3GymError, zmq.ZMQError):
                pass

    def unbind(self, linger_s: float = 0.0) -> None:
        """Close the current socket, if any, releasing the port.

        :param linger_s: time ZMQ may spend delivering the last reply in the background.
        """
        if self._channel is not None:
            self._channel.close(linger_s)
            self._channel = None
        self.owes_reply = False

    def close(self) -> None:
        """Close the socket and the context (idempotent)."""
        self.unbind()
        if not self._context.closed:
            self._context.term()
