"""The train app converts and validates its scenario once, in the app's process; each worker
gets the ScenarioConfig (pickled, with its validation stamp) instead of a dict to convert and
check again."""

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
