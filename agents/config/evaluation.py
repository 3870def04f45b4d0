"""The ``eval`` and ``baseline`` sections: how ``leogym-eval`` runs (its suite, metrics
and aggregate statistics) and the baselines it evaluates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from leogym import schema
from leogym.agents.config.common import EVAL_BACKENDS, MAX_SEED, POSITIVE, START_METHODS
from leogym.native import cc_algorithms, schedulers
from leogym.schema import FieldError, bounded, choice

__all__ = ["AggregateConfig", "BaselineSpec", "EvalConfig", "MetricsConfig", "SuiteInfo"]


@dataclass
class MetricsConfig:
    """Parameters of the per-episode metrics (definitions in :mod:`leogym.agents.results.metrics`).

    :param convergence_tolerance: goodput band around the final mean (0.1 = ±10 %).
    :param convergence_window_s: trailing moving-average window applied to goodput.
    :param convergence_tail_fraction: the final mean is taken over this last fraction of the
        episode.
    :param handover_guard_s: steps ending less than this long after a handover are excused
        from the band (handover dips are not non-convergence).
    :param rtt_percentiles: RTT percentiles to report (``rtt_p95_ms`` etc.).
    """

    convergence_tolerance: float = field(
        default=0.1, metadata=bounded(0.0, 1.0, lo_open=True, hi_open=True)
    )
    convergence_window_s: float = field(default=1.0, metadata=POSITIVE)
    convergence_tail_fraction: float = field(default=0.5, metadata=bounded(0.0, 1.0, lo_open=True))
    handover_guard_s: float = field(default=1.0, metadata=bounded(0.0))
    rtt_percentiles: list[float] = field(
        default_factory=lambda: [50.0, 95.0, 99.0], metadata=bounded(0.0, 100.0)
    )


@dataclass
class AggregateConfig:
    """Cross-scenario aggregate statistics of an evaluation (docs/evaluation.md;
    :mod:`leogym.agents.results.aggregate`).

    :param enabled: write ``aggregate.parquet``, ``probability_of_improvement.parquet``,
        ``performance_profile.parquet`` and their plots after the summary.
    :param metrics: results columns to aggregate; each is normalised per scenario so that
        1 is the better reference (a smaller RTT is better).
    :param reference: two or more policy labels whose per-scenario means give the 0 (the
        worst of them) and the 1 (the best) of the normalised score; empty: the worst and the
        best baseline of each scenario and metric.
    :param reps: bootstrap replications of every interval.
    :param confidence: coverage of the intervals.
    :param seed: seed of the bootstrap resampling (same results and seed: bit-identical
        statistics).
    """

    enabled: bool = True
    metrics: list[str] = field(default_factory=lambda: ["goodput_mbps", "rtt_p95_ms", "return"])
    reference: list[str] = field(default_factory=list)
    reps: int = field(default=2000, metadata=bounded(100, 1_000_000))
    confidence: float = field(default=0.95, metadata=bounded(0.5, 1.0, hi_open=True))
    seed: int = field(default=0, metadata=bounded(0, MAX_SEED))

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if not self.metrics:
            raise error(f"{path}.metrics", "must name at least one results column")
        if self.reference and (
            len(self.reference) < 2 or len(set(self.reference)) != len(self.reference)
        ):
            raise schema.fail(
                error,
                f"{path}.reference",
                "must be empty or at least two distinct policy labels",
                list(self.reference),
            )


@dataclass
class SuiteInfo:
    """The named, versioned scenario suite an evaluation runs (group ``suite``,
    ``conf/suite/<name>.yaml``, which also fills ``eval.scenarios``); written to the run's
    ``policies.json`` so that a published number names the suite and version it was measured on.

    :param name: the suite (``heldout``); empty: no named suite, ``eval.scenarios`` as given.
    :param version: the suite's version, raised whenever its scenarios or their files change.
    """

    name: str = ""
    version: int = field(default=0, metadata=bounded(0))


@dataclass
class EvalConfig:
    """How ``leogym-eval`` runs.

    :param scenarios: the scenario suite, by name (``conf/scenario/<name>.yaml``, or
        ``heldout/<name>`` under it) or YAML path; empty = the composed ``scenario`` group
        (with any overrides given on the command line). ``suite=heldout`` fills it.
    :param suite: the named suite these scenarios come from (set by the ``suite`` group).
    :param peers: run each scenario once per controller listed, with every competing bulk
        flow of its ``traffic.flows`` running it (``<scenario>+<peer>``; empty: the
        scenarios' own flows); see :mod:`leogym.agents.coexistence`.
    :param seeds: one episode per seed, scenario and policy; ``reset(seed=s)``.
    :param agents: trained agents to evaluate: label -> run directory or checkpoint ``.zip``.
        ``{seed}`` in a path stands for the evaluation seed: evaluation seed k runs the model
        found there for k alone (``runs/r/seed{seed}``: one training run per seed, the recipe
        one policy of the tables; a seed's missing run is an error naming the label).
    :param checkpoint: for run directories, which model: ``final``, ``best`` (falls back to
        final) or ``latest`` (the newest periodic checkpoint).
    :param deterministic: use the agents' deterministic actions.
    :param fallback_cc: a baseline's congestion controller where the env leaves CC to the
        agent (``cc=external``), e.g. for scheduler baselines on ``LeoCC-v0``.
    :param fallback_scheduler: a baseline's scheduler where the env leaves scheduling to the
        agent, e.g. for CC baselines on ``LeoScheduler-v0``.
    :param n_workers: episodes run in parallel, each worker a subprocess (with
        ``backend=ray``: episodes in flight on the Ray cluster at a time).
    :param backend: where episodes run: ``subproc`` (a pool of worker processes of this
        machine) or ``ray`` (Ray tasks on a local Ray instance or the cluster at
        ``ray.address``, each on ``ray.cpus_per_env`` CPUs). Same results either way.
    :param start_method: multiprocessing start method of the workers.
    :param traces: save per-step traces (``traces/*.parquet``), used by the notebooks.
    :param plots: write the summary plots.
    :param progress: show a progress bar.
    :param metrics: metric parameters.
    :param on_worker_death: when a worker process dies (killed, crashed) mid-episode:
        ``continue`` (record that episode as failed with its env and seed, rerun the other
        episodes it interrupted in fresh workers; at most 3 times) or ``stop`` (report and
        exit; finished episodes are saved either way, and ``resume`` retries failed ones).
    :param aggregate: the cross-scenario aggregate statistics (IQM, bootstrap intervals,
        probability of improvement, performance profiles).
    """

    scenarios: list[str] = field(default_factory=list)
    suite: SuiteInfo = field(default_factory=SuiteInfo)
    peers: list[str] = field(default_factory=list)
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4], metadata=bounded(0, MAX_SEED))
    agents: dict[str, str] = field(default_factory=dict)
    checkpoint: str = field(default="final", metadata=choice("final", "best", "latest"))
    deterministic: bool = True
    fallback_cc: str = field(default="cubic", metadata=choice(cc_algorithms))
    fallback_scheduler: str = field(default="minrtt", metadata=choice(schedulers))
    n_workers: int = field(default=2, metadata=bounded(1, 4096))
    backend: str = field(default="subproc", metadata=choice(*EVAL_BACKENDS))
    start_method: str = field(default="forkserver", metadata=choice(*START_METHODS))
    traces: bool = True
    plots: bool = True
    progress: bool = True
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    on_worker_death: str = field(default="continue", metadata=choice("continue", "stop"))
    aggregate: AggregateConfig = field(default_factory=AggregateConfig)


@dataclass
class BaselineSpec:
    """One analytic baseline or classic algorithm (files in ``conf/baseline/``).

    :param name: name in the :mod:`leogym.baselines` registry.
    :param label: display name in tables and plots (default: ``name``).
    :param params: algorithm parameters, as the baseline's factory names them (e.g. MACO's
        ``gamma``; see ``leogym.baselines.<name>``); they reach the native implementation
        through the env's ``cc_params`` or ``scheduler_params``.
    :param env: extra env kwargs for this baseline (e.g. ``{cc: olia}`` to pair a scheduler
        with a coupled CC).
    :param gain: a fixed gain ``a`` in [-1, 1] on the baseline's window: its congestion
        controller runs as the residual mode's base (``env.action_mode=residual``) and every
        step's action is ``a`` on every path, so each window is ``2^a`` times the controller's
        own. The control a learned residual agent is measured against: the best constant
        gain. ``None`` (default): the baseline as it is; ``0`` gives the same episodes.
    """

    name: str = MISSING
    label: str = ""
    params: dict[str, float] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    gain: float | None = field(default=None, metadata=bounded(-1.0, 1.0))
