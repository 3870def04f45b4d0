"""Scenario layer: configs, orbital geometry, link budget, handovers, and the fast timeline API.

Typical use::

    from leogym.scenario import load_scenario, sample_scenario, build_timeline

    cfg = load_scenario("default")                      # conf/scenario/default.yaml
    episode = sample_scenario(cfg, np.random.default_rng(7))
    timeline = build_timeline(episode, seed=7)          # per-path arrays, no packets

``validate_scenario(cfg)`` checks a config built or changed by hand (``load_scenario`` and
``sample_scenario`` return checked ones; ``build_timeline`` checks one that is not, or that
changed since it passed).

See docs/scenario.md for the models and the config reference.
"""

from __future__ import annotations

from leogym.scenario.config import (
    ConstellationConfig,
    CrossTrafficConfig,
    GroundStationConfig,
    HandoverConfig,
    IslConfig,
    LinkBudgetConfig,
    PathConfig,
    QueueConfig,
    RainConfig,
    SamplingConfig,
    SatellitePathConfig,
    ScenarioConfig,
    TerminalConfig,
    TerrestrialPathConfig,
    TrafficConfig,
)
from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.loader import available_scenarios, load_scenario
from leogym.scenario.sampling import ScenarioDraw, draw_scenario, sample_scenario
from leogym.scenario.timeline import HandoverForecast, PathTimeline, Timeline
from leogym.scenario.timeline_builder import build_timeline
from leogym.scenario.validation import validate_scenario

__all__ = [
    "ConstellationConfig",
    "ScenarioDraw",
    "CrossTrafficConfig",
    "GroundStationConfig",
    "HandoverConfig",
    "HandoverForecast",
    "IslConfig",
    "LinkBudgetConfig",
    "PathConfig",
    "PathTimeline",
    "QueueConfig",
    "RainConfig",
    "SamplingConfig",
    "SatellitePathConfig",
    "ScenarioConfig",
    "ScenarioConfigError",
    "TerminalConfig",
    "TerrestrialPathConfig",
    "Timeline",
    "TrafficConfig",
    "available_scenarios",
    "build_timeline",
    "draw_scenario",
    "load_scenario",
    "sample_scenario",
    "validate_scenario",
]
