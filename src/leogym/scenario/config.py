"""Scenario configs: plain, nested dataclasses (Hydra/OmegaConf structured-config compatible).

Every knob of a scenario is a field here, with its unit in its name. Fields use only simple types
(``int``, ``float``, ``str``, ``bool``, ``Optional[...]``, ``list[...]`` and nested dataclasses),
so the classes can be registered in Hydra's ``ConfigStore`` as they are. Choices are strings,
checked by :meth:`ScenarioConfig.validate`, which raises
:class:`~leogym.scenario.errors.ScenarioConfigError` naming the field path.

The reference for every field (meaning, unit, default, where the default comes from) is
``docs/scenario.md``; the comments below are the short form.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "ConstellationConfig",
    "CrossTrafficConfig",
    "GroundStationConfig",
    "HandoverConfig",
    "IslConfig",
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
]


@dataclass
class IslConfig:
    """Inter-satellite links of a constellation."""

    #: ``none`` or ``plus_grid`` (2 intra-plane + up to 2 inter-plane neighbours per satellite).
    topology: str = "none"
    #: Inter-plane links are down while either end is above this |latitude| (Iridium: 60).
    interplane_max_lat_deg: float | None = None
    #: Connect the counter-rotating planes across the seam (Walker-star only).
    cross_seam: bool = False
    #: Capacity of every ISL (Mbit/s); ``None`` = not a bottleneck.
    rate_mbps: float | None = None
    #: Bernoulli loss per ISL hop (LEOTP: 0.001).
    loss_per_hop: float = 0.0


@dataclass
class ConstellationConfig:
    """Satellites: a preset, a Walker pattern from parameters, or a TLE file.

    Walker fields left at ``None`` take the preset's value (or an error if there is no preset).
    """

    #: ``starlink_shell1``, ``iridium``, ``leotp``, ``maco_string`` or ``None``.
    preset: str | None = "starlink_shell1"
    #: ``walker_delta``, ``walker_star`` or ``tle``; ``None`` = the preset's.
    kind: str | None = None
    altitude_km: float | None = None
    inclination_deg: float | None = None
    num_planes: int | None = None
    sats_per_plane: int | None = None
    #: Walker phasing factor F (in-plane phase step between adjacent planes = F*360/T).
    phasing: int | None = None
    #: RAAN step between planes; ``None`` = 360/P (delta) or 180/P (star).
    raan_spacing_deg: float | None = None
    #: RAAN of plane 0.
    raan0_deg: float | None = None
    #: Extra in-plane phase of odd planes (NS-2 Iridium: 16.36 = half the in-plane spacing).
    odd_plane_phase_deg: float | None = None
    #: Minimum elevation for a ground link (used when terminal/GS masks are ``None``).
    min_elevation_deg: float | None = None
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

    lat_deg: float = 47.61
    lon_deg: float = -122.33
    #: ``None`` = the constellation's ``min_elevation_deg``.
    elevation_mask_deg: float | None = None


@dataclass
class GroundStationConfig:
    """A gateway (ground station) on the server side of satellite paths."""

    name: str = "gs"
    lat_deg: float = 0.0
    lon_deg: float = 0.0
    #: ``None`` = the constellation's ``min_elevation_deg``.
    elevation_mask_deg: float | None = None


@dataclass
class HandoverConfig:
    """When the serving satellite changes, how it is chosen, and what a handover does."""

    #: ``schedule`` (global slots, Starlink), ``visibility`` (on loss of sight), ``every_step``
    #: (re-pick at every geometry step, Hypatia-style) or ``scripted`` (per-path times).
    mode: str = "schedule"
    #: ``max_elevation``, ``longest_visibility``, ``random`` or ``min_delay``.
    policy: str = "max_elevation"
    #: ``rank`` (path i takes the ``sat_rank``-th best satellite) or ``maco_alternate``.
    assignment: str = "rank"
    #: Slot period of the schedule (Starlink: 15 s).
    period_s: float = 15.0
    #: UTC second-of-minute of a slot (Starlink: 12, hence 12/27/42/57).
    offset_s: float = 12.0
    #: Visibility checks every this many seconds (NS-2 Iridium: 10); 0 = continuous.
    check_interval_s: float = 0.0
    #: A scheduled slot is a handover even when the policy keeps the same satellite.
    count_unchanged: bool = True
    #: At a slot, choose among satellites other than the serving one when there is one
    #: (every slot is then a real satellite change, as Starlink's scheduler usually does).
    prefer_new_satellite: bool = False
    #: Re-select when the serving satellite drops below the mask (False holds it; scripted).
    enforce_mask: bool = True
    #: Break-before-make outage after each handover (s); everything on the link is dropped.
    outage_s: float = 0.1
    #: Extra Bernoulli loss inside [t_ho - loss_before_s, t_ho + loss_after_s].
    loss_prob: float = 0.0
    loss_before_s: float = 0.1
    loss_after_s: float = 0.1
    #: Extra RTT at the handover (ms), split equally over both directions, decaying linearly
    #: to 0 over ``delay_spike_s``.
    delay_spike_ms: float = 0.0
    delay_spike_s: float = 0.1


@dataclass
class LinkBudgetConfig:
    """Access-link budget, MACO eqs. (2)-(3), Table 3 (docs/specs/maco.md#access-link-capacity)."""

    tx_power_dbm: float = 35.12
    tx_gain_dbi: float = 37.7
    rx_gain_dbi: float = 37.1
    wavelength_m: float = 0.086
    noise_psd_w_hz: float = 1.6e-20
    bandwidth_hz: float = 12.5e6
    efficiency: float = 0.98


@dataclass
class RainConfig:
    """Rain attenuation on the user's access link (see docs/scenario.md, "Rain")."""

    #: ``off``, ``constant`` (raining all episode) or ``markov`` (seeded clear/rain process).
    mode: str = "off"
    #: Specific attenuation gamma_R (dB/km) while it rains.
    specific_attenuation_db_km: float = 0.5
    #: Rain height h_R above sea level (km); ITU-R P.839 gives about 5 km at mid latitudes.
    rain_height_km: float = 5.0
    #: Height of the terminal above sea level (km).
    station_height_km: float = 0.0
    mean_clear_s: float = 600.0
    mean_rain_s: float = 300.0
    #: Extra Bernoulli loss while it rains.
    extra_loss: float = 0.0


@dataclass
class QueueConfig:
    """Drop-tail queue of a path, resolved to ``queue_packets``."""

    size: float = 1.0
    #: ``packets``, ``bytes`` or ``bdp`` (multiple of mean rate x mean propagation RTT).
    unit: str = "bdp"
    #: Lower bound after resolution.
    min_packets: int = 4


@dataclass
class SatellitePathConfig:
    """Settings that apply when ``PathConfig.kind == "satellite"``."""

    #: ``bent_pipe`` (UT -> sat -> GS) or ``isl`` (UT -> sat -> ISLs -> sat -> GS).
    routing: str = "bent_pipe"
    #: Ground-station names this path may land at; empty = all.
    gateways: list[str] = field(default_factory=list)
    #: 0 = best satellite by the policy, 1 = second best, ...
    sat_rank: int = 0
    #: ISL routing: avoid the ISLs used by this (earlier) path index (link-disjoint).
    disjoint_from: int | None = None
    #: ``link_budget`` (MACO eq. 3 from slant range) or ``fixed``.
    capacity: str = "link_budget"
    #: Fixed rate (``fixed``) or upper cap (``link_budget``), Mbit/s.
    rate_down_mbps: float | None = None
    #: Uplink rate, Mbit/s; ``None`` = same as downlink.
    rate_up_mbps: float | None = None
    capacity_scale: float = 1.0
    #: Capacity is re-evaluated every this many seconds (and at handovers); 0 = every sample.
    capacity_update_s: float = 0.1
    #: LEOTP "V" dip around handovers: depth in [0, 1) and half-width (s).
    v_curve_depth: float = 0.0
    v_curve_half_width_s: float = 5.0
    #: Uniform rate noise +-this (Mbit/s), redrawn each capacity update.
    rate_noise_mbps: float = 0.0
    min_rate_mbps: float = 0.1
    #: ``geometry`` (slant ranges / c) or ``envelope`` (geometry mapped onto [rtt_min, rtt_max]).
    delay_model: str = "geometry"
    rtt_min_ms: float | None = None
    rtt_max_ms: float | None = None
    #: One-way terrestrial delay from the gateway to the server (ms).
    backhaul_delay_ms: float = 0.0
    backhaul_rate_mbps: float | None = None
    #: Handover times for ``handover.mode == "scripted"`` (s).
    scripted_handovers_s: list[float] = field(default_factory=list)


@dataclass
class TerrestrialPathConfig:
    """Settings that apply when ``PathConfig.kind == "terrestrial"``."""

    one_way_delay_ms: float = 20.0
    #: ``constant``, ``trace`` (mahimahi) or ``markov``.
    capacity: str = "constant"
    rate_down_mbps: float = 50.0
    #: ``None`` = same model as downlink (constant: same rate).
    rate_up_mbps: float | None = None
    #: mahimahi trace files (one integer ms timestamp per 1500-byte delivery opportunity).
    trace_down: str | None = None
    trace_up: str | None = None
    #: Averaging window for trace -> capacity (s).
    trace_bin_s: float = 0.1
    #: Start position in the (looping) trace (s).
    trace_offset_s: float = 0.0
    #: Markov capacity states (Mbit/s) and mean dwell time per state (s).
    markov_states_mbps: list[float] = field(default_factory=list)
    markov_mean_dwell_s: float = 5.0
    min_rate_mbps: float = 0.1


@dataclass
class PathConfig:
    """One path of the multipath connection."""

    name: str = ""
    #: ``satellite`` or ``terrestrial``.
    kind: str = "satellite"
    #: Random (non-congestion) Bernoulli loss per packet, server->client and client->server.
    loss_down: float = 0.0
    loss_up: float = 0.0
    queue: QueueConfig = field(default_factory=QueueConfig)
    satellite: SatellitePathConfig = field(default_factory=SatellitePathConfig)
    terrestrial: TerrestrialPathConfig = field(default_factory=TerrestrialPathConfig)


@dataclass
class CrossTrafficConfig:
    """Competing traffic on one path's bottleneck."""

    path: int = 0
    #: ``tcp_bulk`` or ``udp_onoff``.
    kind: str = "tcp_bulk"
    #: ``down`` (server->client, same as the data) or ``up``.
    direction: str = "down"
    count: int = 1
    #: Sending rate while on (udp_onoff), Mbit/s.
    rate_mbps: float = 1.0
    on_s: float = 1.0
    off_s: float = 1.0
    start_s: float = 0.0
    #: ``None`` = until the end.
    stop_s: float | None = None


@dataclass
class TrafficConfig:
    """The workload of an episode."""

    #: ``bulk`` (send for the whole episode) or ``file`` (``file_bytes``, then done).
    workload: str = "bulk"
    file_bytes: int = 10_000_000
    #: UDP payload of a full data packet.
    packet_bytes: int = 1400
    start_s: float = 0.0
    cross_traffic: list[CrossTrafficConfig] = field(default_factory=list)


@dataclass
class SamplingConfig:
    """Per-episode randomisation used by :func:`leogym.scenario.sample_scenario`.

    Ranges are ``[low, high]`` (uniform); an empty list keeps the config's value.
    """

    orbit_offset_s: list[float] = field(default_factory=list)
    epoch_utc_s: list[float] = field(default_factory=list)
    terminal_lat_deg: list[float] = field(default_factory=list)
    terminal_lon_deg: list[float] = field(default_factory=list)
    #: Trace files to choose from (uniformly) for every trace-driven terrestrial path.
    trace_choices: list[str] = field(default_factory=list)
    trace_offset_s: list[float] = field(default_factory=list)
    #: Loss values to choose from for satellite / terrestrial paths (both directions).
    satellite_loss_choices: list[float] = field(default_factory=list)
    terrestrial_loss_choices: list[float] = field(default_factory=list)
    #: Probability that an episode has rain (``rain.mode`` becomes ``markov`` then).
    rain_probability: float = 0.0
    rain_attenuation_db_km: list[float] = field(default_factory=list)


@dataclass
class ScenarioConfig:
    """A complete scenario: geometry, links, handovers, paths and workload.

    Build the per-path arrays with :func:`leogym.scenario.build_timeline`.
    """

    name: str = "custom"
    duration_s: float = 30.0
    #: Step of the Timeline grid handed to ns-3.
    timeline_dt_s: float = 0.01
    #: Step of the orbital geometry (and ISL routing); delays are interpolated onto the timeline.
    geometry_dt_s: float = 1.0
    #: UTC second-of-day at t = 0 (phase of the handover schedule); ``None`` = from
    #: ``start_utc``, else 0.
    epoch_utc_s: float | None = None
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
    traffic: TrafficConfig = field(default_factory=TrafficConfig)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    #: Fidelity knob: divide every link rate, cross-traffic rate, file size and queue by this
    #: factor (>= 1) to simulate k times fewer packets; the envs scale throughput figures back
    #: up. Delays, losses and handovers are unchanged. See docs/benchmarks.md for what it costs.
    rate_scale: float = 1.0

    def validate(self) -> ScenarioConfig:
        """Check every field; raise on the first problem.

        :return: ``self``, for chaining.
        :raises ScenarioConfigError: naming the field path, e.g.
            ``scenario.constellation.altitude_km: must be > 0 (got -5)``.
        """
        from leogym.scenario.validation import validate_scenario

        validate_scenario(self)
        return self
