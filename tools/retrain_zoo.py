"""Retrain a zoo model from its card, or install a training run / scores into the zoo.

    python tools/retrain_zoo.py ppo-cc-default              # retrain from the card, write it back
    python tools/retrain_zoo.py NAME --dry-run              # show the command and config diff only
    python tools/retrain_zoo.py NAME --from-run RUN_DIR     # install a finished leogym-train run
    python tools/retrain_zoo.py NAME --scores EVAL_DIR --label PPO --key heldout-v1
    python tools/retrain_zoo.py ppo-multiagent-bottleneck4 --self-play 100,101,102,103,104

Retraining runs ``leogym-train`` with the card's overrides (same config, same seed) into a
temporary run directory, then replaces ``agents/zoo/models/NAME/`` with the new model and a
fresh card (new sha256, provenance, determinism probe; the old scores are dropped, since they
describe the old model: measure them again and attach them with ``--scores``). Before training
it composes the overrides again and lists every config value that differs from the card's
config (a changed default since the model was made). A model that is not in the zoo yet is
made from ``SPECS`` below.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: how each zoo model was first made (the card is the reference afterwards)
_CC = [
    "experiment=main_job",
    "env.reward.name=aurora",
    "train.checkpoint_freq=0",
    "train.tensorboard=false",
    "train.progress=false",
]
SPECS: dict[str, dict[str, Any]] = {
    "ppo-cc-default": {
        "description": "PPO congestion control on LeoCC-v0, trained on the default scenario "
        "(train_dist=default: its own narrow sampling), the main job's settings at 20k steps",
        "overrides": [*_CC, "train_dist=default", "train.total_timesteps=20000", "seed=0"],
    },
    "ppo-cc-randomised": {
        "description": "PPO congestion control on LeoCC-v0, trained under domain randomisation "
        "(train_dist=randomised), the main job's settings at 20k steps",
        "overrides": [*_CC, "train_dist=randomised", "train.total_timesteps=20000", "seed=0"],
    },
    "ppo-scheduler-default": {
        "description": "PPO multipath scheduler on LeoScheduler-v0 (native CUBIC), trained on "
        "the default scenario, 10k steps",
        "overrides": [
            "env=scheduler",
            "env.reward.name=aurora",
            "env.episode_s=30",
            "env.sample_scenarios=true",
            "train.checkpoint_freq=0",
            "train.tensorboard=false",
            "train.progress=false",
            "train.eval_freq=0",
            "train.n_envs=2",
            "train.total_timesteps=10000",
            "seed=0",
        ],
    },
    "ppo-joint-default": {
        "description": "PPO on LeoJoint-v0 (congestion control and scheduling together), "
        "trained on the default scenario, 10k steps",
        "overrides": [
            "env=joint",
            "env.reward.name=aurora",
            "env.episode_s=30",
            "env.sample_scenarios=true",
            "train.checkpoint_freq=0",
            "train.tensorboard=false",
            "train.progress=false",
            "train.eval_freq=0",
            "train.n_envs=2",
            "train.total_timesteps=10000",
            "seed=0",
        ],
    },
    "ppo-cc-hybrid-maco": {
        "description": "v2 congestion control on LeoCC-v0: PPO in the residual action mode over "
        "MACO (the agent scales MACO's window by 2^a per path), the leo reward (queueing, not "
        "geometry; throughput over capacity), 8 steps of history, domain randomisation "
        "(train_dist=randomised), 100k steps, one env",
        "overrides": [
            "experiment=hybrid",
            "train_dist=randomised",
            "seed=0",
            "env.residual_base=maco",
            "train.total_timesteps=100000",
        ],
    },
    "ppo-cc-hybrid-bbr3": {
        "description": "v2 congestion control on LeoCC-v0: PPO in the residual action mode over "
        "BBRv3 (the agent scales BBRv3's window by 2^a per path), the leo reward with its "
        "fair-share term, 8 steps of history, trained beside 0-3 competing flows (CUBIC, BBRv3, "
        "MACO or a frozen copy of itself, train_dist=competing) under domain randomisation, "
        "exploration noise 0.37 (log_std_init -1), 25k steps, one env",
        "overrides": [
            "experiment=hybrid",
            "train_dist=competing",
            "seed=0",
            "env.residual_base=bbr3",
            "train.total_timesteps=25000",
            "+agent.extra.policy_kwargs.log_std_init=-1.0",
            "train.competitors.self_every_steps=5000",
        ],
    },
    "ppo-cc-hybrid-bbr3-1m": {
        "description": "v2 congestion control on LeoCC-v0: PPO in the residual action mode over "
        "BBRv3 (the agent scales BBRv3's window by 2^a per path), the leo reward, 8 steps of "
        "history, under domain randomisation (train_dist=randomised), exploration noise 0.05 "
        "(log_std_init -3): the ablation's HBS3 recipe at the 1M-step budget, one env",
        "overrides": ["experiment=hybrid_bbr3", "train_dist=randomised", "seed=0"],
    },
    "ppo-multiagent-bottleneck4": {
        "description": "PPO with one policy shared by the four flows of bottleneck4 "
        "(parameter sharing, every flow an agent; reward aurora + Jain's index + team term), "
        "400k agent-steps; evaluated on flow 0 of LeoMultiFlowCC-v0 and in self-play",
        "overrides": [
            "experiment=multiagent",
            "env.reward.name=aurora",
            "seed=0",
            "train.progress=false",
            "train.checkpoint_freq=50000",
            "train.tensorboard=false",
        ],
    },
}


def _flatten(d: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(d, dict):
        out: dict[str, Any] = {}
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): d}


#: config sections that do not shape a trained model
_NOT_TRAINING = ("main_job", "eval")


def config_diff(overrides: list[str], config: dict[str, Any]) -> list[str]:
    """The config values that composing ``overrides`` now gives differently from ``config``.

    Both go through the schema first (:func:`~leogym.agents.runtime.app.typed`), so an option
    added since the card was written counts only if its value differs from its default. The
    sections that do not shape training (``main_job``, ``eval``) are not compared."""
    from omegaconf import OmegaConf

    from leogym.agents.runtime.app import compose, typed
    from leogym.envs.config import RewardConfig

    now = OmegaConf.to_container(typed(compose("train", overrides)), resolve=True)
    then = OmegaConf.to_container(typed(OmegaConf.create(config)), resolve=True)
    assert isinstance(now, dict) and isinstance(then, dict)
    for cfg in (now, then):  # an unset reward weight is the reward's default
        reward = cfg["env"]["reward"]
        reward.update(dataclasses.asdict(RewardConfig(**reward).weights()))
    for cfg in (now, then):
        for section in _NOT_TRAINING:
            cfg.pop(section, None)
    a, b = _flatten(then), _flatten(now)
    return [
        f"{k}: card {a.get(k)!r} -> now {b.get(k)!r}"
        for k in sorted(a.keys() | b.keys())
        if a.get(k) != b.get(k)
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("name")
    p.add_argument("--from-run", type=Path, help="install this finished leogym-train run")
    p.add_argument("--scores", type=Path, help="attach this evaluation's scores to the card")
    p.add_argument("--label", help="the policy's label in --scores")
    p.add_argument("--key", help="the card's scores entry (heldout-v1, default)")
    p.add_argument("--run-dir", type=Path, help="train into this folder (default: a temporary one)")
    p.add_argument(
        "--self-play",
        metavar="SEEDS",
        help="a multi-flow model: measure it driving every flow (comma-separated seeds, e.g. "
        "100,101,102,103,104; 30 s episodes) and put the result on its card as scores.self-play",
    )
    p.add_argument("--dry-run", action="store_true")
    args = p.parse_args(argv)

    from leogym.agents import zoo
    from leogym.agents.zoo.cards import attach_scores, install

    if args.self_play:
        from leogym.agents.zoo.cards import attach_entry, self_play_scores

        seeds = [int(x) for x in args.self_play.split(",")]
        entry = self_play_scores(args.name, seeds)
        attach_entry(args.name, "self-play", entry)
        print(json.dumps({k: entry[k] for k in ("mean", "std")}, indent=1))
        return 0

    if args.scores is not None:
        if not (args.label and args.key):
            p.error("--scores needs --label and --key")
        entry = attach_scores(args.name, args.scores, args.label, key=args.key)
        print(json.dumps(entry.get("aggregate", entry["per_scenario"]), indent=1))
        return 0

    if args.name in zoo.names():
        card = zoo.read_card(args.name)
        spec = {"description": card["description"], "overrides": list(card["overrides"])}
        diff = config_diff(spec["overrides"], card["config"])
        for line in diff:
            print(f"config changed since the card: {line}")
    elif args.name in SPECS:
        spec = SPECS[args.name]
    else:
        p.error(f"{args.name!r} is neither in the zoo ({zoo.names()}) nor in SPECS")

    if args.from_run is not None:
        run_dir = args.from_run
    else:
        run_dir = args.run_dir or Path(tempfile.gettempdir()) / f"zoo-{args.name}-{os.getpid()}"
        cmd = [
            sys.executable,
            "-m",
            "leogym.agents.train",
            *spec["overrides"],
            f"hydra.run.dir={run_dir}",
        ]
        print(" ".join(cmd))
        if args.dry_run:
            return 0
        subprocess.run(cmd, check=True, cwd=ROOT)
    card = install(args.name, run_dir, description=spec["description"], overrides=spec["overrides"])
    print(
        f"{args.name}: {card['total_timesteps']} steps in {card['train_wall_s']} s, "
        f"sha256 {card['model']['sha256'][:12]}, {card['model']['bytes']} bytes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
