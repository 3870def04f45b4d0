"""The Genet-style curriculum (``train_dist=curriculum``, :mod:`leogym.agents.curriculum`):
config errors name the field, the search finds where a weak policy trails the teacher, the same
seed gives the same curriculum and model, and a resumed run goes on with the saved state."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from leogym.agents.config import ConfigError, register_configs, validate_config
from leogym.agents.curriculum import (
    CurriculumConfig,
    CurriculumSampler,
    CurriculumState,
    pin,
    search,
    search_space,
)
from leogym.agents.runtime.app import compose, to_objects
from leogym.scenario import load_scenario, sample_scenario

CURRICULUM = ["train_dist=curriculum"]


def _validate(overrides: list[str]) -> None:
    register_configs()
    validate_config(to_objects(compose("train", overrides)), ("env", "agent", "train"))


# ----------------------------------------------------------------------------------- config
def test_the_curriculum_preset_validates() -> None:
    _validate(CURRICULUM)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("train.curriculum.teacher=null", r"^train\.curriculum\.teacher: a curriculum needs a "),
        ("train.curriculum.teacher=''", r"^train\.curriculum\.teacher: a curriculum needs a "),
        ("train.curriculum.teacher=macoo", r"^train\.curriculum\.teacher: must be one of .*maco"),
        ("train.curriculum.weight=1.5", r"^train\.curriculum\.weight: must be in \[0, 1\]"),
        ("train.curriculum.top_k=13", r"^train\.curriculum\.top_k: must be <= "),
        ("train.curriculum.dimensions=[nope]", r"^train\.curriculum\.dimensions\[0\]: must be "),
        ("train.curriculum.dimensions=[trace_choices]", r"^train\.curriculum\.dimensions\[0\]: "),
        ("env.sample_scenarios=false", r"^env\.sample_scenarios: the curriculum mixes "),
        ("scenario=tiny", r"^scenario\.sampling: the curriculum searches "),
    ],
)
def test_bad_curriculum_settings_name_the_field(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _validate([*CURRICULUM, override])


def test_a_disabled_curriculum_is_not_checked() -> None:
    _validate(["train.curriculum.teacher=null"])


def test_a_corrupt_saved_state_names_the_file() -> None:
    with pytest.raises(ValueError, match=r"^ckpt\.json: corrupt curriculum state"):
        CurriculumState.from_json({"next_step": "soon", "pool": [], "searches": []}, "ckpt.json")
    state = CurriculumState(64, [{"dynamics_scale": 1.1}], [{"step": 64}])
    assert CurriculumState.from_json(state.to_json(), "x") == state


# ---------------------------------------------------------------------------------- mixture
def test_pinned_fields_hold_and_the_others_are_still_drawn() -> None:
    scenario = load_scenario("train_randomised")
    rng = np.random.default_rng(3)
    config = {"terminal_lat_deg": 31.5, "dynamics_presets": "variable", "rain_probability": 1.0}
    draws = [CurriculumSampler((config,), 1.0)(scenario, rng) for _ in range(5)]
    assert {d.terminal.lat_deg for d in draws} == {31.5}
    assert {d.paths[0].satellite.dynamics.preset for d in draws} == {"variable"}
    assert {d.rain.mode for d in draws} == {"markov"}
    assert len({d.terminal.lon_deg for d in draws}) == 5  # not pinned: drawn per episode
    # weight 0: the sampler's own draws
    plain = [CurriculumSampler((config,), 0.0)(scenario, rng) for _ in range(20)]
    assert len({d.terminal.lat_deg for d in plain}) == 20
    # a pinned scenario is a valid scenario that draws the pinned value
    assert sample_scenario(pin(scenario, {"dynamics_scale": 0.8}), rng).name == scenario.name


def test_the_search_space_is_the_scenarios_sampler() -> None:
    sampling = load_scenario("train_randomised").sampling
    dims = {d.name: d for d in search_space(sampling, [])}
    assert dims["terminal_lat_deg"].low == sampling.terminal_lat_deg[0]
    assert dims["dynamics_presets"].values == tuple(sampling.dynamics_presets)
    assert (dims["rain_probability"].low, dims["rain_probability"].high) == (0.0, 1.0)
    assert "trace_choices" not in dims  # the scenario samples no trace


# ----------------------------------------------------------------------------------- search
class _ConstantPolicy:
    """Shrinks every window at every step: far below what a teacher gets from a fast link."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def predict(self, obs: Any, state: Any = None, **_: Any) -> tuple[np.ndarray, Any]:
        return -np.ones((len(obs), *self.shape), dtype=np.float32), None


def _two_trace_scenario(tmp_path: Path) -> Any:
    """``tiny`` with a trace-driven terrestrial path and a choice of a 48 Mbit/s trace or a
    1 Mbit/s one."""
    fast, slow = tmp_path / "fast.mahi", tmp_path / "slow.mahi"
    fast.write_text("".join(f"{t}\n" * 4 for t in range(1, 1001)))
    slow.write_text("".join(f"{t}\n" for t in range(12, 1001, 12)))
    scenario = load_scenario("tiny")
    scenario.paths[1].terrestrial.capacity = "trace"
    scenario.paths[1].terrestrial.trace_down = str(slow)
    scenario.sampling.trace_choices = [str(slow), str(fast)]
    return scenario


