"""The schema of the per-slot dynamics layer: :class:`DynamicsConfig`, its presets and ranges.

The model itself, and what each parameter does, is :mod:`leogym.scenario.links.dynamics`
(``docs/scenario.md``, "Per-slot dynamics", lists every parameter and its source). This module
holds data only and imports no implementation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from leogym.schema import bounded, choice, fail

__all__ = [
    "DYNAMICS_PRESETS",
    "DYNAMICS_PRESET_NAMES",
    "SCALED_PARAMS",
    "DynamicsConfig",
    "DynamicsParams",
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
