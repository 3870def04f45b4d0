"""Hydra configs of the apps: composition, presets, schemas, and errors that name the field."""

from __future__ import annotations

import subprocess
import sys

import pytest
from gymnasium import spaces
from hydra.errors import HydraException
from omegaconf import OmegaConf
from omegaconf.errors import ConfigAttributeError, ValidationError

from leogym.agents.config import ConfigError, validate_config
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.sb3.algos import check_action_space

APPS = ("train", "evaluate", "main_job")
EXPERIMENTS = ("main_job", "quick", "maco", "alcs", "freeze", "mptcp_leo")


def _check(
    overrides: list[str],
    app: str = "train",
    sections: tuple[str, ...] = ("env", "agent", "train", "eval"),
) -> None:
    validate_config(to_objects(compose(app, overrides)), sections)


@pytest.mark.parametrize("app", APPS)
def test_defaults_compose_and_validate(app: str) -> None:
    cfg = compose(app)
    c = to_objects(cfg)
    validate_config(c, ("env", "agent", "train", "eval"))
    assert c.env.id == "leogym/LeoCC-v0"
    assert c.scenario.name == "default"
    assert c.agent.name == "ppo"


@pytest.mark.parametrize("experiment", EXPERIMENTS)
@pytest.mark.parametrize("app", APPS)
def test_every_experiment_preset_composes_with_every_app(app: str, experiment: str) -> None:
    c = to_objects(compose(app, [f"experiment={experiment}"]))
    validate_config(c, ("env", "agent", "train", "eval"))
    # the preset's episodes fit in its scenario's timeline
    assert c.env.episode_s <= c.scenario.duration_s
    assert c.baseline, "every preset names its baselines"


def test_the_hybrid_bbr3_preset_is_the_ablations_hbs3_recipe() -> None:
    """docs/evaluation.md's HBS3 rows were trained with explicit overrides; the one-command
    preset composes exactly that config."""
    preset = compose("train", ["experiment=hybrid_bbr3", "train_dist=randomised", "seed=3"])
    spelled = compose(
        "train",
        [
            "experiment=hybrid",
            "train_dist=randomised",
            "env.residual_base=bbr3",
            "+agent.extra.policy_kwargs.log_std_init=-3.0",
            "seed=3",
        ],
    )
    assert OmegaConf.to_container(preset) == OmegaConf.to_container(spelled)
    assert preset.train.total_timesteps == 1_000_000


def test_the_slow_actor_preset_is_the_ablations_hbs3sa_recipe() -> None:
    """docs/evaluation.md's HBS3SA rows were trained as HBS3 with agent.actor_lr_scale=0.3."""
    preset = compose("train", ["experiment=hybrid_bbr3_slow_actor", "train_dist=randomised"])
    spelled = compose(
        "train", ["experiment=hybrid_bbr3", "train_dist=randomised", "agent.actor_lr_scale=0.3"]
    )
    assert OmegaConf.to_container(preset) == OmegaConf.to_container(spelled)
    assert preset.agent.actor_lr_scale == 0.3


def test_main_job_compares_the_six_paper_baselines() -> None:
    c = to_objects(compose("main_job"))
    names = {spec.name for spec in c.baseline.values()}
    assert names == {"maco", "freeze+cubic", "cubic", "olia", "minrtt", "alcs"}
    assert c.scenario.name == "default"


def test_a_new_baseline_is_added_as_documented() -> None:
    # docs/evaluation.md and docs/workflows.md add baselines as a mapping: Hydra refuses
    # `+baseline.x={...}` for a typed entry ("dict is not a subclass of BaselineSpec").
    c = to_objects(
        compose(
            "evaluate",
            [
                "baseline=[maco]",
                "+baseline={leotp25: {name: leotp, label: LEOTP-25%, "
                "params: {midnode_fraction: 0.25}}, g: {name: maco, gain: -0.25}}",
            ],
        )
    )
    validate_config(c, ("eval",))
    assert c.baseline["leotp25"].params == {"midnode_fraction": 0.25}
    assert (c.baseline["g"].name, c.baseline["g"].gain) == ("maco", -0.25)
    assert c.baseline["maco"].gain is None


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("+main_job.shipped.V1=zoo:nope", r"^main_job\.shipped\.V1: must be zoo:<name>, a "),
        ("+main_job.shipped.V1=runs/x", r"^main_job\.shipped\.V1: must be zoo:<name>, a "),
        ("+main_job.shipped.PPO=zoo:ppo-cc-default", r"^main_job\.shipped\.PPO: must differ "),
    ],
)
def test_bad_shipped_models_name_the_field(override: str, message: str) -> None:
    sections = ("env", "agent", "train", "eval", "main_job")
    _check(["+main_job.shipped.V1=zoo:ppo-cc-default"], "main_job", sections)
    with pytest.raises(ConfigError, match=message):
        _check(["main_job.shipped={}", override], "main_job", sections)


