"""Reward functions: pure Python over the metrics measured in one env step.

A reward is any callable ``(metrics: StepMetrics, weights: RewardWeights) -> float``. Changing a
reward needs no rebuild: the native core only measures. Register new ones with
:func:`register_reward` or pass a callable as ``reward=`` to the env.

The default, ``"leo"`` (:func:`leo_reward`), is scale-free and charges only the delay a sender
causes: capacity-normalised goodput, queueing measured in the link queues relative to each path's
own propagation RTT (never a handover's change of geometry), loss, CE marks and an optional
fair-share term for shared links. ``"aurora"`` is the linear throughput/latency/loss utility of
Aurora (Jay et al., "A Deep Reinforcement Learning Perspective on Internet Congestion Control",
ICML 2019, §4: ``r = 10·throughput − 1000·latency − 2000·loss``), with throughput taken in Mbit/s
of in-order goodput rather than packets/s, and a ``scale`` factor so that a good step on a tens-of-
Mbit/s LEO path scores O(1); it is kept as it was, for comparison.

Each reward has its own default weights (:func:`default_weights`): ``leo``'s are in
:data:`REWARD_DEFAULTS`, every other reward takes :class:`RewardWeights`' (Aurora's).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leogym import schema
from leogym.schema import bounded

__all__ = [
    "RewardWeights",
    "StepMetrics",
    "step_metrics",
    "RewardFn",
    "aurora_reward",
    "leo_reward",
    "default_weights",
    "REWARD_DEFAULTS",
    "goodput_reward",
    "power_reward",
    "congestion_signal_reward",
    "get_reward",
    "register_reward",
    "REWARDS",
    "WEIGHT_RANGE",
]


@dataclass(frozen=True)
class StepMetrics:
    """What one env step measured, in SI units.

    :param goodput_bps: in-order bytes delivered to the application during the step, in bit/s.
    :param delay_s: mean round-trip time over the step, weighted by each path's delivered bytes.
    :param min_delay_s: smallest RTT seen on any active path so far (the propagation floor).
    :param loss_rate: packets declared lost / packets sent during the step (0 if none sent).
    :param capacity_bps: sum of the active paths' link capacities during the step (oracle value,
        from the timeline; used only by normalised rewards).
    :param step_s: step length in seconds.
    :param queue_delay_s: mean time the delivered packets spent in link queues (the AQM
        sojourn summed over the hops), weighted by each path's delivered bytes; 0 if unknown.
    :param ce_fraction: packets the peer reported ECN CE-marked / packets sent during the step
        (0 without ECN).
    :param propagation_rtt_s: the paths' own propagation RTT at the middle of the step (the
        timeline's ground truth), weighted by each path's delivered bytes; 0 if unknown.
    :param fair_share_bps: the flow's fair share of the capacity when it shares links with other
        flows (the capacity over the flows that delivered data in the step); 0 when alone.
    """

    goodput_bps: float
    delay_s: float
    min_delay_s: float
    loss_rate: float
    capacity_bps: float
    step_s: float
    queue_delay_s: float = 0.0
    ce_fraction: float = 0.0
    propagation_rtt_s: float = 0.0
    fair_share_bps: float = 0.0


def step_metrics(
    t0: float,
    t1: float,
    *,
    goodput_bytes: float,
    delivered_bytes: Any,
    srtt_s: Any,
    min_rtt_s: Any,
    sent_packets: Any,
    lost_packets: Any,
    capacity_bps: float,
    min_rtt_so_far: float,
    rate_scale: float,
    queue_delay_s: Any = None,
    ce_packets: Any = None,
    propagation_rtt_s: Any = None,
    sharing_flows: int = 1,
) -> tuple[StepMetrics, float]:
    """One step's :class:`StepMetrics` from per-path (or per-subflow) measurements.

    :param goodput_bytes: application bytes delivered in the step (at the simulated rates).
    :param capacity_bps: the step's link capacity, already at the real rates.
    :param min_rtt_so_far: the smallest RTT of the episode before this step (inf: none yet).
    :param rate_scale: the scenario's ``rate_scale``: goodput is scaled back up by it.
    :param queue_delay_s: per path, the mean time its packets spent in link queues (NaN: no
        packet); ``None``: not measured.
    :param ce_packets: per path, packets the peer reported CE-marked; ``None``: none.
    :param propagation_rtt_s: per path, the propagation RTT at the middle of the step;
        ``None``: unknown.
    :param sharing_flows: how many flows (this one included) share the capacity in the step;
        above 1, the fair share is ``capacity_bps / sharing_flows``.
    :return: the metrics and the episode's smallest RTT after this step.
    """
    dt = max(t1 - t0, 1e-9)
    delivered = np.asarray(delivered_bytes, dtype=np.float64)
    srtt = np.asarray(srtt_s, dtype=np.float64)
    valid = srtt > 0
    if valid.all():
        w, x = delivered, srtt
    else:
        w, x = delivered[valid], srtt[valid]
    weight = w.sum()
    if weight > 0:
        # np.average(x, weights=w), without its overhead: the same operations.
        delay = float(np.multiply(x, w).sum() / weight)
    elif len(x):
        delay = float(x.mean())
    else:
        delay = 0.0
    min_rtt = np.asarray(min_rtt_s, dtype=np.float64)
    positive = min_rtt > 0
    if positive.any():
        min_rtt_so_far = min(min_rtt_so_far, float(min_rtt[positive].min()))
    sent = float(np.asarray(sent_packets).sum())
    lost = float(np.asarray(lost_packets).sum())
    queue_delay = 0.0
    if queue_delay_s is not None:
        q = np.asarray(queue_delay_s, dtype=np.float64)
        seen = np.isfinite(q) & (delivered > 0)
        if seen.any():
            queue_delay = float(np.multiply(q[seen], delivered[seen]).sum() / delivered[seen].sum())
    ce = 0.0 if ce_packets is None else float(np.asarray(ce_packets).sum())
    propagation = 0.0
    if propagation_rtt_s is not None:
        prop = np.asarray(propagation_rtt_s, dtype=np.float64)
        total = delivered.sum()
        if total > 0:
            propagation = float(np.multiply(prop, delivered).sum() / total)
        elif len(prop):
            propagation = float(prop.mean())
    metrics = StepMetrics(
        goodput_bps=float(goodput_bytes) * 8.0 / dt * rate_scale,
        delay_s=delay,
        min_delay_s=min_rtt_so_far if math.isfinite(min_rtt_so_far) else 0.0,
        loss_rate=min(lost / sent, 1.0) if sent > 0 else 0.0,
        capacity_bps=capacity_bps,
        step_s=dt,
        queue_delay_s=queue_delay,
        ce_fraction=min(ce / sent, 1.0) if sent > 0 else 0.0,
        propagation_rtt_s=propagation,
        fair_share_bps=capacity_bps / sharing_flows if sharing_flows > 1 else 0.0,
    )
    return metrics, min_rtt_so_far


#: Range of every reward weight: bounded so that no step's reward can overflow to infinity.
WEIGHT_RANGE = bounded(-1e9, 1e9)


@dataclass(frozen=True)
class RewardWeights:
    """Weights of the reward terms (Aurora's defaults: 10, 1000, 2000) and an overall scale.

    ``ce`` weighs the CE-marked fraction in :func:`congestion_signal_reward` and
    :func:`leo_reward` (the others ignore it). Its default, a quarter of the loss weight, is our
    choice: a mark carries the same congestion signal as a drop without losing the packet, and
    an L4S queue marks a scalable flow's packets at a steady few percent by design (RFC 9332
    section 2.5), so a mark must cost less than a loss or the agent learns to avoid ECN's
    operating point. ``fair`` weighs :func:`leo_reward`'s fair-share term (the others ignore
    it).
    """

    throughput: float = field(default=10.0, metadata=WEIGHT_RANGE)
    delay: float = field(default=1000.0, metadata=WEIGHT_RANGE)
    loss: float = field(default=2000.0, metadata=WEIGHT_RANGE)
    scale: float = field(default=0.01, metadata=WEIGHT_RANGE)
    ce: float = field(default=500.0, metadata=WEIGHT_RANGE)
    fair: float = field(default=0.0, metadata=WEIGHT_RANGE)

    def __post_init__(self) -> None:
        schema.check(self, "reward")


RewardFn = Callable[[StepMetrics, RewardWeights], float]


def aurora_reward(m: StepMetrics, w: RewardWeights) -> float:
    """``scale · (w_thr·goodput[Mbit/s] − w_delay·(delay − min_delay)[s] − w_loss·loss_rate)``.

    The latency term uses queueing delay (RTT above the propagation floor), so that a long
    propagation path is not punished for geometry the sender cannot change.
    """
    queueing = max(0.0, m.delay_s - m.min_delay_s) if m.min_delay_s > 0 else 0.0
    return w.scale * (
        w.throughput * m.goodput_bps / 1e6 - w.delay * queueing - w.loss * m.loss_rate
    )


def goodput_reward(m: StepMetrics, w: RewardWeights) -> float:
    """Goodput as a fraction of the available capacity, minus the weighted loss rate."""
    utilisation = m.goodput_bps / m.capacity_bps if m.capacity_bps > 0 else 0.0
    return w.scale * 100.0 * utilisation - w.scale * w.loss * m.loss_rate


def power_reward(m: StepMetrics, w: RewardWeights) -> float:
    """Kleinrock's power in log form: ``log(goodput) − log(delay)`` (Mbit/s and s)."""
    goodput = max(m.goodput_bps / 1e6, 1e-3)
    delay = max(m.delay_s, 1e-3)
    return math.log(goodput) - math.log(delay) - w.scale * w.loss * m.loss_rate