@pytest.mark.native
@pytest.mark.timeout(300)
def test_the_search_finds_where_a_weak_policy_trails_the_teacher(tmp_path: Path) -> None:
    from leogym.agents.runtime.vecenv import LeoSubprocVecEnv
    from leogym.agents.sb3.curriculum_callback import play_pair
    from leogym.agents.sb3.env_factory import EnvFactory
    from leogym.baselines import neutral_action

    scenario = _two_trace_scenario(tmp_path)
    kwargs = {"episode_s": 2.0, "sample_scenarios": True, "reward": "aurora"}
    agent = EnvFactory("leogym/LeoCC-v0", kwargs, asdict(scenario))
    teacher = EnvFactory("leogym/LeoCC-v0", {**kwargs, "cc": "maco"}, asdict(scenario))
    cfg = CurriculumConfig(enabled=True, trials=4)
    venv = LeoSubprocVecEnv([agent, teacher], start_method="forkserver")
    try:
        weak = _ConstantPolicy(venv.action_space.shape)
        neutral = neutral_action(venv.action_space)
        trials = search(
            search_space(scenario.sampling, ["trace_choices"]),
            lambda params, seed: play_pair(venv, weak, neutral, params, seed),
            cfg,
            seed=7,
        )
    finally:
        venv.close()
    gaps: dict[str, list[float]] = {"fast": [], "slow": []}
    for t in trials:
        gaps[Path(t["params"]["trace_choices"]).stem].append(t["gap"])
    assert gaps["fast"] and gaps["slow"], trials  # TPE tried both
    assert min(gaps["fast"]) > 2 * max(gaps["slow"]) > 0, trials
    state = CurriculumState(cfg.every_steps)
    state.add_search(cfg.every_steps, trials, cfg)
    assert Path(state.pool[0]["trace_choices"]).stem == "fast"


# ------------------------------------------------------------------------- train and resume
TRAIN = [
    *CURRICULUM,
    "scenario=tiny",
    "env.episode_s=1",
    "scenario.sampling.satellite_loss_choices=[0.0,0.05]",
    "scenario.sampling.terminal_lat_deg=[45.0,49.0]",
    "train.progress=false",
    "train.tensorboard=false",
    "train.eval_freq=0",
    "train.n_envs=1",
    "agent.n_steps=32",
    "agent.batch_size=32",
    "agent.n_epochs=1",
    "train.checkpoint_freq=32",
    "train.curriculum.every_steps=32",
    "train.curriculum.trials=2",
    "train.total_timesteps=96",
]


def _train(run_dir: Path, *extra: str, resume: bool = False) -> dict[str, Any]:
    from leogym.agents.train import train

    register_configs()
    train(compose("train", [*TRAIN, *extra]), run_dir, resume=resume)
    return _state(run_dir / "model.zip")


def _state(model: Path) -> dict[str, Any]:
    return dict(json.loads(model.with_suffix(".json").read_text())["curriculum"])


def _parameters(model: Path) -> dict[str, Any]:
    from stable_baselines3 import PPO

    return {k: v.numpy() for k, v in PPO.load(model, device="cpu").policy.state_dict().items()}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("curriculum") / "a"
    _train(run)
    return run


@pytest.mark.native
@pytest.mark.timeout(600)
def test_same_seed_same_curriculum_same_model(trained: Path, tmp_path: Path) -> None:
    first = _state(trained / "model.zip")
    # searches at the rollouts that start at steps 32 and 64, each adding its best trial
    assert [s["step"] for s in first["searches"]] == [32, 64]
    assert first["pool"] == [s["chosen"][0] for s in first["searches"]]
    assert first["next_step"] == 96
    again = _train(tmp_path / "b")
    assert again == first
    a, b = _parameters(trained / "model.zip"), _parameters(tmp_path / "b" / "model.zip")
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.native
@pytest.mark.timeout(600)
def test_resume_goes_on_with_the_saved_curriculum(trained: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    (run / "model.zip").unlink()
    (run / "model.json").unlink()
    checkpoint = run / "checkpoints" / "step_000000064.zip"
    saved = _state(checkpoint)
    # the checkpoint at step 64 was taken before the search that the rollout from 64 starts
    assert [s["step"] for s in saved["searches"]] == [32] and saved["next_step"] == 64
    resumed = _train(run, f"resume={checkpoint}", resume=True)
    assert resumed["searches"][:1] == saved["searches"], "the saved search is kept, not redone"
    assert [s["step"] for s in resumed["searches"]] == [32, 64]
    assert resumed["pool"][0] == saved["pool"][0]
    assert resumed["next_step"] == 96
