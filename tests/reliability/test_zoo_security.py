"""Issue 33, item 2: code from a name. Loading a model unpickles whatever its zip holds, so a
`zoo:` name must never reach a file outside the zoo, and a shipped model loads only if its bytes
are the ones the package's manifest records (a card beside the file vouches for nothing: whoever
writes the file writes the card too).

Each attack here uses a real payload: an SB3-style zip whose pickled ``observation_space``
writes a marker file when unpickled. ``test_the_payload_runs_when_loaded_from_a_path`` shows
the payload works (SB3's contract: loading a path runs its code); every other test asserts a
``ZooError`` naming the field and that the marker was never written.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import shutil
import zipfile
from pathlib import Path

import pytest

from leogym.agents import zoo
from leogym.agents.zoo import ZooError, load_pretrained

CC = "ppo-cc-default"
NAME_ERROR = r"zoo model name: must be a name of the zoo"


class _Payload:
    """Unpickling this writes ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"__import__('pathlib').Path({self.marker!r}).write_text('pwned')",))


def write_payload_zip(path: Path, marker: Path) -> Path:
    """An SB3-style model zip whose ``data`` entry unpickles :class:`_Payload`."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data = {"observation_space": {":type:": "<class 'x'>", ":serialized:": blob}}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("_stable_baselines3_version", "2.0.0")
    return path


def plant(folder: Path, name: str, marker: Path, *, manifest: bool = True) -> Path:
    """A model folder an attacker writes: the payload zip, a card copied from a shipped model
    with ``name`` and the zip's sha256 on it (what the old check trusted) and, with
    ``manifest``, a manifest beside the folder listing it."""
    folder.mkdir(parents=True, exist_ok=True)
    zip_path = write_payload_zip(folder / "model.zip", marker)
    card = json.loads((zoo.MODELS_DIR / CC / "card.json").read_text())
    card["name"] = name
    sha = zoo.sha256_of(zip_path)
    card["model"] = {"file": "model.zip", "sha256": sha, "bytes": zip_path.stat().st_size}
    (folder / "card.json").write_text(json.dumps(card))
    if manifest:
        entry = {"sha256": sha, "bytes": zip_path.stat().st_size}
        (folder.parent / "manifest.json").write_text(json.dumps({folder.name: entry}))
    return zip_path


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker"


def test_the_payload_runs_when_loaded_from_a_path(tmp_path: Path, marker: Path) -> None:
    """Control: SB3 loading the file from a path runs the payload (so a test below that finds
    no marker shows the file was never unpickled, not that the payload is inert)."""
    from leogym.agents.sb3.algos import load_model
    from leogym.agents.sb3.checkpoints import CheckpointError

    path = write_payload_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(CheckpointError):
        load_model(path, "ppo")
    assert marker.read_text() == "pwned"


def _way_out(tmp_path: Path, kind: str) -> str:
    """The ``relative`` (``../../...``) or ``absolute`` way from the zoo to ``tmp_path/x``,
    where :func:`plant` puts a card naming it so (the old loader compared the card's name
    with the given one)."""
    evil = tmp_path / "x"
    relative = os.path.relpath(evil, zoo.MODELS_DIR)
    assert relative.startswith("..")
    return relative if kind == "relative" else str(evil)


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_a_path_is_not_a_zoo_name(tmp_path: Path, marker: Path, kind: str) -> None:
    name = _way_out(tmp_path, kind)
    plant(tmp_path / "x", name, marker)
    with pytest.raises(ZooError, match=NAME_ERROR):
        load_pretrained(name)
    with pytest.raises(ZooError, match=NAME_ERROR):
        zoo.resolve(name)
    assert not marker.exists()


@pytest.mark.native  # the evaluation checks its env config with the core
@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_a_zoo_agent_of_the_eval_config_stays_in_the_zoo(
    tmp_path: Path, marker: Path, kind: str
) -> None:
    """`leogym-eval +eval.agents.X=zoo:<path>`: refused while the tasks are built, before any
    worker would load the file."""
    from leogym.agents.config import ConfigError
    from leogym.agents.evaluate import evaluate
    from leogym.agents.runtime.app import compose

    name = _way_out(tmp_path, kind)
    plant(tmp_path / "x", name, marker)
    overrides = ["scenario=tiny", "baseline=[]", "eval.seeds=[0]", f"+eval.agents.X=zoo:{name}"]
    cfg = compose("evaluate", overrides)
    with pytest.raises(ConfigError, match=rf"eval.agents.X: {NAME_ERROR}"):
        evaluate(cfg, tmp_path / "eval")
    assert not marker.exists()


@pytest.mark.parametrize(
    "name", [None, 7, True, "", "x" * 100_000, "PPO-cc", "ppo_cc", "-x", "a/b", "a\x00b", "..", "."]
)
def test_names_that_are_not_zoo_names(name: object) -> None:
    with pytest.raises(ZooError, match=NAME_ERROR) as err:
        load_pretrained(name)  # type: ignore[arg-type]
    assert len(str(err.value)) < 300  # a 100,000-character name is shown cut short


@pytest.fixture
def zoo_with_replaced_model(tmp_path: Path, marker: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped zoo, copied, with CC's model.zip replaced by the payload and its card
    updated to match it (the manifest left as shipped); the copy is the package's zoo."""
    root = tmp_path / "models"
    shutil.copytree(zoo.MODELS_DIR, root)
    plant(root / CC, CC, marker, manifest=False)
    monkeypatch.setattr(zoo, "MODELS_DIR", root)
    return root


