"""Observation features: names, units, bounds, and how each is read from a step.

The observation is a flat float32 vector: ``history`` frames (oldest first) of
``max_paths × per-path features`` plus a per-path mask. Every value is a physical quantity divided
by a fixed unit (shown in the name) and clipped into the declared finite bounds, so the vector
is comparable across scenarios and never leaves the observation space.

Each :class:`Feature` carries its own extractor from a step's :class:`PathInputs` (one flow's
per-path measurements and the timeline oracle), so the feature list below is the one place where a
column is defined: the layout, the names, the bounds and the values all come from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from leogym.envs.config import ObservationConfig

if TYPE_CHECKING:
    from leogym.scenario.forecast import HandoverOracle
    from leogym.simulation import Measurements

__all__ = [
    "Feature",
    "FeatureTable",
    "PathMeasurements",
    "PathInputs",
    "FEATURE_GROUPS",
    "NO_HANDOVER_HORIZON_S",
    "NO_RTO_HORIZON_S",
]

#: The predicted time to the next handover is capped here (also used when none is scheduled).
NO_HANDOVER_HORIZON_S = 60.0
#: The retransmission timer is reported up to this horizon (also when none runs).
NO_RTO_HORIZON_S = 10.0


@dataclass(frozen=True)
class PathMeasurements:
    """One flow's measurements of one step, per path (or subflow), in SI units.

    :meth:`of_flow` reads them from the core's :class:`~leogym.simulation.Measurements`:
    the connection's per-path entries for flow 0, the ``subflow_*`` entries of flow ``k``.
    ``ce_packets`` and ``queue_delay_s`` may be ``None`` (not measured: read as 0).
    """

    cwnd_bytes: np.ndarray
    bytes_in_flight: np.ndarray
    srtt_s: np.ndarray
    min_rtt_s: np.ndarray
    rttvar_s: np.ndarray
    delivered_bytes: np.ndarray
    delivery_rate_bps: np.ndarray
    sent_packets: np.ndarray
    lost_packets: np.ndarray
    rto_count: np.ndarray
    in_loss_state: np.ndarray
    time_to_rto_s: np.ndarray
    path_state: np.ndarray
    ce_packets: np.ndarray | None = None
    queue_delay_s: np.ndarray | None = None

    @classmethod
    def zero(cls, n_paths: int) -> PathMeasurements:
        """Before the first step: nothing measured yet (no retransmission timer running)."""
        z = np.zeros(n_paths)
        return cls(
            cwnd_bytes=z,
            bytes_in_flight=z,
            srtt_s=z,
            min_rtt_s=z,
            rttvar_s=z,
            delivered_bytes=z,
            delivery_rate_bps=z,
            sent_packets=z,
            lost_packets=z,
            rto_count=z,
            in_loss_state=z,
            time_to_rto_s=np.full(n_paths, np.inf),
            path_state=z,
            ce_packets=z,
            queue_delay_s=z,
        )

    @classmethod
    def of_flow(cls, m: Measurements, flow: int) -> PathMeasurements:
        """Flow ``flow``'s entries of ``m`` (0: the connection's paths; the delivery rate of a
        flow's subflow is its delivered bytes over the interval, as the core computes a path's)."""
        if flow == 0:
            return cls(
                cwnd_bytes=m.cwnd_bytes,
                bytes_in_flight=m.bytes_in_flight,
                srtt_s=m.srtt_s,
                min_rtt_s=m.min_rtt_s,
                rttvar_s=m.rttvar_s,
                delivered_bytes=m.delivered_bytes,
                delivery_rate_bps=m.delivery_rate_bps,
                sent_packets=m.sent_packets,
                lost_packets=m.lost_packets,
                rto_count=m.rto_count,
                in_loss_state=m.in_loss_state,
                time_to_rto_s=m.time_to_rto_s,
                path_state=m.path_state,
                ce_packets=m.ce_packets,
                queue_delay_s=m.queue_delay_s,
            )
        idx = m.flow_subflows(flow)
        inv = 1.0 / m.interval_s if m.interval_s > 0 else 0.0
        delivered = np.asarray(m.subflow_delivered_bytes[idx], dtype=np.float64)
        return cls(
            cwnd_bytes=m.subflow_cwnd_bytes[idx],
            bytes_in_flight=m.subflow_bytes_in_flight[idx],
            srtt_s=m.subflow_srtt_s[idx],
            min_rtt_s=m.subflow_min_rtt_s[idx],
            rttvar_s=m.subflow_rttvar_s[idx],
            delivered_bytes=delivered,
            delivery_rate_bps=8.0 * delivered * inv,
            sent_packets=m.subflow_sent_packets[idx],
            lost_packets=m.subflow_lost_packets[idx],
            rto_count=m.subflow_rto_count[idx],
            in_loss_state=m.subflow_in_loss_state[idx],
            time_to_rto_s=m.subflow_time_to_rto_s[idx],
            path_state=m.subflow_path_state[idx],
            ce_packets=m.subflow_ce_packets[idx],
            queue_delay_s=m.subflow_queue_delay_s[idx],
        )


class PathInputs:
    """What one frame is read from: a flow's :class:`PathMeasurements` at time ``t``, the
    oracle of its routes, and the units that bind them (packet size, ``rate_scale``).

    The oracle's values are computed once per frame, when a feature first asks for them.
    """

    def __init__(
        self,
        m: PathMeasurements,
        oracle: HandoverOracle,
        t: float,
        *,
        packet_bytes: float,
        rate_scale: float,
        time_to_handover_s: np.ndarray | None = None,
    ) -> None:
        self.m = m
        self.oracle = oracle
        self.t = t
        self.packet_bytes = packet_bytes
        self.rate_scale = rate_scale
        if time_to_handover_s is not None:
            self.__dict__["time_to_handover_s"] = time_to_handover_s

    @cached_property
    def time_to_handover_s(self) -> np.ndarray:
        """Capped at :data:`NO_HANDOVER_HORIZON_S` (the forecast jitter, when on, is added by
        the observer, :class:`~leogym.envs.observer.FlowObserver`)."""
        return np.minimum(self.oracle.time_to_handover(self.t), NO_HANDOVER_HORIZON_S)

    @cached_property
    def after_handover(self) -> tuple[np.ndarray, np.ndarray]:
        """Propagation RTT (s) and capacity (bit/s, at the real rates) after the next handover."""
        rtt, cap = self.oracle.after_handover(self.t)
        return rtt, cap * self.rate_scale

    @property
    def sent(self) -> np.ndarray:
        return np.asarray(self.m.sent_packets, dtype=np.float64)

    def fraction_of_sent(self, packets: np.ndarray | None) -> np.ndarray:
        """``packets / sent`` clipped to [0, 1] (0 where nothing was sent or not measured):
        reports may lag the sends by a round trip, so a step can report more than it sent."""
        sent = self.sent
        if packets is None:
            return np.zeros_like(sent)
        packets = np.asarray(packets, dtype=np.float64)
        frac = np.divide(packets, sent, out=np.zeros_like(packets), where=sent > 0)
        return np.clip(frac, 0.0, 1.0)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, else 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


#: A feature's raw per-path values in SI units (a number stands for every path).
Extractor = Callable[[PathInputs], np.ndarray | float]


@dataclass(frozen=True)
class Feature:
    """One per-path feature: ``value = clip(extract(inputs) / unit_scale, low, high)``, NaN and
    infinities read as 0."""

    key: str
    unit: str
    unit_scale: float
    low: float
    high: float
    extract: Extractor


#: The feature groups in observation order, each switched by ``ObservationConfig.<group>``
#: (``transport`` and the ``active`` mask are always on).
FEATURE_GROUPS: dict[str, tuple[Feature, ...]] = {
    "transport": (
        Feature(
            "cwnd", "100 packets", 100.0, 0.0, 100.0, lambda x: x.m.cwnd_bytes / x.packet_bytes
        ),
        Feature(
            "bytes_in_flight",
            "100 packets",
            100.0,
            0.0,
            100.0,
            lambda x: x.m.bytes_in_flight / x.packet_bytes,
        ),
        Feature("srtt", "100 ms", 0.1, 0.0, 50.0, lambda x: x.m.srtt_s),
        Feature("min_rtt", "100 ms", 0.1, 0.0, 50.0, lambda x: x.m.min_rtt_s),
        Feature("rttvar", "100 ms", 0.1, 0.0, 50.0, lambda x: x.m.rttvar_s),
        Feature(
            "delivery_rate",
            "100 Mbit/s",
            1e8,
            0.0,
            100.0,
            lambda x: x.m.delivery_rate_bps * x.rate_scale,
        ),
        Feature(
            "loss_rate", "fraction", 1.0, 0.0, 1.0, lambda x: x.fraction_of_sent(x.m.lost_packets)
        ),
    ),
    "ratio_features": (
        # Scale-free: the same values on a 20 and a 200 Mbit/s path, at 30 or 600 ms.
        Feature(
            "delivered_over_sent",
            "ratio",
            1.0,
            0.0,
            4.0,
            lambda x: _ratio(x.m.delivered_bytes, x.sent * x.packet_bytes),
        ),
        Feature(
            "rtt_inflation", "ratio", 1.0, 0.0, 20.0, lambda x: _ratio(x.m.srtt_s, x.m.min_rtt_s)
        ),
        Feature(
            "cwnd_over_bdp",
            "ratio",
            1.0,
            0.0,
            20.0,
            lambda x: _ratio(x.m.cwnd_bytes, x.m.delivery_rate_bps * x.m.min_rtt_s / 8.0),
        ),
    ),
    "handover_features": (
        Feature(
            "time_to_handover",
            "10 s",
            10.0,
            0.0,
            NO_HANDOVER_HORIZON_S / 10.0,
            lambda x: x.time_to_handover_s,
        ),
        Feature("rtt_after_handover", "100 ms", 0.1, 0.0, 50.0, lambda x: x.after_handover[0]),
        Feature(
            "capacity_after_handover", "100 Mbit/s", 1e8, 0.0, 100.0, lambda x: x.after_handover[1]
        ),
    ),
    "snr_features": (
        Feature("snr", "10 dB", 10.0, -10.0, 10.0, lambda x: x.oracle.snr_db(x.t)),
        Feature("elevation", "90 deg", 90.0, 0.0, 1.0, lambda x: x.oracle.elevation_deg(x.t)),
    ),
    "recovery_features": (
        Feature("rto_count", "timeouts", 1.0, 0.0, 10.0, lambda x: x.m.rto_count),
        Feature("in_loss_state", "bool", 1.0, 0.0, 1.0, lambda x: x.m.in_loss_state),
        Feature(
            "time_to_rto",
            "1 s",
            1.0,
            0.0,
            NO_RTO_HORIZON_S,
            lambda x: np.minimum(x.m.time_to_rto_s, NO_RTO_HORIZON_S),
        ),
    ),
    "congestion_features": (
        Feature(
            "ce_fraction", "fraction", 1.0, 0.0, 1.0, lambda x: x.fraction_of_sent(x.m.ce_packets)
        ),
        Feature(
            "queue_delay",
            "100 ms",
            0.1,
            0.0,
            50.0,
            lambda x: 0.0 if x.m.queue_delay_s is None else x.m.queue_delay_s,
        ),
    ),
    "mask": (Feature("active", "bool", 1.0, 0.0, 1.0, lambda x: np.equal(x.m.path_state, 0)),),
}

#: The groups that are always on.
_ALWAYS = ("transport", "mask")


class FeatureTable:
    """The observation layout for one :class:`ObservationConfig`: the features in order, their
    names and bounds, and one frame from one step's :class:`PathInputs`."""

    def __init__(self, cfg: ObservationConfig) -> None:
        self.cfg = cfg
        self.per_path: tuple[Feature, ...] = tuple(
            f
            for group, features in FEATURE_GROUPS.items()
            if group in _ALWAYS or getattr(cfg, group)
            for f in features
        )
        self.frame_size = len(self.per_path) * cfg.max_paths
        self.size = self.frame_size * cfg.history
        self._scale = np.array([f.unit_scale for f in self.per_path], dtype=np.float64)
        frame_low = np.tile([f.low for f in self.per_path], cfg.max_paths)
        frame_high = np.tile([f.high for f in self.per_path], cfg.max_paths)
        self.low = np.tile(frame_low, cfg.history).astype(np.float32)
        self.high = np.tile(frame_high, cfg.history).astype(np.float32)
        self._frame_low = frame_low.reshape(cfg.max_paths, -1)
        self._frame_high = frame_high.reshape(cfg.max_paths, -1)

    @property
    def names(self) -> list[str]:
        """Every feature's name with its unit, e.g. ``"t-0/path0/srtt [100 ms]"``."""
        return [
            f"t-{h}/path{p}/{f.key} [{f.unit}]"
            for h in range(self.cfg.history - 1, -1, -1)
            for p in range(self.cfg.max_paths)
            for f in self.per_path
        ]

    def frame(self, inputs: PathInputs) -> np.ndarray:
        """One frame (``max_paths × features``, float32), zero-padded past the real paths."""
        n = len(inputs.m.path_state)
        raw = np.empty((n, len(self.per_path)), dtype=np.float64)
        for j, f in enumerate(self.per_path):
            raw[:, j] = f.extract(inputs)
        return self.frame_from_raw(raw)

    def frame_from_raw(self, raw: np.ndarray) -> np.ndarray:
        """One frame from the raw per-path values in SI units.

        :param raw: ``(n_paths, len(per_path))`` float64, columns in :attr:`per_path` order
            (the ``active`` mask last, as 0/1). It is modified in place.
        :return: the frame, float32, zero-padded past the real paths.
        """
        # NaN and infinities become 0 (as np.nan_to_num(nan=0, posinf=0, neginf=0)), then
        # scale and clip (np.maximum/np.minimum: np.clip's result without its overhead).
        np.copyto(raw, 0.0, where=~np.isfinite(raw))
        raw /= self._scale
        out = np.zeros((self.cfg.max_paths, len(self.per_path)), dtype=np.float64)
        k = min(raw.shape[0], self.cfg.max_paths)
        out[:k] = raw[:k]
        np.maximum(out, self._frame_low, out=out)
        np.minimum(out, self._frame_high, out=out)
        return out.reshape(-1).astype(np.float32)
