"""Exceptions raised by the ns3-gym bridge (both the server and the client side)."""

from __future__ import annotations

__all__ = [
    "Ns3GymError",
    "Ns3GymProtocolError",
    "Ns3GymTimeoutError",
    "Ns3GymSimulationExitedError",
    "Ns3GymSpaceError",
]


class Ns3GymError(RuntimeError):
    """Base class of every error raised by :mod:`leogym.ns3gym`."""


class Ns3GymProtocolError(Ns3GymError):
    """The peer sent a malformed or unexpected message.

    The message names what was expected and what arrived (message type, field path, type URL,
    value). The connection is closed before this is raised; the episode cannot continue.
    """


class Ns3GymTimeoutError(Ns3GymError, TimeoutError):
    """The peer did not answer within the configured time (it is gone, stuck or too slow)."""


class Ns3GymSimulationExitedError(Ns3GymTimeoutError):
    """The simulation process started by the client exited before sending the next message.

    :param returncode: the exit status of the simulation process.
    """

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


class Ns3GymSpaceError(Ns3GymError, ValueError):
    """A Gymnasium space or value cannot be expressed in the ns3-gym wire format."""
