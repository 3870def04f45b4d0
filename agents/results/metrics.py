"""Per-episode metrics from the envs' per-step ``info``.

An :class:`EpisodeRecorder` collects the info dicts of one episode; :meth:`~EpisodeRecorder.metrics`
reduces them to one row of the results table and :meth:`~EpisodeRecorder.trace` gives the tidy
per-step, per-path trace. Definitions (``Δ_k`` is the duration of step ``k``, ``T = Σ Δ_k``):

``return``
    Sum of rewards.
``goodput_mbps``
    In-order application goodput, ``Σ goodput_k·Δ_k / T``.
``capacity_mbps``, ``utilization``
    Mean summed path capacity (same weighting) and ``goodput / capacity``.
``completion_time_s``
    For a ``file`` workload that finished: the env's completion time; otherwise NaN.
``convergence_time_s``
    Goodput is smoothed by a trailing moving average of ``convergence_window_s``. ``G`` is the
    mean goodput over the last ``convergence_tail_fraction`` of the episode. The convergence
    time is the end time of the earliest step from which the smoothed goodput stays within
    ``±convergence_tolerance·G`` for the rest of the episode, ignoring steps that end less than
    ``handover_guard_s`` after a handover (a handover dip is not a failure to converge). NaN if
    ``G = 0`` or the goodput is still outside the band at the end. Under capacity that keeps
    changing (Markov terrestrial links, handovers every 15 s) many episodes never settle by
    this definition; the leaderboard reports how many did.
``rtt_pXX_ms``
    Percentiles of the smoothed RTT over (step, path) samples of paths that delivered data in
    that step.
``delay_mean_ms``
    Mean of the env's per-step delay (delivery-weighted smoothed RTT across paths).
``loss_rate``
    Mean per-step loss rate (packets declared lost / packets sent).
``loss_<cause>_pkts``
    Packets dropped by cause over the episode, summed over paths: ``outage`` (link down during
    a handover outage), ``random`` (Bernoulli channel loss), ``overflow`` (drop-tail queue), and
    ``detected`` (losses the sender declared, which includes spurious ones).
``handovers``
    Handover events on any path.
``jain_paths``
    Jain's index ``(Σx)² / (n·Σx²)`` of the paths' delivered bytes: 1 = equal split.
``jain_flows``
    Jain's index over competing flows, where flows compete: the throughput of this
    connection, of every flow of the scenario's ``traffic.flows`` (``info["flow_goodput_bytes"]``)
    and of every cross-traffic source (``info["cross_traffic_rx_bytes"]``), as the native core
    measures them, each flow's bytes over the seconds it was scheduled to send
    (``info["flow_scheduled_s"]``), as Jain, Chiu and Hawe define the index over rates. A peer
    that joins for 14 s of a 30 s episode and gets half the link while there scores 0.96 beside
    the connection (which had the link alone for 16 s); the episode's bytes would give 0.78
    however fair the split. Flows never scheduled in the episode are left out; NaN when the
    connection runs alone.
``share_of_fair``
    This connection's bytes over its fair share, summed over the episode: in each step the
    fair share is the bytes that the flows of ``jain_flows`` delivered together, divided by
    the number that delivered (this connection always counted), so a flow that holds its
    share scores 1, one that takes nothing 0 (the "no collapse" criterion asks for >= 0.5);
    NaN when the connection runs alone or nothing was delivered.
``follows_alternate``
    Under ``residual_alternate`` (the residual mode with two controllers): the fraction of
    (step, path) samples on which the path followed the alternate (``info["follows_alternate"]``,
    the choice applied for the step); NaN for every other policy.
``owd_mean_ms``, ``queue_delay_mean_ms``
    This connection's one-way delay and queueing delay, averaged over its data packets (the
    core measures each packet from its source's IP layer to its sink's; queueing delay is the
    time spent in link queues).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from leogym.simulation.fairness import jain_index

__all__ = ["EpisodeRecorder", "convergence_time", "jain_index", "percentile_key"]


def percentile_key(p: float) -> str:
    """Column name of an RTT percentile: ``95 -> rtt_p95_ms``, ``99.9 -> rtt_p99.9_ms``."""
    return f"rtt_p{int(p) if float(p).is_integer() else p}_ms"


def convergence_time(
    t_end: np.ndarray,
    goodput: np.ndarray,
    handover_times: np.ndarray,
    *,
    tolerance: float = 0.1,
    window_s: float = 1.0,
    tail_fraction: float = 0.5,
    handover_guard_s: float = 1.0,
) -> float:
    """Convergence time of a goodput series (definition in the module docstring).

    :param t_end: end time of each step (s), increasing.
    :param goodput: goodput of each step (any unit).
    :param handover_times: handover instants (s).
    :return: seconds from the episode start, or NaN if it does not converge.
    """
    t_end = np.asarray(t_end, dtype=np.float64)
    g = np.asarray(goodput, dtype=np.float64)
    n = g.size
    if n == 0:
        return math.nan
    dt = np.diff(np.concatenate([[0.0], t_end]))
    step = float(np.median(dt)) if n else 1.0
    w = max(1, int(round(window_s / step))) if step > 0 else 1
    csum = np.concatenate([[0.0], np.cumsum(g)])
    idx = np.arange(1, n + 1)
    lo = np.maximum(idx - w, 0)
    smooth = (csum[idx] - csum[lo]) / (idx - lo)
    tail = max(1, int(math.ceil(tail_fraction * n)))
    final = float(np.mean(g[-tail:]))
    if not final > 0.0:
        return math.nan
    inside = np.abs(smooth - final) <= tolerance * final
    excused = np.zeros(n, dtype=bool)
    for th in np.asarray(handover_times, dtype=np.float64).ravel():
        excused |= (t_end >= th) & (t_end < th + handover_guard_s)
    ok = inside | excused
    if not ok[-1] or not inside[~excused].any():
        return math.nan
    bad = np.flatnonzero(~ok)
    first = 0 if bad.size == 0 else int(bad[-1]) + 1
    # the converged run must start on a step inside the band, not on an excused one
    while first < n and not inside[first]:
        first += 1
    return float(t_end[first]) if first < n else math.nan


class EpisodeRecorder:
    """Collects one episode's rewards and info dicts.

    Works with any Gymnasium env: keys a non-leogym env lacks give NaN metrics.
    """

    _SCALARS = (
        "goodput_bps",
        "delay_s",
        "loss_rate",
        "capacity_bps",
        "reorder_buffer_bytes",
        "hol_delay_s",
    )
    _PATHS = ("rtt_s", "cwnd_bytes", "delivered_bytes")
    _CAUSES = ("outage", "random", "overflow", "detected")

    def __init__(self) -> None:
        self.rewards: list[float] = []
        self.t: list[float] = []
        self.scalars: dict[str, list[float]] = {k: [] for k in self._SCALARS}
        self.paths: dict[str, list[np.ndarray]] = {k: [] for k in self._PATHS}
        self.losses: dict[str, list[np.ndarray]] = {k: [] for k in self._CAUSES}
        self.handovers: list[tuple[float, int]] = []
        self.flow_goodput: list[np.ndarray] = []
        self.flow_scheduled_s: list[np.ndarray] = []
        self.follows: list[np.ndarray] = []
        self.delay_packets = 0.0
        self.owd_sum = 0.0
        self.queue_sum = 0.0
        self.completion_time_s = math.nan
        self.terminated = False
        self.truncated = False

    @property
    def is_network(self) -> bool:
        """Whether the env reported network measurements (a leogym env)."""
        return bool(self.scalars["goodput_bps"])

    def add(
        self, reward: float, info: dict[str, Any], terminated: bool = False, truncated: bool = False
    ) -> None:
        """Record one step."""
        self.rewards.append(float(reward))
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        if "goodput_bps" not in info:
            self.t.append(float(len(self.rewards)))
            return
        self.t.append(float(info["sim_time_s"]))
        for k in self._SCALARS:
            self.scalars[k].append(float(info.get(k, math.nan)))
        for k in self._PATHS:
            self.paths[k].append(np.asarray(info[k], dtype=np.float64).ravel())
        if "follows_alternate" in info:
            self.follows.append(np.asarray(info["follows_alternate"], dtype=np.float64).ravel())
        losses = info.get("losses", {})
        for k in self._CAUSES:
            self.losses[k].append(np.asarray(losses.get(k, 0), dtype=np.float64).ravel())
        for p, th in zip(
            info.get("handover_paths", ()), info.get("handover_times_s", ()), strict=True
        ):
            self.handovers.append((float(th), int(p)))
        dt = self.t[-1] - (self.t[-2] if len(self.t) > 1 else 0.0)
        if "flow_goodput_bytes" in info:
            own = np.asarray(info["flow_goodput_bytes"], dtype=np.float64).ravel()
        elif "cross_traffic_rx_bytes" in info:
            own = np.array([float(info["goodput_bps"]) * dt / 8.0])
        else:
            own = None
        if own is not None:
            cross = np.asarray(info.get("cross_traffic_rx_bytes", ()), dtype=np.float64).ravel()
            self.flow_goodput.append(np.concatenate([own, cross]))
            sched = info.get("flow_scheduled_s")
            self.flow_scheduled_s.append(
                np.full(self.flow_goodput[-1].size, dt)
                if sched is None
                else np.asarray(sched, dtype=np.float64).ravel()
            )
        if "flow_packets" in info:
            n = float(np.asarray(info["flow_packets"]).ravel()[0])
            if n > 0:
                self.delay_packets += n
                self.owd_sum += n * float(np.asarray(info["flow_owd_mean_s"]).ravel()[0])
                self.queue_sum += n * float(np.asarray(info["flow_queue_delay_s"]).ravel()[0])
        if terminated and float(info.get("completion_time_s", 0.0)) > 0.0:
            self.completion_time_s = float(info["completion_time_s"])

    # ------------------------------------------------------------------------------ metrics
    def metrics(self, cfg: Any = None) -> dict[str, float]:
        """One results-table row (without identifying columns).

        :param cfg: a :class:`~leogym.agents.config.MetricsConfig` (defaults if ``None``).
        """
        if cfg is None:
            from leogym.agents.config import MetricsConfig

            cfg = MetricsConfig()
        out: dict[str, float] = {
            "return": float(np.sum(self.rewards)),
            "steps": float(len(self.rewards)),
            "terminated": float(self.terminated),
        }
        keys = [
            "sim_time_s",
            "goodput_mbps",
            "capacity_mbps",
            "utilization",
            "completion_time_s",
            "convergence_time_s",
            *[percentile_key(p) for p in cfg.rtt_percentiles],
            "delay_mean_ms",
            "loss_rate",
            *[f"loss_{c}_pkts" for c in self._CAUSES],
            "handovers",
            "hol_delay_mean_ms",
            "reorder_buffer_max_kb",
            "jain_paths",
            "jain_flows",
            "share_of_fair",
            "follows_alternate",
            "owd_mean_ms",
            "queue_delay_mean_ms",
        ]
        if not self.is_network:
            out.update({k: math.nan for k in keys})
            return out
        t = np.asarray(self.t)
        dt = np.diff(np.concatenate([[0.0], t]))
        total = float(np.sum(dt))
        s = {k: np.asarray(v) for k, v in self.scalars.items()}
        goodput = s["goodput_bps"]
        capacity = s["capacity_bps"]
        out["sim_time_s"] = float(t[-1])
        out["goodput_mbps"] = float(np.sum(goodput * dt) / total / 1e6) if total > 0 else math.nan
        out["capacity_mbps"] = float(np.sum(capacity * dt) / total / 1e6) if total > 0 else math.nan
        out["utilization"] = (
            out["goodput_mbps"] / out["capacity_mbps"] if out["capacity_mbps"] > 0 else math.nan
        )
        out["completion_time_s"] = self.completion_time_s
        ho_times = np.array([h[0] for h in self.handovers], dtype=np.float64)
        out["convergence_time_s"] = convergence_time(
            t,
            goodput,
            ho_times,
            tolerance=cfg.convergence_tolerance,
            window_s=cfg.convergence_window_s,
            tail_fraction=cfg.convergence_tail_fraction,
            handover_guard_s=cfg.handover_guard_s,
        )
        rtt = self._matrix("rtt_s")
        delivered = self._matrix("delivered_bytes")
        samples = rtt[(delivered > 0) & (rtt > 0)] * 1e3
        for p in cfg.rtt_percentiles:
            out[percentile_key(p)] = float(np.percentile(samples, p)) if samples.size else math.nan
        out["delay_mean_ms"] = float(np.mean(s["delay_s"]) * 1e3)
        out["loss_rate"] = float(np.mean(s["loss_rate"]))
        for c in self._CAUSES:
            out[f"loss_{c}_pkts"] = float(self._matrix(c, losses=True).sum())
        out["handovers"] = float(len(self.handovers))
        out["hol_delay_mean_ms"] = float(np.mean(s["hol_delay_s"]) * 1e3)
        out["reorder_buffer_max_kb"] = float(np.max(s["reorder_buffer_bytes"]) / 1e3)
        out["jain_paths"] = jain_index(delivered.sum(axis=0))
        out["jain_flows"] = out["share_of_fair"] = math.nan
        if self.flow_goodput and self.flow_goodput[0].size > 1:
            g = np.vstack(self.flow_goodput)  # (step, flow), the connection first
            sched = np.vstack(self.flow_scheduled_s).sum(axis=0)
            if sched.size != g.shape[1]:
                raise ValueError(
                    f"info['flow_scheduled_s'] has {sched.size} entries per step, the flows "
                    f"{g.shape[1]} (flow_goodput_bytes, then cross_traffic_rx_bytes)"
                )
            on = sched > 0
            out["jain_flows"] = jain_index(g.sum(axis=0)[on] / sched[on])
            sharing = 1 + np.count_nonzero(g[:, 1:] > 0, axis=1)
            fair = float(np.sum(g.sum(axis=1) / sharing))
            if fair > 0:
                out["share_of_fair"] = float(g[:, 0].sum()) / fair
        out["follows_alternate"] = (
            float(np.mean(np.concatenate(self.follows))) if self.follows else math.nan
        )
        packets = self.delay_packets
        out["owd_mean_ms"] = self.owd_sum / packets * 1e3 if packets > 0 else math.nan
        out["queue_delay_mean_ms"] = self.queue_sum / packets * 1e3 if packets > 0 else math.nan
        return out

    def _matrix(self, key: str, losses: bool = False) -> np.ndarray:
        rows = (self.losses if losses else self.paths)[key]
        if not rows:
            return np.zeros((0, 0))
        width = max(r.size for r in rows)
        out = np.zeros((len(rows), width))
        for i, r in enumerate(rows):
            out[i, : r.size] = r
        return out

    # -------------------------------------------------------------------------------- trace
    def trace(self) -> Any:
        """Tidy per-step trace: one row per (step, path), as a pandas DataFrame.

        Columns: ``step``, ``t_s`` (end of step), ``path``, ``reward``, connection-level
        ``goodput_bps``, ``delay_s``, ``loss_rate``, ``capacity_bps``, ``reorder_buffer_bytes``,
        ``hol_delay_s`` (repeated on every path row), per-path ``rtt_s``, ``cwnd_bytes``,
        ``delivered_bytes``, ``loss_<cause>``, ``handover`` (a handover on this path
        during the step) with ``handover_time_s`` (NaN if none), and ``follows_alternate``
        (1.0 where the path followed ``residual_alternate`` in the step, 0.0 the base; NaN
        without an alternate).
        """
        import pandas as pd

        n = len(self.rewards)
        if not self.is_network:
            return pd.DataFrame(
                {
                    "step": np.arange(1, n + 1),
                    "t_s": np.asarray(self.t),
                    "path": np.zeros(n, dtype=np.int64),
                    "reward": np.asarray(self.rewards),
                }
            )
        width = self._matrix("rtt_s").shape[1]
        step = np.repeat(np.arange(1, n + 1), width)
        path = np.tile(np.arange(width), n)
        t = np.asarray(self.t)
        data: dict[str, Any] = {
            "step": step,
            "t_s": np.repeat(t, width),
            "path": path,
            "reward": np.repeat(np.asarray(self.rewards), width),
        }
        for k, v in self.scalars.items():
            data[k] = np.repeat(np.asarray(v), width)
        for k in self._PATHS:
            data[k] = self._matrix(k).ravel()
        for c in self._CAUSES:
            data[f"loss_{c}"] = self._matrix(c, losses=True)[:, :width].ravel()
        ho_time = np.full((n, width), np.nan)
        t_start = np.concatenate([[0.0], t[:-1]])
        for th, p in self.handovers:
            row = int(np.searchsorted(t, th, side="left"))
            row = min(max(row, 0), n - 1)
            if t_start[row] <= th <= t[row] and p < width and np.isnan(ho_time[row, p]):
                ho_time[row, p] = th
        data["handover"] = ~np.isnan(ho_time.ravel())
        data["handover_time_s"] = ho_time.ravel()
        follows = np.full((n, width), np.nan)
        if len(self.follows) == n:
            for i, chosen in enumerate(self.follows):
                follows[i, : min(width, chosen.size)] = chosen[:width]
        data["follows_alternate"] = follows.ravel()
        return pd.DataFrame(data)
