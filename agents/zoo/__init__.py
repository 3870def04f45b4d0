"""``leogym.agents.zoo``: trained policies shipped inside the package, each with a model card.

Every model lives in ``agents/zoo/models/<name>/``: ``model.zip`` (the SB3 model), ``model.json``
(its checkpoint sidecar) and ``card.json``, the model card. The card records how the model was
made and what it was measured to do:

* ``config`` (the training config exactly as Hydra composed it), ``overrides`` (the
  ``leogym-train`` overrides that compose it again), ``seed``, ``total_timesteps``, ``env_id``,
  ``algo``, ``scenario``, ``train_dist``, ``train_wall_s``, ``train_cpu_s`` (the trainer and
  its local env workers; null where the run predates its recording);
* ``layout``: the observation and action layout the model was trained on (space shapes, dtypes,
  bounds, feature names), which must match the env it is given;
* ``provenance``: leogym's git SHA (and whether the tree was dirty), the package version, the
  versions of SB3, torch and the rest;
* ``model``: the sha256 and size of ``model.zip``, from the zoo's manifest
  (``models/manifest.json``), not from the card: the manifest is the one record a model file
  is checked against, so a card written beside a file vouches for nothing;
* ``determinism``: a short ``tiny`` episode's numbers, from running the model (a reference for
  reproducing the model's behaviour, not a score);
* ``scores``: held-out (and ``default``) scores with 95 % intervals, when measured.

Use::

    from leogym.agents import load_pretrained
    policy = load_pretrained("ppo-cc-default")
    env = policy.make_env(scenario="tiny")       # the env it was trained in, any scenario
    obs, _ = env.reset(seed=0)
    action, _ = policy.predict(obs)
    policy.card["scores"]

or in an evaluation: ``leogym-eval +eval.agents.PPO=zoo:ppo-cc-default``. A zoo name is
``[a-z0-9][a-z0-9-]*`` and resolves inside the models folder only; loading unpickles the model,
so only the manifest's files (by sha256) load. A model at a path of your own loads with SB3
(``PPO.load(path)``, or a path as an evaluation agent): that runs whatever code the file holds,
so load only files you trust. A model is
retrained from its card with ``python tools/retrain_zoo.py NAME``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MANIFEST",
    "MODELS_DIR",
    "PREFIX",
    "PretrainedPolicy",
    "ZooError",
    "card_path",
    "check_name",
    "env_id_of",
    "layout_of",
    "load_pretrained",
    "manifest",
    "model_path",
    "names",
    "read_card",
    "resolve",
    "sha256_of",
]

MODELS_DIR = Path(__file__).resolve().parent / "models"
PREFIX = "zoo:"
CARD = "card.json"
MODEL = "model.zip"
#: the zoo's manifest, ``<models dir>/manifest.json``: each model's name, and the sha256 and
#: size of its ``model.zip``; the one record a model file is checked against
MANIFEST = "manifest.json"
#: what a zoo name is: lower-case letters, digits and hyphens (never a path)
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")
NAME_MAX_CHARS = 64
#: the card's fields and their JSON types (``model`` comes from the manifest, not the card)
CARD_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "description": (str,),
    "algo": (str,),
    "env_id": (str,),
    "scenario": (str,),
    "train_dist": (str, type(None)),
    "seed": (int,),
    "total_timesteps": (int,),
    "overrides": (list,),
    "config": (dict,),
    "layout": (dict,),
    "provenance": (dict,),
}
CARD_FIELDS = (*CARD_TYPES, "model")


class ZooError(ValueError):
    """A zoo model that cannot be used: a bad name, unknown, corrupt, or trained on another
    layout or env. The message names the model and the field."""


def _shown(value: object) -> str:
    """``repr(value)``, cut short for a long string."""
    if isinstance(value, str) and len(value) > 40:
        return f"{value[:40]!r}... ({len(value)} characters)"
    return repr(value)


def check_name(name: object) -> str:
    """``name`` if it is a zoo name (``[a-z0-9][a-z0-9-]*``, at most 64 characters).

    :raises ZooError: anything else (a path, an empty string, a non-string), naming the field.
    """
    if not (
        isinstance(name, str)
        and len(name) <= NAME_MAX_CHARS
        and NAME_PATTERN.fullmatch(name) is not None
    ):
        raise ZooError(
            f"zoo model name: must be a name of the zoo ({NAME_PATTERN.pattern}, at most "
            f"{NAME_MAX_CHARS} characters; a path is not a zoo name), got {_shown(name)}"
        )
    return name


def _root(models_dir: str | Path | None) -> Path:
    return Path(models_dir) if models_dir is not None else MODELS_DIR


def _json_object(path: Path, what: str) -> dict[str, Any]:
    """The JSON object in ``path``.

    :param what: how messages start (``"zoo manifest P:"``, ``"zoo model 'x': card.json is"``).
    :raises ZooError: unreadable, not JSON, or not an object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ZooError(f"{what} unreadable ({exc})") from exc
    if not isinstance(data, dict):
        raise ZooError(f"{what} not a JSON object")
    return data