def congestion_signal_reward(m: StepMetrics, w: RewardWeights) -> float:
    """Aurora's utility over the congestion signals an AQM gives:
    ``scale · (w_thr·goodput[Mbit/s] − w_delay·queue_delay[s] − w_loss·loss_rate −
    w_ce·ce_fraction)``.

    The delay term is the measured time in link queues (``queue_delay_s``, the AQM sojourn
    summed over the hops) instead of Aurora's RTT above the propagation floor, which on a LEO
    path also moves with every handover's geometry; the CE fraction (``env.transport.ecn``
    with ``queue.ecn``) counts as a cheaper loss (:class:`RewardWeights`).
    """
    return w.scale * (
        w.throughput * m.goodput_bps / 1e6
        - w.delay * m.queue_delay_s
        - w.loss * m.loss_rate
        - w.ce * m.ce_fraction
    )


#: Utilisation above this is clipped in :func:`leo_reward` (a reorder buffer released after an
#: outage can deliver more than a step's capacity in one step).
MAX_UTILISATION = 2.0
#: Sage's fair-share shape (Yen et al., SIGCOMM 2023, multi-flow reward
#: ``25·exp(-8·(x/fair - 1)²)``): the width of the bell around the fair share.
FAIR_SHARE_WIDTH = 8.0


