"""ns3-gym wire compatibility: the ZMQ + protobuf protocol of tkn-tub/ns3-gym, both directions.

* **Server** (:class:`Ns3GymServer`, CLI ``leogym-ns3gym-serve``): exposes any Gymnasium env to
  ns3-gym agents (including upstream's ``ns3gym.Ns3Env``) by playing the ns-3 simulation role.
* **Client** (:class:`leogym.envs.ns3gym_env.Ns3GymEnv`, id ``leogym/Ns3Gym-v0``): wraps any
  ns3-gym simulation (an upstream ns-3 scenario or the server above) as a Gymnasium 1.x env.

The schema is built at import time in a private protobuf descriptor pool
(:mod:`leogym.ns3gym.messages`), so it coexists with an upstream ``messages_pb2`` and needs no
generated code. See ``docs/ns3gym.md``.
"""

from __future__ import annotations

from leogym.ns3gym.agent import AgentPeer
from leogym.ns3gym.errors import (
    Ns3GymError,
    Ns3GymProtocolError,
    Ns3GymSimulationExitedError,
    Ns3GymSpaceError,
    Ns3GymTimeoutError,
)
from leogym.ns3gym.server import EpisodeRecord, Ns3GymServer
from leogym.ns3gym.sim import SimPeer
from leogym.ns3gym.transcript import Transcript

__all__ = [
    "AgentPeer",
    "EpisodeRecord",
    "Ns3GymError",
    "Ns3GymProtocolError",
    "Ns3GymServer",
    "Ns3GymSimulationExitedError",
    "Ns3GymSpaceError",
    "Ns3GymTimeoutError",
    "SimPeer",
    "Transcript",
]