def test_a_shipped_model_whose_bytes_are_not_the_manifests_is_refused(
    zoo_with_replaced_model: Path, marker: Path
) -> None:
    message = rf"'{CC}': manifest field {CC}.sha256 is [0-9a-f]{{64}} but model.zip hashes to"
    with pytest.raises(ZooError, match=message):
        load_pretrained(CC)
    assert not marker.exists()


@pytest.mark.native  # the evaluation checks its env config with the core
def test_a_replaced_shipped_model_is_refused_in_the_eval_config(
    zoo_with_replaced_model: Path, marker: Path, tmp_path: Path
) -> None:
    from leogym.agents.config import ConfigError
    from leogym.agents.evaluate import evaluate
    from leogym.agents.runtime.app import compose

    cfg = compose("evaluate", ["scenario=tiny", "baseline=[]", f"+eval.agents.X=zoo:{CC}"])
    with pytest.raises(ConfigError, match=rf"eval.agents.X: zoo model '{CC}': manifest field"):
        evaluate(cfg, tmp_path / "eval")
    assert not marker.exists()


def test_a_model_folder_without_a_manifest_entry_is_unknown(
    zoo_with_replaced_model: Path, marker: Path
) -> None:
    """A folder dropped into the models folder is not a zoo model: the manifest lists them."""
    plant(zoo_with_replaced_model / "dropped-in", "dropped-in", marker, manifest=False)
    with pytest.raises(ZooError, match=r"'dropped-in': unknown \(known: \["):
        load_pretrained("dropped-in")
    assert "dropped-in" not in zoo.names()
    assert not marker.exists()


# ------------------------------------------------------------------------------ bad cards
def _zoo_copy(tmp_path: Path) -> Path:
    root = tmp_path / "zoo"
    shutil.copytree(zoo.MODELS_DIR / CC, root / CC)
    shutil.copy(zoo.MODELS_DIR / "manifest.json", root / "manifest.json")
    return root


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seed", "zero", r"card field 'seed' must be int, got 'zero'"),
        ("seed", True, r"card field 'seed' must be int, got True"),
        ("layout", [], r"card field 'layout' must be dict, got \[\]"),
        ("config", None, r"card field 'config' must be dict, got None"),
        ("algo", 3, r"card field 'algo' must be str, got 3"),
        ("train_dist", 1.5, r"card field 'train_dist' must be str or null, got 1.5"),
        ("name", None, r"card field 'name' must be str, got None"),
        ("name", "x" * 100_000, r"card field 'name' is 'xxx.*\(100000 characters\)"),
        ("env_id", "leogym/LeoScheduler-v0", r"card field 'env_id' is 'leogym/LeoScheduler-v0'"),
    ],
)
def test_a_corrupt_card_names_the_field(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    root = _zoo_copy(tmp_path)
    path = root / CC / "card.json"
    card = json.loads(path.read_text())
    card[field] = value
    path.write_text(json.dumps(card))
    with pytest.raises(ZooError, match=rf"'{CC}': {message}") as err:
        load_pretrained(CC, models_dir=root)
    assert len(str(err.value)) < 400


def test_a_card_layout_part_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    root = _zoo_copy(tmp_path)
    path = root / CC / "card.json"
    card = json.loads(path.read_text())
    card["layout"]["action"] = "Box"
    path.write_text(json.dumps(card))
    with pytest.raises(ZooError, match=rf"'{CC}': card field 'layout.action' must be an object"):
        load_pretrained(CC, models_dir=root)


@pytest.mark.parametrize("text", ["{", "[]", '"card"', "\xff"])
def test_an_unreadable_card_is_named(tmp_path: Path, text: str) -> None:
    root = _zoo_copy(tmp_path)
    (root / CC / "card.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(ZooError, match=rf"'{CC}': card.json is (unreadable|not a JSON object)"):
        load_pretrained(CC, models_dir=root)


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("{", r"unreadable"),
        ("[]", r"not a JSON object"),
        (json.dumps({CC: {"sha256": "abc", "bytes": 1}}), rf"{CC}.sha256 must be 64 hex"),
        (json.dumps({CC: {"sha256": "0" * 64, "bytes": -1}}), rf"{CC}.bytes must be a size"),
        (json.dumps({"../x": {"sha256": "0" * 64, "bytes": 1}}), NAME_ERROR),
    ],
)
def test_a_corrupt_manifest_is_named(tmp_path: Path, manifest: str, message: str) -> None:
    root = _zoo_copy(tmp_path)
    (root / "manifest.json").write_text(manifest)
    with pytest.raises(ZooError, match=message):
        load_pretrained(CC, models_dir=root)


# -------------------------------------------------------------------------------- env ids
@pytest.mark.native
def test_a_model_is_refused_by_an_env_of_another_id_with_the_same_layout() -> None:
    """The CC model and the scheduler env share their observation and action layout: the
    layout check alone let ``ppo-cc-default`` load into ``LeoScheduler-v0``."""
    import gymnasium as gym

    import leogym  # noqa: F401  (registers the ids)

    policy = load_pretrained(CC, check_env=False)
    env = gym.make("leogym/LeoScheduler-v0", scenario="tiny", episode_s=2.0)
    try:
        assert zoo.env_layout(env) == policy.card["layout"]  # the layout alone cannot tell
        with pytest.raises(
            ZooError,
            match=rf"'{CC}': card field env_id is 'leogym/LeoCC-v0' but the env is "
            r"'leogym/LeoScheduler-v0'",
        ):
            load_pretrained(CC, env=env)
        with pytest.raises(ZooError, match=r"card field env_id"):
            policy.check_env(env.unwrapped)  # no spec on the bare env: its class says
    finally:
        env.close()
