"""``leogym-train``: train an SB3 agent on a leogym env under Hydra.

Examples::

    leogym-train                                     # PPO on LeoCC-v0, scenario=default
    leogym-train agent=sac scenario=tiny train.total_timesteps=20000
    leogym-train env=scheduler agent=dqn env.action_mode=discrete
    leogym-train resume=runs/train/cc-ppo/seed0/2025-01-01_12-00-00   # continue a run
    leogym-train train.vec_env=ray train.n_envs=32 ray.address=auto   # envs on a Ray cluster
    leogym-train -m agent=ppo,a2c seed=0,1,2         # a sweep, one job after another

Every env (the eval env too) runs in its own subprocess, or with ``train.vec_env=ray`` the
training envs run in Ray actors (a local Ray instance, or the cluster at ``ray.address``); see
:mod:`leogym.agents.sb3.env_factory` and :mod:`leogym.agents.runtime.ray_vecenv`.
The run directory holds the resolved config, overrides, provenance (``run_info.json``),
TensorBoard logs (``tb/``), ``progress*.csv``, periodic ``checkpoints/``, ``evaluations.csv``,
``best_model.zip`` and the final ``model.zip``.

Resuming (``resume=<run dir or checkpoint .zip>``) loads the newest model of the run (or the given
checkpoint) with its step count, optimiser state and replay buffer, and trains on with the run's
saved config up to ``train.total_timesteps`` (which a resume may raise). The envs start fresh
episodes, reseeded with ``seed + steps``, so a resumed run is reproducible but not bitwise equal
to an uninterrupted one. Ctrl-C or SIGTERM (a cluster's preemption) saves a checkpoint, and its
cost as a segment of ``train_summary.json``, before the process exits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig

from leogym.agents.config import (
    BaselineSpec,
    ConfigError,
    env_kwargs,
    multi_agent_kwargs,
    register_configs,
    validate_config,
)
from leogym.agents.runtime.app import (
    CONFIG_PATH,
    config_task,
    configure_logging,
    env_scenario,
    prepare_run,
    run_app,
    scenario_name,
    suite_scenarios,
    to_objects,
)
from leogym.agents.runtime.run_info import process_tree_cpu_s
from leogym.agents.runtime.storage import atomic_write_json

__all__ = ["TrainResult", "main", "train"]

log = logging.getLogger("leogym.agents.train")


@dataclass
class TrainResult:
    """What :func:`train` produced.

    :param run_dir: the run directory.
    :param model_path: the final model (``model.zip``).
    :param num_timesteps: the model's step count at the end.
    :param wall_s: wall-clock seconds of this invocation.
    :param cpu_s: CPU seconds (user + system) of this invocation: the trainer's process and
        its local env workers; Ray actors are not counted.
    """

    run_dir: Path
    model_path: Path
    num_timesteps: int
    wall_s: float
    cpu_s: float


def train(cfg: DictConfig, run_dir: str | Path, *, resume: bool = False) -> TrainResult:
    """Train (or continue training) the configured agent; write everything under ``run_dir``.

    :param cfg: a composed app config (see :class:`~leogym.agents.config.LeogymConfig`).
    :param run_dir: the run directory (its provenance files are written by the caller, e.g.
        :func:`leogym.agents.runtime.app.prepare_run`).
    :param resume: continue from the run's newest model (or the checkpoint named by
        ``cfg.resume``) instead of starting fresh.
    """
    import torch
    from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat
    from stable_baselines3.common.utils import set_random_seed

    from leogym.agents.runtime.worker_faults import WorkerDiedError
    from leogym.agents.sb3.algos import ALGOS, build_model, check_action_space, load_model
    from leogym.agents.sb3.callbacks import (
        CheckpointCallback,
        NetMetricsCallback,
        PeriodicEvalCallback,
        ProgressCallback,
    )
    from leogym.agents.sb3.checkpoints import (
        FINAL,
        latest_checkpoint,
        replay_buffer_path,
        save_model,
    )
    from leogym.agents.sb3.env_factory import (
        EnvFactory,
        MultiAgentEnvFactory,
        make_multi_agent_vec_env,
        make_vec_env,
    )

    t_start = time.perf_counter()
    cpu_start = process_tree_cpu_s()
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    c = to_objects(cfg)
    validate_config(c, ("env", "agent", "train"))
    algo = c.agent.name
    spec = ALGOS[algo]
    torch.set_num_threads(c.train.torch_threads)

    start_from: Path | None = None
    if resume:
        explicit = Path(str(cfg.resume)) if cfg.get("resume") else None
        start_from = (
            explicit if explicit is not None and explicit.is_file() else latest_checkpoint(run_dir)
        )
        if start_from is None:
            raise ConfigError(f"resume: {run_dir} holds no model or checkpoint to resume from")

    scenario = env_scenario(c.env.id, c.scenario)  # converted and validated once, here
    factory = EnvFactory(c.env.id, env_kwargs(c.env), scenario, record_stats=True)
    if c.train.mixture.scenarios:  # other worlds drawn per episode (leogym.agents.mixture)
        from leogym.agents.mixture import mixture_sampler

        factory = factory.with_overrides(episode_sampler=mixture_sampler(c, ConfigError))
    if c.train.competitors.enabled:  # peers drawn per episode (leogym.agents.competitors)
        factory = _competing(factory, c, run_dir)
    eval_factory = EnvFactory(c.env.id, env_kwargs(c.env), scenario)
    ray_session = _ray_session(c)  # train.vec_env=ray: the Ray instance, for this run
    try:
        if c.env.flows.agents:  # every flow an agent, one shared policy (parameter sharing)
            venv = make_multi_agent_vec_env(
                MultiAgentEnvFactory(multi_agent_kwargs(c.env), scenario),
                c.train.n_envs,
                seed=c.seed,
                start_method=c.train.start_method,
                on_worker_death=c.train.on_worker_death,
                vec_env=c.train.vec_env,
                ray=c.ray,
            )
        else:
            venv = make_vec_env(
                factory,
                c.train.n_envs,
                seed=c.seed,
                start_method=c.train.start_method,
                on_worker_death=c.train.on_worker_death,
                vec_env=c.train.vec_env,
                ray=c.ray,
            )
    except BaseException:
        ray_session.close()
        raise
    eval_envs: dict[str, Any] = {}
    model: Any = None
    model_path: Path | None = None  # the model this invocation saved, if any
    checkpointer: CheckpointCallback | None = None
    # SIGTERM (a cluster's preemption or time limit) ends training like Ctrl-C: with a checkpoint
    restore_sigterm = _sigterm_as_interrupt()
    try:
        check_action_space(algo, venv.action_space, c.env.id)
        if start_from is not None:
            model = load_model(start_from, algo, env=venv, device=c.agent.device)
            rb = replay_buffer_path(start_from)
            if spec.off_policy and rb.is_file():
                model.load_replay_buffer(str(rb))
            offset = _learned_steps(model, venv.num_envs)
            if offset != model.num_timesteps:
                log.info(
                    "the checkpoint was taken %d steps into a rollout, which %s never learnt "
                    "from: training goes on from step %d",
                    model.num_timesteps - offset,
                    algo,
                    offset,
                )
                model.num_timesteps = offset
            set_random_seed(c.seed + offset)
            venv.seed(c.seed + offset)
            log.info("resuming %s from %s at step %d", algo, start_from, offset)
        else:
            set_random_seed(c.seed)
            model = build_model(c.agent, venv, seed=c.seed)
            if c.train.init_from:  # fine-tuning: a trained policy's parameters
                _init_from(model, c.train.init_from, algo)
            if c.train.warm_start.store:  # behaviour cloning from the baselines' logs first
                from leogym.agents.warm_start import warm_start

                warm_start(model, c, run_dir)
        snapshot: Any = None
        if c.train.competitors.enabled and c.train.competitors.plays_self:
            from leogym.agents.sb3.self_play import SelfSnapshotCallback, snapshot_path

            snapshot = SelfSnapshotCallback(
                snapshot_path(run_dir), c.train.competitors.self_every_steps, algo
            )
            if start_from is None or not snapshot.path.is_file():
                snapshot.model = model
                snapshot.save()  # before the envs' first reset: the copy of step 0

        n_csv = len(list(run_dir.glob("progress*.csv")))
        formats: list[Any] = [
            CSVOutputFormat(
                str(run_dir / ("progress.csv" if n_csv == 0 else f"progress.{n_csv}.csv"))
            )
        ]
        if c.train.tensorboard:
            formats.append(TensorBoardOutputFormat(str(run_dir / "tb")))
        model.set_logger(Logger(str(run_dir), formats))

        callbacks: list[Any] = [NetMetricsCallback()]
        if c.train.eval_freq > 0:
            eval_factories = (
                {
                    name: EnvFactory(c.env.id, env_kwargs(c.env), name)
                    for name in suite_scenarios(c.train.eval_suite)
                }
                if c.train.eval_suite
                else {scenario_name(c.scenario): eval_factory}
            )
            for name, f in eval_factories.items():
                eval_envs[name] = make_vec_env(
                    f, 1, seed=c.seed + 10_000, start_method=c.train.start_method
                )
            callbacks.append(
                PeriodicEvalCallback(
                    eval_envs,
                    c.train.eval_freq,
                    c.train.eval_episodes,
                    run_dir,
                    algo=algo,
                    seed=c.seed + 10_000,
                    metrics_cfg=c.eval.metrics,
                )
            )
        curriculum = (
            _curriculum(c, eval_factory, start_from) if c.train.curriculum.enabled else None
        )
        if curriculum is not None:
            callbacks.append(curriculum)
        if snapshot is not None:
            callbacks.append(snapshot)
        checkpointer = CheckpointCallback(
            c.train.checkpoint_freq or 10**15,
            run_dir,
            algo=algo,
            save_replay_buffer=c.train.save_replay_buffer and spec.off_policy,
            sidecar=curriculum.sidecar if curriculum is not None else None,
        )
        callbacks.append(checkpointer)
        if c.train.progress:
            callbacks.append(ProgressCallback(f"{algo} {c.env.name}"))

        remaining = c.train.total_timesteps - int(model.num_timesteps)
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=callbacks,
                log_interval=c.train.log_interval,
                reset_num_timesteps=start_from is None,
            )
        else:
            log.info(
                "nothing to do: the model has %d of %d timesteps",
                model.num_timesteps,
                c.train.total_timesteps,
            )
        model_path = save_model(
            model,
            run_dir / FINAL,
            algo=algo,
            env_id=c.env.id,
            replay_buffer=c.train.save_replay_buffer and spec.off_policy,
            **(curriculum.sidecar() if curriculum is not None else {}),
        )
    except KeyboardInterrupt:
        if model is not None and checkpointer is not None and model.num_timesteps > 0:
            model_path = checkpointer.save()
            log.warning(
                "interrupted: checkpoint saved at %s; continue with resume=%s", model_path, run_dir
            )
        raise
    except WorkerDiedError:
        # the model is intact, only an env process is gone: keep what was learnt
        if model is not None and checkpointer is not None and model.num_timesteps > 0:
            model_path = checkpointer.save()
            log.error(
                "an env worker died: checkpoint saved at %s; continue with resume=%s",
                model_path,
                run_dir,
            )
        raise
    finally:
        restore_sigterm()
        if getattr(model, "_logger", None) is not None:
            model.logger.close()  # its CSV and TensorBoard files (several jobs share a process)
        cpu = process_tree_cpu_s() - cpu_start  # before the workers exit
        venv.close()
        for env in eval_envs.values():
            env.close()
        ray_session.close()
        wall = time.perf_counter() - t_start
        if model_path is not None:  # a model was saved, finished or interrupted: count its cost
            segment = {
                "num_timesteps": int(model.num_timesteps),
                "wall_s": wall,
                "cpu_s": cpu,
                "resumed_from": str(start_from) if start_from else None,
            }
            previous = run_dir / "train_summary.json" if resume else None
            atomic_write_json(
                run_dir / "train_summary.json", training_summary(algo, segment, previous)
            )
    log.info(
        "trained %s to %d timesteps in %.1f s (%.1f CPU s); model: %s",
        algo,
        model.num_timesteps,
        wall,
        cpu,
        model_path,
    )
    return TrainResult(run_dir, model_path, int(model.num_timesteps), wall, cpu)


def _learned_steps(model: Any, n_envs: int) -> int:
    """The step count of the data ``model`` has learnt from.

    An on-policy algorithm (PPO, A2C, RecurrentPPO) learns from whole rollouts of ``n_steps``
    per env, and its step count also counts the steps of the rollout under way, which a
    checkpoint taken then (Ctrl-C, a dead worker, a periodic checkpoint) does not hold. A resume
    goes on from the rollout's start, so that the run takes whole rollouts from step 0, as an
    uninterrupted one, and ends at the same count (``train.total_timesteps`` where that is a
    multiple of the rollout). Off-policy algorithms keep every step in their replay buffer.
    """
    from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm

    steps = int(model.num_timesteps)
    if not isinstance(model, OnPolicyAlgorithm):
        return steps
    rollout = int(model.n_steps) * int(n_envs)
    return steps - steps % rollout


def _init_from(model: Any, path: str, algo: str) -> None:
    """Load ``path``'s policy parameters into ``model`` (``train.init_from``).

    :raises ConfigError: naming ``train.init_from``: no such file, another algorithm, or
        parameters that do not fit this policy (other spaces or architecture, a corrupt file).
    """
    from leogym.agents.sb3.checkpoints import CheckpointError, read_sidecar

    p = Path(path).expanduser()
    if not p.is_file():
        raise ConfigError("train.init_from", f"no model file at {str(p)!r}")
    try:
        saved = read_sidecar(p).get("algo", algo)
    except CheckpointError as exc:
        raise ConfigError("train.init_from", str(exc)) from None
    if saved != algo:
        raise ConfigError("train.init_from", f"{p} is a {saved} model; this run trains {algo}")
    try:
        model.set_parameters(str(p), exact_match=True, device=model.device)
    except Exception as exc:  # noqa: BLE001 - SB3, zipfile and torch raise many types
        raise ConfigError(
            "train.init_from", f"cannot load {p} into this {algo} policy ({exc})"
        ) from None
    log.info("policy parameters from %s", p)


def _competing(factory: Any, c: Any, run_dir: Path) -> Any:
    """The training envs with competing flows (``train.competitors``): LeoMultiFlowCC-v0 with
    the pool drawn per episode, ``self`` a frozen copy of the agent read from the run."""
    from leogym.agents.competitors import SELF
    from leogym.agents.config import MULTI_FLOW_ID
    from leogym.agents.sb3.env_factory import EnvFactory
    from leogym.agents.sb3.self_play import SelfSnapshot, snapshot_path

    cfg = c.train.competitors
    copy = SelfSnapshot(snapshot_path(run_dir), c.agent.name)
    pool = [copy if name == SELF else name for name in cfg.pool]
    kwargs = {**factory.kwargs, "competitors": pool, "peers": list(cfg.peers)}
    return EnvFactory(MULTI_FLOW_ID, kwargs, factory.scenario, factory.record_stats)


def training_summary(algo: str, segment: dict[str, Any], previous: Path | None) -> dict[str, Any]:
    """``train_summary.json`` of a run: this invocation's ``segment`` (steps reached, wall and
    CPU seconds, the model it resumed from) after the segments of ``previous`` (the run's
    summary before a resume, if there is one), and ``wall_s``/``cpu_s`` summed over all of
    them: what the run's model cost (``cpu_s`` is None if a segment did not record it)."""
    segments: list[dict[str, Any]] = []
    if previous is not None and previous.is_file():
        try:
            before = json.loads(previous.read_text())
            segments = before.get("segments") or [
                {k: before.get(k) for k in ("num_timesteps", "wall_s", "cpu_s", "resumed_from")}
            ]
            sum(float(s["wall_s"]) for s in segments)  # each segment has its wall time
        except (ValueError, TypeError, KeyError, AttributeError) as err:
            log.warning("%s is unreadable (%s): the summary counts this run only", previous, err)
            segments = []
    segments.append(segment)
    cpu: list[float | None] = [s.get("cpu_s") for s in segments]
    return {
        "algo": algo,
        "num_timesteps": segment["num_timesteps"],
        "wall_s": sum(float(s["wall_s"]) for s in segments),
        "cpu_s": None if None in cpu else sum(float(c) for c in cpu if c is not None),
        "resumed_from": segment["resumed_from"],
        "segments": segments,
    }


