"""A warm start from the baselines' logs (issue 30 item 6; Sage, Mowgli).

``leogym-train train.warm_start.store=<folder>`` does three things before PPO (or A2C) trains:

1. **Collect** (:func:`.store.collect`). MACO, ALCS, freeze+CUBIC, BBRv3 and CUBIC
   (``train.warm_start.baselines``) each run ``train.warm_start.episodes`` episodes of the
   training distribution (the run's ``env`` and ``scenario``, episode ``i`` on seed
   ``SEED_OFFSET + i`` for every baseline, so that they meet the same sampled scenario). Each
   episode runs through the evaluation's loop (:func:`leogym.agents.runtime.rollout.run_task`),
   in worker processes; its tidy transitions, every baseline's, go to one Parquet file
   ``episodes/epNNNNN.parquet`` beside a ``manifest.json``. Files are written atomically and
   an existing episode file is kept, so an interrupted collection loses at most the episodes
   under way and the next run collects only what is missing.
2. **Label** (:func:`.clone.demonstrations`). Per episode the baseline with the highest
   return is the teacher; its states, with its actions expressed in the agent's action space,
   are the demonstrations.
3. **Clone** (:func:`.clone.behaviour_clone`). The policy's action mean is regressed on the labels
   (and its value head on the teacher's discounted returns); PPO then fine-tunes from there.

The baselines are native controllers: they take no actions in the agent's space, so their
"action" is inferred from their own trajectory (:func:`.labels.continuous_labels`,
:func:`.labels.residual_labels`):

* ``env.action_mode=continuous``: the action that turns the window the env would scale (the
  last measured cwnd, 10 packets before the first measurement) into the window the baseline had
  at the end of the step, through the inverse of Aurora's factor, clipped to [-1, 1]. Replayed
  by the agent it reproduces the baseline's window at every step boundary wherever the baseline
  changed it by at most the factor's range.
* ``env.action_mode=residual``: the agent's window is ``2^a`` times the base controller's, and
  that controller's window on the teacher's trajectory is never observed. The label is
  ``log2(teacher's cwnd / base's cwnd)`` with both windows from the same episode (same seed and
  scenario), the base running alone: exactly 0 when the teacher is the base (which is always
  rolled out, and always a candidate), and an approximation otherwise, which holds while the
  two runs stay close.

Stores are checked when loaded (:func:`.store.load_store`): a missing or foreign manifest, another
schema version, a missing column, a wrong type or width, NaN, an action out of range or an
unreadable (truncated) file raise :class:`.store.TransitionStoreError` naming the field or column.

This package holds the config and its checks (:class:`WarmStartConfig`,
:func:`check_warm_start`) and the three steps run in order (:func:`warm_start`); the store
is :mod:`.store`, the baselines' actions :mod:`.labels`, the demonstrations and the cloning
:mod:`.clone`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from leogym.agents.warm_start.clone import behaviour_clone, demonstrations
from leogym.agents.warm_start.store import collect, load_store
from leogym.schema import FieldError, bounded

__all__ = [
    "DEFAULT_BASELINES",
    "WarmStartConfig",
    "check_warm_start",
    "warm_start",
]

log = logging.getLogger("leogym.agents.warm_start")

#: The baselines of issue 30 item 6 (registry names of :mod:`leogym.baselines`).
DEFAULT_BASELINES = ("maco", "alcs", "freeze+cubic", "bbr3", "cubic")
#: The agents whose policy is a Gaussian actor-critic over a Box (what the clone regresses).
CLONABLE_AGENTS = ("ppo", "a2c")


@dataclass
class WarmStartConfig:
    """``train.warm_start``: behaviour cloning from the baselines before training.

    :param store: folder of the transition store; empty: no warm start. Collected there when
        missing or incomplete, reused when complete (for every seed of a recipe).
    :param baselines: baselines to roll out (names of :mod:`leogym.baselines`); under
        ``env.action_mode=residual`` the base controller is rolled out too.
    :param episodes: episodes per baseline.
    :param n_workers: worker processes of the collection.
    :param epochs: passes of the behaviour cloning over the demonstrations.
    :param batch_size: demonstrations per gradient step.
    :param learning_rate: Adam's step size in the behaviour cloning.
    :param value_coef: weight of the value head's regression on the teacher's discounted
        returns (0: leave the value head as built).
    """

    store: str = ""
    baselines: list[str] = field(default_factory=lambda: list(DEFAULT_BASELINES))
    episodes: int = field(default=16, metadata=bounded(1, 100_000))
    n_workers: int = field(default=2, metadata=bounded(1, 4096))
    epochs: int = field(default=20, metadata=bounded(1, 100_000))
    batch_size: int = field(default=256, metadata=bounded(1, 10_000_000))
    learning_rate: float = field(default=1e-3, metadata=bounded(0.0, 1.0, lo_open=True))
    value_coef: float = field(default=0.5, metadata=bounded(0.0, 100.0))


def check_warm_start(cfg: Any, error: type[FieldError]) -> None:
    """What a warm start needs of the rest of the config; raise ``error`` naming the field."""
    from leogym.baselines import make_baseline

    ws = cfg.train.warm_start
    if cfg.env.id != "leogym/LeoCC-v0":
        raise error(
            "env.id",
            f"a warm start (train.warm_start.store) needs leogym/LeoCC-v0 (got {cfg.env.id!r})",
        )
    if cfg.env.action_mode not in ("continuous", "residual"):
        raise error(
            "env.action_mode",
            "a warm start labels window changes: must be 'continuous' or 'residual' "
            f"(got {cfg.env.action_mode!r})",
        )
    if cfg.env.cc != "external" or cfg.env.cc_target != "cwnd":
        raise error(
            "env.cc",
            "a warm start clones window actions: needs cc='external' and cc_target='cwnd' "
            f"(got cc={cfg.env.cc!r}, cc_target={cfg.env.cc_target!r})",
        )
    if cfg.env.flows.agents:
        raise error("env.flows.agents", "a warm start is for one agent (must be false)")
    if cfg.agent.name not in CLONABLE_AGENTS:
        raise error(
            "agent.name",
            f"a warm start clones a Gaussian actor-critic: must be one of "
            f"{', '.join(CLONABLE_AGENTS)} (got {cfg.agent.name!r})",
        )
    if not ws.baselines:
        raise error("train.warm_start.baselines", "needs at least one baseline")
    for i, name in enumerate(ws.baselines):
        try:
            make_baseline(name)
        except ValueError as exc:
            raise error(f"train.warm_start.baselines[{i}]", str(exc)) from None
        if name in ws.baselines[:i]:
            raise error(f"train.warm_start.baselines[{i}]", f"{name!r} is listed twice")
    if cfg.env.action_mode == "residual" and cfg.env.residual_alternate is not None:
        raise error(
            "env.residual_alternate",
            "a warm start labels gains on one base controller; it does not label a choice "
            "between two (train from scratch, or without residual_alternate)",
        )
    if cfg.env.action_mode == "residual":
        try:
            make_baseline(cfg.env.residual_base)
        except ValueError:
            raise error(
                "env.residual_base",
                "a warm start rolls the base controller out as a baseline: must be a name of "
                f"leogym.baselines (got {cfg.env.residual_base!r})",
            ) from None


def warm_start(model: Any, c: Any, run_dir: str | Path) -> dict[str, Any]:
    """Collect (or reuse) the store of ``train.warm_start``, then clone its demonstrations
    into ``model``'s policy; write ``warm_start.json`` in ``run_dir`` and return it."""
    from leogym.agents.runtime.storage import atomic_write_json

    ws = c.train.warm_start
    obs_width = int(np.prod(model.observation_space.shape))
    action_width = int(np.prod(model.action_space.shape))
    collected = collect(c, ws.store, obs_width=obs_width, action_width=action_width)
    tr = load_store(ws.store, obs_width=obs_width, action_width=action_width)
    demos = demonstrations(tr, gamma=float(model.gamma))
    stats = behaviour_clone(
        model.policy,
        demos,
        epochs=ws.epochs,
        batch_size=ws.batch_size,
        learning_rate=ws.learning_rate,
        value_coef=ws.value_coef,
        seed=c.seed,
    )
    teachers = list(demos.teachers.values())
    report: dict[str, Any] = {
        "store": str(Path(ws.store).resolve()),
        "env_hash": tr.manifest["env_hash"],
        "episodes": len(demos.teachers),
        "collected_now": len(collected),
        "teachers": {b: teachers.count(b) for b in tr.manifest["baselines"]},
        **stats,
    }
    atomic_write_json(Path(run_dir) / "warm_start.json", report)
    log.info(
        "warm start: cloned %d states of %d episodes (teachers %s); imitation loss %.4f -> %.4f",
        stats["samples"],
        report["episodes"],
        report["teachers"],
        stats["imitation_loss_before"],
        stats["imitation_loss_after"],
    )
    return report
