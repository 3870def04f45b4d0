"""The held-out scenario suite (``suite=heldout``), the validation suite (``suite=validation``)
and the training distributions (``train_dist=...``): the configs compose, every suite scenario
loads and builds, the held-out suite and the randomised training distribution are disjoint on
the dimensions docs/workflows.md names ("Held-out suite and training distributions"), the
validation suite is neither, the shipped data files are their generator's output, and two
suite scenarios evaluate end to end."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from leogym.agents.config import LeogymConfig, validate_config
from leogym.agents.runtime.app import compose, suite_scenarios, to_objects
from leogym.scenario import build_timeline, load_scenario, sample_scenario
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.config.dynamics import DYNAMICS_PRESETS, DynamicsConfig

ROOT = Path(__file__).resolve().parents[2]
SUITE_FILE = ROOT / "conf" / "suite" / "heldout.yaml"


@functools.cache
def _suite_cfg(app: str = "evaluate") -> LeogymConfig:
    return to_objects(compose(app, ["suite=heldout"]))


#: The suite's scenario names, read from the file (the compose tests check the group).
SUITE = [str(x) for x in OmegaConf.load(SUITE_FILE).eval.scenarios]
SUITE_V2_FILE = ROOT / "conf" / "suite" / "heldout_v2.yaml"
SUITE_V2 = [str(x) for x in OmegaConf.load(SUITE_V2_FILE).eval.scenarios]
VALIDATION_FILE = ROOT / "conf" / "suite" / "validation.yaml"
VALIDATION = [str(x) for x in OmegaConf.load(VALIDATION_FILE).eval.scenarios]
#: The real-trace scenarios v2 adds (conf/scenario/traces/).
REAL = ["heldout/starlink_leocc_real", "heldout/starlink_bentpipe_real"]


@functools.cache
def _training_cfg() -> LeogymConfig:
    return to_objects(compose("train", ["train_dist=randomised"]))


def _training() -> ScenarioConfig:
    """The randomised training distribution, as ``train_dist=randomised`` composes it (a
    fresh copy)."""
    c = _training_cfg()
    assert c.env.sample_scenarios, "train_dist must turn on the sampler"
    return load_scenario(c.scenario)


def _geometric(sc: ScenarioConfig) -> bool:
    """Whether the scenario's terminal is a point on the globe (not a controlled network)."""
    return not (sc.topology == "hops" and sc.hops.nodes)


# ------------------------------------------------------------------------------ composition
@pytest.mark.parametrize("app", ["evaluate", "main_job"])
def test_suite_composes_versioned_with_30_s_episodes(app: str) -> None:
    c = _suite_cfg(app)
    validate_config(c, ("env", "eval"))
    assert c.eval.suite.name == "heldout" and c.eval.suite.version >= 1
    assert 12 <= len(c.eval.scenarios) <= 20
    assert len(set(c.eval.scenarios)) == len(c.eval.scenarios)
    assert c.env.episode_s == 30.0 and c.env.sample_scenarios
    # the suite changes the scenarios, not the policies: the app's baselines run on it
    plain = to_objects(compose(app))
    assert c.baseline == plain.baseline and c.baseline


def test_suite_file_names_its_version_and_comments_every_scenario() -> None:
    text = SUITE_FILE.read_text(encoding="utf-8")
    version = _suite_cfg().eval.suite.version
    assert re.search(rf"^#\s+v{version}: ", text, re.M), "the changelog lists the version"
    entries = re.findall(r"^\s+- (heldout/\S+)(.*)$", text, re.M)
    assert [name for name, _ in entries] == SUITE
    for name, rest in entries:
        assert rest.strip().startswith("#") and len(rest.strip()) > 10, f"{name}: no comment"


