"""The ``train`` section: how ``leogym-train`` runs, with its curriculum, warm start and
competitors and mixture sub-configs (each defined beside the code that uses it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.agents.competitors import CompetitorsConfig
from leogym.agents.config.common import START_METHODS, VEC_ENVS
from leogym.agents.curriculum import CurriculumConfig
from leogym.agents.mixture import MixtureConfig
from leogym.agents.warm_start import WarmStartConfig
from leogym.schema import bounded, choice

__all__ = ["TrainConfig"]


@dataclass
class TrainConfig:
    """How ``leogym-train`` runs.

    :param total_timesteps: env steps to train for, summed over the ``n_envs`` envs. Resuming
        carries the step count on, so this is the target of the whole run.
    :param n_envs: training envs, one process (one ns-3 simulator) each.
    :param vec_env: where the envs run: ``subproc`` (worker processes of this machine) or
        ``ray`` (Ray actors, on a local Ray instance or the cluster at ``ray.address``; see
        :class:`RayConfig`). Same seed, same ``n_envs``: the same trajectories either way.
    :param start_method: multiprocessing start method of the env workers.
    :param eval_freq: evaluate every this many timesteps (0 = never); the eval env lives in its
        own subprocess too.
    :param eval_episodes: episodes per evaluation (on each scenario of ``eval_suite``).
    :param eval_suite: run the periodic evaluation on this shipped suite's scenarios instead of
        the training scenario, so that ``best_model.zip`` is the checkpoint chosen on them:
        ``validation`` (``conf/suite/validation.yaml``, disjoint from the training
        distributions and from the held-out suite). Empty: the training scenario. A held-out
        suite is not offered: a checkpoint chosen on it would make its figures optimistic.
    :param checkpoint_freq: save a checkpoint every this many timesteps (0 = only at the end
        and on interruption).
    :param save_replay_buffer: save off-policy replay buffers with checkpoints (for resuming).
    :param progress: show a progress bar.
    :param tensorboard: write TensorBoard event files under ``<run>/tb``.
    :param log_interval: SB3 log interval (in rollouts for on-policy, episodes for off-policy).
    :param torch_threads: torch intra-op threads in the trainer process.
    :param on_worker_death: when an env worker process dies (killed, crashed, or its env
        raised): ``stop`` (save a checkpoint, report the worker's env and seed, exit) or
        ``restart`` (report, replace the envs, truncate their episodes, train on; at most 3
        times). See :mod:`leogym.agents.runtime.worker_faults`.
    :param curriculum: the Genet-style curriculum (``train_dist=curriculum``; see
        :mod:`leogym.agents.curriculum`).
    :param warm_start: behaviour cloning from the baselines' logs before training
        (``train.warm_start.store``; see :mod:`leogym.agents.warm_start`).
    :param competitors: competing flows drawn per episode (``train_dist=competing``; see
        :mod:`leogym.agents.competitors`).
    :param mixture: scenarios of other worlds mixed into training (``train_dist=mixture``; see
        :mod:`leogym.agents.mixture`).
    :param init_from: start from this model's parameters (a ``.zip`` of the same algorithm,
        observation and action spaces: fine-tuning a trained agent under another distribution);
        the step count starts at 0 and the optimiser afresh. ``None``: a new policy.
    """

    total_timesteps: int = field(default=100_000, metadata=bounded(1))
    n_envs: int = field(default=2, metadata=bounded(1, 4096))
    vec_env: str = field(default="subproc", metadata=choice(*VEC_ENVS))
    start_method: str = field(default="forkserver", metadata=choice(*START_METHODS))
    eval_freq: int = field(default=10_000, metadata=bounded(0))
    eval_episodes: int = field(default=2, metadata=bounded(1, 10_000))
    eval_suite: str = field(default="", metadata=choice("", "validation"))
    checkpoint_freq: int = field(default=10_000, metadata=bounded(0))
    save_replay_buffer: bool = True
    progress: bool = True
    tensorboard: bool = True
    log_interval: int = field(default=1, metadata=bounded(1))
    torch_threads: int = field(default=1, metadata=bounded(1, 1024))
    on_worker_death: str = field(default="stop", metadata=choice("stop", "restart"))
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    competitors: CompetitorsConfig = field(default_factory=CompetitorsConfig)
    mixture: MixtureConfig = field(default_factory=MixtureConfig)
    init_from: str | None = None