def _curriculum(c: Any, agent_env: Any, start_from: Path | None) -> Any:
    """The curriculum's callback (``train.curriculum``), with the state that the checkpoint
    ``start_from`` saved when resuming (:mod:`leogym.agents.curriculum`)."""
    from leogym.agents.curriculum import CurriculumState, check_curriculum
    from leogym.agents.evaluate import baseline_policy
    from leogym.agents.sb3.checkpoints import read_sidecar
    from leogym.agents.sb3.curriculum_callback import SIDECAR_KEY, CurriculumCallback
    from leogym.agents.sb3.env_factory import EnvFactory

    cur = c.train.curriculum
    dims = check_curriculum(c, ConfigError)
    _, teacher = baseline_policy("teacher", BaselineSpec(name=str(cur.teacher)), c)
    state = None
    if start_from is not None:
        saved = read_sidecar(start_from).get(SIDECAR_KEY)
        if saved is not None:
            state = CurriculumState.from_json(saved, f"{start_from.with_suffix('.json')}")
    return CurriculumCallback(
        cur,
        dims,
        agent_env,
        EnvFactory(teacher.env_id, teacher.kwargs, agent_env.scenario),
        seed=c.seed,
        start_method=c.train.start_method,
        state=state,
    )


def _ray_session(c: Any) -> contextlib.ExitStack:
    """With ``train.vec_env=ray``: Ray joined or started (``ray.*``) until the stack closes."""
    stack = contextlib.ExitStack()
    if c.train.vec_env == "ray":
        from leogym.agents.runtime.ray_support import RayUnavailableError, import_ray, session

        try:
            import_ray("'ray'")
        except RayUnavailableError as exc:
            raise ConfigError("train.vec_env", str(exc)) from exc
        stack.enter_context(session(c.ray))
    return stack


def _sigterm_as_interrupt() -> Any:
    """Make SIGTERM and SIGINT raise KeyboardInterrupt in the main thread; return a function that
    undoes it. SIGINT too, because a process started with SIGINT ignored (a background job of a
    non-interactive shell) gets no KeyboardInterrupt from Python and would lose its checkpoint."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    return lambda: [signal.signal(s, h) for s, h in previous.items()]


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="train")
@config_task("leogym-train")
def _hydra_main(cfg: DictConfig) -> None:
    configure_logging()
    if not cfg.get("resume"):  # checked before the run directory is made
        validate_config(to_objects(cfg), ("env", "agent", "train"))
    ctx = prepare_run(
        cfg,
        app="train",
        seeds={"seed": cfg.seed, "train_envs": cfg.seed, "eval_env": cfg.seed + 10_000},
    )
    train(ctx.cfg, ctx.run_dir, resume=ctx.resumed)


def main() -> None:
    """Console entry point ``leogym-train``."""
    register_configs()
    run_app("leogym-train", _hydra_main)


if __name__ == "__main__":
    main()
