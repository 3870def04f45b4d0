"""Bad env values fail before anything runs, in one line naming the field (issue 33).

The env options that only an env's constructor checked against the scenario (the reward name,
``observation.max_paths``, transport options, an ``external`` flow nobody drives, an episode
the scenario cannot be extended to, ``env.flows``), and a Ray backend without Ray, used to
fail in the env workers (``ConnectionResetError``, 85 lines, exit 1) or after training had run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from leogym.agents import compose
from leogym.agents.config import ConfigError, validate_config
from leogym.agents.runtime.app import to_objects

pytestmark = pytest.mark.native  # the checks read the core's algorithm lists and scenarios

EXTERNAL_FLOW = "scenario.traffic.flows=[{transport: mpquic, cc: external, routes: [sat]}]"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["env.reward.name=bogus"], "env.reward.name: must be one of leo, aurora"),
        (["scenario=tiny", "env.observation.max_paths=1"], "env.observation.max_paths: the"),
        (["scenario=tiny", "env.transport.subflow_paths=[0,7]"], "env.transport.subflow_paths"),
        (["scenario=tiny", "env.transport.subflow_paths=[1]"], "env.transport.subflow_paths: an"),
        (["scenario=tiny", EXTERNAL_FLOW], "scenario.traffic.flows[0].cc: 'external'"),
        (
            ["scenario=tiny", "env.episode_s=86400", "env.step_ms=60000"],
            "env.episode_s: episodes of 86400 s outlast scenario 'tiny'",
        ),
        (["env=multiflow"], "env.observation.max_paths: the scenario has 2 paths"),
        (
            ["env=multiflow", "scenario=bottleneck4", "env.flows.others=[bbr,cubic]"],
            "env.flows.others: 2 entries for the 3 mpquic flows",
        ),
        (
            ["env=multiflow", "scenario=beam16", "env.flows.n_flows=2"],
            "env.flows.n_flows: needs a scenario",
        ),
    ],
)
def test_env_values_checked_against_the_scenario_up_front(overrides: list[str], field: str) -> None:
    for app, sections in (("train", ("env", "agent", "train")), ("evaluate", ("env", "eval"))):
        with pytest.raises(ConfigError) as exc:
            validate_config(to_objects(compose(app, overrides)), sections)
        assert str(exc.value).startswith(field), str(exc.value)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        # residual with an alternate: 4 gains then 4 choices (LeoCC-v0, 4 paths)
        (
            ["env.residual_alternate=maco", "agent.initial_log_std=[-3,-3,-3,-3]"],
            "agent.initial_log_std: has 4 entries, the action has 8",
        ),
        (
            ["agent.initial_log_std=[-3,-3,-3]"],
            "agent.initial_log_std: has 3 entries, the action has 4",
        ),
        (
            ["env=joint", "agent.initial_log_std=[-3,-3,-3,-3]"],
            "agent.initial_log_std: has 4 entries, the action has 8",
        ),
        (
            ["agent.initial_log_std=[-3,-3,-3,-3]", "+agent.extra.policy_kwargs.log_std_init=-1"],
            "agent.initial_log_std: set it or agent.extra.policy_kwargs.log_std_init",
        ),
        (
            ["env.action_mode=discrete", "agent.initial_log_std=[-3,-3,-3,-3]"],
            "agent.initial_log_std: needs a one-dimensional Box action space",
        ),
    ],
)
def test_initial_log_std_is_checked_against_the_action_before_anything_runs(
    overrides: list[str], message: str
) -> None:
    """The action space comes from the env class and the config (LeoEnv.action_space_for),
    so a wrong length fails in the config check, before workers start and the run directory
    is made, with the message the model's build gives."""
    cfg = to_objects(compose("train", ["experiment=hybrid", *overrides]))
    with pytest.raises(ConfigError) as exc:
        validate_config(cfg)
    assert str(exc.value).startswith(message), str(exc.value)
    fitting = [
        "experiment=hybrid",
        "env.residual_alternate=maco",
        "agent.initial_log_std=[-3,-3,-3,-3,-1,-1,-1,-1]",
    ]
    validate_config(to_objects(compose("train", fitting)))