def leo_reward(m: StepMetrics, w: RewardWeights) -> float:
    """A scale-free utility for LEO paths:
    ``scale · (w_thr·u − w_delay·q/p − w_loss·loss_rate − w_ce·ce_fraction − w_fair·(1 − f))``.

    * ``u``: goodput over the step's capacity (clipped to [0, :data:`MAX_UTILISATION`]; 0
      when every path is in an outage), so a 20 and a 200 Mbit/s path score alike;
    * ``q/p``: the time the flow's packets spent in link queues (``queue_delay_s``, the
      measured sojourn summed over the hops) over the paths' own propagation RTT
      (``propagation_rtt_s``): RTT inflation the sender caused. A handover to a longer path
      changes ``p``, never ``q``, so geometry costs nothing (Aurora's "RTT above the smallest
      RTT of the episode" charges it as queueing);
    * ``f = exp(−8·(x/fair − 1)²)``: Sage's fair-share bell around the flow's fair share (1 at
      the fair share), applied only when the flow shares links (``fair_share_bps > 0``).

    Defaults (:data:`REWARD_DEFAULTS`): a queue as long as the propagation RTT costs half the
    capacity, 1 % loss costs 5 % of it (Aurora's 2000-per-loss against 10-per-Mbit/s on a
    40 Mbit/s path), a CE mark a quarter of a loss; the fair-share term is off (weight 0)
    unless a training distribution with competing flows turns it on.
    """
    u = 0.0
    if m.capacity_bps > 0:
        u = min(max(m.goodput_bps / m.capacity_bps, 0.0), MAX_UTILISATION)
    inflation = m.queue_delay_s / m.propagation_rtt_s if m.propagation_rtt_s > 0 else 0.0
    unfair = 0.0
    if w.fair != 0.0 and m.fair_share_bps > 0:
        x = m.goodput_bps / m.fair_share_bps
        unfair = 1.0 - math.exp(-FAIR_SHARE_WIDTH * (x - 1.0) ** 2)
    return w.scale * (
        w.throughput * u
        - w.delay * inflation
        - w.loss * m.loss_rate
        - w.ce * m.ce_fraction
        - w.fair * unfair
    )


REWARDS: dict[str, RewardFn] = {
    "leo": leo_reward,
    "aurora": aurora_reward,
    "goodput": goodput_reward,
    "power": power_reward,
    "congestion_signals": congestion_signal_reward,
}


#: Default weights of the rewards whose terms are not Aurora's; every other reward takes
#: :class:`RewardWeights`' defaults.
REWARD_DEFAULTS: dict[str, RewardWeights] = {
    "leo": RewardWeights(throughput=1.0, delay=0.5, loss=5.0, scale=1.0, ce=1.25, fair=0.0),
}


def default_weights(name: str) -> RewardWeights:
    """The default weights of reward ``name`` (:data:`REWARD_DEFAULTS`, else Aurora's)."""
    return REWARD_DEFAULTS.get(name, RewardWeights())


def register_reward(name: str, fn: RewardFn, defaults: RewardWeights | None = None) -> None:
    """Make ``fn`` available as ``reward=name`` in every env.

    :param defaults: its default weights (``None``: :class:`RewardWeights`' defaults).
    """
    if not callable(fn):
        raise TypeError(f"reward {name!r} must be callable")
    REWARDS[name] = fn
    if defaults is not None:
        REWARD_DEFAULTS[name] = defaults


def get_reward(name_or_fn: str | RewardFn) -> RewardFn:
    """Resolve a reward by name (or pass a callable through)."""
    if callable(name_or_fn):
        return name_or_fn
    try:
        return REWARDS[name_or_fn]
    except KeyError:
        raise ValueError(
            f"reward.name: unknown reward {name_or_fn!r}; known: {sorted(REWARDS)}"
        ) from None
