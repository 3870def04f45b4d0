"""Scenario configs: plain, nested dataclasses (Hydra/OmegaConf structured-config compatible).

Every knob of a scenario is a field here, with its unit in its name. Fields use only simple types
(``int``, ``float``, ``str``, ``bool``, ``Optional[...]``, ``list[...]`` and nested dataclasses),
so the classes can be registered in Hydra's ``ConfigStore`` as they are. Each field's range or
choices are its metadata (:mod:`leogym.schema`).
:func:`leogym.scenario.validation.validate_scenario` checks them, and the rules that relate
several fields, and raises :class:`~leogym.scenario.errors.ScenarioConfigError` naming the field
path.

This package is the scenario's schema and its floor. This module holds :class:`ScenarioConfig`
and its geometry, link and path parts, and names the package's public surface; the other parts
sit in their own modules: :mod:`~leogym.scenario.config.limits` (the core's limits and the
shared ranges), :mod:`~leogym.scenario.config.queue`, :mod:`~leogym.scenario.config.traffic`,
:mod:`~leogym.scenario.config.hops`, :mod:`~leogym.scenario.config.dynamics`,
:mod:`~leogym.scenario.config.replay` and :mod:`~leogym.scenario.config.constellations`. They
import :mod:`leogym.schema` and each other, never the implementation
(``tests/scenario/test_import_floors.py``).

The reference for every field (meaning, unit, default, where the default comes from) is
``docs/scenario.md``; the comments below are the short form.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.scenario.config.constellations import PRESETS
from leogym.scenario.config.dynamics import DYNAMICS_PRESET_NAMES, DynamicsConfig
from leogym.scenario.config.hops import (
    HopLinkConfig,
    HopNodeConfig,
    HopRouteConfig,
    HopRouteStepConfig,
    HopsConfig,
    HopSquareWaveConfig,
)
from leogym.scenario.config.limits import (
    ATTENUATION,
    CORE_MAX_S,
    DAY_S,
    ELEVATION_MASK,
    LATITUDE,
    LONGITUDE,
    MAX_CROSS_FLOWS,
    MAX_FLOWS,
    MAX_LINK_RATE_MBPS,
    MAX_PACKET_BYTES,
    MAX_PATHS,
    MAX_QUEUE_PACKETS,
    MAX_UDP_RATE_MBPS,
    MIN_ONOFF_PERIOD_S,
    NON_NEGATIVE,
    POSITIVE,
    PROBABILITY,
)
from leogym.scenario.config.queue import (
    ECN_HANDLINGS,
    MIN_QUEUE_TIME_MS,
    QUEUE_DISCIPLINES,
    QUEUE_PI_DEFAULTS,
    QUEUE_TARGET_MS,
    QueueConfig,
)
from leogym.scenario.config.replay import ReplayConfig
from leogym.scenario.config.traffic import (
    TCP_TIMER_FIELDS,
    CrossTrafficConfig,
    FlowConfig,
    LeotpFlowConfig,
    TrafficConfig,
)
from leogym.schema import bounded, choice, interval

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
    "CORE_MAX_S",
    "ECN_HANDLINGS",
    "MAX_LINK_RATE_MBPS",
    "MAX_UDP_RATE_MBPS",
    "MIN_ONOFF_PERIOD_S",
    "MIN_QUEUE_TIME_MS",
]

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