def test_each_scenario_of_an_evaluation_suite_is_checked_up_front() -> None:
    cfg = compose("evaluate", ["eval.scenarios=[tiny,highrate]", "env.observation.max_paths=2"])
    with pytest.raises(ConfigError) as exc:
        validate_config(to_objects(cfg), ("env", "eval"))
    assert str(exc.value).startswith(
        "eval.scenarios[1]: scenario 'highrate': env.observation.max_paths: the scenario has"
    ), str(exc.value)
    validate_config(to_objects(compose("evaluate", ["suite=heldout"])), ("env", "eval"))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["train.eval_suite=heldout"], "train.eval_suite: must be one of"),
        (["train.eval_suite=validation", "train.eval_freq=0"], "train.eval_suite: needs the"),
        (
            [
                "experiment=multiagent",
                "scenario=bottleneck4",
                "train.eval_freq=1000",
                "train.eval_suite=validation",
            ],
            "train.eval_suite: runs single",
        ),
        (  # the training scenario has one path, the suite's second scenario two
            ["scenario=freeze", "train.eval_suite=validation", "env.observation.max_paths=1"],
            "train.eval_suite[1]: scenario 'validation/starlink_calm_x065': env.observation",
        ),
    ],
)
def test_the_suite_a_training_chooses_on_is_checked_up_front(
    overrides: list[str], message: str
) -> None:
    """``train.eval_suite``: only the validation suite (choosing on the held-out suite would
    bias what it reports), with a periodic evaluation to run it, on scenarios that suit the
    env."""
    with pytest.raises(ConfigError) as exc:
        validate_config(to_objects(compose("train", ["train_dist=randomised", *overrides])))
    assert str(exc.value).startswith(message), str(exc.value)
    validate_config(
        to_objects(compose("train", ["train_dist=randomised", "train.eval_suite=validation"]))
    )


def test_an_episode_longer_than_the_scenario_is_valid() -> None:
    # the env extends the scenario to the episode (tiny: 15 s, the default episode: 20 s)
    validate_config(to_objects(compose("train", ["scenario=tiny", "env.episode_s=40"])))


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray cannot be imported (``import ray`` raises ImportError)."""
    monkeypatch.setitem(sys.modules, "ray", None)


@pytest.mark.usefixtures("no_ray")
@pytest.mark.parametrize(
    ("app", "override", "field"),
    [
        ("main_job", "eval.backend=ray", "eval.backend"),
        ("evaluate", "eval.backend=ray", "eval.backend"),
        ("main_job", "train.vec_env=ray", "train.vec_env"),
        ("train", "train.vec_env=ray", "train.vec_env"),
    ],
)
def test_a_ray_backend_without_ray_is_refused_up_front(app: str, override: str, field: str) -> None:
    cfg = to_objects(compose(app, [override]))
    sections = {"main_job": ("env", "agent", "train", "eval"), "evaluate": ("env", "eval")}
    with pytest.raises(ConfigError, match=f"^{field}: {field}=ray needs Ray"):
        validate_config(cfg, sections.get(app, ("env", "agent", "train")))


# ------------------------------------------------------------------------------ the apps
def _run_app(prog: str, module: str, args: list[str], cwd: Path, *, no_ray: bool = False):
    """Run an app's ``main()`` in a fresh interpreter (optionally with Ray unimportable)."""
    code = (
        ("import sys; sys.modules['ray'] = None\n" if no_ray else "import sys\n")
        + f"sys.argv = [{prog!r}, *{args!r}]\n"
        + f"from {module} import main\nmain()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
        env=env,
    )


def _one_line(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr[-4000:]
    return lines[0]


@pytest.mark.timeout(600)
def test_train_with_an_unknown_reward_stops_in_one_line_without_a_run_dir(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = _run_app(
        "leogym-train",
        "leogym.agents.train",
        ["scenario=tiny", "env.reward.name=bogus", f"hydra.run.dir={run_dir}"],
        tmp_path,
    )
    assert proc.returncode == 2, proc.stderr[-4000:]
    assert _one_line(proc).startswith("leogym-train: error: env.reward.name: must be one of")
    assert not (run_dir / "run_info.json").exists()  # (only Hydra's own .hydra/ and log)


@pytest.mark.timeout(600)
def test_run_with_a_ray_evaluation_and_no_ray_stops_before_training(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = _run_app(
        "leogym-run",
        "leogym.agents.main_job",
        ["experiment=quick", "eval.backend=ray", f"hydra.run.dir={run_dir}"],
        tmp_path,
        no_ray=True,
    )
    assert proc.returncode == 2, proc.stderr[-4000:]
    line = _one_line(proc)
    assert line.startswith("leogym-run: error: eval.backend: eval.backend=ray needs Ray"), line
    assert not (run_dir / "run_info.json").exists() and not (run_dir / "train").exists()
