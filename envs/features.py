"""Observation features: names, units, bounds and the builder.

The observation is a flat float32 vector: ``history`` frames (oldest first) of
``max_paths × per-path features`` plus a per-path mask. Every value is a physical quantity divided
by a fixed unit (shown in the name) and clipped into the declared finite bounds, so the vector
is comparable across scenarios and never leaves the observation space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from leogym.envs.config import ObservationConfig

if TYPE_CHECKING:
    from leogym.scenario.forecast import HandoverOracle

__all__ = [
    "Feature",
    "PathSignals",
    "FeatureTable",
    "NO_HANDOVER_HORIZON_S",
    "NO_RTO_HORIZON_S",
    "path_frame",
]

#: The predicted time to the next handover is capped here (also used when none is scheduled).
NO_HANDOVER_HORIZON_S = 60.0


@dataclass(frozen=True)
class Feature:
    """One per-path feature: ``value = clip(raw / unit_scale, low, high)``."""

    key: str
    unit: str
    unit_scale: float
    low: float
    high: float
    group: str = "transport"


_TRANSPORT = (
    Feature("cwnd", "100 packets", 100.0, 0.0, 100.0),
    Feature("bytes_in_flight", "100 packets", 100.0, 0.0, 100.0),
    Feature("srtt", "100 ms", 0.1, 0.0, 50.0),
    Feature("min_rtt", "100 ms", 0.1, 0.0, 50.0),
    Feature("rttvar", "100 ms", 0.1, 0.0, 50.0),
    Feature("delivery_rate", "100 Mbit/s", 1e8, 0.0, 100.0),
    Feature("loss_rate", "fraction", 1.0, 0.0, 1.0),
)
_HANDOVER = (
    Feature("time_to_handover", "10 s", 10.0, 0.0, NO_HANDOVER_HORIZON_S / 10.0, "handover"),
    Feature("rtt_after_handover", "100 ms", 0.1, 0.0, 50.0, "handover"),
    Feature("capacity_after_handover", "100 Mbit/s", 1e8, 0.0, 100.0, "handover"),
)
_SNR = (
    Feature("snr", "10 dB", 10.0, -10.0, 10.0, "snr"),
    Feature("elevation", "90 deg", 90.0, 0.0, 1.0, "snr"),
)
#: The retransmission timer is reported up to this horizon (also when none runs).
NO_RTO_HORIZON_S = 10.0
_RECOVERY = (
    Feature("rto_count", "timeouts", 1.0, 0.0, 10.0, "recovery"),
    Feature("in_loss_state", "bool", 1.0, 0.0, 1.0, "recovery"),
    Feature("time_to_rto", "1 s", 1.0, 0.0, NO_RTO_HORIZON_S, "recovery"),
)
_CONGESTION = (
    Feature("ce_fraction", "fraction", 1.0, 0.0, 1.0, "congestion"),
    Feature("queue_delay", "100 ms", 0.1, 0.0, 50.0, "congestion"),
)
_MASK = Feature("active", "bool", 1.0, 0.0, 1.0, "mask")


@dataclass
class PathSignals:
    """Raw per-path values for one step, each an array of shape ``(n_paths,)`` in SI units.

    Transport values come from the native core; handover and SNR values from the timeline oracle.
    """

    cwnd_packets: np.ndarray
    inflight_packets: np.ndarray
    srtt_s: np.ndarray
    min_rtt_s: np.ndarray
    rttvar_s: np.ndarray
    delivery_rate_bps: np.ndarray
    loss_rate: np.ndarray
    time_to_handover_s: np.ndarray
    rtt_after_handover_s: np.ndarray
    capacity_after_handover_bps: np.ndarray
    snr_db: np.ndarray
    elevation_deg: np.ndarray
    active: np.ndarray
    rto_count: np.ndarray | None = None  #: retransmission timeouts in the step
    in_loss_state: np.ndarray | None = None  #: 0/1
    time_to_rto_s: np.ndarray | None = None  #: inf when no retransmission timer runs
    ce_fraction: np.ndarray | None = None  #: CE-marked packets / data packets sent, in [0, 1]
    queue_delay_s: np.ndarray | None = None  #: time in link queues (NaN: no packet arrived)


class FeatureTable:
    """The observation layout for one :class:`ObservationConfig`."""

    def __init__(self, cfg: ObservationConfig) -> None:
        self.cfg = cfg
        per_path = list(_TRANSPORT)
        if cfg.handover_features:
            per_path += list(_HANDOVER)
        if cfg.snr_features:
            per_path += list(_SNR)
        if cfg.recovery_features:
            per_path += list(_RECOVERY)
        if cfg.congestion_features:
            per_path += list(_CONGESTION)
        per_path.append(_MASK)
        self.per_path: tuple[Feature, ...] = tuple(per_path)
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
        names = []
        for h in range(self.cfg.history - 1, -1, -1):
            for p in range(self.cfg.max_paths):
                for f in self.per_path:
                    names.append(f"t-{h}/path{p}/{f.key} [{f.unit}]")
        return names

    def frame(self, s: PathSignals) -> np.ndarray:
        """One frame (``max_paths × features``), zero-padded past the real paths."""
        columns = [
            s.cwnd_packets,
            s.inflight_packets,
            s.srtt_s,
            s.min_rtt_s,
            s.rttvar_s,
            s.delivery_rate_bps,
            s.loss_rate,
        ]
        if self.cfg.handover_features:
            columns += [s.time_to_handover_s, s.rtt_after_handover_s, s.capacity_after_handover_bps]
        if self.cfg.snr_features:
            columns += [s.snr_db, s.elevation_deg]
        if self.cfg.recovery_features:
            zero = np.zeros(len(s.active))
            rto = zero if s.rto_count is None else s.rto_count
            loss_state = zero if s.in_loss_state is None else s.in_loss_state
            to_rto = np.full(len(s.active), np.inf) if s.time_to_rto_s is None else s.time_to_rto_s
            columns += [rto, loss_state, np.minimum(to_rto, NO_RTO_HORIZON_S)]
        if self.cfg.congestion_features:
            zero = np.zeros(len(s.active))
            columns += [
                zero if s.ce_fraction is None else s.ce_fraction,
                zero if s.queue_delay_s is None else s.queue_delay_s,
            ]
        columns.append(s.active)
        raw = np.empty((len(s.active), len(self.per_path)), dtype=np.float64)
        for j, c in enumerate(columns):
            raw[:, j] = c
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


def path_frame(
    features: FeatureTable,
    oracle: HandoverOracle,
    t: float,
    *,
    packet_bytes: float,
    rate_scale: float,
    cwnd: np.ndarray,
    inflight: np.ndarray,
    srtt: np.ndarray,
    min_rtt: np.ndarray,
    rttvar: np.ndarray,
    delivery_rate: np.ndarray,
    sent: np.ndarray,
    lost: np.ndarray,
    rto: np.ndarray,
    loss_state: np.ndarray,
    to_rto: np.ndarray,
    state: np.ndarray,
    rng: np.random.Generator | None,
    ce: np.ndarray | None = None,
    queue_delay: np.ndarray | None = None,
) -> np.ndarray:
    """One step's normalised per-path frame, from the transport's per-path measurements and the
    timeline oracle: the columns of :attr:`FeatureTable.per_path` in order, written straight
    into one (paths x features) array (the hot path of every env step; ``FeatureTable.frame``
    of a :class:`PathSignals` gives the same frame).

    :param rng: draws the handover-prediction jitter (``handover_jitter_s``); drawn whenever
        the jitter is on, used or not, so that the env's random stream does not depend on the
        feature switches.
    :param ce: packets the peer reported CE-marked in the step (``ce_packets``; the congestion
        features' CE fraction is ``ce / sent``, clipped to [0, 1]); ``None``: none.
    :param queue_delay: the mean time the path's packets spent in link queues in the step
        (``queue_delay_s``, s; NaN without packets, reported as 0); ``None``: unknown, 0.
    """
    cfg = features.cfg
    raw = np.empty((len(cwnd), len(features.per_path)), dtype=np.float64)
    np.divide(cwnd, packet_bytes, out=raw[:, 0])
    np.divide(inflight, packet_bytes, out=raw[:, 1])
    raw[:, 2] = srtt
    raw[:, 3] = min_rtt
    raw[:, 4] = rttvar
    np.multiply(delivery_rate, rate_scale, out=raw[:, 5])
    sent = np.asarray(sent, dtype=np.float64)
    lost = np.asarray(lost, dtype=np.float64)
    loss_rate = np.divide(lost, sent, out=np.zeros_like(lost), where=sent > 0)
    np.clip(loss_rate, 0.0, 1.0, out=raw[:, 6])
    col = 7
    jitter = cfg.handover_jitter_s
    if cfg.handover_features or jitter > 0:
        tth = np.minimum(oracle.time_to_handover(t), NO_HANDOVER_HORIZON_S)
        if jitter > 0 and rng is not None:
            tth = np.maximum(tth + rng.normal(0.0, jitter, size=tth.shape), 0.0)
    if cfg.handover_features:
        rtt_after, cap_after = oracle.after_handover(t)
        raw[:, col] = tth
        raw[:, col + 1] = rtt_after
        np.multiply(cap_after, rate_scale, out=raw[:, col + 2])
        col += 3
    if cfg.snr_features:
        raw[:, col] = oracle.snr_db(t)
        raw[:, col + 1] = oracle.elevation_deg(t)
        col += 2
    if cfg.recovery_features:
        raw[:, col] = rto
        raw[:, col + 1] = loss_state
        np.minimum(to_rto, NO_RTO_HORIZON_S, out=raw[:, col + 2])
        col += 3
    if cfg.congestion_features:
        if ce is None:
            raw[:, col] = 0.0
        else:
            ce = np.asarray(ce, dtype=np.float64)
            frac = np.divide(ce, sent, out=np.zeros_like(ce), where=sent > 0)
            np.clip(frac, 0.0, 1.0, out=raw[:, col])
        raw[:, col + 1] = 0.0 if queue_delay is None else queue_delay
        col += 2
    raw[:, col] = np.equal(state, 0)
    return features.frame_from_raw(raw)
