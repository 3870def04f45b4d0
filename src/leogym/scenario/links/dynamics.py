"""Starlink per-slot dynamics: a seeded stochastic layer on top of the geometric satellite path.

The geometric model (:mod:`leogym.scenario.links.satpath`) gives a nearly static Starlink path: the
capacity moves by well under 1 % and the RTT by about 0.2 ms at each 15 s reconfiguration.
Measured paths change far more at every slot boundary. This module perturbs the geometric arrays
of one satellite path, slot by slot, with a model calibrated on public measurements
(``docs/scenario.md``, "Per-slot dynamics", lists every parameter and its source):

* **base RTT** (per slot ``k``): a two-state chain, home or excursion (a route or gateway change),
  with an excursion level ``X ~ min(LogNormal(ln m_e, s_e), x_max)`` and a small step
  ``sigma_u * N(0, 1)``: ``o_k = X * 1[E_k] + sigma_u * N``; plus a within-slot jitter
  ``j_i = sigma_j |z_i|``, ``z`` an AR(1) with ``rho_j = exp(-dt / tau_j)``.
* **capacity**: a per-slot log-AR(1) multiplier ``M_k = exp(a_k - sigma_s^2 / 2)``,
  ``a_k = phi a_{k-1} + sqrt(1 - phi^2) sigma_s e_k`` (uplink innovations correlated ``rho_ud``
  with the downlink's), replaced by ``U(bad_lo, bad_hi)`` in a "bad slot" (probability
  ``p_bad``); a within-slot log-AR(1) ``W`` on the ``capacity_update_s`` grid; and a per-episode
  diurnal factor ``G = 1 + kappa (g(h) - 1)`` of the terminal's local hour.
* **boundary events** (per boundary ``b_k``): a stall starting ``delta_k`` before the boundary,
  of length ``D_k``, during which the rate falls to ``f_stall`` of the slot rate (a rate floor:
  the link keeps its queue, nothing is dropped), then recovers as ``1 - (1 - f0) e^{-t/tau_r}``;
  a matched RTT spike of peak ``A_k = c_A * D_k[ms] * e^{s_A N}`` rising over the stall and
  decaying with a one-way slope of at most 0.8 (so packets stay in order); optionally a loss
  burst ``p_ho`` over the stall (``lossy``), and an outage of length ``L_k`` starting 0.16 s
  before the boundary followed by a 130-230 ms spike (``isl``).
* **background loss** ``p_bg`` per direction.

Seeding: every draw comes from dedicated ``SeedSequence(seed, spawn_key=(5, group, c[, path]))``
streams (``_S_DYN = 5`` in :mod:`leogym.scenario.timeline_builder`), drawn slot by slot with a
fixed number of draws per slot (or per grid sample), so that a longer episode extends a shorter
one, and switching the layer on leaves every other random stream of the scenario untouched.

``preset: off`` (the default) leaves the arrays exactly as the geometric model made them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri

from leogym.scenario.config.dynamics import DynamicsConfig
from leogym.scenario.links.arrays import LINK_ARRAYS, LinkArrays
from leogym.scenario.links.intervals import merge_intervals

__all__ = [
    "DIURNAL_PROFILE",
    "DynamicsResult",
    "apply_dynamics",
    "diurnal_gain",
    "dynamics_streams",
]

#: Relative median downlink capacity by local hour 0..23 (Osnabrueck/Enschede, WetLinks,
#: Sep 2023 - Mar 2024: hourly medians over the overall median).
DIURNAL_PROFILE = (
    1.04, 1.06, 1.06, 1.08, 1.09, 1.13, 1.07, 1.03, 1.02, 1.03, 1.01, 1.01,
    1.00, 0.99, 0.99, 0.98, 0.95, 0.91, 0.88, 0.85, 0.84, 0.90, 0.97, 1.00,
)  # fmt: skip


def diurnal_gain(epoch_utc_s: float, lon_deg: float, kappa: float) -> float:
    """The episode's capacity factor ``G = 1 + kappa (g(h) - 1)`` at local hour
    ``h = floor((epoch_utc_s / 3600 + lon_deg / 15) mod 24)``."""
    h = int(math.floor((epoch_utc_s / 3600.0 + lon_deg / 15.0) % 24.0)) % 24
    return 1.0 + kappa * (DIURNAL_PROFILE[h] - 1.0)


def dynamics_streams(
    seed: int, family: int, group: int, path: int
) -> dict[str, np.random.Generator]:
    """The layer's generators: ``(family, group, c)`` for the parts shared by a group (``rtt``
    c=0, ``events`` c=3), ``(family, group, c, path)`` for the per-path ones (``slot`` c=1,
    ``within`` c=2, ``jitter`` c=4). c=5 is reserved for episode-level draws."""

    def gen(*key: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=key))

    return {
        "rtt": gen(family, group, 0),
        "slot": gen(family, group, 1, path),
        "within": gen(family, group, 2, path),
        "events": gen(family, group, 3),
        "jitter": gen(family, group, 4, path),
    }


@dataclass
class DynamicsResult(LinkArrays):
    """The perturbed arrays of one path and what was drawn (tests, notebooks)."""

    outages: np.ndarray
    #: Slot boundaries used (s), slot k = [boundaries[k-1], boundaries[k]).
    boundaries: np.ndarray
    #: Per slot: RTT offset o_k (ms), excursion flag, capacity multipliers (down, up).
    slot_offset_ms: np.ndarray
    slot_excursion: np.ndarray
    slot_mult_down: np.ndarray
    slot_mult_up: np.ndarray
    #: Per boundary (index k-1 for b_k): stall start (s), stall length (s), spike peak (ms),
    #: loss burst flag, outage [start, end) (NaN when none).
    stall_start_s: np.ndarray
    stall_len_s: np.ndarray
    spike_peak_ms: np.ndarray
    burst: np.ndarray
    outage_s: np.ndarray
    #: The diurnal factor G.
    gain: float

    def arrays(self) -> dict[str, Any]:
        """The Timeline arrays changed by the layer."""
        return {**self.link_arrays(), "outages": self.outages}


def _norm(u: np.ndarray) -> np.ndarray:
    """Standard normal quantile of uniforms in [0, 1) (kept off the infinite ends)."""
    return ndtri(np.clip(u, 1e-12, 1.0 - 1e-12))


def _ar1(noise: np.ndarray, rho: float) -> np.ndarray:
    """Stationary unit-variance AR(1) along axis 0: ``x_0 = n_0``,
    ``x_i = rho x_{i-1} + sqrt(1 - rho^2) n_i``."""
    x = np.sqrt(1.0 - rho * rho) * noise
    x[0] = noise[0]
    # The recursion y_i = x_i + rho y_{i-1} in Python floats, column by column: the same
    # operations in the same order as scipy.signal.lfilter([1], [1, -rho]) (bit for bit), without
    # importing scipy.signal, which adds about 40 MiB to every env process (2026-12-06).
    columns = x.reshape(len(x), -1).T.tolist()
    for col in columns:
        prev = 0.0
        for i, v in enumerate(col):
            prev = col[i] = v + rho * prev
    return np.asarray(columns, dtype=np.float64).T.reshape(x.shape)


def _span(times: np.ndarray, dt: float, a: float, b: float) -> slice:
    """Indices of the samples with ``a <= t < b`` on the uniform grid ``times``."""
    i0 = max(int(math.ceil(a / dt - 1e-9)), 0)
    i1 = min(int(math.ceil(b / dt - 1e-9)), len(times))
    return slice(i0, max(i0, i1))


def apply_dynamics(
    cfg: DynamicsConfig,
    arrays: dict[str, np.ndarray],
    times: np.ndarray,
    dt: float,
    boundaries: np.ndarray,
    streams: dict[str, np.random.Generator],
    *,
    update_s: float,
    min_rate_bps: float,
    gain: float = 1.0,
    duration_s: float | None = None,
) -> DynamicsResult:
    """Perturb one satellite path's geometric arrays (a pure function of its inputs).

    :param cfg: the path's dynamics (``off`` returns the input arrays themselves).
    :param arrays: ``delay_down_s``, ``delay_up_s``, ``rate_down_bps``, ``rate_up_bps``,
        ``loss_down``, ``loss_up`` on the grid ``times`` and ``outages`` (``(k, 2)``).
    :param times: the grid ``i * dt``.
    :param dt: its step.
    :param boundaries: sorted slot boundaries (s, > 0); may extend past the grid (events that
        start before its end are then drawn as in a longer episode).
    :param streams: from :func:`dynamics_streams`.
    :param update_s: the within-slot capacity step (``capacity_update_s``; 0 = ``dt``).
    :param min_rate_bps: the rate floor of the path.
    :param gain: the diurnal factor (:func:`diurnal_gain`).
    :param duration_s: end of the episode (outages are clipped to it); default the last sample.
    """
    n = len(times)
    end = float(times[-1]) if duration_s is None else float(duration_s)
    b = np.asarray(boundaries, dtype=np.float64)
    b = b[b > 0.0]
    if not cfg.enabled:
        empty = np.zeros(0)
        return DynamicsResult(
            **{k: arrays[k] for k in LINK_ARRAYS},
            outages=arrays["outages"],
            boundaries=b,
            slot_offset_ms=empty,
            slot_excursion=np.zeros(0, dtype=bool),
            slot_mult_down=empty,
            slot_mult_up=empty,
            stall_start_s=empty,
            stall_len_s=empty,
            spike_peak_ms=empty,
            burst=np.zeros(0, dtype=bool),
            outage_s=np.zeros((0, 2)),
            gain=1.0,
        )
    p = cfg.resolve()
    num = len(b) + 1  # slots 0..len(b)
    slot = np.searchsorted(b, times, side="right")

    # base RTT: two-state chain, four draws per slot (transition, redraw, level, small step)
    u = streams["rtt"].random((num, 4))
    level = np.minimum(np.exp(math.log(p.m_e_ms) + p.s_e * _norm(u[:, 2])), p.x_max_ms)
    exc = np.zeros(num, dtype=bool)
    x = np.zeros(num)
    state = bool(p.q + p.r > 0 and u[0, 0] < p.q / (p.q + p.r))
    cur = float(level[0])
    for k in range(num):
        if k > 0:
            if state:
                if u[k, 0] < p.r:
                    state = False
                elif u[k, 1] < p.p_redraw:
                    cur = float(level[k])
            elif u[k, 0] < p.q:
                state, cur = True, float(level[k])
        exc[k], x[k] = state, cur
    offset = x * exc + p.sigma_u_ms * _norm(u[:, 3])

    # per-slot capacity: log-AR(1) per direction, bad-slot mixture (four draws per slot)
    u = streams["slot"].random((num, 4))
    e, v = _norm(u[:, 0]), _norm(u[:, 1])
    inn_up = p.rho_ud * e + math.sqrt(max(1.0 - p.rho_ud**2, 0.0)) * v
    a_dn = _ar1(e, p.phi) * p.sigma_s
    a_up = _ar1(inn_up, p.phi) * p.sigma_s
    bad = u[:, 2] < p.p_bad
    bad_level = p.bad_lo + (p.bad_hi - p.bad_lo) * u[:, 3]
    m_dn = np.where(bad, bad_level, np.exp(a_dn - 0.5 * p.sigma_s**2))
    m_up = np.where(bad, bad_level, np.exp(a_up - 0.5 * p.sigma_s**2))

    # within-slot capacity on the update grid (down, up), held
    step = update_s if update_s > 0 else dt
    cell = np.floor(times / step + 1e-9).astype(np.int64)
    w = _ar1(streams["within"].standard_normal((int(cell[-1]) + 1, 2)), p.rho_w)
    w_mult = np.exp(p.sigma_w * w - 0.5 * p.sigma_w**2)

    # RTT jitter on the grid
    z = _ar1(streams["jitter"].standard_normal(n), math.exp(-dt / p.tau_j_s))
    rtt_add = offset[slot] + p.sigma_j_ms * np.abs(z)

    # boundary events (seven draws per boundary)
    u = streams["events"].random((num, 7))[1:]
    delta = p.delta_max_s * u[:, 0]
    stall = np.clip(np.exp(math.log(p.d_med_s) + p.s_d * _norm(u[:, 1])), p.d_lo_s, p.d_hi_s)
    peak = p.c_a * stall * 1e3 * np.exp(p.s_a * _norm(u[:, 2]))
    burst = u[:, 3] < p.p_burst
    out = u[:, 4] < p.p_out
    out_len = p.l_med_s * np.exp(p.s_l * _norm(u[:, 5]))
    post = 130.0 + 100.0 * u[:, 6]
    start = b - delta
    mult_b = np.ones(n)
    spike = np.zeros(n)
    window = np.zeros(n, dtype=bool)
    outs = np.full((len(b), 2), np.nan)
    share = max(cfg.up_share, 1.0 - cfg.up_share)
    for k in range(len(b)):
        s0, d = float(start[k]), float(stall[k])
        if s0 >= end:
            continue
        sl = _span(times, dt, s0, s0 + d)
        mult_b[sl] = np.minimum(mult_b[sl], p.f_stall)
        spike[sl] = np.maximum(spike[sl], peak[k] * (times[sl] - s0) / d)
        sl = _span(times, dt, s0 + d, s0 + d + 5.0 * p.tau_r_s)
        rec = 1.0 - (1.0 - p.f0) * np.exp(-(times[sl] - s0 - d) / p.tau_r_s)
        mult_b[sl] = np.minimum(mult_b[sl], rec)
        decay = max(0.030, 1.25 * share * peak[k] * 1e-3)
        sl = _span(times, dt, s0 + d, s0 + d + decay)
        spike[sl] = np.maximum(spike[sl], peak[k] * (1.0 - (times[sl] - s0 - d) / decay))
        if burst[k]:
            window[_span(times, dt, s0, s0 + d + 0.020 + 1e-9)] = True
        if out[k]:
            o0 = float(b[k]) - 0.16
            o1 = o0 + float(out_len[k])
            outs[k] = (o0, o1)
            sl = _span(times, dt, o1, o1 + 0.2)
            spike[sl] = np.maximum(spike[sl], post[k] * (1.0 - (times[sl] - o1) / 0.2))
    rtt_add = rtt_add + spike

    res: dict[str, np.ndarray] = {}
    fifo = 0.8 * dt * np.arange(n)
    for key, share_dir in (("delay_up_s", cfg.up_share), ("delay_down_s", 1.0 - cfg.up_share)):
        geo = arrays[key]
        d = np.maximum(geo + 1e-3 * share_dir * rtt_add, geo)  # never below propagation
        # FIFO: slope >= -0.8 (a cumulative max; where it only rounds, keep d as it is)
        fixed = np.maximum.accumulate(d + fifo) - fifo
        d = np.where(fixed > d + 1e-12, fixed, d)
        res[key] = np.ascontiguousarray(d, dtype=np.float64)
    for key, m, col in (("rate_down_bps", m_dn, 0), ("rate_up_bps", m_up, 1)):
        rate = arrays[key] * gain * m[slot] * w_mult[cell, col] * mult_b
        res[key] = np.ascontiguousarray(np.maximum(rate, min_rate_bps), dtype=np.float64)
    ho = np.where(window, p.p_ho, 0.0)
    for key, bg in (("loss_down", p.p_bg_down), ("loss_up", p.p_bg_up)):
        loss = 1.0 - (1.0 - arrays[key]) * (1.0 - bg) * (1.0 - ho)
        res[key] = np.ascontiguousarray(np.clip(loss, 0.0, 1.0), dtype=np.float64)

    have = outs[np.isfinite(outs[:, 0])]
    intervals = [(float(a0), float(a1)) for a0, a1 in np.asarray(arrays["outages"])]
    intervals += [(float(a0), float(a1)) for a0, a1 in have]
    return DynamicsResult(
        **res,
        outages=merge_intervals(intervals, end) if len(have) else arrays["outages"],
        boundaries=b,
        slot_offset_ms=offset,
        slot_excursion=exc,
        slot_mult_down=m_dn,
        slot_mult_up=m_up,
        stall_start_s=start,
        stall_len_s=stall,
        spike_peak_ms=peak,
        burst=burst,
        outage_s=outs,
        gain=gain,
    )
