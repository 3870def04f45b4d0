"""From an agent's action to the native core's controls of a flow: the windows, pacing rates
or residual gains and choices that one action of LeoCC-v0's action space sets
(:func:`control_action`, from the flow's current values, :func:`current_controls`), and the one
call that sets them (:func:`apply_controls`). LeoCC-v0 (flow 0), LeoMultiFlowCC-v0's frozen
policies and the PettingZoo env's agents all go through these, so the mapping and its limits
are written once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leogym.envs.actions import DISCRETE_FACTORS, multiplicative_factor, residual_controls

if TYPE_CHECKING:
    from leogym.envs.config import EnvOptions
    from leogym.simulation import Measurements, Simulation

__all__ = [
    "MIN_CWND_PACKETS",
    "MAX_CWND_PACKETS",
    "control_action",
    "current_controls",
    "apply_controls",
]

#: The window an agent's action may set, in packets (LeoCC-v0's limits).
MIN_CWND_PACKETS = 2
MAX_CWND_PACKETS = 100_000


def control_action(
    options: EnvOptions,
    action: np.ndarray,
    current: np.ndarray,
    packet_bytes: int,
    following: np.ndarray | None = None,
) -> np.ndarray:
    """The windows (bytes; ``cc_target="cwnd"``) or pacing rates (bit/s; ``"pacing"``) that an
    action of LeoCC-v0's action space sets on a flow's ``len(current)`` subflows, from their
    current values (``Measurements.subflow_cwnd_bytes`` / ``subflow_pacing_rate_bps``):
    Aurora's multiplicative rule or the discrete factors, the window kept within
    [:data:`MIN_CWND_PACKETS`, :data:`MAX_CWND_PACKETS`] packets and the rate within
    [10 kbit/s, 100 Gbit/s]. Under
    ``action_mode="residual"``, the gains on the flow's base controller instead, followed,
    with ``residual_alternate``, by the subflows' choices of controller
    (:func:`~leogym.envs.actions.residual_controls`; ``following``: the choices in force, for
    ``residual_switch_margin``)."""
    n = len(current)
    if options.action_mode == "residual":
        alternate = options.residual_alternate is not None
        margin = options.residual_switch_margin or 0.0
        gains, follow = residual_controls(action, n, alternate, margin, following)
        return gains if follow is None else np.concatenate([gains, follow])
    if options.action_mode == "discrete":
        factor = DISCRETE_FACTORS[np.asarray(action)[:n]]
    else:
        factor = multiplicative_factor(np.asarray(action)[:n], options.action_scale)
    current = np.asarray(current, dtype=np.float64)
    if options.cc_target == "pacing":
        current = np.where(current > 0, current, 1e6)
        return np.minimum(np.maximum(current * factor, 1e4), 1e11)
    current = np.where(current > 0, current, 10 * packet_bytes)
    return np.minimum(
        np.maximum(current * factor, MIN_CWND_PACKETS * packet_bytes),
        MAX_CWND_PACKETS * packet_bytes,
    )


def current_controls(options: EnvOptions, m: Measurements | None, flow: int, n: int) -> np.ndarray:
    """A flow's current windows or pacing rates (zeros before the first step)."""
    if m is None:
        return np.zeros(n)
    idx = m.flow_subflows(flow)
    key = "subflow_pacing_rate_bps" if options.cc_target == "pacing" else "subflow_cwnd_bytes"
    return np.asarray(getattr(m, key)[idx], dtype=np.float64)


def apply_controls(
    sim: Simulation,
    options: EnvOptions,
    values: dict[int, np.ndarray],
    following: dict[int, np.ndarray] | None = None,
) -> None:
    """Set the flows' windows, pacing rates or residual gains and choices (``{flow: values}``,
    as :func:`control_action` gives them) in one call; the choices applied are recorded in
    ``following`` (the episode's, :attr:`~leogym.envs.episode.Episode.following`)."""
    if not values:
        return
    if options.action_mode == "residual" and options.residual_alternate is not None:
        halves = {f: np.split(np.asarray(v), 2) for f, v in values.items()}
        if following is not None:
            following.update({f: h[1] for f, h in halves.items()})
        sim.apply(
            flow_cwnd_gain={f: h[0] for f, h in halves.items()},
            flow_follow_alternate={f: h[1] for f, h in halves.items()},
        )
    elif options.action_mode == "residual":
        sim.apply(flow_cwnd_gain=values)
    elif options.cc_target == "pacing":
        sim.apply(flow_pacing_rate_bps=values)
    else:
        sim.apply(flow_cwnd_bytes=values)