@pytest.mark.parametrize("app", ["train", "main_job"])
@pytest.mark.parametrize("dist", ["randomised", "default"])
def test_training_distributions_compose(app: str, dist: str) -> None:
    c = to_objects(compose(app, [f"train_dist={dist}"]))
    validate_config(c, ("env", "agent", "train"))
    assert c.env.sample_scenarios
    assert c.scenario.name == {"randomised": "train_randomised", "default": "default"}[dist]


def test_generalisation_experiment_composes() -> None:
    """``leogym-run train_dist=randomised suite=heldout``: train on one, evaluate on the other."""
    c = to_objects(compose("main_job", ["train_dist=randomised", "suite=heldout"]))
    assert c.scenario.name == "train_randomised" and c.eval.scenarios == SUITE


# ------------------------------------------------------------------------------ suite v2
def test_v1_is_unchanged_and_v2_is_v1_plus_the_real_traces() -> None:
    v1 = _suite_cfg()
    assert v1.eval.suite.version == 1 and len(v1.eval.scenarios) == 17
    assert "heldout/starlink_leocc_real" not in v1.eval.scenarios
    v2 = to_objects(compose("evaluate", ["suite=heldout_v2"]))
    validate_config(v2, ("env", "eval"))
    assert v2.eval.suite.name == "heldout" and v2.eval.suite.version == 2
    assert v2.eval.scenarios == SUITE_V2
    assert [n for n in SUITE_V2 if n not in SUITE] == REAL
    assert [n for n in SUITE_V2 if n in SUITE] == SUITE  # v1's, in v1's order
    assert v2.env.episode_s == 30.0 and v2.env.sample_scenarios
    text = SUITE_V2_FILE.read_text(encoding="utf-8")
    assert re.search(r"^#\s+v2: ", text, re.M) and re.search(r"^#\s+v1: ", text, re.M)
    entries = re.findall(r"^\s+- (heldout/\S+)(.*)$", text, re.M)
    assert [name for name, _ in entries] == SUITE_V2
    assert all(rest.strip().startswith("#") for _, rest in entries)


@pytest.mark.parametrize("name", REAL)
def test_v2_real_trace_scenarios_are_held_out(name: str) -> None:
    sc = load_scenario(name)
    assert sc.duration_s == 30.0 and sc.name == "heldout_" + name.split("/", 1)[1]
    train = _training()
    lo, hi = train.sampling.terminal_lat_deg
    assert not lo <= sc.terminal.lat_deg <= hi
    (sat,) = [p for p in sc.paths if p.kind == "satellite"]
    assert sat.satellite.replay.enabled and not _reachable(sat.satellite.dynamics, train)
    files = sat.satellite.replay.files()
    traces = ROOT / "conf" / "scenario" / "traces"
    assert files and all(Path(f).resolve().is_relative_to(traces) for f in files)
    episode = _shortened(sample_scenario(sc, np.random.default_rng(2)), 2.0)
    tl = build_timeline(load_scenario(episode), seed=1)
    assert tl.n == 201 and np.isfinite(tl.paths[0].delay_down_s).all()


# ------------------------------------------------------------------------------- scenarios
def _shortened(sc: ScenarioConfig, duration_s: float) -> ScenarioConfig:
    """``sc`` cut to ``duration_s``, without the events it schedules after that (scripted
    handovers, flows starting later), which validation refuses past the end."""
    out = dataclasses.replace(sc, duration_s=duration_s)
    out.paths = [
        dataclasses.replace(
            p,
            satellite=dataclasses.replace(
                p.satellite,
                scripted_handovers_s=[
                    t for t in p.satellite.scripted_handovers_s if t <= duration_s
                ],
            ),
        )
        for p in sc.paths
    ]
    flows = [
        dataclasses.replace(f, stop_s=None) for f in sc.traffic.flows if f.start_s < duration_s
    ]
    out.traffic = dataclasses.replace(sc.traffic, flows=flows)
    return out


