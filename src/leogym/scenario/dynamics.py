"""Starlink per-slot dynamics: a seeded stochastic layer on top of the geometric satellite path.

The geometric model (:mod:`leogym.scenario.satpath`) gives a nearly static Starlink path: the
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
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
from scipy.signal import lfilter
from scipy.special import ndtri

from leogym.schema import bounded, choice, fail

__all__ = [
    "DYNAMICS_PRESETS",
    "DYNAMICS_PRESET_NAMES",
    "SCALED_PARAMS",
    "DIURNAL_PROFILE",
    "DynamicsConfig",
    "DynamicsParams",
    "DynamicsResult",
    "apply_dynamics",
    "diurnal_gain",
    "dynamics_streams",
]

_PROB = bounded(0.0, 1.0)
_FRACTION = bounded(0.0, 1.0, lo_open=True)
_CORR = bounded(0.0, 1.0, hi_open=True)
#: Upper bounds of the scales, generous but finite (each 10 to 50 times the largest preset
#: value; docs/scenario.md, "Per-slot dynamics"): an RTT level or step of at most 10 s, a
#: log-normal spread of at most 5 (e^5 ~ 150x), a log capacity sd of at most 2 (the measured
#: 0.2-0.54), a correlation or recovery time of at most 60 s and a spike of at most 10 ms per
#: stall ms. Beyond them nothing physical is modelled and the draws overflow (``sigma_s`` 1e300
#: squared is inf).
_RTT_MS = bounded(0.0, 10_000.0)
_RTT_LEVEL_MS = bounded(0.0, 10_000.0, lo_open=True)
_LOG_SD = bounded(0.0, 5.0)
_CAPACITY_SD = bounded(0.0, 2.0)
_TIME_S = bounded(0.0, 60.0, lo_open=True)
_STALL_S = bounded(0.0, 5.0, lo_open=True)
_SPIKE_PER_MS = bounded(0.0, 10.0)

#: Relative median downlink capacity by local hour 0..23 (Osnabrueck/Enschede, WetLinks,
#: Sep 2023 - Mar 2024: hourly medians over the overall median).
DIURNAL_PROFILE = (
    1.04, 1.06, 1.06, 1.08, 1.09, 1.13, 1.07, 1.03, 1.02, 1.03, 1.01, 1.01,
    1.00, 0.99, 0.99, 0.98, 0.95, 0.91, 0.88, 0.85, 0.84, 0.90, 0.97, 1.00,
)  # fmt: skip


@dataclass(frozen=True)
class DynamicsParams:
    """Every parameter of the layer, resolved (units in the names; see :class:`DynamicsConfig`)."""

    q: float
    r: float
    p_redraw: float
    m_e_ms: float
    s_e: float
    x_max_ms: float
    sigma_u_ms: float
    sigma_j_ms: float
    tau_j_s: float
    sigma_s: float
    phi: float
    p_bad: float
    bad_lo: float
    bad_hi: float
    rho_ud: float
    sigma_w: float
    rho_w: float
    delta_max_s: float
    d_med_s: float
    s_d: float
    d_lo_s: float
    d_hi_s: float
    f_stall: float
    f0: float
    tau_r_s: float
    c_a: float
    s_a: float
    p_burst: float
    p_ho: float
    p_out: float
    l_med_s: float
    s_l: float
    p_bg_down: float
    p_bg_up: float


_DEFAULT = DynamicsParams(
    q=0.05,
    r=0.5,
    p_redraw=0.0,
    m_e_ms=15.0,
    s_e=0.6,
    x_max_ms=80.0,
    sigma_u_ms=1.5,
    sigma_j_ms=4.0,
    tau_j_s=0.05,
    sigma_s=0.21,
    phi=0.30,
    p_bad=0.015,
    bad_lo=0.35,
    bad_hi=0.60,
    rho_ud=0.5,
    sigma_w=0.13,
    rho_w=0.85,
    delta_max_s=0.04,
    d_med_s=0.06,
    s_d=0.35,
    d_lo_s=0.02,
    d_hi_s=0.15,
    f_stall=0.01,
    f0=0.10,
    tau_r_s=0.25,
    c_a=1.0,
    s_a=0.2,
    p_burst=0.0,
    p_ho=0.5,
    p_out=0.0,
    l_med_s=0.5,
    s_l=0.15,
    p_bg_down=1e-4,
    p_bg_up=2e-3,
)

#: The presets: ``default`` (unobstructed bent pipe near its PoP), ``lossy`` (``default`` with a
#: loss burst at every boundary), ``variable`` (far from the PoP or a crowded cell) and ``isl``
#: (an ISL-routed dish: a blackout at every boundary).
DYNAMICS_PRESETS: dict[str, DynamicsParams] = {
    "default": _DEFAULT,
    "lossy": replace(_DEFAULT, p_burst=1.0, p_ho=0.5),
    "variable": replace(
        _DEFAULT,
        q=0.15,
        r=0.4,
        m_e_ms=20.0,
        sigma_u_ms=2.0,
        sigma_s=0.22,
        phi=0.0,
        p_bad=0.15,
        bad_lo=0.25,
        bad_hi=0.60,
        sigma_w=0.20,
        p_burst=0.5,
        p_ho=0.5,
    ),
    "isl": replace(
        _DEFAULT,
        q=0.4,
        r=0.4,
        p_redraw=0.3,
        m_e_ms=25.0,
        s_e=0.7,
        x_max_ms=120.0,
        sigma_u_ms=5.0,
        sigma_j_ms=10.0,
        p_out=1.0,
    ),
}

#: Every value of ``dynamics.preset``: ``off`` and the presets.
DYNAMICS_PRESET_NAMES = ("off", *DYNAMICS_PRESETS)

#: The parameters that ``sampling.dynamics_scale`` multiplies: the slot-to-slot and within-slot
#: capacity spread, the excursion probability and level, and the median stall.
SCALED_PARAMS = ("sigma_s", "sigma_w", "q", "m_e_ms", "d_med_s")


@dataclass
class DynamicsConfig:
    """The per-slot dynamics of one satellite path (``docs/scenario.md``, "Per-slot dynamics").

    ``preset`` fills every parameter; a parameter set here (not ``None``) overrides the preset's.
    With ``preset: off`` the layer is not applied and the parameters are ignored.
    """

    #: ``off``, ``default``, ``lossy``, ``variable`` or ``isl``.
    preset: str = field(default="off", metadata=choice(*DYNAMICS_PRESET_NAMES))
    #: Share of the RTT offsets and spikes put on the uplink (the rest on the downlink).
    up_share: float = field(default=0.5, metadata=_PROB)
    #: Multiply the rates by the per-episode diurnal factor of the terminal's local hour.
    diurnal: bool = True
    #: kappa: 1 = the measured profile, 0 = none.
    diurnal_scale: float = field(default=1.0, metadata=bounded(0.0, 5.0))
    #: Paths with the same group share the base-RTT chain and the boundary events.
    group: int = field(default=0, metadata=bounded(0, 1_000_000))
    #: Allow the geometric handover effects (outage, spike, loss window, V-curve, rate noise)
    #: beside the layer (they would count the boundary twice).
    allow_stacking: bool = False
    # --- base RTT (per slot)
    #: Probability per slot of entering / leaving an excursion.
    q: float | None = field(default=None, metadata=_PROB)
    r: float | None = field(default=None, metadata=_PROB)
    #: Probability per slot of a new excursion level while in an excursion.
    p_redraw: float | None = field(default=None, metadata=_PROB)
    #: Excursion level: median (ms), log-sd, cap (ms).
    m_e_ms: float | None = field(default=None, metadata=_RTT_LEVEL_MS)
    s_e: float | None = field(default=None, metadata=_LOG_SD)
    x_max_ms: float | None = field(default=None, metadata=_RTT_LEVEL_MS)
    #: sd of the small per-slot RTT step (ms).
    sigma_u_ms: float | None = field(default=None, metadata=_RTT_MS)
    #: Within-slot RTT jitter: scale (ms) and correlation time (s).
    sigma_j_ms: float | None = field(default=None, metadata=_RTT_MS)
    tau_j_s: float | None = field(default=None, metadata=_TIME_S)
    # --- capacity
    #: sd of the per-slot log capacity and its lag-1 autocorrelation.
    sigma_s: float | None = field(default=None, metadata=_CAPACITY_SD)
    phi: float | None = field(default=None, metadata=_CORR)
    #: Probability of a bad slot and its multiplier range ``U(bad_lo, bad_hi)``.
    p_bad: float | None = field(default=None, metadata=_PROB)
    bad_lo: float | None = field(default=None, metadata=_FRACTION)
    bad_hi: float | None = field(default=None, metadata=_FRACTION)
    #: Correlation of the uplink's per-slot innovations with the downlink's.
    rho_ud: float | None = field(default=None, metadata=bounded(-1.0, 1.0))
    #: Within-slot log capacity: sd and lag-1 correlation per ``capacity_update_s`` step.
    sigma_w: float | None = field(default=None, metadata=_CAPACITY_SD)
    rho_w: float | None = field(default=None, metadata=_CORR)
    # --- boundary events
    #: The stall starts up to this long before the boundary (s).
    delta_max_s: float | None = field(default=None, metadata=bounded(0.0, 0.2))
    #: Stall length: median (s), log-sd, clip range (s).
    d_med_s: float | None = field(default=None, metadata=_STALL_S)
    s_d: float | None = field(default=None, metadata=_LOG_SD)
    d_lo_s: float | None = field(default=None, metadata=_STALL_S)
    d_hi_s: float | None = field(default=None, metadata=_STALL_S)
    #: Rate during the stall, rate at its end, and recovery time constant (s).
    f_stall: float | None = field(default=None, metadata=_FRACTION)
    f0: float | None = field(default=None, metadata=_FRACTION)
    tau_r_s: float | None = field(default=None, metadata=_TIME_S)
    #: RTT spike peak = c_a * stall length (ms) * LogNormal(0, s_a).
    c_a: float | None = field(default=None, metadata=_SPIKE_PER_MS)
    s_a: float | None = field(default=None, metadata=_LOG_SD)
    #: Probability of a loss burst at a boundary, and its loss probability.
    p_burst: float | None = field(default=None, metadata=_PROB)
    p_ho: float | None = field(default=None, metadata=_PROB)
    #: Probability of an outage at a boundary; its length: median (s) and log-sd.
    p_out: float | None = field(default=None, metadata=_PROB)
    l_med_s: float | None = field(default=None, metadata=bounded(0.0, 10.0, lo_open=True))
    s_l: float | None = field(default=None, metadata=_LOG_SD)
    # --- background loss
    p_bg_down: float | None = field(default=None, metadata=bounded(0.0, 1.0, hi_open=True))
    p_bg_up: float | None = field(default=None, metadata=bounded(0.0, 1.0, hi_open=True))

    @property
    def enabled(self) -> bool:
        """Whether the layer is applied (``preset`` is not ``off``)."""
        return self.preset != "off"

    def resolve(self) -> DynamicsParams:
        """The preset's parameters with the ones set here in their place."""
        base = DYNAMICS_PRESETS["default" if self.preset == "off" else self.preset]
        over = {
            f.name: float(getattr(self, f.name))
            for f in fields(DynamicsParams)
            if getattr(self, f.name) is not None
        }
        return replace(base, **over)

    def transient_s(self) -> float:
        """How long after a slot boundary its drawn transients can last (0 when off): the longest
        stall, five recovery time constants, and 0.2 s for the RTT spike's decay (and the
        ``isl`` post-outage spike). The handover forecasts read the arrays after it."""
        if not self.enabled:
            return 0.0
        p = self.resolve()
        return p.d_hi_s + 5.0 * p.tau_r_s + 0.2

    def scaled(self, factor: float) -> DynamicsConfig:
        """This config with :data:`SCALED_PARAMS` multiplied by ``factor``, each capped at its
        field's upper bound (``q`` at 1, ``sigma_s`` at 2, ...) and ``d_med_s`` at ``d_hi_s``;
        ``off`` stays off."""
        if not self.enabled:
            return replace(self)
        p = self.resolve()
        over = {name: min(getattr(p, name) * factor, _upper(name)) for name in SCALED_PARAMS}
        over["d_med_s"] = min(over["d_med_s"], p.d_hi_s)
        return replace(self, **over)

    def _check_relations(self, path: str, error: type) -> None:
        if not self.enabled:
            return
        p = self.resolve()
        if p.bad_hi < p.bad_lo:
            raise fail(error, f"{path}.bad_hi", f"must be >= bad_lo ({p.bad_lo:g})", p.bad_hi)
        if p.d_hi_s < p.d_lo_s:
            raise fail(error, f"{path}.d_hi_s", f"must be >= d_lo_s ({p.d_lo_s:g})", p.d_hi_s)