def manifest(models_dir: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The zoo's manifest: ``{name: {"sha256": hex, "bytes": size}}`` (empty where the folder
    has none).

    :raises ZooError: an unreadable manifest, or an entry that is not a name with a sha256 and
        a size (the entry named).
    """
    path = _root(models_dir) / MANIFEST
    if not path.is_file():
        return {}
    data = _json_object(path, f"zoo manifest {path}:")
    for name, entry in data.items():
        check_name(name)
        sha = entry.get("sha256") if isinstance(entry, dict) else None
        size = entry.get("bytes") if isinstance(entry, dict) else None
        if not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
            raise ZooError(f"zoo manifest {path}: {name}.sha256 must be 64 hex digits")
        if not (isinstance(size, int) and not isinstance(size, bool) and size >= 0):
            raise ZooError(f"zoo manifest {path}: {name}.bytes must be a size in bytes")
    return data


def names(models_dir: str | Path | None = None) -> list[str]:
    """The names of the zoo's models (those of its manifest), sorted."""
    return sorted(manifest(models_dir))


def _dir(name: object, models_dir: str | Path | None) -> Path:
    """The folder of model ``name``: a name of the manifest, inside the models folder."""
    root = _root(models_dir)
    known = manifest(models_dir)
    checked = check_name(name)
    if checked not in known:
        raise ZooError(f"zoo model {checked!r}: unknown (known: {sorted(known)})")
    d = root / checked
    if not (d / CARD).is_file():
        raise ZooError(f"zoo model {name!r}: {CARD} is missing ({d})")
    return d


def card_path(name: str, models_dir: str | Path | None = None) -> Path:
    """The path of model ``name``'s card."""
    return _dir(name, models_dir) / CARD


def model_path(name: str, models_dir: str | Path | None = None) -> Path:
    """The path of model ``name``'s ``model.zip`` (not verified; see :func:`resolve`)."""
    return _dir(name, models_dir) / MODEL


