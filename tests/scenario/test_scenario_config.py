"""Loading and validating scenario configs; errors name the field path."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from leogym.scenario import (
    PathConfig,
    ScenarioConfig,
    ScenarioConfigError,
    available_scenarios,
    build_timeline,
    load_scenario,
)
from leogym.scenario.validation import validate_scenario

DATA = Path(__file__).parent / "data"
BUNDLED = [
    "tiny",
    "default",
    "maco",
    "alcs_stin",
    "freeze",
    "iridium_omsr",
    "leotp_starlink",
    "highrate",
    "maco_shared",
    "beam16",
    "isl_shared",
    "mptcp_leo_hops",
]


def tiny_dict() -> dict:
    return OmegaConf.to_container(OmegaConf.load(_conf("tiny")))  # type: ignore[return-value]


def _conf(name: str) -> Path:
    import importlib.resources as res

    return Path(str(res.files("leogym.conf").joinpath("scenario", f"{name}.yaml")))


def test_bundled_scenarios_are_listed_and_valid():
    names = available_scenarios()
    for name in BUNDLED:
        assert name in names
        cfg = load_scenario(name)
        assert cfg.name == name
        assert isinstance(cfg, ScenarioConfig)


def test_high_rate_scenario_has_at_least_300_mbps():
    tl = build_timeline(load_scenario("highrate"), 0)
    assert sum(p.rate_down_bps.min() for p in tl.paths) >= 300e6


def test_error_is_a_value_error_with_the_field():
    err = ScenarioConfigError("scenario.x", "bad")
    assert isinstance(err, ValueError)
    assert err.field == "scenario.x"
    assert str(err) == "scenario.x: bad"


def _fails(data: dict, match: str) -> ScenarioConfigError:
    with pytest.raises(ScenarioConfigError, match=match) as info:
        load_scenario(data)
    return info.value


def test_negative_altitude_names_the_field():
    d = tiny_dict()
    d["constellation"]["altitude_km"] = -5
    err = _fails(d, r"^scenario\.constellation\.altitude_km: must be in \(0, 50000\] \(got -5")
    assert err.field == "scenario.constellation.altitude_km"


def test_unknown_preset():
    d = tiny_dict()
    d["constellation"]["preset"] = "starlinkk"
    _fails(d, r"^scenario\.constellation\.preset: must be one of starlink_shell1, .*'starlinkk'")


def test_missing_trace_file(tmp_path):
    d = tiny_dict()
    d["paths"][1]["terrestrial"]["capacity"] = "trace"
    d["paths"][1]["terrestrial"]["trace_down"] = str(tmp_path / "nope.mahi")
    _fails(d, r"^scenario\.paths\[1\]\.terrestrial\.trace_down: trace file not found")


def test_corrupt_trace_file_reports_the_line(tmp_path):
    bad = tmp_path / "bad.mahi"
    bad.write_text("1\n2\nthree\n4\n")
    d = tiny_dict()
    d["paths"][1]["terrestrial"].update(capacity="trace", trace_down=str(bad))
    _fails(d, r"^scenario\.paths\[1\]\.terrestrial\.trace_down: .*bad\.mahi:3: expected")
    bad.write_text("5\n3\n")
    _fails(d, r"bad\.mahi:2: timestamps must not decrease")


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("terminal", "elevation_mask_deg"), 90.0),
        (("terminal", "elevation_mask_deg"), -1.0),
        (("constellation", "min_elevation_deg"), 95.0),
    ],
)
def test_elevation_mask_out_of_range(where, value):
    d = tiny_dict()
    d[where[0]][where[1]] = value
    _fails(d, rf"^scenario\.{where[0]}\.{where[1]}: must be in \[0, 90\)")


def test_ground_station_mask_out_of_range():
    d = tiny_dict()
    d["ground_stations"][0]["elevation_mask_deg"] = 90
    _fails(d, r"^scenario\.ground_stations\[0\]\.elevation_mask_deg: must be in \[0, 90\)")


def test_missing_tle_file():
    d = tiny_dict()
    d["constellation"] = {"preset": None, "kind": "tle", "tle_file": "/nonexistent/x.tle"}
    _fails(d, r"^scenario\.constellation\.tle_file: TLE file not found")


def test_corrupt_tle_reports_checksum_and_line(tmp_path):
    lines = (DATA / "tiny.tle").read_text().splitlines()
    # flip one digit of the 2nd satellite's line 1 (file line 5): checksum no longer matches
    line = lines[4]
    lines[4] = line[:20] + ("1" if line[20] != "1" else "2") + line[21:]
    bad = tmp_path / "bad.tle"
    bad.write_text("\n".join(lines) + "\n")
    d = tiny_dict()
    d["constellation"] = {"preset": None, "kind": "tle", "tle_file": str(bad)}
    _fails(d, r"^scenario\.constellation\.tle_file: .*bad\.tle:5: checksum mismatch")
    bad.write_text("\n".join(lines[:2]) + "\n")  # name + line 1 only
    _fails(d, r"bad\.tle:2: TLE line 1 without a line 2")


def test_tle_scenario_builds():
    from leogym.scenario.orbital.frames import ecef_to_latlon, parse_utc
    from leogym.scenario.orbital.tle import TleConstellation, read_tle_file

    start = "2024-05-01T12:00:00Z"
    shell = TleConstellation(read_tle_file(DATA / "tiny.tle", "f"), parse_utc(start).timestamp())
    pos = shell.positions_ecef(np.array([0.0]))[0]
    lat, lon = ecef_to_latlon(pos[0])
    d = tiny_dict()
    d["constellation"] = {
        "preset": None,
        "kind": "tle",
        "tle_file": str(DATA / "tiny.tle"),
        "min_elevation_deg": 10.0,
    }
    d["start_utc"] = start
    d["epoch_utc_s"] = None
    # terminal and gateway right under satellite 0 at t = 0
    d["terminal"] = {"lat_deg": float(lat), "lon_deg": float(lon)}
    d["ground_stations"] = [{"name": "gs", "lat_deg": float(lat), "lon_deg": float(lon)}]
    d["handover"]["mode"] = "visibility"
    tl = build_timeline(load_scenario(d), 0)
    assert tl.epoch_utc_s == pytest.approx(12 * 3600)  # from start_utc
    p = tl.paths[0]
    assert p.serving_sat[0] == 0
    assert p.elevation_deg[0] == pytest.approx(90.0, abs=0.01)
    zenith_km = np.linalg.norm(pos[0]) - 6378.137
    expected = 2 * zenith_km / 299792.458 + 0.010  # up and down legs + backhaul
    assert p.delay_down_s[0] == pytest.approx(expected, rel=1e-6)


def test_unknown_key_names_its_path():
    d = tiny_dict()
    d["paths"][0]["satelite"] = {}
    _fails(d, r"^scenario\.paths\[0\]\.satelite: unknown key")
    d = tiny_dict()
    d["handover"]["outage"] = 1
    _fails(d, r"^scenario\.handover\.outage: unknown key \(valid keys: mode, ")


def test_wrong_types_name_the_field():
    d = tiny_dict()
    d["duration_s"] = "long"
    _fails(d, r"^scenario\.duration_s: must be a number \(got 'long'\)")
    d = tiny_dict()
    d["paths"][0]["queue"]["min_packets"] = 2.5
    _fails(d, r"^scenario\.paths\[0\]\.queue\.min_packets: must be an integer")
    d = tiny_dict()
    d["handover"]["enforce_mask"] = "yes"
    _fails(d, r"^scenario\.handover\.enforce_mask: must be true or false")


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda d: d.update(paths=[]), r"^scenario\.paths: at least one path"),
        (lambda d: d.update(duration_s=0), r"^scenario\.duration_s: must be in \(0, 1e6\]"),
        (lambda d: d.update(geometry_dt_s=0.001), r"^scenario\.geometry_dt_s: must be >= "),
        (
            lambda d: d["paths"][0]["queue"].update(size=0),
            r"\.paths\[0\]\.queue\.size: must be > 0",
        ),
        (lambda d: d["paths"][0].update(loss_down=1.0), r"\.paths\[0\]\.loss_down: must be in"),
        (
            lambda d: d["paths"][0]["satellite"].update(gateways=["nowhere"]),
            r"\.paths\[0\]\.satellite\.gateways\[0\]: names no ground station",
        ),
        (
            lambda d: d["paths"][0]["satellite"].update(capacity="fixed"),
            r"\.paths\[0\]\.satellite\.rate_down_mbps: required",
        ),
        (
            lambda d: d["paths"][1]["terrestrial"].update(rate_down_mbps=float("nan")),
            r"\.paths\[1\]\.terrestrial\.rate_down_mbps: must be finite",
        ),
        (lambda d: d["handover"].update(policy="nearest"), r"^scenario\.handover\.policy: must be"),
        (
            lambda d: d["handover"].update(outage_s=20.0),
            r"^scenario\.handover\.outage_s: must be <",
        ),
        (lambda d: d["link_budget"].update(efficiency=1.5), r"\.link_budget\.efficiency"),
        (lambda d: d.update(ground_stations=[]), r"^scenario\.ground_stations: satellite path 0"),
        (
            lambda d: d["traffic"].update(cross_traffic=[{"path": 5}]),
            r"\.traffic\.cross_traffic\[0\]\.path: must be a path index",
        ),
        (
            lambda d: d["paths"][0]["satellite"].update(routing="isl"),
            r"\.paths\[0\]\.satellite\.routing: needs constellation\.isl",
        ),
        (lambda d: d["terminal"].update(lat_deg=91), r"^scenario\.terminal\.lat_deg: must be in"),
        (
            lambda d: d.update(sampling={"terminal_lat_deg": [10, 5]}),
            r"^scenario\.sampling\.terminal_lat_deg: needs low <= high",
        ),
    ],
)
def test_more_bad_configs(edit, match):
    d = tiny_dict()
    edit(d)
    _fails(d, match)


def test_maco_assignment_needs_two_plain_satellite_paths():
    d = OmegaConf.to_container(OmegaConf.load(_conf("maco")))
    d["paths"] = d["paths"][:1]
    _fails(d, r"^scenario\.handover\.assignment: maco_alternate needs exactly two")
    d = OmegaConf.to_container(OmegaConf.load(_conf("maco")))
    d["handover"]["mode"] = "visibility"
    _fails(d, r"^scenario\.handover\.mode: maco_alternate needs mode 'schedule'")


def test_seed_must_be_a_non_negative_integer():
    cfg = load_scenario("tiny")
    with pytest.raises(ScenarioConfigError, match="seed"):
        build_timeline(cfg, -1)


def test_load_from_every_source_gives_the_same_config(tmp_path):
    from_name = load_scenario("tiny")
    from_dict = load_scenario(tiny_dict())
    from_dictconfig = load_scenario(OmegaConf.create(tiny_dict()))
    from_file = load_scenario(_conf("tiny"))
    copied = load_scenario(from_name)
    assert from_name == from_dict == from_dictconfig == from_file == copied
    assert copied is not from_name


def test_unknown_scenario_name_lists_known_ones():
    with pytest.raises(ScenarioConfigError, match=r"unknown scenario 'nope' \(known: .*tiny"):
        load_scenario("nope")


def test_relative_files_in_yaml_resolve_next_to_the_file(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.mahi").write_text((DATA / "step.mahi").read_text())
    d = tiny_dict()
    d["paths"][1]["terrestrial"].update(capacity="trace", trace_down="traces/t.mahi")
    (tmp_path / "s.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(d)))
    cfg = load_scenario(tmp_path / "s.yaml")
    assert cfg.paths[1].terrestrial.trace_down == str(tmp_path / "traces" / "t.mahi")


def test_structured_config_compatibility():
    """The schema works as an OmegaConf structured config and YAML deltas merge onto it."""
    schema = OmegaConf.structured(ScenarioConfig)
    for name in BUNDLED:
        merged = OmegaConf.merge(schema, OmegaConf.load(_conf(name)))
        obj = OmegaConf.to_object(merged)
        assert isinstance(obj, ScenarioConfig)
        assert obj == load_scenario(name)


def test_validate_returns_self_and_does_not_mutate():
    cfg = load_scenario("maco")
    before = copy.deepcopy(cfg)
    assert validate_scenario(cfg) is cfg
    assert cfg == before
    assert dataclasses.is_dataclass(PathConfig)
