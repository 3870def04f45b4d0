"""One ZMQ socket speaking the ns3-gym protocol: one protobuf message per frame, bounded waits.

:class:`Channel` is shared by both roles. It never blocks without a limit: every receive polls
in short slices until its deadline, calling an optional liveness check between slices (the client
uses it to notice that the simulation process died), and raises
:class:`~leogym.ns3gym.errors.Ns3GymTimeoutError` when the deadline passes. Received bytes are
parsed strictly (:func:`leogym.ns3gym.messages.decode_message`), after a size check: a frame
longer than the channel's ``max_message_bytes`` is a protocol error, not parsed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import zmq
from google.protobuf.message import Message

from leogym.ns3gym.errors import Ns3GymProtocolError, Ns3GymTimeoutError
from leogym.ns3gym.messages import decode_message
from leogym.ns3gym.transcript import Transcript

__all__ = ["Channel", "DEFAULT_MAX_MESSAGE_BYTES", "POLL_SLICE_S", "check_max_message_bytes"]

#: Longest single wait inside a receive, so liveness checks run at least this often.
POLL_SLICE_S = 0.1
#: Largest message a channel accepts unless told otherwise (64 MiB: some 16 million float32
#: values; ns3-gym observations are a few hundred bytes).
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024


def check_max_message_bytes(value: int, field: str = "max_message_bytes") -> int:
    """``value`` as a message size limit: an integer >= 1.

    :raises ValueError: naming ``field``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{field}: must be an integer >= 1 (bytes), got {value!r}")
    return value


M = TypeVar("M", bound=Message)


class Channel:
    """A REQ or REP socket exchanging single-frame protobuf messages.

    :param socket: a connected or bound ``zmq.REQ``/``zmq.REP`` socket (the channel owns it).
    :param role: ``"sim"`` or ``"agent"``: who sends on this side (used in transcripts).
    :param peer: how to call the other side in error messages.
    :param transcript: where to record decoded traffic, or ``None``.
    :param liveness: called between poll slices; raises to abort a wait.
    :param max_message_bytes: longest frame :meth:`recv` accepts.
    """

    def __init__(
        self,
        socket: zmq.Socket,
        role: str,
        peer: str,
        transcript: Transcript | None = None,
        liveness: Callable[[], None] | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        self.socket = socket
        self.max_message_bytes = check_max_message_bytes(max_message_bytes)
        self.role = role
        self.peer = peer
        self.transcript = transcript
        self.liveness = liveness
        self._other = "agent" if role == "sim" else "sim"

    def send(self, msg: Message, timeout_s: float = 5.0) -> None:
        """Send one message as one frame.

        :param msg: the message.
        :param timeout_s: how long the send may wait for room in the queue.
        :raises Ns3GymTimeoutError: the message could not be queued in time.
        """
        data = msg.SerializeToString()
        if self.transcript is not None:
            self.transcript.record(self.role, msg)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.socket.send(data, flags=zmq.NOBLOCK)
                return
            except zmq.Again:
                if time.monotonic() >= deadline:
                    raise Ns3GymTimeoutError(
                        f"could not send {msg.DESCRIPTOR.name} to the {self.peer} within "
                        f"{timeout_s:g} s"
                    ) from None
                if self.liveness is not None:
                    self.liveness()
                time.sleep(0.005)

    def wait(self, timeout_s: float | None) -> bool:
        """Wait until a message can be read.

        :param timeout_s: the limit in seconds, ``None`` for no limit.
        :return: whether a message is ready (``False`` on timeout).
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            remaining = POLL_SLICE_S if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                return False
            if self.socket.poll(int(min(remaining, POLL_SLICE_S) * 1000) or 1, zmq.POLLIN):
                return True
            if self.liveness is not None:
                self.liveness()

    def recv(self, cls: type[M], expecting: str, timeout_s: float | None) -> M:
        """Receive one message of type ``cls``.

        :param cls: the message class expected at this point of the exchange.
        :param expecting: what is awaited, for error messages (e.g. ``"EnvActMsg for step 3"``).
        :param timeout_s: the limit in seconds, ``None`` for no limit.
        :return: the parsed message.
        :raises Ns3GymTimeoutError: nothing arrived in time.
        :raises Ns3GymProtocolError: more than one frame, a frame longer than
            ``max_message_bytes``, or bytes that are not a valid ``cls``.
        """
        if not self.wait(timeout_s):
            raise Ns3GymTimeoutError(
                f"no {expecting} from the {self.peer} within {timeout_s:g} s "
                "(the peer stopped answering or disappeared)"
            )
        frames = self.socket.recv_multipart(flags=zmq.NOBLOCK)
        if len(frames) != 1:
            raise Ns3GymProtocolError(
                f"{expecting}: got a {len(frames)}-frame ZMQ message, ns3-gym sends one frame"
            )
        if len(frames[0]) > self.max_message_bytes:
            raise Ns3GymProtocolError(
                f"{expecting}: a message of {len(frames[0])} bytes, longer than "
                f"max_message_bytes={self.max_message_bytes}"
            )
        msg = decode_message(cls, frames[0], expecting)
        if self.transcript is not None:
            self.transcript.record(self._other, msg)
        return msg

    def close(self, linger_s: float = 0.0) -> None:
        """Close the socket (idempotent).

        :param linger_s: how long ZMQ may keep flushing messages already sent (in the
            background); 0 drops them. Use a linger after a final reply such as a stop request.
        """
        if not self.socket.closed:
            self.socket.close(linger=int(linger_s * 1000))
