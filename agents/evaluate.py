"""``leogym-eval``: evaluate trained agents, analytic baselines and classic algorithms over a
scenario suite × seeds, with one results row per episode.

Examples::

    leogym-eval                                      # the main job's baselines, default scenario
    leogym-eval scenario=tiny 'baseline=[cubic,maco]' 'eval.seeds=[0,1]'
    leogym-eval +eval.agents.PPO=runs/train/cc-ppo/seed0/2025-01-01_12-00-00
    leogym-eval suite=heldout '+eval.agents.HM="runs/hybrid-maco/seed{seed}"'   # seed k: run k
    leogym-eval 'eval.scenarios=[default,highrate]' eval.n_workers=2
    leogym-eval suite=heldout eval.backend=ray ray.address=auto eval.n_workers=64   # a cluster
    leogym-eval suite=heldout                        # the held-out suite (conf/suite/heldout.yaml)
    leogym-eval resume=runs/eval/cc/2025-01-01_12-30-00    # finish an interrupted evaluation

Every policy runs through the same loop: ``predict(obs) -> action`` and ``env.step``. A baseline
is a native algorithm selected through env kwargs (``cc="maco"``), so its env ignores the
(neutral) actions; a control the env leaves to the agent (``cc="external"``) is given to
``eval.fallback_cc`` / ``eval.fallback_scheduler`` for baselines, so a baseline never runs with a
frozen window. Trained agents run in the env they were trained in (their run's ``env`` config),
with the suite's scenario and this config's ``env.episode_s`` and ``env.sample_scenarios``; in
the evaluation's env, an agent's return is that of this config's ``env.reward``, as the
baselines' is, whatever reward it was trained on (the reward changes neither what it observes
nor what it does, so its episode is the same).

Episodes run in worker subprocesses (``eval.n_workers``), or as Ray tasks on a local Ray instance
or the cluster at ``ray.address`` (``eval.backend=ray``); results are written episode by
episode (see :mod:`leogym.agents.results.table`), then summarised (``summary.parquet``) and plotted
(``plots/``). Metric definitions: :mod:`leogym.agents.results.metrics`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import hydra
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from leogym.agents.config import (
    MULTI_FLOW_ID,
    ConfigError,
    LeogymConfig,
    env_kwargs,
    register_configs,
    validate_config,
)
from leogym.agents.results.table import ResultsStore
from leogym.agents.runtime.app import (
    CONFIG_PATH,
    config_task,
    configure_logging,
    env_scenario,
    prepare_run,
    run_app,
    scenario_name,
    scenario_payload,
    to_objects,
    typed,
)
from leogym.agents.runtime.episode_pools import LocalEpisodes, RayEpisodes
from leogym.agents.runtime.rollout import EpisodeTask, PolicyRef, task_key
from leogym.agents.runtime.storage import atomic_write_json
from leogym.agents.sb3.env_factory import EnvFactory

#: In an ``eval.agents`` path, the evaluation seed: ``runs/x/seed{seed}`` evaluates training run
#: k on evaluation seed k only, so that each seed of a recipe is an independent run (a training
#: seed and an episode seed together) and the recipe is one policy of the tables.
SEED_FIELD = "{seed}"

__all__ = ["agent_policy", "baseline_policy", "build_tasks", "evaluate", "main"]

log = logging.getLogger("leogym.agents.evaluate")


def baseline_policy(key: str, spec: Any, c: LeogymConfig) -> tuple[PolicyRef, EnvFactory]:
    """The policy and env (without scenario) of baseline ``baseline.<key>``."""
    from leogym.baselines import make_baseline
    from leogym.baselines.params import baseline_env_kwargs

    if not c.env.id.startswith("leogym/"):
        raise ConfigError(
            f"baseline.{key}: baselines run only on leogym envs (env.id={c.env.id!r})"
        )
    try:
        native = make_baseline(spec.name, **spec.params)
    except ValueError as exc:
        raise ConfigError(f"baseline.{key}.name: {exc}") from exc
    kwargs = baseline_env_kwargs(
        native,
        spec.params,
        env_kwargs(c.env),
        spec.env,
        fallback_cc=c.eval.fallback_cc,
        fallback_scheduler=c.eval.fallback_scheduler,
        gain=spec.gain,
    )
    if spec.gain is not None:
        _check_gain_base(key, kwargs)
    ref = PolicyRef(
        label=spec.label or spec.name,
        kind="baseline",
        name=spec.name,
        params={k: float(v) for k, v in spec.params.items()},
        action=spec.gain,
    )
    return ref, EnvFactory(c.env.id, kwargs)


def _check_gain_base(key: str, kwargs: dict[str, Any]) -> None:
    """A fixed gain needs a plain native controller under a leogym connection (the residual
    mode's base)."""
    from leogym.envs.config import residual_bases

    base = kwargs.get("residual_base")
    if kwargs.get("connection", "mpquic") != "mpquic" or base not in residual_bases():
        raise ConfigError(
            f"baseline.{key}.gain",
            f"needs a baseline whose congestion controller can be the residual mode's base "
            f"(one of {', '.join(residual_bases())}) on an mpquic connection; this one runs "
            f"cc={base!r} on connection={kwargs.get('connection', 'mpquic')!r}",
        )


def agent_policy(label: str, path: str, c: LeogymConfig) -> tuple[PolicyRef, EnvFactory]:
    """The policy and env (without scenario) of a trained agent (run directory or ``.zip``)."""
    from leogym.agents.runtime.resolvers import find_run_dir
    from leogym.agents.runtime.run_info import read_run_config
    from leogym.agents.sb3.checkpoints import find_checkpoint, read_sidecar
    from leogym.agents.zoo import ZooError, resolve

    try:
        if path.startswith("zoo:"):  # a shipped model (leogym.agents.zoo), verified
            from omegaconf import OmegaConf

            model, card = resolve(path[len("zoo:") :])
            run_cfg = typed(OmegaConf.create(card["config"]))
        else:
            model = find_checkpoint(path, c.eval.checkpoint)
            run_cfg = typed(read_run_config(find_run_dir(model)))
    except (FileNotFoundError, ZooError) as exc:
        raise ConfigError(f"eval.agents.{label}: {exc}") from exc
    algo = read_sidecar(model).get("algo") or run_cfg.agent.name
    trained_env = to_objects(run_cfg).env
    kwargs = env_kwargs(trained_env)
    if trained_env.id.startswith("leogym/"):
        kwargs["episode_s"] = c.env.episode_s
        kwargs["sample_scenarios"] = c.env.sample_scenarios
    if trained_env.id == c.env.id and trained_env.id.startswith("leogym/"):
        kwargs["reward"] = env_kwargs(c.env)["reward"]  # the baselines' currency
    if trained_env.id == MULTI_FLOW_ID == c.env.id:  # the evaluation's flows, not training's
        kwargs.pop("n_flows", None)
        kwargs.pop("others", None)
        evaluated = env_kwargs(c.env)
        kwargs.update({k: evaluated[k] for k in ("n_flows", "others") if k in evaluated})
    ref = PolicyRef(
        label=label,
        kind="agent",
        name=str(algo),
        path=str(model.resolve()),
        deterministic=c.eval.deterministic,
        model_steps=read_sidecar(model).get("num_timesteps"),
    )
    return ref, EnvFactory(trained_env.id, kwargs)


def _suite(c: LeogymConfig) -> list[tuple[str, Any]]:
    if not c.eval.scenarios:
        return [(scenario_name(c.scenario), scenario_payload(c.scenario))]
    if not c.env.id.startswith("leogym/"):
        return [(name, None) for name in c.eval.scenarios]
    from leogym.scenario import load_scenario

    suite = []
    for i, name in enumerate(c.eval.scenarios):
        try:
            load_scenario(name)
        except ValueError as exc:
            raise ConfigError(f"eval.scenarios[{i}]: {exc}") from exc
        suite.append((name, name))
    return suite


def build_tasks(c: LeogymConfig, store: ResultsStore) -> list[EpisodeTask]:
    """Every (scenario, policy, seed) episode of the evaluation, in a stable order. Each
    scenario is converted and validated once, here (:func:`env_scenario`): the workers get the
    ``ScenarioConfig`` and convert nothing."""
    from leogym.agents.results.distinct import merge_identical_baselines

    seeds = [int(s) for s in c.eval.seeds]
    # (policy, its env, the evaluation seeds it runs): a path with {seed} is one run per seed
    policies: list[tuple[PolicyRef, EnvFactory, list[int]]] = []
    for label, path in c.eval.agents.items():
        if SEED_FIELD in path:
            for seed in seeds:
                ref, factory = agent_policy(label, path.replace(SEED_FIELD, str(seed)), c)
                policies.append((ref, factory, [seed]))
        else:
            policies.append((*agent_policy(label, path, c), seeds))
    baselines = [baseline_policy(key, spec, c) for key, spec in c.baseline.items()]
    baselines = merge_identical_baselines(baselines)  # "CUBIC = minRTT": one policy, run once
    policies += [(ref, factory, seeds) for ref, factory in baselines]
    if not policies:
        raise ConfigError("eval.agents: nothing to evaluate (no agents and an empty baseline list)")
    labels = [*c.eval.agents, *(ref.label for ref, _ in baselines)]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise ConfigError(f"eval.agents: policy labels must be unique (repeated: {dupes})")
    tasks = []
    from leogym.agents.coexistence import with_peer_variants

    for name, payload in with_peer_variants(_suite(c), c.eval.peers):
        shipped: dict[str, Any] = {}  # env id -> the scenario its workers get, converted once
        for ref, factory, policy_seeds in policies:
            if factory.env_id not in shipped:
                shipped[factory.env_id] = env_scenario(factory.env_id, payload)
            env = EnvFactory(factory.env_id, factory.kwargs, shipped[factory.env_id])
            for seed in policy_seeds:
                key = task_key(ref, env, seed, scenario=payload)  # keyed as configured
                tasks.append(
                    EpisodeTask(
                        key=key,
                        policy=ref,
                        env=env,
                        scenario=name,
                        seed=int(seed),
                        metrics=c.eval.metrics,
                        trace_path=str(store.trace_path(key)) if c.eval.traces else None,
                    )
                )
    return tasks


def _describe(tasks: list[EpisodeTask]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for t in tasks:
        seen.setdefault(
            t.policy.label,
            {"policy": asdict(t.policy), "env_id": t.env.env_id, "env": dict(t.env.kwargs)},
        )
    return {
        "policies": list(seen.values()),
        "scenarios": sorted({t.scenario for t in tasks}),
        "seeds": sorted({t.seed for t in tasks}),
        "episodes": len(tasks),
    }


def evaluate(cfg: DictConfig, run_dir: str | Path) -> pd.DataFrame:
    """Run (or finish) the evaluation; write results, summary and plots under ``run_dir``.

    Episodes already in ``run_dir/results.parquet`` are skipped. Episodes that fail are logged
    and reported in one error at the end, after everything else has been saved. The summary,
    aggregate and plots count this run's episodes only (its tasks' keys), whatever else the
    folder holds.

    :return: this run's results (one row per finished episode).
    """
    c = to_objects(cfg)
    validate_config(c, ("env", "eval"))
    run_dir = Path(run_dir)
    store = ResultsStore(run_dir)
    tasks = build_tasks(c, store)
    described = _describe(tasks)
    if c.eval.suite.name:  # a named suite (suite=heldout): results name its version
        described["suite"] = asdict(c.eval.suite)
        log.info("suite %s v%d", c.eval.suite.name, c.eval.suite.version)
    atomic_write_json(run_dir / "policies.json", described)
    done = store.done_keys()
    pending = [t for t in tasks if t.key not in done]
    log.info(
        "evaluation: %d episodes (%d done, %d to run) with %d workers",
        len(tasks),
        len(tasks) - len(pending),
        len(pending),
        c.eval.n_workers,
    )
    failures = _run_pending(
        pending,
        store,
        n_workers=c.eval.n_workers,
        start_method=c.eval.start_method,
        progress=c.eval.progress,
        total=len(tasks),
        done=len(tasks) - len(pending),
        on_worker_death=c.eval.on_worker_death,
        backend=c.eval.backend,
        ray=c.ray,
    )
    # This run's episodes: an episode of another config left in the folder (another model or
    # reward under the same label) stays in results.parquet but is not counted.
    keys = {t.key for t in tasks}
    results = store.frame
    results = results[results["key"].isin(keys)].reset_index(drop=True) if len(results) else results
    if len(results):
        store.write_summary(results)
        if c.eval.aggregate.enabled:  # IQM, bootstrap intervals, PoI, performance profiles
            from leogym.agents.results.aggregate import write_aggregate

            write_aggregate(results, run_dir, c.eval.aggregate, plots=c.eval.plots)
        if c.eval.plots:
            from leogym.agents.results.plots import plot_all

            plot_all(results, run_dir)
    if failures:
        msg = "; ".join(
            f"{t.policy.label}/{t.scenario}/seed={t.seed}: {e}" for t, e in failures[:5]
        )
        raise RuntimeError(
            f"{len(failures)} of {len(tasks)} episodes failed ({msg}). The others are saved; "
            f"rerun with resume={run_dir} to retry the failed ones."
        )
    return results


def _episode_done(t: EpisodeTask, row: dict[str, Any], store: ResultsStore, bar: Any) -> None:
    store.add(row)
    bar.advance(
        1,
        note=(
            f"{t.policy.label} {t.scenario} seed={t.seed}: "
            f"{row.get('goodput_mbps', float('nan')):.2f} Mbit/s"
        ),
    )


def _episode_failed(
    t: EpisodeTask, exc: BaseException, failures: list[tuple[EpisodeTask, str]]
) -> None:
    log.error("episode %s/%s/seed=%d failed: %s", t.policy.label, t.scenario, t.seed, exc)
    failures.append((t, f"{type(exc).__name__}: {exc}"))


def _worker_died(t: EpisodeTask, where: str, failures: list[tuple[EpisodeTask, str]]) -> None:
    msg = (
        f"its worker process ({where}) died abruptly (killed or crashed) while running it: "
        f"env {t.env.env_id} kwargs={dict(t.env.kwargs)} scenario={t.scenario!r} seed={t.seed}"
    )
    log.error("episode %s/%s/seed=%d failed: %s", t.policy.label, t.scenario, t.seed, msg)
    failures.append((t, "WorkerDied: " + msg))


def _run_pending(
    pending: list[EpisodeTask],
    store: ResultsStore,
    *,
    n_workers: int,
    start_method: str,
    progress: bool,
    total: int,
    done: int,
    on_worker_death: str = "continue",
    max_pool_restarts: int = 3,
    backend: str = "subproc",
    ray: Any = None,
) -> list[tuple[EpisodeTask, str]]:
    """Run ``pending`` in a pool of worker processes (``backend="subproc"``) or as Ray tasks
    (``"ray"``), recording each episode as it ends; the failed episodes, with why.

    One supervisor and one stop policy for both pools: an episode that raised is a failure
    and the others run on; an episode whose worker died is a failure naming its env and seed,
    and the evaluation stops (:class:`RuntimeError`) with ``on_worker_death="stop"`` or after
    more than ``max_pool_restarts`` deaths, else runs on; on any other exception (Ctrl-C
    included) the episodes in flight are cancelled and it propagates. The finished episodes
    are saved either way.
    """
    failures: list[tuple[EpisodeTask, str]] = []
    if not pending:
        return failures
    pool: LocalEpisodes | RayEpisodes
    if backend == "ray":
        pool = RayEpisodes(n_workers, ray)
    else:
        pool = LocalEpisodes(n_workers, start_method, store.run_dir / ".inflight", len(pending))
    from leogym.agents.runtime.progress import ProgressReporter

    bar = ProgressReporter(
        "evaluating", total, completed=done, enabled=progress, unit="episodes", log_every_s=10.0
    )
    queue = list(pending)
    running: dict[Any, EpisodeTask] = {}
    deaths = 0
    with pool, bar:
        try:
            while queue or running:
                while queue and len(running) < pool.capacity:
                    t = queue.pop(0)
                    running[pool.submit(t)] = t
                outcomes, died = pool.wait(running)
                culprits, retry = [], []
                for handle, kind, value in outcomes:
                    t = running.pop(handle)
                    if kind == "done":
                        _episode_done(t, value, store, bar)
                    elif kind == "failed":
                        _episode_failed(t, value, failures)
                    elif kind == "died":
                        _worker_died(t, value, failures)
                        culprits.append(t)
                    else:
                        retry.append(t)
                queue[:0] = retry
                if died:
                    deaths += died
                    _stop_after_death(culprits, deaths, on_worker_death, max_pool_restarts, store)
                    log.warning("a worker died; the evaluation goes on (%d to go)", len(queue))
        except BaseException:
            pool.cancel(running)
            raise
    return failures


def _stop_after_death(
    culprits: list[EpisodeTask],
    deaths: int,
    on_worker_death: str,
    max_deaths: int,
    store: ResultsStore,
) -> None:
    """The stop policy: raise with ``eval.on_worker_death=stop``, or after more than
    ``max_deaths`` worker deaths."""
    if on_worker_death != "stop" and deaths <= max_deaths:
        return
    why = "eval.on_worker_death=stop" if on_worker_death == "stop" else f"{deaths} worker deaths"
    names = "; ".join(f"{t.policy.label}/{t.scenario}/seed={t.seed}" for t in culprits)
    raise RuntimeError(
        f"evaluation stopped after a worker died ({why}); "
        + (names or "the episode it ran is unknown")
        + f". The finished episodes are saved; rerun with resume={store.run_dir}."
    )


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="evaluate")
@config_task("leogym-eval")
def _hydra_main(cfg: DictConfig) -> None:
    configure_logging()
    # agents are given relative to where the command runs; store absolute paths
    for label in list(cfg.eval.agents):
        if not str(cfg.eval.agents[label]).startswith("zoo:"):
            cfg.eval.agents[label] = str(Path(cfg.eval.agents[label]).expanduser().resolve())
    if not cfg.get("resume"):  # checked before the run directory is made
        validate_config(to_objects(cfg), ("env", "eval"))
    ctx = prepare_run(cfg, app="evaluate", seeds={"eval": list(cfg.eval.seeds)})
    t0 = time.perf_counter()
    results = evaluate(ctx.cfg, ctx.run_dir)
    from leogym.agents.results.leaderboard import leaderboard, print_leaderboard

    print_leaderboard(
        leaderboard(results, OmegaConf.select(ctx.cfg, "main_job.sort_by", default="goodput_mbps")),
        title="evaluation",
    )
    log.info("evaluation done in %.1f s: %s", time.perf_counter() - t0, ctx.run_dir)


def main() -> None:
    """Console entry point ``leogym-eval``."""
    register_configs()
    run_app("leogym-eval", _hydra_main)


if __name__ == "__main__":
    main()