@pytest.mark.parametrize("name", SUITE + VALIDATION)
def test_suite_scenario_loads_validates_and_builds(name: str) -> None:
    sc = load_scenario(name)
    assert sc.duration_s == 30.0
    assert sc.name == name.replace("/", "_")
    rng = np.random.default_rng(3)
    for episode in (sc, sample_scenario(sc, rng)):  # as written, and one sampled episode
        tl = build_timeline(load_scenario(_shortened(episode, 2.0)), seed=1)
        assert tl.n == 201 and tl.paths
        for p in tl.paths:
            for key in ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps"):
                arr = getattr(p, key)
                assert arr.shape == (tl.n,) and np.isfinite(arr).all(), (p.name, key)
                assert (arr >= 0).all(), (p.name, key)
            for key in ("loss_down", "loss_up"):
                arr = getattr(p, key)
                assert np.isfinite(arr).all() and (arr >= 0).all() and (arr < 1).all()
            assert (p.rate_down_bps > 0).all() and p.queue_packets >= 1


# ---------------------------------------------------------------------------- disjointness
def test_no_held_out_terminal_lies_in_the_training_box() -> None:
    train, rng = _training(), np.random.default_rng(0)
    lo, hi = train.sampling.terminal_lat_deg
    assert lo <= train.terminal.lat_deg <= hi
    # what the sampler draws stays in the box
    drawn = [sample_scenario(train, rng).terminal.lat_deg for _ in range(50)]
    assert lo <= min(drawn) and max(drawn) <= hi
    checked = 0
    for name in SUITE:
        sc = load_scenario(name)
        if not _geometric(sc):
            continue
        box = sc.sampling.terminal_lat_deg or [sc.terminal.lat_deg] * 2
        assert box[1] < lo or box[0] > hi, f"{name}: terminal latitude {box} inside [{lo}, {hi}]"
        checked += 1
    assert checked >= 12
    # including one near the edge of Starlink shell 1's coverage (53 deg inclination)
    edge = [
        load_scenario(n).terminal.lat_deg
        for n in SUITE
        if load_scenario(n).constellation.preset == "starlink_shell1"
    ]
    assert any(55.0 <= abs(lat) <= 58.0 for lat in edge)


def _reachable(held: DynamicsConfig, train: ScenarioConfig) -> bool:
    """Whether the training sampler can give a satellite path exactly ``held``'s dynamics: a
    preset it draws, scaled by a factor in its range (the training path sets no parameter of
    its own, which the tests below check)."""
    presets = train.sampling.dynamics_presets
    lo, hi = train.sampling.dynamics_scale or [1.0, 1.0]
    if not held.enabled:
        return "off" in presets
    target = dataclasses.asdict(held.resolve())
    for preset in presets:
        if preset == "off":
            continue
        base = DYNAMICS_PRESETS[preset]
        factor = target["sigma_s"] / base.sigma_s
        if not lo - 1e-12 <= factor <= hi + 1e-12:
            continue
        cand = dataclasses.asdict(DynamicsConfig(preset=preset).scaled(factor).resolve())
        if all(math.isclose(cand[k], target[k], rel_tol=1e-9, abs_tol=1e-12) for k in target):
            return True
    return False


def test_no_held_out_dynamics_is_reachable_by_the_training_sampler() -> None:
    train = _training()
    (sat,) = [p for p in train.paths if p.kind == "satellite"]
    base = DynamicsConfig(preset=sat.satellite.dynamics.preset)
    assert sat.satellite.dynamics == base, "the training path overrides no dynamics parameter"
    assert not sat.satellite.replay.enabled
    # sanity: the check recognises the training draws themselves
    rng = np.random.default_rng(1)
    for _ in range(20):
        drawn = sample_scenario(train, rng).paths[0].satellite.dynamics
        assert _reachable(drawn, train)
    presets, replays = set(), 0
    for name in SUITE:
        for p in load_scenario(name).paths:
            if p.kind != "satellite":
                continue
            d = p.satellite.dynamics
            assert not _reachable(d, train), f"{name}: {p.name}'s dynamics are in training"
            presets.add(d.preset)
            replays += p.satellite.replay.enabled
    # the suite covers every preset (at held-out settings) and a replayed trace
    assert set(DYNAMICS_PRESETS) <= presets and replays >= 1