def _upper(name: str) -> float:
    """The upper bound of :class:`DynamicsConfig` field ``name`` (its range metadata)."""
    (f,) = [f for f in fields(DynamicsConfig) if f.name == name]
    hi = f.metadata["range"][1]
    assert hi is not None, name
    return float(hi)


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
class DynamicsResult:
    """The perturbed arrays of one path and what was drawn (tests, notebooks)."""

    delay_down_s: np.ndarray
    delay_up_s: np.ndarray
    rate_down_bps: np.ndarray
    rate_up_bps: np.ndarray
    loss_down: np.ndarray
    loss_up: np.ndarray
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
        return {
            "delay_down_s": self.delay_down_s,
            "delay_up_s": self.delay_up_s,
            "rate_down_bps": self.rate_down_bps,
            "rate_up_bps": self.rate_up_bps,
            "loss_down": self.loss_down,
            "loss_up": self.loss_up,
            "outages": self.outages,
        }


def _norm(u: np.ndarray) -> np.ndarray:
    """Standard normal quantile of uniforms in [0, 1) (kept off the infinite ends)."""
    return ndtri(np.clip(u, 1e-12, 1.0 - 1e-12))


def _ar1(noise: np.ndarray, rho: float) -> np.ndarray:
    """Stationary unit-variance AR(1) along axis 0: ``x_0 = n_0``,
    ``x_i = rho x_{i-1} + sqrt(1 - rho^2) n_i``."""
    x = np.sqrt(1.0 - rho * rho) * noise
    x[0] = noise[0]
    return lfilter([1.0], [1.0, -rho], x, axis=0)


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
    keys = ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps", "loss_down", "loss_up")
    n = len(times)
    end = float(times[-1]) if duration_s is None else float(duration_s)
    b = np.asarray(boundaries, dtype=np.float64)
    b = b[b > 0.0]
    if not cfg.enabled:
        empty = np.zeros(0)
        return DynamicsResult(
            **{k: arrays[k] for k in keys},
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

    from leogym.scenario.satpath import merge_intervals

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
