"""``leogym-run`` (``make run``): the main job.

1. Train PPO briefly on the default scenario (``<run>/train``, a normal training run directory).
2. Evaluate it against MACO, freeze+CUBIC, CUBIC, OLIA, minRTT and ALCS over the evaluation
   seeds (``<run>/eval``, a normal evaluation run directory: results, summary, traces, plots).
3. Print the leaderboard and save it (``<run>/leaderboard.md``, ``leaderboard.csv``): one row
   per distinct policy (CUBIC and minRTT on ``LeoCC-v0`` are the same native pair, evaluated
   once as ``CUBIC = minRTT``), goodput and return with 95 % bootstrap intervals, a flag on
   policies with fewer than 5 seeds, and with several scenarios the aggregate IQM of the
   normalised score with its interval (``<run>/eval/aggregate.parquet``; docs/evaluation.md).

Sizes come from ``conf/experiment/main_job.yaml``; override any of them, or use the smoke-test
preset::

    leogym-run                                   # ~15 min on 2 cores
    leogym-run experiment=quick                  # tiny scenario, seconds of compute
    leogym-run train.total_timesteps=50000 'eval.seeds=[0,1,2,3,4]'
    leogym-run resume=runs/main_job/2025-01-01_12-00-00   # finish an interrupted run

A resumed main job continues training from its newest checkpoint (or skips training if the
final model exists) and evaluates only the episodes it does not have yet.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from leogym.agents.config import register_configs, validate_config
from leogym.agents.runtime.app import (
    CONFIG_PATH,
    config_task,
    configure_logging,
    prepare_run,
    run_app,
    to_objects,
)
from leogym.agents.runtime.storage import atomic_write, atomic_write_json, atomic_write_text

__all__ = ["main", "run_main_job"]

log = logging.getLogger("leogym.agents.main_job")


def _sub_run(cfg: DictConfig, run_dir: Path, app: str) -> None:
    """Give a stage its own run files (config, provenance) so it is a normal run directory."""
    from leogym.agents.runtime.run_info import write_run_files

    if not (run_dir / "config.yaml").is_file():
        write_run_files(run_dir, cfg, app=app, overrides=[], seeds={"seed": cfg.seed})


def run_main_job(cfg: DictConfig, run_dir: str | Path, *, resume: bool = False) -> Path:
    """Train, evaluate, rank. Returns the path of the saved leaderboard (Markdown).

    :param cfg: a composed ``main_job`` config.
    :param run_dir: the main-job run directory.
    :param resume: continue an interrupted main job in ``run_dir``.
    """
    from rich.console import Console

    from leogym.agents.evaluate import evaluate
    from leogym.agents.results.aggregate import load_aggregate
    from leogym.agents.results.leaderboard import leaderboard, print_leaderboard, to_markdown
    from leogym.agents.sb3.checkpoints import FINAL, read_sidecar
    from leogym.agents.train import train

    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    run_dir = Path(run_dir)
    timings: dict[str, float] = {}
    train_dir = run_dir / "train"
    eval_dir = run_dir / "eval"
    base = OmegaConf.create(OmegaConf.to_container(cfg, resolve=True))
    assert isinstance(base, DictConfig)  # a copy of cfg
    base.pop("hydra", None)
    base.resume = None

    # 1. train
    t0 = time.perf_counter()
    final = train_dir / FINAL
    done_steps = int(read_sidecar(final).get("num_timesteps", -1)) if final.is_file() else -1
    if done_steps >= cfg.train.total_timesteps:
        log.info("training already finished (%d timesteps): %s", done_steps, final)
    else:
        _sub_run(base, train_dir, "train")
        has_model = final.is_file() or (train_dir / "checkpoints").is_dir()
        console.rule(f"[bold]1/3 training {cfg.agent.name} for {cfg.train.total_timesteps} steps")
        train(base, train_dir, resume=resume and has_model)
    timings["train_s"] = time.perf_counter() - t0

    # 2. evaluate
    t0 = time.perf_counter()
    label = cfg.main_job.agent_label
    eval_cfg = base.copy()
    eval_cfg.eval.agents = {label: str(train_dir.resolve()), **cfg.main_job.shipped}
    _sub_run(eval_cfg, eval_dir, "evaluate")
    n_policies = len(eval_cfg.eval.agents) + len(cfg.baseline)
    console.rule(f"[bold]2/3 evaluating {n_policies} policies × {len(cfg.eval.seeds)} seeds")
    results = evaluate(eval_cfg, eval_dir)
    timings["eval_s"] = time.perf_counter() - t0

    # 3. leaderboard
    console.rule("[bold]3/3 leaderboard")
    board = leaderboard(results, cfg.main_job.sort_by)
    agg = load_aggregate(eval_dir)
    print_leaderboard(board, console=console, title="leogym main job", aggregate=agg)
    md_path = atomic_write_text(
        run_dir / "leaderboard.md", "# leogym main job\n\n" + to_markdown(board, aggregate=agg)
    )
    atomic_write(run_dir / "leaderboard.csv", lambda tmp: board.to_csv(tmp, index=False))
    old = run_dir / "timings.json"
    previous = json.loads(old.read_text()) if old.is_file() else {}
    previous.setdefault("invocations", []).append(timings)
    atomic_write_json(old, previous)
    console.print(
        f"results: {eval_dir / 'results.parquet'}\nplots:   {eval_dir / 'plots'}\n"
        f"leaderboard: {md_path}\n"
        f"train {timings['train_s']:.0f} s, evaluation {timings['eval_s']:.0f} s"
    )
    return md_path


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="main_job")
@config_task("leogym-run")
def _hydra_main(cfg: DictConfig) -> None:
    configure_logging()
    sections = ("env", "agent", "train", "eval", "main_job")
    if not cfg.get("resume"):  # checked before the run directory is made
        validate_config(to_objects(cfg), sections)
    ctx = prepare_run(cfg, app="main_job", seeds={"seed": cfg.seed, "eval": list(cfg.eval.seeds)})
    if ctx.resumed:  # the saved config with this resume's changes (eval.backend=ray, ...)
        validate_config(to_objects(ctx.cfg), sections)  # before training goes on
    run_main_job(ctx.cfg, ctx.run_dir, resume=ctx.resumed)


def main() -> None:
    """Console entry point ``leogym-run``."""
    register_configs()
    run_app("leogym-run", _hydra_main)


if __name__ == "__main__":
    main()
