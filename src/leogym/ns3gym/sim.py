"""The simulation role of the ns3-gym protocol: a REQ socket connecting to the agent.

This is the part of an ns-3 ``OpenGymInterface`` that talks: it connects, sends ``SimInitMsg``
and then one ``EnvStateMsg`` per step, each answered by the agent. A fresh socket is used for
every episode, as a fresh ns-3 process would.

The handshake is retried with a new socket every ``retry_s`` ("lazy pirate"): between episodes
the upstream agent keeps its old REP socket bound until its next ``reset()``, so a ``SimInitMsg``
sent early can land in that old socket and vanish with it. Upstream scenarios never meet this
because each episode is a new process started after the agent re-binds.
"""

from __future__ import annotations

import time
from typing import TypeVar

import zmq
from google.protobuf.message import Message

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymError, Ns3GymProtocolError
from leogym.ns3gym.transcript import Transcript
from leogym.ns3gym.wire import Channel

__all__ = ["SimPeer"]

#: Receive limit once ``poll`` reported a message ready.
POLL_AFTER_READY_S = 1.0

M = TypeVar("M", bound=Message)


class SimPeer:
    """Connect to an agent and exchange one episode's messages.

    :param context: the ZMQ context to create sockets in.
    :param port: the agent's port.
    :param host: the agent's address (upstream hard-codes ``localhost``).
    :param transcript: where to record decoded traffic, or ``None``.
    """

    def __init__(
        self,
        context: zmq.Context,
        port: int,
        host: str = "127.0.0.1",
        transcript: Transcript | None = None,
    ) -> None:
        self._context = context
        self.endpoint = f"tcp://{host}:{int(port)}"
        self.transcript = transcript
        self._channel: Channel | None = None
        #: Whether the REQ socket may send now (it has received the answer to its last request).
        self.can_send = False

    def _open(self) -> Channel:
        self.close()
        socket = self._context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        # The agent re-binds between episodes; retry the TCP connection quickly (default 100 ms).
        socket.setsockopt(zmq.RECONNECT_IVL, 10)
        socket.connect(self.endpoint)
        self._channel = Channel(socket, role="sim", peer="agent")
        self.can_send = True
        return self._channel

    def handshake(
        self, init: pb.SimInitMsg, timeout_s: float | None, retry_s: float = 1.0
    ) -> pb.SimInitAck | None:
        """Send ``SimInitMsg`` until an agent answers with ``SimInitAck``.

        :param init: the init message.
        :param timeout_s: give up after this long (``None``: keep trying).
        :param retry_s: resend on a fresh socket after this long without an answer. Must exceed
            the agent's time to answer a handshake (immediate for upstream and leogym agents).
        :return: the agent's acknowledgement, or ``None`` if no agent answered in time.
        :raises Ns3GymProtocolError: the answer is not a ``SimInitAck``.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            channel = self._open()
            channel.send(init)
            self.can_send = False
            wait = retry_s if deadline is None else max(0.0, min(retry_s, deadline - time.monotonic()))
            if channel.wait(wait):
                if self.transcript is not None:
                    self.transcript.mark("connect")
                    self.transcript.record("sim", init)
                channel.transcript = self.transcript
                return self._recv(pb.SimInitAck, "SimInitAck", POLL_AFTER_READY_S)
            self.close()
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def request(self, state: pb.EnvStateMsg, expecting: str, timeout_s: float | None) -> pb.EnvActMsg:
        """Send a state and receive the agent's ``EnvActMsg``.

        :param state: the state message.
        :param expecting: description for error messages, e.g. ``"EnvActMsg for state #3"``.
        :param timeout_s: the limit (``None``: no limit).
        :return: the agent's answer.
        """
        if self._channel is None or not self.can_send:
            raise Ns3GymError("the simulation socket is not ready to send")
        self._channel.send(state)
        self.can_send = False
        return self._recv(pb.EnvActMsg, expecting, timeout_s)

    def _recv(self, cls: type[M], expecting: str, timeout_s: float | None) -> M:
        if self._channel is None:
            raise Ns3GymError("the simulation socket is closed")
        try:
            msg = self._channel.recv(cls, expecting, timeout_s)
        except Ns3GymProtocolError:
            self.can_send = True  # a frame did arrive: the REQ socket may send again
            raise
        self.can_send = True
        return msg

    def close(self) -> None:
        """Close the socket (idempotent)."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        self.can_send = False
