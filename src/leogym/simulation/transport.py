"""Transport options of a simulated connection: the settings beside the CC and the scheduler.

Every field is optional: ``None`` leaves the native core's default in place (the defaults and
their references are in ``cpp/doc/transport.md``; the ranges are checked once, by the core's
config checker, before ns-3 is touched). The field names are the native config keys.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["TransportOptions"]


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

    subflow_paths: list[int] | None = None
    receive_window_bytes: int | None = None
    send_buffer_bytes: int | None = None
    cwnd_validation: str | None = None
    reinject_on_pto: bool | None = None
    initial_rtt_s: float | None = None
    ack_every: int | None = None
    max_ack_delay_s: float | None = None
    pacing: bool | None = None
    initial_path_states: list[str] | None = None
    tcp_buffer_bytes: int | None = None

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
        if isinstance(value, cls):
            return value
        if value is None:
            return cls()
        try:
            items = dict(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: must be a mapping (got {value!r})") from None
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in set(items) - known)
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {unknown}; known: {sorted(known)}")
        return cls(**{k: _plain(v) for k, v in items.items()})


def _plain(value: Any) -> Any:
    """OmegaConf ListConfig and tuples as plain lists; everything else unchanged."""
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return value
    try:
        return list(value)
    except TypeError:
        return value