def sha256_of(path: str | Path) -> str:
    """The hex sha256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_card(name: str, card: dict[str, Any]) -> None:
    """Every card field present and of its type; the name and env id consistent."""
    for key, types in CARD_TYPES.items():
        if key not in card:
            raise ZooError(f"zoo model {name!r}: card field {key!r} is missing")
        value = card[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            wanted = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise ZooError(
                f"zoo model {name!r}: card field {key!r} must be {wanted}, got {_shown(value)}"
            )
    if card["name"] != name:
        raise ZooError(
            f"zoo model {name!r}: card field 'name' is {_shown(card['name'])}, not the "
            "folder's name"
        )
    for part in ("observation", "action"):
        if not isinstance(card["layout"].get(part), dict):
            raise ZooError(f"zoo model {name!r}: card field 'layout.{part}' must be an object")
    env = card["config"].get("env")
    trained = env.get("id") if isinstance(env, dict) else None
    if trained != card["env_id"]:
        raise ZooError(
            f"zoo model {name!r}: card field 'env_id' is {_shown(card['env_id'])} but the "
            f"card's config.env.id is {_shown(trained)}: a card for another env"
        )


def read_card(name: str, models_dir: str | Path | None = None) -> dict[str, Any]:
    """Model ``name``'s card, checked for every field and its type, with the manifest's
    entry for its file as ``model`` (``file``, ``sha256``, ``bytes``).

    :raises ZooError: a bad name, an unknown model, an unreadable card, or a missing or
        malformed field (named).
    """
    path = card_path(name, models_dir)
    card = _json_object(path, f"zoo model {name!r}: card.json is")
    _check_card(name, card)
    card["model"] = {"file": MODEL, **manifest(models_dir)[name]}
    return card


def _verify_file(name: str, card: dict[str, Any], path: Path) -> None:
    if not path.is_file():
        raise ZooError(f"zoo model {name!r}: {MODEL} is missing ({path})")
    want = card["model"]["sha256"]
    got = sha256_of(path)
    if got != want:
        raise ZooError(
            f"zoo model {name!r}: manifest field {name}.sha256 is {want} but {MODEL} hashes to "
            f"{got}; the file is corrupt or was replaced, and is not loaded "
            f"(python tools/retrain_zoo.py {name} makes a new one)"
        )


def resolve(name: str, models_dir: str | Path | None = None) -> tuple[Path, dict[str, Any]]:
    """The verified model file and the card of model ``name`` (for ``leogym-eval``'s
    ``zoo:NAME`` agents, which load the file in their workers). Only a name of the zoo's
    manifest resolves, to a file inside the models folder whose sha256 is the manifest's.

    :raises ZooError: a bad name, an unknown, missing or corrupt model (sha256 mismatch), or a
        card field missing or malformed.
    """
    card = read_card(name, models_dir)
    path = card_path(name, models_dir).parent / MODEL
    _verify_file(name, card, path)
    return path, card


# ----------------------------------------------------------------------------- layouts
def _box(space: Any) -> dict[str, Any]:
    from gymnasium import spaces

    if isinstance(space, spaces.Box):
        bounds = np.concatenate([np.ravel(space.low), np.ravel(space.high)]).astype(np.float64)
        return {
            "type": "Box",
            "shape": list(space.shape),
            "dtype": str(space.dtype),
            "bounds_sha256": hashlib.sha256(bounds.tobytes()).hexdigest()[:16],
        }
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": [int(n) for n in np.ravel(space.nvec)]}
    return {"type": type(space).__name__, "repr": repr(space)}


def layout_of(
    observation_space: Any, action_space: Any, feature_names: list[str] | None = None
) -> dict[str, Any]:
    """The observation and action layout of spaces (and the env's feature names, if known):
    what a model and the env it is given must agree on."""
    out: dict[str, Any] = {
        "observation": _box(observation_space),
        "action": _box(action_space),
    }
    if feature_names is not None:
        out["observation"]["features"] = list(feature_names)
    return out


def env_id_of(env: Any) -> str | None:
    """The Gymnasium id of ``env``: its spec's, else the leogym id whose entry point is its
    class; ``None`` where neither says."""
    from leogym.envs.registration import ENV_IDS

    for obj in (env, getattr(env, "unwrapped", env)):
        spec_id = getattr(getattr(obj, "spec", None), "id", None)
        if isinstance(spec_id, str):
            return spec_id
    cls = type(getattr(env, "unwrapped", env))
    entry = f"{cls.__module__}:{cls.__qualname__}"
    return next((i for i, e in ENV_IDS.items() if e == entry), None)


def env_layout(env: Any) -> dict[str, Any]:
    """:func:`layout_of` an env (with ``env.unwrapped.feature_names`` where it has them)."""
    features = getattr(getattr(env, "unwrapped", env), "feature_names", None)
    return layout_of(env.observation_space, env.action_space, features)


def _compare(name: str, want: dict[str, Any], got: dict[str, Any], what: str) -> None:
    for part in ("observation", "action"):
        for key, value in want.get(part, {}).items():
            if key not in got.get(part, {}):
                continue  # e.g. a model's spaces carry no feature names
            if got[part][key] != value:
                shown = got[part][key]
                if key == "features":
                    diff = [
                        (i, a, b)
                        for i, (a, b) in enumerate(zip(value, shown, strict=False))
                        if a != b
                    ][:1]
                    shown = f"{len(shown)} features" + (
                        f", #{diff[0][0]} {diff[0][2]!r}" if diff else ""
                    )
                    value = f"{len(value)} features" + (
                        f", #{diff[0][0]} {diff[0][1]!r}" if diff else ""
                    )
                raise ZooError(
                    f"zoo model {name!r}: card field layout.{part}.{key} is {value} but {what}'s "
                    f"is {shown}: the model was trained on another observation/action layout"
                )


# ----------------------------------------------------------------------------- the policy
@dataclass
class PretrainedPolicy:
    """A zoo model, ready to act: ``predict(obs)`` like a baseline or a trained SB3 model.

    :param name: the zoo name.
    :param card: the model card (a dict; see the module docstring).
    :param model: the loaded SB3 model.
    :param path: the verified ``model.zip``.
    """

    name: str
    card: dict[str, Any]
    model: Any
    path: Path
    _env_kwargs: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def env_id(self) -> str:
        """The Gymnasium id the model was trained on."""
        return str(self.card["env_id"])

    def predict(
        self,
        observation: np.ndarray,
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = True,
    ) -> tuple[np.ndarray, Any]:
        """The action for an observation (SB3's ``predict``; deterministic by default)."""
        return self.model.predict(
            observation, state=state, episode_start=episode_start, deterministic=deterministic
        )

    def env_kwargs(self, **overrides: Any) -> dict[str, Any]:
        """The ``gymnasium.make`` kwargs of the env the model was trained in (no scenario),
        with ``overrides`` applied."""
        return {**self._env_kwargs, **overrides}

    def make_env(self, scenario: Any = None, **overrides: Any) -> Any:
        """A new env as the model was trained in, on ``scenario`` (default: the training
        scenario), with env options replaced by ``overrides`` (e.g. ``episode_s=8``). The
        caller owns (and closes) it; its simulator lives in this process."""
        import gymnasium as gym

        import leogym  # noqa: F401  (registers the ids)

        payload = scenario if scenario is not None else self.card["config"].get("scenario")
        return gym.make(self.env_id, scenario=payload, **self.env_kwargs(**overrides))

    def check_env(self, env: Any) -> None:
        """Raise :class:`ZooError` (naming the card field) unless ``env``'s observation and
        action layout is the one the model was trained on, and its id (where it has one)
        the card's ``env_id``: two envs may share a layout and mean different things."""
        got = env_id_of(env)
        if got is not None and got != self.env_id:
            raise ZooError(
                f"zoo model {self.name!r}: card field env_id is {self.env_id!r} but the env is "
                f"{got!r}: the model was trained in another env"
            )
        _compare(self.name, self.card["layout"], env_layout(env), "the env")


def _train_env_kwargs(card: dict[str, Any]) -> dict[str, Any]:
    from omegaconf import OmegaConf

    from leogym.agents.config import env_kwargs
    from leogym.agents.runtime.app import to_objects, typed

    cfg = typed(OmegaConf.create(card["config"]))
    return env_kwargs(to_objects(cfg).env)


def load_pretrained(
    name: str, *, env: Any = None, check_env: bool = True, models_dir: str | Path | None = None
) -> PretrainedPolicy:
    """Load zoo model ``name``, verified.

    :param name: a name from :func:`names`.
    :param env: check the model against this env's layout (default: a fresh env built from the
        card's config, which catches a model made stale by a change to the env).
    :param check_env: set ``False`` to skip the env check (the model's own spaces are still
        checked against its card).
    :param models_dir: another zoo folder, with its own ``manifest.json`` (tests, and models
        installed by :func:`leogym.agents.zoo.cards.install`): its models are trusted as
        the shipped ones are, and loading one runs whatever code its file holds.
    :raises ZooError: a name that is not a zoo name (a path); unknown model; a card field
        missing or malformed; ``model.zip`` missing, corrupt (sha256 other than the
        manifest's) or unloadable; a layout mismatch between the card and the model file
        or the env, or another env id (the message names the model and the field).
    """
    from leogym.agents.sb3.algos import load_model
    from leogym.agents.sb3.checkpoints import CheckpointError

    path, card = resolve(name, models_dir)
    try:
        model = load_model(path, str(card["algo"]), device="cpu")
    except CheckpointError as exc:
        raise ZooError(f"zoo model {name!r}: {MODEL} does not load ({exc})") from exc
    _compare(name, card["layout"], layout_of(model.observation_space, model.action_space), MODEL)
    policy = PretrainedPolicy(name, card, model, path, _train_env_kwargs(card))
    if env is not None:
        policy.check_env(env)
    elif check_env:
        own = policy.make_env()
        try:
            policy.check_env(own)
        finally:
            own.close()
    return policy
