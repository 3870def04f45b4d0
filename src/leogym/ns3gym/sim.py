"""The simulation role of the ns3-gym protocol: a REQ socket connecting to the agent.

This is the part of an ns-3 ``OpenGymInterface`` that talks: it connects, sends ``SimInitMsg``
and then one ``EnvStateMsg`` per step, each answered by the agent. A fresh socket is used for
every episode, as a fresh ns-3 process would.

The handshake survives an agent that re-binds late. Between episodes the upstream agent keeps
its old REP socket bound until its next ``reset()``, so a ``SimInitMsg`` sent early lands in that
old socket and vanishes when it is closed. (Upstream scenarios never meet this: each episode is
a new process, started after the agent re-binds.) A ZMQ REQ socket does not resend, so
:meth:`SimPeer.handshake` watches its connection with a socket monitor and, when the agent's side
drops the connection before answering, sends the ``SimInitMsg`` again on a fresh socket. It never
resends otherwise: a REP socket still delivers messages from peers that have gone, so a blind
periodic resend could queue duplicates in a live agent.
"""

from __future__ import annotations

import time
from typing import TypeVar

import zmq
from google.protobuf.message import Message
from zmq.utils.monitor import recv_monitor_message

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymError, Ns3GymProtocolError, Ns3GymTimeoutError
from leogym.ns3gym.transcript import Transcript
from leogym.ns3gym.wire import POLL_SLICE_S, Channel

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
        self._monitor: zmq.Socket | None = None
        #: Whether the REQ socket may send now (it has received the answer to its last request).
        self.can_send = False

    def _open(self) -> Channel:
        self.close()
        socket = self._context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        # The agent re-binds between episodes; retry the TCP connection quickly (default 100 ms).
        socket.setsockopt(zmq.RECONNECT_IVL, 10)
        self._monitor = socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        socket.connect(self.endpoint)
        self._channel = Channel(socket, role="sim", peer="agent")
        self.can_send = True
        return self._channel

    def _dropped(self) -> bool:
        """Whether the agent's side closed our connection since the last check (non-blocking)."""
        dropped = False
        while self._monitor is not None and self._monitor.poll(0):
            event = recv_monitor_message(self._monitor)
            dropped = dropped or event["event"] == zmq.EVENT_DISCONNECTED
        return dropped

    def _check_connected(self, expecting: str) -> None:
        if self._dropped():
            raise Ns3GymTimeoutError(
                f"the agent closed the connection while the simulation waited for {expecting} "
                "(the agent process ended or dropped its socket)"
            )

    def handshake(self, init: pb.SimInitMsg, timeout_s: float | None) -> pb.SimInitAck | None:
        """Send ``SimInitMsg`` and wait for the agent's ``SimInitAck``.

        If the connection carrying the message is closed by the agent's side before an answer
        comes (a REP socket closed while our message sat in its queue), the message is sent again
        on a fresh socket.

        :param init: the init message.
        :param timeout_s: give up after this long (``None``: keep waiting).
        :return: the agent's acknowledgement, or ``None`` if no agent answered in time.
        :raises Ns3GymProtocolError: the answer is not a ``SimInitAck``.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            channel = self._open()
            channel.send(init)
            self.can_send = False
            while True:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    self.close()
                    return None
                if channel.wait(
                    POLL_SLICE_S if remaining is None else min(remaining, POLL_SLICE_S)
                ):
                    if self.transcript is not None:
                        self.transcript.mark("connect")
                        self.transcript.record("sim", init)
                    channel.transcript = self.transcript
                    return self._recv(pb.SimInitAck, "SimInitAck", POLL_AFTER_READY_S)
                if self._dropped():
                    break  # the agent closed the connection that carried our message: resend

    def request(
        self, state: pb.EnvStateMsg, expecting: str, timeout_s: float | None
    ) -> pb.EnvActMsg:
        """Send a state and receive the agent's ``EnvActMsg``.

        Fails fast if the agent's side closes the connection meanwhile: REQ does not resend,
        so the answer can no longer come.

        :param state: the state message.
        :param expecting: description for error messages, e.g. ``"EnvActMsg for state #3"``.
        :param timeout_s: the limit (``None``: no limit).
        :return: the agent's answer.
        :raises Ns3GymTimeoutError: no answer in time, or the agent closed the connection.
        """
        if self._channel is None or not self.can_send:
            raise Ns3GymError("the simulation socket is not ready to send")
        self._dropped()  # forget events from before this request
        self._channel.liveness = lambda: self._check_connected(expecting)
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
            self._channel.socket.disable_monitor()
            self._channel.close()
            self._channel = None
        if self._monitor is not None:
            self._monitor.close(linger=0)
            self._monitor = None
        self.can_send = False
