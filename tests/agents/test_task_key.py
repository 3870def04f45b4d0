"""An evaluation skips the episodes its run folder already holds, by a key of everything that
decides an episode. A model trained further is written to the same path, usually at the same
size: its episodes must not pass for the old model's."""

from __future__ import annotations

from pathlib import Path

from leogym.agents.runtime.rollout import PolicyRef, task_key
from leogym.agents.sb3.env_factory import EnvFactory


def test_a_retrained_model_of_the_same_size_gets_new_episodes(tmp_path: Path) -> None:
    model = tmp_path / "model.zip"
    env = EnvFactory("leogym/LeoCC-v0", {"cc": "external"}, "tiny")
    ref = PolicyRef(label="HY", kind="agent", name="ppo", path=str(model))
    model.write_bytes(b"a" * 1000)
    before = task_key(ref, env, 0)
    assert task_key(ref, env, 0) == before  # same file, same key
    model.write_bytes(b"b" * 1000)
    assert task_key(ref, env, 0) != before


def test_an_optional_env_option_left_unset_keeps_the_key() -> None:
    # residual_alternate came after evaluations had been keyed without it: an agent run whose
    # config now carries it as None keys its episodes as before, and a set value changes them.
    ref = PolicyRef(label="B", kind="baseline", name="bbr3")
    kw = {"action_mode": "residual", "residual_base": "bbr3"}
    before = task_key(ref, EnvFactory("leogym/LeoCC-v0", kw, "tiny"), 0)
    unset = EnvFactory("leogym/LeoCC-v0", {**kw, "residual_alternate": None}, "tiny")
    assert task_key(ref, unset, 0) == before
    chosen = EnvFactory("leogym/LeoCC-v0", {**kw, "residual_alternate": "maco"}, "tiny")
    assert task_key(ref, chosen, 0) != before
