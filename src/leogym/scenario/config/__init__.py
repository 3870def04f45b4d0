"""Scenario configs: plain, nested dataclasses (Hydra/OmegaConf structured-config compatible).

Every knob of a scenario is a field here, with its unit in its name. Fields use only simple types
(``int``, ``float``, ``str``, ``bool``, ``Optional[...]``, ``list[...]`` and nested dataclasses),
so the classes can be registered in Hydra's ``ConfigStore`` as they are. Each field's range or
choices are its metadata (:mod:`leogym.schema`).
:func:`leogym.scenario.validation.validate_scenario` checks them, and the rules that relate
several fields, and raises :class:`~leogym.scenario.errors.ScenarioConfigError` naming the field
path.

This package is the scenario's schema and its floor: its modules (this one,
:mod:`~leogym.scenario.config.dynamics`, :mod:`~leogym.scenario.config.replay` and
:mod:`~leogym.scenario.config.constellations`) import :mod:`leogym.schema` and each other, never
the implementation (``tests/scenario/test_import_floors.py``).

The reference for every field (meaning, unit, default, where the default comes from) is
``docs/scenario.md``; the comments below are the short form.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.scenario.config.constellations import PRESETS
from leogym.scenario.config.dynamics import DYNAMICS_PRESET_NAMES, DynamicsConfig
from leogym.scenario.config.replay import ReplayConfig
from leogym.schema import bounded, choice, duration, interval

__all__ = [
    "ConstellationConfig",
    "CrossTrafficConfig",
    "FlowConfig",
    "HopLinkConfig",
    "HopNodeConfig",
    "HopRouteConfig",
    "HopRouteStepConfig",
    "HopSquareWaveConfig",
    "HopsConfig",
    "GroundStationConfig",
    "HandoverConfig",
    "IslConfig",
    "LeotpFlowConfig",
    "LinkBudgetConfig",
    "PathConfig",
    "QueueConfig",
    "RainConfig",
    "SamplingConfig",
    "SatellitePathConfig",
    "ScenarioConfig",
    "TerminalConfig",
    "TerrestrialPathConfig",
    "TrafficConfig",
    "MAX_CROSS_FLOWS",
    "MAX_FLOWS",
    "MAX_PACKET_BYTES",
    "MAX_PATHS",
    "MAX_QUEUE_PACKETS",
    "POLICIES",
    "QUEUE_DISCIPLINES",
    "QUEUE_PI_DEFAULTS",
    "QUEUE_TARGET_MS",
    "TCP_TIMER_FIELDS",
]

#: Largest UDP payload of a data packet: a 9000-byte jumbo-frame IP MTU less the IPv4 (20 B)
#: and UDP (8 B) headers. The native core refuses larger ``packet_bytes`` too.
MAX_PACKET_BYTES = 9000 - 20 - 8
#: The native core's limit on a drop-tail queue (``queue_packets`` of a path).
MAX_QUEUE_PACKETS = 100_000_000
DAY_S = 86_400.0
#: Longest cross-traffic on/off period and stop time the native core takes (s).
CORE_MAX_S = 1e7
#: Most paths, and most cross-traffic flows, the native core builds.
MAX_PATHS = 254
MAX_CROSS_FLOWS = 15_000
#: Most flows beside the connection under study (``traffic.flows``, counted after ``count``).
MAX_FLOWS = 1024

POSITIVE = bounded(0.0, lo_open=True)
NON_NEGATIVE = bounded(0.0)
#: A per-packet loss probability (1 would drop everything).
PROBABILITY = bounded(0.0, 1.0, hi_open=True)
LATITUDE = bounded(-90.0, 90.0)
LONGITUDE = bounded(-180.0, 360.0)
#: An elevation mask: a satellite on the horizon is at 0 deg, at the zenith at 90 deg.
ELEVATION_MASK = bounded(0.0, 90.0, hi_open=True)
ATTENUATION = bounded(0.0, 1000.0)


#: The satellite selection policies of a path (``handover.policy``;
#: :mod:`leogym.scenario.orbital.visibility` ranks the satellites by them).
POLICIES = ("max_elevation", "longest_visibility", "min_delay", "random")


@dataclass
class IslConfig:
    """Inter-satellite links of a constellation."""

    #: ``none`` or ``plus_grid`` (2 intra-plane + up to 2 inter-plane neighbours per satellite).
    topology: str = field(default="none", metadata=choice("none", "plus_grid"))
    #: Inter-plane links are down while either end is above this |latitude| (Iridium: 60).
    interplane_max_lat_deg: float | None = field(default=None, metadata=bounded(0.0, 90.0))
    #: Connect the counter-rotating planes across the seam (Walker-star only).
    cross_seam: bool = False
    #: Capacity of every ISL (Mbit/s); ``None`` = not a bottleneck.
    rate_mbps: float | None = field(default=None, metadata=POSITIVE)
    #: Bernoulli loss per ISL hop (LEOTP: 0.001).
    loss_per_hop: float = field(default=0.0, metadata=PROBABILITY)


@dataclass
class ConstellationConfig:
    """Satellites: a preset, a Walker pattern from parameters, or a TLE file.

    Walker fields left at ``None`` take the preset's value (or an error if there is no preset).
    """

    #: ``starlink_shell1``, ``iridium``, ``leotp``, ``maco_string`` or ``None``.
    preset: str | None = field(default="starlink_shell1", metadata=choice(*PRESETS))
    #: ``walker_delta``, ``walker_star`` or ``tle``; ``None`` = the preset's.
    kind: str | None = field(default=None, metadata=choice("walker_delta", "walker_star", "tle"))
    altitude_km: float | None = field(default=None, metadata=bounded(0.0, 50_000.0, lo_open=True))
    inclination_deg: float | None = field(default=None, metadata=bounded(0.0, 180.0))
    num_planes: int | None = field(default=None, metadata=bounded(1))
    sats_per_plane: int | None = field(default=None, metadata=bounded(1))
    #: Walker phasing factor F (in-plane phase step between adjacent planes = F*360/T).
    phasing: int | None = field(default=None, metadata=bounded(0))
    #: RAAN step between planes; ``None`` = 360/P (delta) or 180/P (star).
    raan_spacing_deg: float | None = None
    #: RAAN of plane 0.
    raan0_deg: float | None = None
    #: Extra in-plane phase of odd planes (NS-2 Iridium: 16.36 = half the in-plane spacing).
    odd_plane_phase_deg: float | None = None
    #: Minimum elevation for a ground link (used when terminal/GS masks are ``None``).
    min_elevation_deg: float | None = field(default=None, metadata=ELEVATION_MASK)
    #: TLE file (2- or 3-line format) when ``kind == "tle"``.
    tle_file: str | None = None
    #: Earth rotation angle at t = 0 for Walker constellations (0 = inertial x through Greenwich).
    earth_angle0_deg: float = 0.0
    #: Model the Earth's rotation (False only for stylised scenarios).
    earth_rotation: bool = True
    isl: IslConfig = field(default_factory=IslConfig)


@dataclass
class TerminalConfig:
    """The user terminal (client side)."""

    lat_deg: float = field(default=47.61, metadata=LATITUDE)
    lon_deg: float = field(default=-122.33, metadata=LONGITUDE)
    #: ``None`` = the constellation's ``min_elevation_deg``.
    elevation_mask_deg: float | None = field(default=None, metadata=ELEVATION_MASK)


@dataclass
class GroundStationConfig:
    """A gateway (ground station) on the server side of satellite paths."""

    name: str = "gs"
    lat_deg: float = field(default=0.0, metadata=LATITUDE)
    lon_deg: float = field(default=0.0, metadata=LONGITUDE)
    #: ``None`` = the constellation's ``min_elevation_deg``.
    elevation_mask_deg: float | None = field(default=None, metadata=ELEVATION_MASK)


@dataclass
class HandoverConfig:
    """When the serving satellite changes, how it is chosen, and what a handover does."""

    #: ``schedule`` (global slots, Starlink), ``visibility`` (on loss of sight), ``every_step``
    #: (re-pick at every geometry step, Hypatia-style) or ``scripted`` (per-path times).
    mode: str = field(
        default="schedule", metadata=choice("schedule", "visibility", "every_step", "scripted")
    )
    #: ``max_elevation``, ``longest_visibility``, ``random`` or ``min_delay``.
    policy: str = field(default="max_elevation", metadata=choice(*POLICIES))
    #: ``rank`` (path i takes the ``sat_rank``-th best satellite) or ``maco_alternate``.
    assignment: str = field(default="rank", metadata=choice("rank", "maco_alternate"))
    #: Slot period of the schedule (Starlink: 15 s).
    period_s: float = field(default=15.0, metadata=POSITIVE)
    #: UTC second-of-minute of a slot (Starlink: 12, hence 12/27/42/57).
    offset_s: float = field(default=12.0, metadata=NON_NEGATIVE)
    #: Visibility checks every this many seconds (NS-2 Iridium: 10); 0 = continuous.
    check_interval_s: float = field(default=0.0, metadata=NON_NEGATIVE)
    #: A scheduled slot is a handover even when the policy keeps the same satellite.
    count_unchanged: bool = True
    #: At a slot, choose among satellites other than the serving one when there is one
    #: (every slot is then a real satellite change, as Starlink's scheduler usually does).
    prefer_new_satellite: bool = False
    #: Re-select when the serving satellite drops below the mask (False holds it; scripted).
    enforce_mask: bool = True
    #: Break-before-make outage after each handover (s); everything on the link is dropped.
    outage_s: float = field(default=0.1, metadata=NON_NEGATIVE)
    #: Extra Bernoulli loss inside [t_ho - loss_before_s, t_ho + loss_after_s].
    loss_prob: float = field(default=0.0, metadata=bounded(0.0, 1.0))
    loss_before_s: float = field(default=0.1, metadata=NON_NEGATIVE)
    loss_after_s: float = field(default=0.1, metadata=NON_NEGATIVE)
    #: Extra RTT at the handover (ms), split equally over both directions, decaying linearly
    #: to 0 over ``delay_spike_s``.
    delay_spike_ms: float = field(default=0.0, metadata=bounded(0.0, 10_000.0))
    delay_spike_s: float = field(default=0.1, metadata=POSITIVE)


@dataclass
class LinkBudgetConfig:
    """Access-link budget, MACO eqs. (2)-(3), Table 3 (docs/specs/maco.md#access-link-capacity)."""

    tx_power_dbm: float = field(default=35.12, metadata=bounded(-100.0, 100.0))
    tx_gain_dbi: float = field(default=37.7, metadata=bounded(-50.0, 100.0))
    rx_gain_dbi: float = field(default=37.1, metadata=bounded(-50.0, 100.0))
    wavelength_m: float = field(default=0.086, metadata=bounded(1e-4, 100.0))
    noise_psd_w_hz: float = field(default=1.6e-20, metadata=bounded(1e-30, 1e-10))
    bandwidth_hz: float = field(default=12.5e6, metadata=bounded(1.0, 1e12))
    efficiency: float = field(default=0.98, metadata=bounded(0.0, 1.0, lo_open=True))


@dataclass
class RainConfig:
    """Rain attenuation on the user's access link (see docs/scenario.md, "Rain")."""

    #: ``off``, ``constant`` (raining all episode) or ``markov`` (seeded clear/rain process).
    mode: str = field(default="off", metadata=choice("off", "constant", "markov"))
    #: Specific attenuation gamma_R (dB/km) while it rains.
    specific_attenuation_db_km: float = field(default=0.5, metadata=ATTENUATION)
    #: Rain height h_R above sea level (km); ITU-R P.839 gives about 5 km at mid latitudes.
    rain_height_km: float = field(default=5.0, metadata=bounded(0.0, 100.0, lo_open=True))
    #: Height of the terminal above sea level (km).
    station_height_km: float = field(default=0.0, metadata=bounded(0.0, 100.0))
    mean_clear_s: float = field(default=600.0, metadata=POSITIVE)
    mean_rain_s: float = field(default=300.0, metadata=POSITIVE)
    #: Extra Bernoulli loss while it rains.
    extra_loss: float = field(default=0.0, metadata=PROBABILITY)


#: Queue disciplines of a link's transmitters (``docs/scenario.md``, "Queue disciplines").
#: A link's handling of the ECN field (``QueueConfig.ecn_handling``); the first is the default.
ECN_HANDLINGS = ("pass", "bleach", "drop")
QUEUE_DISCIPLINES = ("droptail", "red", "codel", "fq_codel", "pie", "dualpi2")
#: Default ``target_ms`` per discipline: CoDel's TARGET (RFC 8289 section 4.4, also FQ-CoDel's,
#: RFC 8290 section 5.2.1), PIE's QDELAY_REF (RFC 8033 section 5.1) and DualPI2's classic
#: target (RFC 9332 Appendix A.1).
QUEUE_TARGET_MS = {"codel": 5.0, "fq_codel": 5.0, "pie": 15.0, "dualpi2": 15.0}
#: Default update period and gains of the PI controllers: PIE's T_UPDATE, alpha and beta
#: (RFC 8033 section 5.1) and DualPI2's Tupdate, alpha and beta (Linux sch_dualpi2's
#: defaults; RFC 9332 Appendix A.1 derives alpha = 0.1 Tupdate / RTT_max^2 = 0.16 Hz for
#: Tupdate 16 ms and RTT_max 100 ms, and beta = 0.3 / RTT_max = 3 Hz, which Linux rounds up to
#: 3.2; docs/scenario.md).
#: Shortest AQM time (CoDel's target and interval, PIE's and DualPI2's target and update
#: period), ms: 1 us, about one 1500-byte packet's transmission time at 10 Gbit/s. A controller
#: that updates, or a target, shorter than one packet time acts on nothing a queue can hold,
#: and the floor keeps a 1 ms step to at most 1,000 updates per queue (at 1 ns, a step took
#: 200-600 times its simulated time; below 1 ns ns-3 aborted or looped; RFC 8033 and RFC 9332
#: use 15 and 16 ms).
MIN_QUEUE_TIME_MS = 1e-3
QUEUE_PI_DEFAULTS = {
    "pie": {"t_update_ms": 15.0, "alpha": 0.125, "beta": 1.25},
    "dualpi2": {"t_update_ms": 16.0, "alpha": 0.16, "beta": 3.2},
}


@dataclass
class QueueConfig:
    """The queue of a path's (or hop link's) two transmitters: its size, resolved to
    ``queue_packets`` (the limit of every discipline), and its discipline with the
    discipline's parameters (those of other disciplines are ignored)."""

    size: float = field(default=1.0, metadata=POSITIVE)
    #: ``packets``, ``bytes`` or ``bdp`` (multiple of mean rate x mean propagation RTT).
    unit: str = field(default="bdp", metadata=choice("packets", "bytes", "bdp"))
    #: Lower bound after resolution.
    min_packets: int = field(default=4, metadata=bounded(1, MAX_QUEUE_PACKETS))
    #: ``droptail`` (FIFO), ``red`` (Floyd & Jacobson 1993), ``codel`` (RFC 8289),
    #: ``fq_codel`` (RFC 8290) or ``pie`` (RFC 8033), ns-3's traffic-control implementations,
    #: or ``dualpi2`` (RFC 9332, L4S; our own, cpp/doc/link.md).
    discipline: str = field(default="droptail", metadata=choice(*QUEUE_DISCIPLINES))
    #: Mark ECN-capable packets (CE) instead of dropping them (an AQM discipline only). For
    #: ``dualpi2`` this is about its classic queue's ECT(0) packets; its L4S queue (ECT(1), CE)
    #: always marks.
    ecn: bool = False
    #: What the link does with the ECN field of the packets it sends: ``pass`` (carry it),
    #: ``bleach`` (clear it to Not-ECT) or ``drop`` (discard every ECN-capable packet, ECT or
    #: CE), as the middleboxes of RFC 9000 §13.4.2 do; a link that cannot carry ECN cannot
    #: mark (``ecn`` needs ``pass``).
    ecn_handling: str = field(default="pass", metadata=choice(*ECN_HANDLINGS))
    #: CoDel / FQ-CoDel TARGET, PIE QDELAY_REF or DualPI2's classic target (ms); ``None``:
    #: ``QUEUE_TARGET_MS`` (5 CoDel, 15 PIE and DualPI2).
    target_ms: float | None = field(
        default=None, metadata=duration(MIN_QUEUE_TIME_MS, 10_000.0, unit="ms")
    )
    #: CoDel / FQ-CoDel INTERVAL (ms), RFC 8289 section 4.3.
    interval_ms: float = field(
        default=100.0, metadata=duration(MIN_QUEUE_TIME_MS, 100_000.0, unit="ms")
    )
    #: FQ-CoDel: number of flow queues (RFC 8290 section 5.2.5: 1024).
    flows: int = field(default=1024, metadata=bounded(1, 65_536))
    #: FQ-CoDel: deficit round-robin quantum (bytes; RFC 8290 section 5.2.4: one MTU).
    quantum_bytes: int = field(default=1500, metadata=bounded(64, 1 << 20))
    #: PIE / DualPI2: the probability's update period (ms); ``None``: ``QUEUE_PI_DEFAULTS``
    #: (PIE's T_UPDATE 15, RFC 8033 section 5.1; DualPI2's Tupdate 16).
    t_update_ms: float | None = field(
        default=None, metadata=duration(MIN_QUEUE_TIME_MS, 10_000.0, unit="ms")
    )
    #: PIE / DualPI2: integral gain alpha (Hz); ``None``: 0.125 (PIE) or 0.16 (DualPI2).
    alpha: float | None = field(default=None, metadata=bounded(0.0, 100.0, lo_open=True))
    #: PIE / DualPI2: proportional gain beta (Hz); ``None``: 1.25 (PIE) or 3.2 (DualPI2).
    beta: float | None = field(default=None, metadata=bounded(0.0, 100.0, lo_open=True))
    #: PIE: MAX_BURST, the burst allowed after an idle period (ms; RFC 8033: 150).
    max_burst_ms: float = field(default=150.0, metadata=duration(0.0, 100_000.0, unit="ms"))
    #: RED: min_th as a fraction of the queue limit.
    min_th: float = field(default=0.2, metadata=bounded(0.0, 1.0, lo_open=True, hi_open=True))
    #: RED: max_th as a fraction of the queue limit (Floyd & Jacobson: at least twice min_th).
    max_th: float = field(default=0.6, metadata=bounded(0.0, 1.0, lo_open=True))
    #: RED: max_p, the drop probability as the average reaches max_th.
    max_p: float = field(default=0.1, metadata=bounded(0.0, 1.0, lo_open=True))
    #: RED: w_q, the weight of the average queue's exponential moving average (paper: 0.002).
    weight: float = field(default=0.002, metadata=bounded(0.0, 1.0, lo_open=True))
    #: RED: gentle mode (the probability rises from max_p to 1 between max_th and 2 max_th;
    #: off: every arrival above max_th is dropped).
    gentle: bool = True
    #: DualPI2: coupling factor k, p_CL = k p' (RFC 9332 section 2.1, Appendix C: 2).
    k: float = field(default=2.0, metadata=bounded(1.0, 64.0))
    #: DualPI2: start of the native L4S marking ramp, in L-queue sojourn time (ms; RFC 9332
    #: Appendix A.1's minTh: 0.8).
    l4s_min_th_ms: float = field(default=0.8, metadata=duration(0.0, 10.0, unit="ms"))
    #: DualPI2: width of that ramp (ms; RFC 9332 Appendix A.1's range: 0.4; 0 = a step at
    #: ``l4s_min_th_ms``, as Linux's 1 ms step_thresh).
    l4s_range_ms: float = field(default=0.4, metadata=duration(0.0, 10.0, unit="ms"))
    #: DualPI2: the time-shifted FIFO scheduler serves the classic queue first once its head
    #: has waited this much longer than the L4S head (ms).
    time_shift_ms: float = field(default=40.0, metadata=duration(0.0, 10_000.0, unit="ms"))

    def native(self) -> dict[str, object]:
        """The queue dict of the native core (the discipline and its parameters)."""
        d: dict[str, object] = {"discipline": self.discipline, "ecn": bool(self.ecn)}
        if self.ecn_handling != ECN_HANDLINGS[0]:
            d["ecn_handling"] = self.ecn_handling
        if self.discipline in ("codel", "fq_codel"):
            d["interval_ms"] = float(self.interval_ms)
        if self.discipline == "fq_codel":
            d["flows"] = int(self.flows)
            d["quantum_bytes"] = int(self.quantum_bytes)
        if self.discipline in QUEUE_TARGET_MS:
            target = QUEUE_TARGET_MS[self.discipline] if self.target_ms is None else self.target_ms
            d["target_ms"] = float(target)
        if self.discipline in QUEUE_PI_DEFAULTS:
            for key, default in QUEUE_PI_DEFAULTS[self.discipline].items():
                value = getattr(self, key)
                d[key] = float(default if value is None else value)
        if self.discipline == "pie":
            d["max_burst_ms"] = float(self.max_burst_ms)
        if self.discipline == "dualpi2":
            d["k"] = float(self.k)
            d["l4s_min_th_ms"] = float(self.l4s_min_th_ms)
            d["l4s_range_ms"] = float(self.l4s_range_ms)
            d["time_shift_ms"] = float(self.time_shift_ms)
        if self.discipline == "red":
            d["min_th"] = float(self.min_th)
            d["max_th"] = float(self.max_th)
            d["max_p"] = float(self.max_p)
            d["weight"] = float(self.weight)
            d["gentle"] = bool(self.gentle)
        return d


@dataclass
class SatellitePathConfig:
    """Settings that apply when ``PathConfig.kind == "satellite"``."""

    #: ``bent_pipe`` (UT -> sat -> GS) or ``isl`` (UT -> sat -> ISLs -> sat -> GS).
    routing: str = field(default="bent_pipe", metadata=choice("bent_pipe", "isl"))
    #: Ground-station names this path may land at; empty = all.
    gateways: list[str] = field(default_factory=list)
    #: 0 = best satellite by the policy, 1 = second best, ...
    sat_rank: int = field(default=0, metadata=bounded(0))
    #: ISL routing: avoid the ISLs used by this (earlier) path index (link-disjoint).
    disjoint_from: int | None = None
    #: ``link_budget`` (MACO eq. 3 from slant range) or ``fixed``.
    capacity: str = field(default="link_budget", metadata=choice("link_budget", "fixed"))
    #: Fixed rate (``fixed``) or upper cap (``link_budget``), Mbit/s.
    rate_down_mbps: float | None = field(default=None, metadata=POSITIVE)
    #: Uplink rate, Mbit/s; ``None`` = same as downlink.
    rate_up_mbps: float | None = field(default=None, metadata=POSITIVE)
    capacity_scale: float = field(default=1.0, metadata=POSITIVE)
    #: Capacity is re-evaluated every this many seconds (and at handovers); 0 = every sample.
    capacity_update_s: float = field(default=0.1, metadata=NON_NEGATIVE)
    #: LEOTP "V" dip around handovers: depth in [0, 1) and half-width (s).
    v_curve_depth: float = field(default=0.0, metadata=PROBABILITY)
    v_curve_half_width_s: float = field(default=5.0, metadata=POSITIVE)
    #: Uniform rate noise +-this (Mbit/s), redrawn each capacity update.
    rate_noise_mbps: float = field(default=0.0, metadata=NON_NEGATIVE)
    min_rate_mbps: float = field(default=0.1, metadata=POSITIVE)
    #: ``geometry`` (slant ranges / c) or ``envelope`` (geometry mapped onto [rtt_min, rtt_max]).
    delay_model: str = field(default="geometry", metadata=choice("geometry", "envelope"))
    rtt_min_ms: float | None = field(default=None, metadata=POSITIVE)
    rtt_max_ms: float | None = field(default=None, metadata=POSITIVE)
    #: One-way terrestrial delay from the gateway to the server (ms).
    backhaul_delay_ms: float = field(default=0.0, metadata=NON_NEGATIVE)
    backhaul_rate_mbps: float | None = field(default=None, metadata=POSITIVE)
    #: Hop topology: the GSL that carries the access rate (link budget or fixed, V-curve,
    #: noise) and the GSLs' loss. ``terminal``: the terminal's access link holds both, the
    #: feeder is lossless and unlimited. ``gateway``: the gateway's feeder holds the rate, the
    #: access link is unlimited, and the GSLs' loss is split evenly between the two (LEOTP's
    #: "GSL uplink" bottleneck on the Producer side, 1 % per GSL). Path mode is the same either
    #: way (the collapse of the route).
    bottleneck_gsl: str = field(default="terminal", metadata=choice("terminal", "gateway"))
    #: Handover times for ``handover.mode == "scripted"`` (s).
    scripted_handovers_s: list[float] = field(default_factory=list)
    #: Per-slot Starlink dynamics on top of the geometric model (``preset: "off"`` = none).
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    #: A measured trace replacing the geometric delay/rate/loss (``format: "off"`` = none).
    replay: ReplayConfig = field(default_factory=ReplayConfig)


@dataclass
class TerrestrialPathConfig:
    """Settings that apply when ``PathConfig.kind == "terrestrial"``."""

    one_way_delay_ms: float = field(default=20.0, metadata=bounded(0.0, 10_000.0))
    #: ``constant``, ``trace`` (mahimahi) or ``markov``.
    capacity: str = field(default="constant", metadata=choice("constant", "trace", "markov"))
    rate_down_mbps: float = field(default=50.0, metadata=POSITIVE)
    #: ``None`` = same model as downlink (constant: same rate).
    rate_up_mbps: float | None = field(default=None, metadata=POSITIVE)
    #: mahimahi trace files (one integer ms timestamp per 1500-byte delivery opportunity).
    trace_down: str | None = None
    trace_up: str | None = None
    #: Averaging window for trace -> capacity (s).
    trace_bin_s: float = field(default=0.1, metadata=POSITIVE)
    #: Start position in the (looping) trace (s).
    trace_offset_s: float = field(default=0.0, metadata=NON_NEGATIVE)
    #: Markov capacity states (Mbit/s) and mean dwell time per state (s).
    markov_states_mbps: list[float] = field(default_factory=list, metadata=POSITIVE)
    markov_mean_dwell_s: float = field(default=5.0, metadata=POSITIVE)
    min_rate_mbps: float = field(default=0.1, metadata=POSITIVE)


@dataclass
class PathConfig:
    """One path of the multipath connection."""

    name: str = ""
    #: ``satellite`` or ``terrestrial``.
    kind: str = field(default="satellite", metadata=choice("satellite", "terrestrial"))
    #: Random (non-congestion) Bernoulli loss per packet, server->client and client->server.
    loss_down: float = field(default=0.0, metadata=PROBABILITY)
    loss_up: float = field(default=0.0, metadata=PROBABILITY)
    queue: QueueConfig = field(default_factory=QueueConfig)
    satellite: SatellitePathConfig = field(default_factory=SatellitePathConfig)
    terrestrial: TerrestrialPathConfig = field(default_factory=TerrestrialPathConfig)


#: Highest sending rate of a UDP on/off source (cross traffic and ``udp_onoff`` flows), Mbit/s:
#: 10 Gbit/s, the fastest link of the shipped scenarios (a gateway feeder) and far above any LEO
#: user terminal. A source faster than every link it crosses only fills the first queue, and
#: every packet is simulated: at 1e6 Mbit/s one 1 ms step took 200-600 times its simulated time.
MAX_UDP_RATE_MBPS = 1e4
#: Shortest on and (non-zero) off period of a UDP on/off source, s: 1 ms, the shortest env step
#: (``env.step_ms``). Every switch is an ns-3 event per source; below 1 ns a period became a
#: zero-delay loop and a step never returned, and a burst pattern finer than a step is not
#: seen as one by an agent (use a lower constant rate for it).
MIN_ONOFF_PERIOD_S = 1e-3
UDP_RATE = bounded(0.0, MAX_UDP_RATE_MBPS, lo_open=True)
#: Highest rate of a controlled hop link, Mbit/s: the same 10 Gbit/s. A faster link carries
#: its senders' packets just as fast, and every packet is simulated; 1e303 also overflowed the
#: queue's BDP at ``reset()``.
MAX_LINK_RATE_MBPS = MAX_UDP_RATE_MBPS
LINK_RATE = bounded(0.0, MAX_LINK_RATE_MBPS, lo_open=True)
ON_PERIOD = duration(MIN_ONOFF_PERIOD_S, CORE_MAX_S)
OFF_PERIOD = duration(
    0.0, CORE_MAX_S, nonzero_min=MIN_ONOFF_PERIOD_S, why="the shortest on/off period; 0: always on"
)


@dataclass
class CrossTrafficConfig:
    """Competing traffic on one path's bottleneck."""

    path: int = field(default=0, metadata=bounded(0))
    #: ``tcp_bulk`` or ``udp_onoff``.
    kind: str = field(default="tcp_bulk", metadata=choice("tcp_bulk", "udp_onoff"))
    #: ``down`` (server->client, same as the data) or ``up``.
    direction: str = field(default="down", metadata=choice("down", "up"))
    count: int = field(default=1, metadata=bounded(1, 1000))
    #: Sending rate while on (udp_onoff), Mbit/s (at most :data:`MAX_UDP_RATE_MBPS`).
    rate_mbps: float = field(default=1.0, metadata=UDP_RATE)
    #: On and off durations (udp_onoff), s; ``off_s`` 0 = always on.
    on_s: float = field(default=1.0, metadata=ON_PERIOD)
    off_s: float = field(default=1.0, metadata=OFF_PERIOD)
    start_s: float = field(default=0.0, metadata=duration(0.0, CORE_MAX_S))
    #: ``None`` = until the end.
    stop_s: float | None = field(default=None, metadata=duration(0.0, CORE_MAX_S))
    #: ``tcp_bulk`` only: the TCP negotiates ECN (ns-3's ``UseEcn``; ECT(0) with the default
    #: NewReno), so an AQM with ``queue.ecn`` marks it instead of dropping.
    ecn: bool = False


@dataclass
class LeotpFlowConfig:
    """The LEOTP parameters of a ``transport: leotp`` flow (docs/scenario.md, "Flows";
    cpp/doc/leotp.md). A full Data packet carries ``traffic.packet_bytes`` of UDP payload (the
    21-byte LEOTP header and the data)."""

    #: ``A`` full LEOTP, ``B`` hop-by-hop congestion control without cache, ``C`` cache and
    #: in-network repair with end-to-end congestion control, ``D`` no Midnodes (the paper's
    #: Table II).
    variant: str = field(default="A", metadata=choice("A", "B", "C", "D"))
    #: BL_tar, the sending buffer each node holds (full packets); at least one packet.
    target_buffer_packets: float = field(default=5.0, metadata=bounded(1.0, 1e6))
    #: Cache of each Midnode, in 4096-byte blocks (65536 = 256 MB); at least one block.
    cache_blocks: int = field(default=65536, metadata=bounded(1, 2**40))
    #: Share of the route's satellites (and routers) that host a Midnode, drawn with the
    #: episode seed; ground stations always host one.
    midnode_fraction: float = field(default=1.0, metadata=bounded(0.0, 1.0))


@dataclass
class FlowConfig:
    """A flow beside the connection under study (docs/scenario.md, "Flows").

    It runs natively (no agent): leogym's multipath transport with a named congestion control
    and scheduler, ns-3's own TCP with any ``TcpCongestionOps``, or an on/off UDP source.
    """

    #: Name in measurements and results; empty = ``flow<i>``.
    name: str = ""
    #: ``mpquic`` (leogym's transport), ``tcp`` (ns-3 TCP), ``udp_onoff`` or ``leotp``.
    transport: str = field(default="tcp", metadata=choice("mpquic", "tcp", "udp_onoff", "leotp"))
    #: Congestion control: a core name for ``mpquic`` (``cubic``, ``lia``, ...), an ns-3
    #: ``TcpCongestionOps`` for ``tcp`` (``NewReno``, ``TcpCubic``, ``ns3::TcpBbr``, ...).
    cc: str = "NewReno"
    #: Scheduler of an ``mpquic`` flow.
    scheduler: str = "minrtt"
    #: The paths (path topology) or routes (hop topology) it uses, by name; ``mpquic`` may use
    #: several (one subflow each), ``tcp`` and ``udp_onoff`` exactly one.
    routes: list[str] = field(default_factory=list)
    #: ``bulk`` (until ``stop_s``) or ``file`` (``file_bytes``, then done).
    workload: str = field(default="bulk", metadata=choice("bulk", "file"))
    file_bytes: int = field(default=10_000_000, metadata=bounded(1, 2**50))
    start_s: float = field(default=0.0, metadata=duration(0.0, CORE_MAX_S))
    #: ``None`` = until the end.
    stop_s: float | None = field(default=None, metadata=duration(0.0, CORE_MAX_S, lo_open=True))
    #: This many identical flows (named ``<name>.<j>`` when more than one).
    count: int = field(default=1, metadata=bounded(1, MAX_FLOWS))
    #: ``udp_onoff``: sending rate while on (Mbit/s, at most :data:`MAX_UDP_RATE_MBPS`), on and
    #: off durations (s, at least :data:`MIN_ONOFF_PERIOD_S`; ``off_s`` 0 = always on).
    rate_mbps: float = field(default=1.0, metadata=UDP_RATE)
    on_s: float = field(default=1.0, metadata=ON_PERIOD)
    off_s: float = field(default=0.0, metadata=OFF_PERIOD)
    #: ``leotp`` flows: the protocol's parameters.
    leotp: LeotpFlowConfig = field(default_factory=LeotpFlowConfig)
    #: ``tcp`` flows: the retransmission timer's floor (ns-3's ``TcpSocketBase::MinRto``, s);
    #: ``None`` = ns-3's default, RFC 6298's 1 s (Linux uses 0.2 s).
    min_rto_s: float | None = field(default=None, metadata=duration(0.001, 60.0))
    #: ``tcp`` flows: the receiver's delayed-ACK timeout (ns-3's ``TcpSocket::DelAckTimeout``,
    #: s; RFC 1122 asks for less than 0.5 s); ``None`` = ns-3's default, 0.2 s (Linux's
    #: minimum is 0.04 s, ``TCP_DELACK_MIN``).
    delayed_ack_s: float | None = field(default=None, metadata=duration(0.001, 0.5, hi_open=True))
    #: ECN. ``tcp`` flows: ns-3's ``TcpSocketBase::UseEcn`` On at both ends, data ECT(0), or
    #: ECT(1) when ``cc`` is ``TcpDctcp`` (L4S; both ends then run DCTCP). ``mpquic`` flows: the
    #: transport's ECN, with the codepoint of the flow's controller. Refused for ``udp_onoff``
    #: and ``leotp`` (``traffic.flows[i].ecn``).
    ecn: bool = False
    #: ``tcp`` flows: RFC 6298's clock granularity G in RTO = SRTT + max(G, 4 RTTVAR) (ns-3's
    #: ``TcpSocketBase::ClockGranularity``, s); ``None`` = ns-3's default, 1 ms. Linux floors
    #: this term (not the whole RTO) at ``rto_min`` (0.2 s): G = 0.2 s with ``min_rto_s`` 0.2
    #: gives Linux's timer (docs/scenario.md, "Flows").
    rto_granularity_s: float | None = field(default=None, metadata=duration(1e-6, 60.0))


#: The ``FlowConfig`` fields that only a ``tcp`` flow takes (ns-3 socket timers), each passed
#: to the core under its own name when set.
TCP_TIMER_FIELDS = ("min_rto_s", "delayed_ack_s", "rto_granularity_s")


@dataclass
class TrafficConfig:
    """The workload of an episode."""

    #: ``bulk`` (send for the whole episode) or ``file`` (``file_bytes``, then done).
    workload: str = field(default="bulk", metadata=choice("bulk", "file"))
    file_bytes: int = field(default=10_000_000, metadata=bounded(1, 2**50))
    #: UDP payload of a full data packet: at most a 9000-byte jumbo frame's IP MTU less the
    #: IPv4 (20 B) and UDP (8 B) headers, 8972 B (the native core checks the same range).
    packet_bytes: int = field(default=1400, metadata=bounded(64, MAX_PACKET_BYTES))
    start_s: float = field(default=0.0, metadata=duration(0.0, CORE_MAX_S))
    cross_traffic: list[CrossTrafficConfig] = field(default_factory=list)
    #: Flows beside the connection under study, each with its own transport, congestion
    #: control, routes and timing (both topologies).
    flows: list[FlowConfig] = field(default_factory=list)


@dataclass
class HopNodeConfig:
    """A node of a controlled hop network."""

    name: str = ""
    #: ``terminal``, ``satellite``, ``ground_station``, ``server`` or ``router``.
    kind: str = field(
        default="router",
        metadata=choice("terminal", "satellite", "ground_station", "server", "router"),
    )


@dataclass
class HopSquareWaveConfig:
    """A square wave on a controlled link's rate (both directions): ``+amplitude_mbps`` in the
    first half of each period, ``-amplitude_mbps`` in the second, counted from ``-phase_s``."""

    #: Half the peak-to-peak swing (Mbit/s); below each direction's rate. 0 = no wave.
    amplitude_mbps: float = field(default=0.0, metadata=NON_NEGATIVE)
    #: At most :data:`CORE_MAX_S`, like every time of a scenario (and at least two timeline
    #: steps: validation).
    period_s: float = field(default=2.0, metadata=bounded(0.0, CORE_MAX_S, lo_open=True))
    #: The wave is shifted this far earlier: at ``t = 0`` it is ``phase_s`` into its period.
    phase_s: float = field(default=0.0, metadata=bounded(0.0, CORE_MAX_S))


@dataclass
class HopLinkConfig:
    """A link of a controlled hop network: constant rate, delay and loss per direction.

    Direction ``down`` is ``a -> b``, ``up`` is ``b -> a``; ``*_up_*`` fields left at ``None``
    take the ``down`` value.
    """

    a: str = ""
    b: str = ""
    #: Empty = ``"<a>-<b>"``.
    name: str = ""
    #: At most :data:`MAX_LINK_RATE_MBPS`; at least 1 bit/s after ``rate_scale`` (validation).
    rate_mbps: float = field(default=10.0, metadata=LINK_RATE)
    rate_up_mbps: float | None = field(default=None, metadata=LINK_RATE)
    delay_ms: float = field(default=10.0, metadata=bounded(0.0, 10_000.0))
    delay_up_ms: float | None = field(default=None, metadata=bounded(0.0, 10_000.0))
    loss: float = field(default=0.0, metadata=PROBABILITY)
    loss_up: float | None = field(default=None, metadata=PROBABILITY)
    #: Drop-tail queue of each of its two transmitters; ``bdp`` is the link's rate times the
    #: propagation RTT of the longest route through it.
    queue: QueueConfig = field(default_factory=QueueConfig)
    #: ``[start, end)`` intervals (s) in which the link drops everything.
    outages: list[list[float]] = field(default_factory=list)
    #: A square wave on both directions' rates (``amplitude_mbps: 0`` = none).
    rate_square_wave: HopSquareWaveConfig = field(default_factory=HopSquareWaveConfig)


@dataclass
class HopRouteStepConfig:
    """The node list of a route from ``t_s`` on (until the next step)."""

    t_s: float = field(default=0.0, metadata=NON_NEGATIVE)
    nodes: list[str] = field(default_factory=list)


@dataclass
class HopRouteConfig:
    """A route: a fixed node list (``nodes``) or a timetable (``steps``), source first."""

    name: str = ""
    nodes: list[str] = field(default_factory=list)
    steps: list[HopRouteStepConfig] = field(default_factory=list)
    #: Repeat the ``steps`` timetable every this many seconds (0 = once); longer than the last
    #: step's ``t_s``.
    repeat_s: float = field(default=0.0, metadata=NON_NEGATIVE)
    #: ``make_before_break``: packets on the old node list drain after a step; or
    #: ``break_before_make``: every link of the route's other steps that the step in force does
    #: not use is in an outage while the step is in force.
    switch_mode: str = field(
        default="make_before_break", metadata=choice("make_before_break", "break_before_make")
    )


@dataclass
class HopsConfig:
    """The hop topology (``topology: hops``).

    Empty ``nodes``: the graph is built from the scenario's geometry (its satellite and
    terrestrial paths become chains of terminal, satellites, ground station and server).
    Otherwise it is this controlled network, and ``paths`` names the routes of the
    connection under study (the scenario's ``paths`` list is then empty).
    """

    nodes: list[HopNodeConfig] = field(default_factory=list)
    links: list[HopLinkConfig] = field(default_factory=list)
    routes: list[HopRouteConfig] = field(default_factory=list)
    #: Routes of the connection under study, in path order (controlled networks only).
    paths: list[str] = field(default_factory=list)


@dataclass
class SamplingConfig:
    """Per-episode randomisation used by :func:`leogym.scenario.sample_scenario`.

    Ranges are ``[low, high]`` (uniform); an empty list keeps the config's value.
    """

    orbit_offset_s: list[float] = field(default_factory=list, metadata=interval())
    epoch_utc_s: list[float] = field(default_factory=list, metadata=interval(0.0, DAY_S))
    terminal_lat_deg: list[float] = field(default_factory=list, metadata=interval(-90.0, 90.0))
    terminal_lon_deg: list[float] = field(default_factory=list, metadata=interval(-180.0, 360.0))
    #: Trace files to choose from (uniformly) for every trace-driven terrestrial path.
    trace_choices: list[str] = field(default_factory=list)
    trace_offset_s: list[float] = field(default_factory=list, metadata=interval(0.0))
    #: Loss values to choose from for satellite / terrestrial paths (both directions).
    satellite_loss_choices: list[float] = field(default_factory=list, metadata=PROBABILITY)
    terrestrial_loss_choices: list[float] = field(default_factory=list, metadata=PROBABILITY)
    #: Probability that an episode has rain (``rain.mode`` becomes ``markov`` then).
    rain_probability: float = field(default=0.0, metadata=bounded(0.0, 1.0))
    rain_attenuation_db_km: list[float] = field(
        default_factory=list, metadata=interval(0.0, 1000.0)
    )
    #: Per-slot dynamics presets to choose from (uniformly) for every satellite path
    #: (``docs/scenario.md``, "Per-slot dynamics"); the paths' other dynamics settings stay.
    dynamics_presets: list[str] = field(
        default_factory=list, metadata=choice(*DYNAMICS_PRESET_NAMES)
    )
    #: A factor drawn uniformly from this range multiplies the dynamics' capacity spread
    #: (``sigma_s``, ``sigma_w``), excursion probability and level (``q``, ``m_e_ms``) and
    #: median stall (``d_med_s``) on every satellite path with dynamics on.
    dynamics_scale: list[float] = field(default_factory=list, metadata=interval(0.0, 5.0))


@dataclass
class ScenarioConfig:
    """A complete scenario: geometry, links, handovers, paths and workload.

    Build the per-path arrays with :func:`leogym.scenario.build_timeline`.
    """

    name: str = "custom"
    #: At most 1e6 s: the native core starts the transfer and runs one step within 1e6 s.
    duration_s: float = field(default=30.0, metadata=bounded(0.0, 1e6, lo_open=True))
    #: Step of the Timeline grid handed to ns-3.
    timeline_dt_s: float = field(default=0.01, metadata=POSITIVE)
    #: Refuse a scenario whose timeline arrays are estimated above this many GiB (the grid's
    #: samples x its paths and hop links x ~216 B, what ``reset()`` holds at its peak; see
    #: :func:`leogym.scenario.hops.graph.timeline_bytes`). Raise it on a machine with the memory.
    max_timeline_gib: float = field(default=2.0, metadata=bounded(0.0, 1024.0, lo_open=True))
    #: Step of the orbital geometry (and ISL routing); delays are interpolated onto the timeline.
    geometry_dt_s: float = field(default=1.0, metadata=bounded(0.0, 60.0, lo_open=True))
    #: UTC second-of-day at t = 0 (phase of the handover schedule); ``None`` = from
    #: ``start_utc``, else 0.
    epoch_utc_s: float | None = field(default=None, metadata=bounded(0.0, DAY_S, hi_open=True))
    #: Absolute UTC start (ISO-8601) for TLE propagation; ``None`` = latest TLE epoch.
    start_utc: str | None = None
    #: Shift of the constellation (and Earth rotation) time: "where in the orbit" t = 0 is.
    orbit_offset_s: float = 0.0
    constellation: ConstellationConfig = field(default_factory=ConstellationConfig)
    terminal: TerminalConfig = field(default_factory=TerminalConfig)
    ground_stations: list[GroundStationConfig] = field(default_factory=list)
    handover: HandoverConfig = field(default_factory=HandoverConfig)
    link_budget: LinkBudgetConfig = field(default_factory=LinkBudgetConfig)
    rain: RainConfig = field(default_factory=RainConfig)
    paths: list[PathConfig] = field(default_factory=list)
    #: ``path`` (each path one link: fast, the default) or ``hops`` (nodes and links: shared
    #: queues, ISL contention; see ``hops``).
    topology: str = field(default="path", metadata=choice("path", "hops"))
    hops: HopsConfig = field(default_factory=HopsConfig)
    traffic: TrafficConfig = field(default_factory=TrafficConfig)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    #: Fidelity knob: divide every link rate, cross-traffic rate, file size and queue by this
    #: factor (>= 1) to simulate k times fewer packets; the envs scale throughput figures back
    #: up. Delays, losses and handovers are unchanged. See docs/benchmarks.md for what it costs.
    rate_scale: float = field(default=1.0, metadata=bounded(1.0, 1000.0))
