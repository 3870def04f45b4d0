"""``leogym.agents.zoo``: trained policies shipped inside the package, each with a model card.

Every model lives in ``agents/zoo/models/<name>/``: ``model.zip`` (the SB3 model), ``model.json``
(its checkpoint sidecar) and ``card.json``, the model card. The card records how the model was
made and what it was measured to do:

* ``config`` (the training config exactly as Hydra composed it), ``overrides`` (the
  ``leogym-train`` overrides that compose it again), ``seed``, ``total_timesteps``, ``env_id``,
  ``algo``, ``scenario``, ``train_dist``, ``train_wall_s``;
* ``layout``: the observation and action layout the model was trained on (space shapes, dtypes,
  bounds, feature names), which must match the env it is given;
* ``provenance``: leogym's git SHA (and whether the tree was dirty), the package version, the
  versions of SB3, torch and the rest;
* ``model``: the sha256 and size of ``model.zip``;
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

or in an evaluation: ``leogym-eval +eval.agents.PPO=zoo:ppo-cc-default``. A model is
retrained from its card with ``python tools/retrain_zoo.py NAME``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MODELS_DIR",
    "PREFIX",
    "PretrainedPolicy",
    "ZooError",
    "card_path",
    "layout_of",
    "load_pretrained",
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
CARD_FIELDS = (
    "name",
    "description",
    "algo",
    "env_id",
    "scenario",
    "train_dist",
    "seed",
    "total_timesteps",
    "overrides",
    "config",
    "layout",
    "model",
    "provenance",
)


class ZooError(ValueError):
    """A zoo model that cannot be used: unknown, corrupt, or trained on another layout. The
    message names the model and the card field."""


def names(models_dir: str | Path | None = None) -> list[str]:
    """The names of the zoo's models, sorted."""
    root = Path(models_dir) if models_dir is not None else MODELS_DIR
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / CARD).is_file())


def _dir(name: str, models_dir: str | Path | None) -> Path:
    root = Path(models_dir) if models_dir is not None else MODELS_DIR
    d = root / name
    if not (d / CARD).is_file():
        raise ZooError(f"zoo model {name!r}: unknown (known: {names(root)})")
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


def read_card(name: str, models_dir: str | Path | None = None) -> dict[str, Any]:
    """Model ``name``'s card, checked for every required field.

    :raises ZooError: unknown model, unreadable card, or a missing field (named).
    """
    path = card_path(name, models_dir)
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ZooError(f"zoo model {name!r}: card.json is unreadable ({exc})") from exc
    if not isinstance(card, dict):
        raise ZooError(f"zoo model {name!r}: card.json is not a JSON object")
    for key in CARD_FIELDS:
        if key not in card:
            raise ZooError(f"zoo model {name!r}: card field {key!r} is missing")
    if card["name"] != name:
        raise ZooError(
            f"zoo model {name!r}: card field 'name' is {card['name']!r}, not the folder's name"
        )
    return card


def _verify_file(name: str, card: dict[str, Any], path: Path) -> None:
    if not path.is_file():
        raise ZooError(f"zoo model {name!r}: {MODEL} is missing ({path})")
    want = card["model"].get("sha256")
    got = sha256_of(path)
    if got != want:
        raise ZooError(
            f"zoo model {name!r}: card field model.sha256 is {want} but {MODEL} hashes to {got}; "
            "the file is corrupt or was replaced without a new card "
            f"(python tools/retrain_zoo.py {name})"
        )


def resolve(name: str, models_dir: str | Path | None = None) -> tuple[Path, dict[str, Any]]:
    """The verified model file and the card of model ``name`` (for ``leogym-eval``'s
    ``zoo:NAME`` agents, which load the file in their workers).

    :raises ZooError: unknown, missing or corrupt model (sha256 mismatch), or a card field
        missing.
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
        action layout is the one the model was trained on."""
        _compare(self.name, self.card["layout"], env_layout(env), "the env")


def _train_env_kwargs(card: dict[str, Any]) -> dict[str, Any]:
    from leogym.agents.config import env_kwargs
    from leogym.agents.runtime.app import to_objects, typed
    from omegaconf import OmegaConf

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
    :param models_dir: another zoo folder (tests).
    :raises ZooError: unknown model; a card field missing; ``model.zip`` missing, corrupt
        (sha256 mismatch) or unloadable; a layout mismatch between the card and the model file
        or the env (the message names the model and the field).
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