@pytest.mark.parametrize("agent", ["ppo", "a2c", "sac", "td3", "dqn", "recurrent_ppo"])
def test_agent_groups_are_typed(agent: str) -> None:
    c = to_objects(compose("train", [f"agent={agent}"]))
    assert c.agent.name == agent
    assert type(c.agent).__name__.lower().replace("config", "") in (
        agent.replace("_", ""),
        "recurrentppo",
    )


def test_extra_sb3_arguments_as_documented() -> None:
    # docs/workflows.md: `+agent.extra.use_sde=true`, `+agent.extra.policy_kwargs.log_std_init=-1`
    from leogym.agents.sb3.algos import sb3_kwargs

    overrides = ["+agent.extra.use_sde=true", "+agent.extra.policy_kwargs.log_std_init=-1.0"]
    c = to_objects(compose("train", overrides))
    kwargs = sb3_kwargs(c.agent, spaces.Box(-1.0, 1.0, (2,)))
    assert kwargs["use_sde"] is True
    assert kwargs["policy_kwargs"]["log_std_init"] == -1.0  # beside the schema's net_arch
    assert kwargs["policy_kwargs"]["net_arch"] == [64, 64]


# ------------------------------------------------------------------------------ bad overrides
def test_unknown_agent_names_the_group() -> None:
    with pytest.raises(HydraException, match="agent/foo"):
        compose("train", ["agent=foo"])


def test_missing_scenario_names_the_group() -> None:
    with pytest.raises(HydraException, match="scenario/nope"):
        compose("train", ["scenario=nope"])


def test_negative_timesteps_names_the_field() -> None:
    with pytest.raises(ConfigError, match=r"^train\.total_timesteps: must be >= 1 \(got -5\)"):
        _check(["train.total_timesteps=-5"])


def _chain(exc: BaseException) -> str:
    parts = []
    while exc is not None:
        parts.append(str(exc))
        exc = exc.__cause__
    return "\n".join(parts)


def test_wrong_type_names_the_field() -> None:
    with pytest.raises(HydraException) as info:
        compose("train", ["train.n_envs=many"])
    assert isinstance(info.value.__cause__, ValidationError)
    assert "full_key: train.n_envs" in _chain(info.value)


def test_unknown_key_names_the_field() -> None:
    with pytest.raises(HydraException) as info:
        compose("train", ["agent.clip_rnage=0.1"])
    assert isinstance(info.value.__cause__, ConfigAttributeError)
    assert "agent.clip_rnage" in _chain(info.value)


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("env.cc=warp", "env.cc"),
        ("env.step_ms=0", "env.step_ms"),
        ("env.observation.history=0", "env.observation.history"),
        ("agent.gamma=1.5", "agent.gamma"),
        ("agent.n_steps=0", "agent.n_steps"),
        ("agent.learning_rate=-1", "agent.learning_rate"),
        ("agent.actor_lr_scale=0", "agent.actor_lr_scale"),
        ("agent.actor_lr_scale=1.5", "agent.actor_lr_scale"),
        ("train.n_envs=0", "train.n_envs"),
        ("train.start_method=thread", "train.start_method"),
        ("eval.seeds=[]", "eval.seeds"),
        ("eval.seeds=[1,1]", "eval.seeds"),
        ("eval.checkpoint=newest", "eval.checkpoint"),
        ("eval.metrics.convergence_tolerance=2", "eval.metrics.convergence_tolerance"),
        ("scenario.duration_s=-1", "scenario.duration_s"),
        ("scenario.paths.0.kind=laser", "scenario.paths[0].kind"),
        ("seed=-1", "seed"),
    ],
)
def test_bad_values_name_the_field(override: str, field: str) -> None:
    with pytest.raises(ValueError) as info:
        _check([override])
    assert str(info.value).startswith(field), str(info.value)


def test_algorithm_action_space_mismatch_names_the_agent() -> None:
    with pytest.raises(ConfigError, match="agent.name: dqn needs a Discrete action space"):
        check_action_space("dqn", spaces.Box(-1, 1, (4,)), "leogym/LeoCC-v0")
    with pytest.raises(ConfigError, match="agent.name: sac needs a Box action space"):
        check_action_space("sac", spaces.MultiDiscrete([5, 5]), "leogym/LeoCC-v0")
    check_action_space("ppo", spaces.MultiDiscrete([5, 5]))


def test_cli_reports_the_field_and_fails() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "leogym.agents.train", "scenario=tiny", "train.total_timesteps=-5"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert "train.total_timesteps: must be >= 1" in proc.stderr


def test_cli_unknown_agent_lists_the_options() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "leogym.agents.train", "agent=foo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert "agent/foo" in proc.stderr
