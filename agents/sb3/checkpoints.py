"""Saving and finding trained models in a run directory.

Layout of a training run directory::

    model.zip            final model (written when training ends)
    model.json           its sidecar: algorithm, step count, env id
    best_model.zip/.json best model by mean evaluation reward
    checkpoints/step_000010000.zip/.json[/_replay_buffer.pkl]
    evaluations.csv      one row per periodic evaluation

Every ``.zip`` has a ``.json`` sidecar naming its algorithm, so any checkpoint can be loaded on
its own. All files are written atomically.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from leogym.agents.runtime.storage import atomic_write, atomic_write_json

__all__ = [
    "FINAL",
    "BEST",
    "CheckpointError",
    "find_checkpoint",
    "latest_checkpoint",
    "list_checkpoints",
    "read_sidecar",
    "replay_buffer_path",
    "save_model",
]

FINAL = "model.zip"
BEST = "best_model.zip"
CHECKPOINT_DIR = "checkpoints"
_STEP = re.compile(r"^step_(\d+)\.zip$")


def save_model(
    model: Any, path: str | Path, *, algo: str, replay_buffer: bool = False, **extra: Any
) -> Path:
    """Save ``model`` to ``path`` (``.zip``) with its sidecar, atomically.

    :param algo: algorithm key (``ppo``, ...), recorded in the sidecar.
    :param replay_buffer: also save the replay buffer (off-policy models) next to it.
    :param extra: more sidecar fields.
    """
    path = Path(path)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            model.save(fh)

    atomic_write(path, write)
    if replay_buffer and getattr(model, "replay_buffer", None) is not None:

        def write_rb(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                model.save_replay_buffer(fh)

        atomic_write(replay_buffer_path(path), write_rb)
    sidecar = {
        "algo": algo,
        "num_timesteps": int(model.num_timesteps),
        "saved_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    sidecar.update(extra)
    atomic_write_json(path.with_suffix(".json"), sidecar)
    return path


def replay_buffer_path(model_path: str | Path) -> Path:
    """Where the replay buffer of a saved model lives."""
    p = Path(model_path)
    return p.with_name(p.stem + "_replay_buffer.pkl")


class CheckpointError(ValueError):
    """A checkpoint (``.zip`` or its ``.json`` sidecar) is corrupt, truncated or of another
    algorithm; the message names the file."""


def read_sidecar(model_path: str | Path) -> dict[str, Any]:
    """The sidecar of a saved model (``{}`` if it has none).

    :raises CheckpointError: the sidecar exists but is not a JSON object.
    """
    p = Path(model_path).with_suffix(".json")
    if not p.is_file():
        return {}
    try:
        data = json.loads(p.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"{p}: corrupt checkpoint sidecar ({exc})") from exc
    if not isinstance(data, dict):
        raise CheckpointError(f"{p}: corrupt checkpoint sidecar (not a JSON object)")
    return data


def list_checkpoints(run_dir: str | Path) -> list[tuple[int, Path]]:
    """Complete periodic checkpoints of a run, as ``(step, path)`` sorted by step.

    :func:`save_model` writes the sidecar after the model, so a ``.zip`` without its ``.json``
    is a save that a kill cut short between the two; it is left out (the model is whole, each
    file being written atomically, but nothing records what it is)."""
    d = Path(run_dir) / CHECKPOINT_DIR
    if not d.is_dir():
        return []
    out = []
    for p in d.iterdir():
        m = _STEP.match(p.name)
        if m and p.with_suffix(".json").is_file():
            out.append((int(m.group(1)), p))
    return sorted(out)


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The most advanced model of a run to resume from: the final model or the newest
    periodic checkpoint, whichever has more steps (``None`` if there is neither)."""
    candidates: list[tuple[int, Path]] = list_checkpoints(run_dir)
    final = Path(run_dir) / FINAL
    if final.is_file():
        candidates.append((int(read_sidecar(final).get("num_timesteps", -1)), final))
    if not candidates:
        return None
    return max(candidates, key=lambda c: c[0])[1]


def find_checkpoint(path: str | Path, which: str = "final") -> Path:
    """Resolve a run directory or a ``.zip`` to a model file.

    :param path: a ``.zip`` (returned as is) or a training run directory.
    :param which: ``final``, ``best`` (falls back to final) or ``latest``.
    :raises FileNotFoundError: nothing suitable exists.
    """
    p = Path(path).expanduser()
    if p.is_file():
        return p
    if not p.is_dir():
        raise FileNotFoundError(f"no such run directory or checkpoint: {path}")
    if which == "best" and (p / BEST).is_file():
        return p / BEST
    if which == "latest":
        latest = latest_checkpoint(p)
        if latest is not None:
            return latest
    if (p / FINAL).is_file():
        return p / FINAL
    latest = latest_checkpoint(p)
    if latest is not None:
        return latest
    raise FileNotFoundError(f"{path} holds no trained model ({FINAL} or {CHECKPOINT_DIR}/)")