def _outages(sc: ScenarioConfig) -> set[float]:
    """Outage lengths (s) a scenario configures: handover outages of its satellite paths,
    blackouts of its dynamics, link outages of a controlled network."""
    out = set()
    sats = [p for p in sc.paths if p.kind == "satellite"]
    if sats and sc.handover.outage_s > 0:
        out.add(round(sc.handover.outage_s, 3))
    for p in sats:
        d = p.satellite.dynamics
        if d.enabled and d.resolve().p_out > 0:
            out.add(round(d.resolve().l_med_s, 3))
    for link in sc.hops.links:
        out |= {round(b - a, 3) for a, b in link.outages}
    return out


def test_held_out_outages_are_outside_training() -> None:
    train = _training()
    assert not _outages(train)
    for preset in train.sampling.dynamics_presets:
        assert preset == "off" or DYNAMICS_PRESETS[preset].p_out == 0.0
    lengths = set().union(*(_outages(load_scenario(n)) for n in SUITE))
    assert min(lengths) <= 0.1 and max(lengths) >= 2.0 and len(lengths) >= 4


def test_held_out_rain_loss_and_terrestrial_processes_are_outside_training() -> None:
    train = _training()
    rain_hi = max(train.sampling.rain_attenuation_db_km)
    loss_hi = max(train.sampling.satellite_loss_choices)
    (terr,) = [p.terrestrial for p in train.paths if p.kind == "terrestrial"]
    train_process = (terr.capacity, tuple(terr.markov_states_mbps), terr.markov_mean_dwell_s)
    assert terr.capacity == "markov" and not train.sampling.trace_choices
    rainy, lossy, processes = 0, 0, set()
    for name in SUITE:
        sc = load_scenario(name)
        if sc.rain.mode != "off":
            assert sc.rain.specific_attenuation_db_km > rain_hi, name
            rainy += 1
        for p in sc.paths:
            if p.kind == "satellite" and max(p.loss_down, p.loss_up) > loss_hi:
                lossy += 1
            if p.kind == "terrestrial":
                t = p.terrestrial
                process = (t.capacity, tuple(t.markov_states_mbps), t.markov_mean_dwell_s)
                assert t.capacity != "markov" or process != train_process, name
                processes.add(t.capacity)
                if t.capacity == "trace":
                    assert t.trace_down not in train.sampling.trace_choices
    assert rainy >= 1 and lossy >= 1
    assert processes == {"constant", "markov", "trace"}
    # a GEO-like RTT (about 600 ms) beside LEO
    terrestrial_rtts = [
        2 * p.terrestrial.one_way_delay_ms
        for n in SUITE
        for p in load_scenario(n).paths
        if p.kind == "terrestrial"
    ]
    assert max(terrestrial_rtts) >= 500.0 > 2 * terr.one_way_delay_ms


def test_held_out_constellations_and_competing_flows_are_outside_training() -> None:
    train = _training()
    assert train.constellation.preset == "starlink_shell1" and train.topology == "path"
    assert not train.traffic.flows and not train.traffic.cross_traffic
    kinds, competing, hops = set(), 0, 0
    for name in SUITE:
        sc = load_scenario(name)
        if _geometric(sc):
            kinds.add(sc.constellation.preset or sc.constellation.kind)
        competing += bool(sc.traffic.flows or sc.traffic.cross_traffic)
        hops += sc.topology == "hops"
    assert {"starlink_shell1", "iridium", "leotp", "tle"} <= kinds
    assert competing >= 3 and hops >= 2


