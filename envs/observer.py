"""One flow's view of an episode: its observation (frames of :mod:`~leogym.envs.features`,
stacked over ``history`` steps) and its reward metrics, the same for the connection under study
(flow 0) as for any other flow of the scenario."""

from __future__ import annotations

from collections import deque

import numpy as np

from leogym.envs.features import FeatureTable, PathInputs, PathMeasurements
from leogym.envs.rewards import StepMetrics, step_metrics
from leogym.scenario.forecast import HandoverOracle
from leogym.simulation import Measurements

__all__ = ["FlowObserver", "sharing_flows"]


class FlowObserver:
    """One flow's observation frames and reward metrics.

    :param features: the observation layout (the env's :class:`FeatureTable`).
    :param oracle: the handover oracle of the flow's routes (for flow ``k``:
        :func:`~leogym.envs.multi_flow.flow_timeline`'s).
    :param flow: the flow's index (0 the connection).
    :param n_paths: the flow's paths (subflows).
    :param packet_bytes: the scenario's packet size (cwnd and flight are in packets).
    :param rate_scale: the scenario's ``rate_scale`` (rates are scaled back up by it).
    """

    def __init__(
        self,
        features: FeatureTable,
        oracle: HandoverOracle,
        flow: int,
        n_paths: int,
        packet_bytes: int,
        rate_scale: float,
    ) -> None:
        self.features = features
        self.oracle = oracle
        self.flow = flow
        self.n_paths = n_paths
        self._packet_bytes = packet_bytes
        self._rate_scale = rate_scale
        self._frames: deque[np.ndarray] = deque(maxlen=features.cfg.history)
        self._min_rtt = np.inf

    def reset(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """The first observation of an episode (nothing measured yet; earlier frames zero).

        :param rng: draws the handover-forecast jitter (``observation.handover_jitter_s``).
        """
        self._min_rtt = np.inf
        frame = self._frame(PathMeasurements.zero(self.n_paths), 0.0, rng)
        self._frames.clear()
        blank = np.zeros_like(frame)
        for _ in range(self.features.cfg.history - 1):
            self._frames.append(blank)
        self._frames.append(frame)
        return self.observation()

    def update(self, m: Measurements, rng: np.random.Generator | None = None) -> np.ndarray:
        """Add the frame of step ``m`` and return the observation."""
        self._frames.append(self._frame(PathMeasurements.of_flow(m, self.flow), m.time_s, rng))
        return self.observation()

    def observation(self) -> np.ndarray:
        """The stacked frames, oldest first (float32)."""
        return np.concatenate(list(self._frames)).astype(np.float32)

    def metrics(self, m: Measurements, t0: float, t1: float) -> StepMetrics:
        """The flow's reward metrics of step ``m`` over ``[t0, t1]``."""
        pm = PathMeasurements.of_flow(m, self.flow)
        mid = 0.5 * (t0 + t1)
        capacity = float(self.oracle.capacity(mid).sum()) * self._rate_scale
        metrics, self._min_rtt = step_metrics(
            t0,
            t1,
            goodput_bytes=m.goodput_bytes if self.flow == 0 else m.flow_goodput_bytes[self.flow],
            delivered_bytes=pm.delivered_bytes,
            srtt_s=pm.srtt_s,
            min_rtt_s=pm.min_rtt_s,
            sent_packets=pm.sent_packets,
            lost_packets=pm.lost_packets,
            capacity_bps=capacity,
            min_rtt_so_far=self._min_rtt,
            rate_scale=self._rate_scale,
            queue_delay_s=pm.queue_delay_s,
            ce_packets=pm.ce_packets,
            propagation_rtt_s=self.oracle.propagation_rtt(mid),
            sharing_flows=sharing_flows(m),
        )
        return metrics

    def _frame(self, m: PathMeasurements, t: float, rng: np.random.Generator | None) -> np.ndarray:
        inputs = PathInputs(
            m, self.oracle, t, packet_bytes=self._packet_bytes, rate_scale=self._rate_scale
        )
        jitter = self.features.cfg.handover_jitter_s
        if jitter > 0 and rng is not None:
            # Drawn whenever the jitter is on, used or not, so that the env's random stream
            # does not depend on the feature switches.
            tth = inputs.time_to_handover_s
            inputs.time_to_handover_s = np.maximum(
                tth + rng.normal(0.0, jitter, size=tth.shape), 0.0
            )
        return self.features.frame(inputs)


def sharing_flows(m: Measurements) -> int:
    """How many flows delivered data in step ``m``, the connection counted always: the flows
    that share the capacity, for the fair-share term (an approximation on hop networks, where
    not every flow crosses every link of the connection)."""
    others = np.asarray(m.flow_goodput_bytes[1:], dtype=np.float64)
    return 1 + int(np.count_nonzero(others > 0))
