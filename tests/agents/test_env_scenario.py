"""The train and eval apps and the warm start convert and validate their scenarios once, in the
app's process; each worker gets the ScenarioConfig (pickled, with its validation stamp) instead
of a dict or name to convert and check again."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from leogym.agents.runtime.app import compose, env_scenario, scenario_payload, to_objects
from leogym.scenario import ScenarioConfig, ScenarioConfigError, load_scenario
from leogym.scenario.validation import validation_count


class _Captured(Exception):
    """Stops train() once it has made its env factory."""


def test_workers_get_the_scenario_converted_and_validated_once() -> None:
    c = to_objects(compose("train", ["scenario=tiny"]))
    sc = env_scenario(c.env.id, c.scenario)
    assert isinstance(sc, ScenarioConfig)
    assert sc == load_scenario(scenario_payload(c.scenario))  # what the dict round trip gave
    shipped = pickle.loads(pickle.dumps(sc))  # what a worker process receives
    checks = validation_count()
    in_worker = load_scenario(shipped)  # the env's load, in the worker
    assert validation_count() == checks
    assert in_worker == sc and in_worker is not shipped


def test_other_envs_and_no_scenario_keep_the_payload() -> None:
    assert env_scenario("CartPole-v1", {"name": "x"}) == {"name": "x"}
    assert env_scenario("leogym/LeoCC-v0", None) is None


def test_a_bad_scenario_is_refused_before_any_worker_starts() -> None:
    c = to_objects(compose("train", ["scenario=tiny", "scenario.duration_s=-1"]))
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.duration_s: "):
        env_scenario(c.env.id, c.scenario)


def test_train_hands_its_workers_the_scenario_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from leogym.agents import train as train_module
    from leogym.agents.sb3 import env_factory

    seen: list[Any] = []

    def capture(factory: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(factory.scenario)
        raise _Captured

    monkeypatch.setattr(env_factory, "make_vec_env", capture)
    cfg = compose("train", ["scenario=tiny", "train.total_timesteps=8", "train.n_envs=1"])
    with pytest.raises(_Captured):
        train_module.train(cfg, tmp_path)
    assert len(seen) == 1 and isinstance(seen[0], ScenarioConfig)
    assert seen[0].name == "tiny"


@pytest.mark.parametrize("suite", [["eval.scenarios=[tiny]"], []], ids=["named", "config"])
def test_eval_workers_get_each_scenario_converted_once_and_keyed_as_before(
    tmp_path: Path, suite: list[str]
) -> None:
    from leogym.agents.evaluate import build_tasks
    from leogym.agents.results.table import ResultsStore
    from leogym.agents.runtime.rollout import task_key
    from leogym.agents.sb3.env_factory import EnvFactory

    overrides = ["scenario=tiny", "baseline=[cubic,maco]", "eval.seeds=[0,1]", *suite]
    c = to_objects(compose("evaluate", overrides))
    tasks = build_tasks(c, ResultsStore(tmp_path))
    as_configured = "tiny" if suite else scenario_payload(c.scenario)  # what workers once got
    assert len(tasks) == 4
    shipped = {id(t.env.scenario) for t in tasks}
    assert len(shipped) == 1  # one conversion for every policy and seed of the scenario
    assert isinstance(tasks[0].env.scenario, ScenarioConfig)
    assert tasks[0].env.scenario == load_scenario("tiny")
    for t in tasks:  # keyed as before: a resumed evaluation skips the episodes it holds
        configured = EnvFactory(t.env.env_id, t.env.kwargs, as_configured)
        assert t.key == task_key(t.policy, configured, t.seed)


def test_warm_start_rollouts_get_the_scenario_converted_once() -> None:
    from leogym.agents.warm_start import store as ws_store

    c = to_objects(compose("train", ["scenario=tiny", "train.warm_start.episodes=2"]))
    jobs = ws_store._jobs(c, [0, 1], action_width=4)
    scenarios = [t.env.scenario for job in jobs for t in job.tasks]
    assert all(isinstance(sc, ScenarioConfig) for sc in scenarios)
    assert len({id(sc) for sc in scenarios}) == 1
    assert scenarios[0] == load_scenario(scenario_payload(c.scenario))
