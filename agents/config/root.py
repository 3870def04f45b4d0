"""The root schema every app composes (:class:`LeogymConfig`), the sections it adds
besides env, agent, train and eval (``ray``, ``main_job``), and their registration in
Hydra's ConfigStore (:func:`register_configs`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from leogym.agents.config.agents import AGENT_SCHEMAS
from leogym.agents.config.common import MAX_SEED
from leogym.agents.config.env import EnvSpec
from leogym.agents.config.evaluation import BaselineSpec, EvalConfig
from leogym.agents.config.train import TrainConfig
from leogym.scenario.config import ScenarioConfig
from leogym.schema import FieldError, bounded

__all__ = ["LeogymConfig", "MainJobConfig", "RayConfig", "register_configs"]


@dataclass
class RayConfig:
    """The Ray instance of ``train.vec_env=ray`` and ``eval.backend=ray`` (docs/workflows.md,
    "Training and evaluating on Ray"). Ray is optional: ``pip install 'leogym[distributed]'``.

    :param address: empty: start a local Ray instance for the run (and stop it after);
        ``auto``: join the cluster started on this machine with ``ray start``;
        ``host:port``: join the cluster whose head listens there (``ray start --head``'s GCS
        port, 6379 by default); ``ray://host:port``: through Ray Client.
    :param num_cpus: CPUs of the local instance (unset: every core of the machine); only
        without ``address``. Ray counts logical CPUs: more than the cores oversubscribes them.
    :param envs_per_actor: training envs per Ray actor: one remote call per actor and step
        carries all its envs (each still its own process and simulator). Raise it to cut the
        per-step overhead when the cluster has many cores per node.
    :param cpus_per_env: Ray CPUs reserved per env (an actor reserves this times its envs;
        an evaluation episode this much); 0 reserves nothing.
    :param start_timeout_s: how long the actors may wait for free CPUs before the run fails
        with what they asked for (an autoscaling cluster may need minutes).
    :param include_dashboard: start Ray's dashboard with a local instance.
    :param log_to_driver: copy the actors' stdout and stderr to this process's.
    """

    address: str = ""
    num_cpus: int | None = field(default=None, metadata=bounded(1, 65_536))
    envs_per_actor: int = field(default=1, metadata=bounded(1, 256))
    cpus_per_env: float = field(default=1.0, metadata=bounded(0.0, 1024.0))
    start_timeout_s: float = field(default=300.0, metadata=bounded(1.0, 86_400.0))
    include_dashboard: bool = False
    log_to_driver: bool = True

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        from leogym.agents.runtime.ray_support import check_address

        try:
            check_address(self.address, f"{path}.address")
        except FieldError as exc:
            raise error(str(exc)) from None
        if self.address and self.num_cpus is not None:
            raise error(
                f"{path}.num_cpus",
                "sizes a local instance only; a cluster (ray.address) has its own CPUs",
            )


@dataclass
class MainJobConfig:
    """The main job (``leogym-run``): train, evaluate against baselines, leaderboard.

    :param agent_label: the trained agent's label in the leaderboard.
    :param sort_by: leaderboard column to sort by (descending): a metric of the results table.
    :param shipped: shipped models evaluated beside the fresh agent: label -> ``zoo:<name>``
        (:mod:`leogym.agents.zoo`), each on its own card's env settings.
    """

    agent_label: str = "PPO"
    sort_by: str = "goodput_mbps"
    shipped: dict[str, str] = field(default_factory=dict)

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        for label, ref in self.shipped.items():
            if label == self.agent_label:
                raise error(f"{path}.shipped.{label}", "must differ from main_job.agent_label")
            from leogym.agents.zoo import names

            if not ref.startswith("zoo:") or ref[len("zoo:") :] not in names():
                raise error(
                    f"{path}.shipped.{label}",
                    f"must be zoo:<name>, a shipped model ({', '.join(names())}; got {ref!r})",
                )


# --------------------------------------------------------------------------------------- root
@dataclass
class LeogymConfig:
    """Root schema of all leogym apps (stored as ``base_config``).

    :param seed: master seed: torch, NumPy, Python and the training envs' first resets.
    :param resume: a run directory (or a checkpoint ``.zip`` in it) to continue. The run's saved
        config is used; only ``train.total_timesteps`` may be raised.
    :param env: the env (group ``env``).
    :param scenario: the scenario (group ``scenario``, schema
        :class:`leogym.scenario.ScenarioConfig`).
    :param agent: the agent (group ``agent``).
    :param ray: the Ray instance of ``train.vec_env=ray`` and ``eval.backend=ray``.
    """

    seed: int = field(default=0, metadata=bounded(0, MAX_SEED))
    resume: str | None = None
    env: EnvSpec = field(default_factory=EnvSpec)
    scenario: ScenarioConfig = field(default_factory=ScenarioConfig)
    agent: Any = MISSING
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    baseline: dict[str, BaselineSpec] = field(default_factory=dict)
    main_job: MainJobConfig = field(default_factory=MainJobConfig)
    ray: RayConfig = field(default_factory=RayConfig)


# ---------------------------------------------------------------------------------- registry
_REGISTERED = False


def register_configs() -> None:
    """Store the schemas in Hydra's ConfigStore and register leogym's resolvers. Idempotent."""
    global _REGISTERED
    if _REGISTERED:
        return
    from hydra.core.config_store import ConfigStore

    from leogym.agents.runtime.resolvers import register_resolvers

    cs = ConfigStore.instance()
    cs.store(name="base_config", node=LeogymConfig)
    cs.store(group="env", name="base_env", node=EnvSpec)
    for name, agent_schema in AGENT_SCHEMAS.items():
        cs.store(group="agent", name=f"base_{name}", node=agent_schema)
    cs.store(group="scenario", name="base_scenario", node=ScenarioConfig)
    register_resolvers()
    _REGISTERED = True
