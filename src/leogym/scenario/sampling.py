"""Per-episode scenario sampling: a pure function of the config and a NumPy ``Generator``.

:func:`sample_scenario` draws, in a fixed order, every quantity the config's ``sampling``
section randomises (uniform ranges, uniform choices) and returns a new config with the draws
filled in. The input config is not modified; the same generator state gives the same config.
:func:`draw_scenario` makes the same draws and also returns the values drawn, by name, so that
an episode's results can say which conditions it ran under.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

import numpy as np

from leogym.scenario.config import ScenarioConfig
from leogym.scenario.validation import validate_scenario

__all__ = ["ScenarioDraw", "draw_scenario", "sample_scenario"]


@dataclass(frozen=True)
class ScenarioDraw:
    """One episode's scenario and the values drawn for it.

    :param scenario: the drawn, validated config.
    :param values: each drawn value by name: ``orbit_offset_s``, ``epoch_utc_s``,
        ``terminal_lat_deg``, ``terminal_lon_deg``; ``loss.<path>`` (both directions of that
        path), ``trace.<path>`` and ``trace_offset_s.<path>``; ``rain_db_km`` (the specific
        attenuation, 0 when the episode drew no rain); ``dynamics_preset`` and
        ``dynamics_scale``. Only what the config's ``sampling`` section draws is present.
    """

    scenario: ScenarioConfig
    values: dict[str, float | str] = field(default_factory=dict)


def _uniform(rng: np.random.Generator, bounds: list[float]) -> float | None:
    if len(bounds) != 2:
        return None
    return float(rng.uniform(bounds[0], bounds[1])) if bounds[1] > bounds[0] else float(bounds[0])


def _choice(rng: np.random.Generator, values: list) -> object | None:
    if not values:
        return None
    return values[int(rng.integers(len(values)))]


def sample_scenario(cfg: ScenarioConfig, rng: np.random.Generator) -> ScenarioConfig:
    """One episode's scenario: :func:`draw_scenario`'s config."""
    return draw_scenario(cfg, rng).scenario


def draw_scenario(cfg: ScenarioConfig, rng: np.random.Generator) -> ScenarioDraw:
    """Draw one episode's scenario from the distributions in ``cfg.sampling``.

    Sampled (each only when its range/choice list is non-empty): ``orbit_offset_s``,
    ``epoch_utc_s``, terminal latitude and longitude, the trace file and start offset of every
    trace-driven terrestrial path, the loss of satellite and terrestrial paths (both
    directions), and rain (with probability ``rain_probability`` the episode has a Markov rain
    process, with a specific attenuation drawn from ``rain_attenuation_db_km``), and the
    satellite paths' per-slot dynamics (one preset from ``dynamics_presets`` for all of them,
    then one ``dynamics_scale`` factor). The dynamics draws come last, so a config without them
    draws exactly as before.

    :param cfg: a validated scenario.
    :param rng: the generator (e.g. the env's ``np_random``); consumed in a fixed order.
    :return: a new, validated config and the values drawn (:class:`ScenarioDraw`).
    """
    out = copy.deepcopy(cfg)
    s = cfg.sampling
    drawn: dict[str, float | str] = {}
    value = _uniform(rng, s.orbit_offset_s)
    if value is not None:
        out.orbit_offset_s = drawn["orbit_offset_s"] = value
    value = _uniform(rng, s.epoch_utc_s)
    if value is not None:
        out.epoch_utc_s = drawn["epoch_utc_s"] = min(value, np.nextafter(86400.0, 0.0))
    value = _uniform(rng, s.terminal_lat_deg)
    if value is not None:
        out.terminal.lat_deg = drawn["terminal_lat_deg"] = value
    value = _uniform(rng, s.terminal_lon_deg)
    if value is not None:
        out.terminal.lon_deg = drawn["terminal_lon_deg"] = value
    for path in out.paths:
        if path.kind == "terrestrial" and path.terrestrial.capacity == "trace":
            trace = _choice(rng, s.trace_choices)
            if trace is not None:
                path.terrestrial.trace_down = drawn[f"trace.{path.name}"] = str(trace)
            offset = _uniform(rng, s.trace_offset_s)
            if offset is not None:
                path.terrestrial.trace_offset_s = drawn[f"trace_offset_s.{path.name}"] = offset
        choices = (
            s.satellite_loss_choices if path.kind == "satellite" else s.terrestrial_loss_choices
        )
        loss = _choice(rng, choices)
        if loss is not None:
            path.loss_down = path.loss_up = float(loss)  # type: ignore[arg-type]
            drawn[f"loss.{path.name}"] = float(loss)  # type: ignore[arg-type]
    if s.rain_probability > 0:
        drawn["rain_db_km"] = 0.0
        if rng.random() < s.rain_probability:
            out.rain.mode = "markov"
            value = _uniform(rng, s.rain_attenuation_db_km)
            if value is not None:
                out.rain.specific_attenuation_db_km = value
            drawn["rain_db_km"] = float(out.rain.specific_attenuation_db_km)
        else:
            out.rain.mode = "off"
    satellites = [p.satellite for p in out.paths if p.kind == "satellite"]
    preset = _choice(rng, s.dynamics_presets)
    if preset is not None:
        drawn["dynamics_preset"] = str(preset)
        for sat in satellites:
            sat.dynamics = replace(sat.dynamics, preset=str(preset))
    factor = _uniform(rng, s.dynamics_scale)
    if factor is not None:
        drawn["dynamics_scale"] = factor
        for sat in satellites:
            sat.dynamics = sat.dynamics.scaled(factor)
    return ScenarioDraw(validate_scenario(out), drawn)
