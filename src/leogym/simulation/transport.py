"""Transport options of a simulated connection: the settings beside the CC and the scheduler.

Every field is optional: ``None`` leaves the native core's default in place (the defaults and
their references are in ``cpp/doc/transport.md``). The field names are the native config keys,
and each field's range is the one the core's config checker applies
(``cpp/bindings/bind-simulation.cc``, ``ConfigFromDict``), so a bad value is reported when the
env config is checked, before ns-3 is touched; ``tests/simulation/test_simulation.py`` probes
the core at every bound to keep the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from leogym.schema import bounded, build, choice

__all__ = ["TransportOptions", "PATH_STATES"]

#: States of a transport path (``initial_path_states``).
PATH_STATES = ("active", "standby", "deactivated")


@dataclass
class TransportOptions:
    """Optional transport settings of the native connection (``None``: the core's default).

    :param subflow_paths: topology path of each transport path (default: one per path, in order);
        a path index may repeat (two subflows over one path) or be left out.
    :param receive_window_bytes: the receiver's flow-control window.
    :param send_buffer_bytes: the sender's send buffer (bytes the scheduler may hold unsent).
    :param cwnd_validation: ``"rfc9002"`` (RFC 9002 §7.8) or ``"linux"`` (slow start grows while
        cwnd < 2 × the window's peak flight, Linux's ``tcp_is_cwnd_limited``).
    :param reinject_on_pto: re-send a timed-out path's packets on the other paths.
    :param initial_rtt_s: RTT assumed before the first sample (RFC 9002 §6.2.2: 333 ms).
    :param ack_every: the receiver acknowledges every n-th ack-eliciting packet.
    :param max_ack_delay_s: the receiver's maximum ACK delay.
    :param pacing: pace packets at the CC's pacing rate.
    :param initial_path_states: ``active`` | ``standby`` | ``deactivated`` per transport path.
    :param tcp_buffer_bytes: socket buffers of ns-3 TCP cross-traffic flows (0: ns-3's default).
    """

    subflow_paths: list[int] | None = field(default=None, metadata=bounded(0, 253))
    receive_window_bytes: int | None = field(default=None, metadata=bounded(1024, 2**40))
    send_buffer_bytes: int | None = field(default=None, metadata=bounded(1024, 2**40))
    cwnd_validation: str | None = field(default=None, metadata=choice("rfc9002", "linux"))
    reinject_on_pto: bool | None = None
    initial_rtt_s: float | None = field(default=None, metadata=bounded(1e-6, 60.0))
    ack_every: int | None = field(default=None, metadata=bounded(1, 1000))
    max_ack_delay_s: float | None = field(default=None, metadata=bounded(0.0, 10.0))
    pacing: bool | None = None
    initial_path_states: list[str] | None = field(default=None, metadata=choice(*PATH_STATES))
    tcp_buffer_bytes: int | None = field(default=None, metadata=bounded(0, 2**30))

    def native(self) -> dict[str, Any]:
        """The set options as native config entries (lists copied; unset options left out)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, (list, tuple)) else value
        return out

    @classmethod
    def coerce(cls, value: Any, where: str = "env.transport") -> TransportOptions:
        """A :class:`TransportOptions` from itself, ``None`` or a mapping of its fields.

        :raises ValueError: naming ``where`` for a non-mapping or an unknown key.
        """
        return build(cls, value, where)
