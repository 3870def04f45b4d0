"""The model zoo (leogym.agents.zoo): every shipped model loads, acts in its env's spaces and
carries a complete card; corrupt or mismatched models are refused by name and field; `zoo:`
works as an eval agent; a model replays bit-identically in fresh processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from leogym.agents import zoo
from leogym.agents.zoo import ZooError, load_pretrained

pytestmark = pytest.mark.native

NAMES = zoo.names()
CC = "ppo-cc-default"


def test_the_zoo_ships_the_generalisation_pair() -> None:
    assert {"ppo-cc-default", "ppo-cc-randomised"} <= set(NAMES)
    # the manifest lists exactly the model folders
    assert NAMES == sorted(p.name for p in zoo.MODELS_DIR.iterdir() if p.is_dir())


@pytest.mark.parametrize("name", NAMES)
def test_card_is_complete_and_matches_the_file(name: str) -> None:
    card = zoo.read_card(name)
    for key in zoo.CARD_FIELDS:
        assert card[key] is not None or key == "train_dist", key
    path = zoo.model_path(name)
    # the file's record is the manifest's, not the card's
    assert "model" not in json.loads(zoo.card_path(name).read_text())
    assert card["model"] == {"file": "model.zip", **zoo.manifest()[name]}
    assert card["model"]["sha256"] == zoo.sha256_of(path)
    assert card["model"]["bytes"] == path.stat().st_size < 1_000_000  # shipped in the wheel
    assert card["total_timesteps"] > 0 and isinstance(card["seed"], int)
    assert card["config"]["seed"] == card["seed"]
    assert card["config"]["env"]["id"] == card["env_id"]
    # SB3 trains whole rollouts (n_steps x VecEnv slots): the target, rounded up; a multi-agent
    # run has one slot per flow of each env
    flows = card["config"]["env"].get("flows") or {}
    slots = card["config"]["train"]["n_envs"] * (flows["n_flows"] if flows.get("agents") else 1)
    rollout = card["config"]["agent"].get("n_steps", 1) * slots
    target = card["config"]["train"]["total_timesteps"]
    assert target <= card["total_timesteps"] < target + rollout
    assert len(card["provenance"]["git"]["sha"]) == 40
    assert card["provenance"]["versions"]["leogym"]
    obs = card["layout"]["observation"]
    assert obs["type"] == "Box" and len(obs["features"]) == obs["shape"][-1]
    assert card["determinism"]["episodes"], "the card holds its probe episodes"


@pytest.mark.parametrize("name", NAMES)
def test_every_model_loads_and_acts_in_its_env(name: str) -> None:
    policy = load_pretrained(name)
    assert policy.card["name"] == name
    # any scenario: tiny, or for a multi-flow model (tiny has one flow) another of its kind
    several_flows = policy.env_id == "leogym/LeoMultiFlowCC-v0"
    env = policy.make_env(scenario="isl_shared" if several_flows else "tiny", episode_s=2.0)
    try:
        obs, _ = env.reset(seed=0)
        action, state = policy.predict(obs)
        assert state is None
        assert env.action_space.contains(action), (action, env.action_space)
        env.step(action)
    finally:
        env.close()


# ------------------------------------------------------------------------------ bad models
@pytest.fixture
def zoo_copy(tmp_path: Path) -> Path:
    shutil.copytree(zoo.MODELS_DIR / CC, tmp_path / CC)
    shutil.copy(zoo.MODELS_DIR / zoo.MANIFEST, tmp_path / zoo.MANIFEST)
    return tmp_path


def _edit_card(root: Path, fn) -> None:  # noqa: ANN001
    path = root / CC / "card.json"
    card = json.loads(path.read_text())
    fn(card)
    path.write_text(json.dumps(card))


def test_unknown_model_is_named() -> None:
    with pytest.raises(ZooError, match=r"'no-such-model': unknown \(known: \["):
        load_pretrained("no-such-model")


def test_corrupt_file_fails_the_sha_check(zoo_copy: Path) -> None:
    path = zoo_copy / CC / "model.zip"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    message = rf"'{CC}': manifest field {CC}.sha256 is [0-9a-f]{{64}} but model.zip hashes to"
    with pytest.raises(ZooError, match=message):
        load_pretrained(CC, models_dir=zoo_copy)


def test_unreadable_zip_is_named(zoo_copy: Path) -> None:
    path = zoo_copy / CC / "model.zip"
    path.write_bytes(b"not a zip file at all")
    entries = zoo.manifest(zoo_copy)
    entries[CC]["sha256"] = zoo.sha256_of(path)
    (zoo_copy / zoo.MANIFEST).write_text(json.dumps(entries))
    with pytest.raises(ZooError, match=rf"'{CC}': model.zip does not load"):
        load_pretrained(CC, models_dir=zoo_copy)


def test_missing_card_field_is_named(zoo_copy: Path) -> None:
    _edit_card(zoo_copy, lambda c: c.pop("layout"))
    with pytest.raises(ZooError, match=rf"'{CC}': card field 'layout' is missing"):
        load_pretrained(CC, models_dir=zoo_copy)


def test_card_layout_that_is_not_the_model_file_is_named(zoo_copy: Path) -> None:
    def grow(card: dict) -> None:
        card["layout"]["observation"]["shape"] = [card["layout"]["observation"]["shape"][0] + 1]

    _edit_card(zoo_copy, grow)
    with pytest.raises(
        ZooError, match=rf"'{CC}': card field layout.observation.shape .* model.zip"
    ):
        load_pretrained(CC, models_dir=zoo_copy, check_env=False)


def test_env_with_another_observation_layout_is_refused() -> None:
    policy = load_pretrained(CC, check_env=False)
    other = policy.make_env(scenario="tiny", observation={"history": 2, "max_paths": 4})
    try:
        with pytest.raises(
            ZooError, match=rf"'{CC}': card field layout.observation.shape is \[\d+\] but the env"
        ):
            policy.check_env(other)
    finally:
        other.close()
    same = policy.make_env(scenario="tiny")
    try:
        policy.check_env(same)
        # same shape, other meaning: the feature names catch it
        features = ["something else", *same.unwrapped.feature_names[1:]]
        renamed = SimpleNamespace(
            observation_space=same.observation_space,
            action_space=same.action_space,
            unwrapped=SimpleNamespace(feature_names=features),
        )
        with pytest.raises(ZooError, match=r"layout.observation.features is .*#0"):
            policy.check_env(renamed)
    finally:
        same.close()


# ------------------------------------------------------------------------- in an evaluation
def test_zoo_prefix_in_the_eval_config(tmp_path: Path) -> None:
    from leogym.agents.config import ConfigError
    from leogym.agents.evaluate import agent_policy, evaluate
    from leogym.agents.runtime.app import compose, to_objects

    overrides = [
        "scenario=tiny",
        "env.episode_s=2",
        "baseline=[]",
        "eval.seeds=[0]",
        "eval.progress=false",
        "eval.plots=false",
        "eval.traces=false",
        f"+eval.agents.PPO=zoo:{CC}",
    ]
    cfg = compose("evaluate", overrides)
    c = to_objects(cfg)
    ref, factory = agent_policy("PPO", c.eval.agents["PPO"], c)
    assert Path(str(ref.path)) == zoo.model_path(CC)
    assert ref.kind == "agent" and ref.name == "ppo"
    assert factory.env_id == zoo.read_card(CC)["env_id"]
    assert factory.kwargs["episode_s"] == 2.0  # the evaluation's episode length
    with pytest.raises(ConfigError, match=r"eval.agents.X: zoo model 'nope': unknown"):
        agent_policy("X", "zoo:nope", c)
    results = evaluate(cfg, tmp_path / "eval")
    assert list(results["policy"]) == ["PPO"]
    assert results["steps"].iloc[0] == 20

    # the evaluation's scores go onto (a copy of) the card
    from leogym.agents.zoo.cards import attach_scores

    shutil.copytree(zoo.MODELS_DIR / CC, tmp_path / "zoo" / CC)
    shutil.copy(zoo.MODELS_DIR / zoo.MANIFEST, tmp_path / "zoo" / zoo.MANIFEST)
    entry = attach_scores(CC, tmp_path / "eval", "PPO", key="tiny", models_dir=tmp_path / "zoo")
    card = zoo.read_card(CC, tmp_path / "zoo")
    assert card["scores"]["tiny"] == json.loads(json.dumps(entry))
    assert "model" not in json.loads((tmp_path / "zoo" / CC / "card.json").read_text())
    goodput = [r for r in entry["per_scenario"] if r["metric"] == "goodput_mbps"]
    assert goodput[0]["mean"] == pytest.approx(results["goodput_mbps"].iloc[0])
    with pytest.raises(ZooError, match="no results of policy 'nope'"):
        attach_scores(CC, tmp_path / "eval", "nope", key="x", models_dir=tmp_path / "zoo")


def test_retrain_tool_recomposes_the_card_config() -> None:
    """The retraining script composes the card's overrides to the card's config (dry run)."""
    out = subprocess.run(
        [sys.executable, "tools/retrain_zoo.py", CC, "--dry-run"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "config changed since the card" not in out, out
    card = zoo.read_card(CC)
    assert f"-m leogym.agents.train {' '.join(card['overrides'])} hydra.run.dir=" in out


# ---------------------------------------------------------------------------- determinism
_PROBE = """
import json, sys
from leogym.agents import load_pretrained
from leogym.agents.zoo.cards import run_episode
p = load_pretrained(sys.argv[1], check_env=False)
env = p.make_env(scenario="tiny", episode_s=3.0)
print(json.dumps(run_episode(p, env, seed=7)))
env.close()
"""


def test_fresh_processes_replay_a_model_bit_identically() -> None:
    runs = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, CC],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    assert runs[0]["steps"] == 30
    assert runs[0] == runs[1]


def test_the_config_diff_reports_training_settings_only() -> None:
    """A changed training setting is reported; the main job's and the evaluation's are not
    (they do not shape the model)."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("retrain_zoo", root / "tools" / "retrain_zoo.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    card = zoo.read_card(CC)
    overrides = list(card["overrides"])
    changed = tool.config_diff([*overrides, "env.step_ms=50"], card["config"])
    assert [line.split(":")[0] for line in changed] == ["env.step_ms"]
    assert tool.config_diff([*overrides, "+main_job.shipped.X=zoo:" + CC], card["config"]) == []
    assert tool.config_diff([*overrides, "eval.seeds=[9]"], card["config"]) == []


def test_the_training_cost_table_matches_the_cards() -> None:
    """docs/benchmarks.md, "Training cost of the shipped models": one row per zoo model, whose
    steps, envs and wall seconds are its card's, and CPU seconds too where recorded."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text()
    section = doc.split("## Training cost of the shipped models", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[0].strip("` "): cells[1:]
        for line in section.splitlines()
        if line.startswith("| `")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    assert set(rows) == set(zoo.names())
    for name, (steps, envs, wall, cpu, _) in rows.items():
        card = zoo.read_card(name)
        assert int(steps.replace(",", "")) == card["total_timesteps"], name
        assert int(envs) == card["n_envs"], name
        assert float(wall) == card["train_wall_s"], name
        if card.get("train_cpu_s") is None:
            assert cpu.startswith("not recorded"), name
        else:
            assert float(cpu) == card["train_cpu_s"], name