# -------------------------------------------------------------------------- validation suite
def test_validation_suite_composes_and_is_what_training_evaluates_on() -> None:
    c = to_objects(compose("evaluate", ["suite=validation"]))
    validate_config(c, ("env", "eval"))
    assert (c.eval.suite.name, c.eval.suite.version) == ("validation", 1)
    assert c.eval.scenarios == VALIDATION and len(VALIDATION) == 8
    assert c.env.episode_s == 30.0 and c.env.sample_scenarios
    assert suite_scenarios("validation") == VALIDATION  # what train.eval_suite runs
    text = VALIDATION_FILE.read_text(encoding="utf-8")
    assert re.search(r"^#\s+v1: ", text, re.M)
    for name, rest in re.findall(r"^\s+- (validation/\S+)(.*)$", text, re.M):
        assert rest.strip().startswith("#") and len(rest.strip()) > 10, f"{name}: no comment"


def _outside_training(sc: ScenarioConfig, train: ScenarioConfig) -> list[str]:
    """The dimensions on which ``sc`` lies outside what the randomised training distribution
    draws (besides the terminal), by the held-out tests' own criteria."""
    (terr,) = [p.terrestrial for p in train.paths if p.kind == "terrestrial"]
    out = []
    sats = [p for p in sc.paths if p.kind == "satellite"]
    if any(not _reachable(p.satellite.dynamics, train) for p in sats):
        out.append("dynamics")
    if _outages(sc):
        out.append("outage")
    if any(max(p.loss_down, p.loss_up) > max(train.sampling.satellite_loss_choices) for p in sats):
        out.append("loss")
    if sc.rain.mode == "constant":
        out.append("rain")
    for p in sc.paths:
        t = p.terrestrial
        if p.kind == "terrestrial" and (
            t.capacity != "markov" or t.one_way_delay_ms != terr.one_way_delay_ms
        ):
            out.append("terrestrial")
    if sc.traffic.flows or sc.traffic.cross_traffic:
        out.append("competing flow")
    return out


@pytest.mark.parametrize("name", VALIDATION)
def test_validation_scenario_is_neither_a_training_draw_nor_held_out(name: str) -> None:
    train, sc = _training(), load_scenario(name)
    (lat_lo, lat_hi), (lon_lo, lon_hi) = (
        train.sampling.terminal_lat_deg,
        train.sampling.terminal_lon_deg,
    )
    lat, lon = sc.terminal.lat_deg, sc.terminal.lon_deg
    assert not (lat_lo <= lat <= lat_hi and lon_lo <= lon <= lon_hi), "terminal in the box"
    assert _outside_training(sc, train), "only the terminal is new"
    assert sc.constellation.preset == "starlink_shell1" and sc.topology == "path"
    for held in SUITE_V2:
        h = load_scenario(held)
        assert (h.terminal.lat_deg, h.terminal.lon_deg) != (lat, lon), held
        assert dataclasses.replace(h, name=sc.name) != sc, held


def test_validation_suite_sits_between_training_and_held_out() -> None:
    """Each moved dimension lies strictly between training's value and the held-out suite's
    (the suite file's comments give the three), so the choice is made neither on training
    conditions nor on the reported ones."""
    train = _training()
    scale_hi = max(train.sampling.dynamics_scale)
    loss_hi = max(train.sampling.satellite_loss_choices)
    rain_hi = max(train.sampling.rain_attenuation_db_km)
    by_name = {n.split("/")[1]: load_scenario(n) for n in VALIDATION}
    variable = by_name["starlink_variable_x150"].paths[0].satellite.dynamics
    assert variable.sigma_s == pytest.approx(1.5 * DYNAMICS_PRESETS["variable"].sigma_s)
    assert scale_hi < 1.5 < 1.75
    calm = by_name["starlink_calm_x065"].paths[0].satellite.dynamics
    assert calm.sigma_s == pytest.approx(0.65 * DYNAMICS_PRESETS["default"].sigma_s)
    assert 0.5 < 0.65 < min(train.sampling.dynamics_scale)
    assert loss_hi < by_name["starlink_loss05pct"].paths[0].loss_down < 0.02
    assert rain_hi < by_name["starlink_rain_2p5"].rain.specific_attenuation_db_km < 5.0
    assert 0.0 < by_name["starlink_outage05s"].handover.outage_s < 1.0
    assert 53.0 < by_name["starlink_north53"].terminal.lat_deg < 57.0
    (train_terr,) = [p.terrestrial for p in train.paths if p.kind == "terrestrial"]
    (long_path,) = [
        p.terrestrial for p in by_name["starlink_long_terrestrial"].paths if p.kind == "terrestrial"
    ]
    assert train_terr.one_way_delay_ms < long_path.one_way_delay_ms < 300.0  # held out: 600 ms RTT


# -------------------------------------------------------------------------------- data files
def test_shipped_data_files_are_the_generators_output() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_heldout_data", ROOT / "tools" / "make_heldout_data.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.generate().items():
        path = ROOT / "conf" / "scenario" / "heldout" / "data" / name
        assert path.read_text(encoding="utf-8") == text, f"{name}: rerun the generator"


# -------------------------------------------------------------------------------- end to end
@pytest.mark.native
@pytest.mark.timeout(300)
def test_two_suite_scenarios_evaluate_end_to_end(tmp_path: Path) -> None:
    import json

    from leogym.agents.evaluate import evaluate

    pair = ["heldout/tle_polar1200", "heldout/beam_share4"]
    cfg = compose(
        "evaluate",
        [
            "suite=heldout",
            f"eval.scenarios=[{','.join(pair)}]",
            "baseline=[cubic]",
            "eval.seeds=[0]",
            "env.episode_s=1.5",
            "eval.n_workers=1",
            "eval.start_method=fork",
            "eval.progress=false",
            "eval.plots=false",
        ],
    )
    df = evaluate(cfg, tmp_path)
    assert sorted(df["scenario"]) == sorted(pair)
    for col in ("goodput_mbps", "rtt_p95_ms", "utilization", "return"):
        assert np.isfinite(df[col]).all(), col
    assert (df["goodput_mbps"] > 0).all()
    described = json.loads((tmp_path / "policies.json").read_text())
    assert described["suite"] == {"name": "heldout", "version": _suite_cfg().eval.suite.version}


@pytest.mark.parametrize("name", ["heldout/starlink_replay", "heldout/starlink_isl_sydney"])
def test_group_option_reads_its_data_files_like_the_name_does(name: str) -> None:
    """``scenario=heldout/<x>`` (a Hydra group option) finds the data files the YAML names
    relative to itself, as ``load_scenario("heldout/<x>")`` does; an override given on the
    command line stays relative to where the command runs."""
    from leogym.agents.runtime.app import anchor_scenario_files

    cfg = compose("evaluate", [f"scenario={name}"])
    anchor_scenario_files(cfg, name)
    composed = load_scenario(OmegaConf.to_container(cfg.scenario, resolve=True))
    by_name = load_scenario(name)
    assert composed == by_name
    files = [p.satellite.replay.bw_down or p.terrestrial.trace_down for p in composed.paths]
    assert any(files) and all(Path(f).is_file() for f in files if f)

    cfg = compose("evaluate", [f"scenario={name}", "scenario.name=mine"])
    key = next(
        f"paths.{i}.satellite.replay.bw_down"
        if p.satellite.replay.bw_down
        else f"paths.{i}.terrestrial.trace_down"
        for i, p in enumerate(by_name.paths)
        if p.satellite.replay.bw_down or p.terrestrial.trace_down
    )
    OmegaConf.update(cfg, f"scenario.{key}", "my_trace.txt", merge=False)
    anchor_scenario_files(cfg, name)
    assert OmegaConf.select(cfg, f"scenario.{key}") == "my_trace.txt"
