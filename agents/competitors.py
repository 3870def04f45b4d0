"""Competing flows in training (``train_dist=competing``): the connection learns beside other
flows on its links, so that its share does not collapse where it meets them.

Astraea (Liao et al., EuroSys 2024) and Sage (Yen et al., SIGCOMM 2023) train learned congestion
controllers beside other flows, with a reward that scores the flow's distance from its fair
share. Here the trainer swaps the training env for ``leogym/LeoMultiFlowCC-v0`` (the same
observation and action spaces as ``LeoCC-v0``) with a pool of competitors:

* each episode draws a peer count uniformly from ``peers`` (``[min, max]``; 0 leaves the
  connection alone, so single-flow episodes stay in the mix) and each peer's control uniformly
  from ``pool``, from a random stream of its own seeded by the episode's seed
  (:class:`~leogym.envs.multi_flow.LeoMultiFlowCCEnv`, ``competitors``);
* a peer is a copy of the scenario's one ``mpquic`` entry of ``traffic.flows`` (its routes,
  its start and stop) running a native controller of the pool (``cubic``, ``bbr3``, ``maco``,
  ...) or, for ``self``, a frozen copy of the agent: the policy as it was at the last multiple
  of ``self_every_steps`` (:class:`~leogym.agents.sb3.self_play.SelfSnapshot`);
* the reward's fair-share term (``env.reward.fair``) scores the connection against the share
  of the flows that delivered in the step.

Evaluation runs the env the run was configured with (``env.id``), on the suite's own flows:
the competitors are training's alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from leogym.schema import FieldError, bounded

__all__ = ["SELF", "CompetitorsConfig", "check_competitors"]

#: The pool entry that stands for a frozen copy of the agent.
SELF = "self"


@dataclass
class CompetitorsConfig:
    """``train.competitors``: other flows beside the connection in training
    (``train_dist=competing`` turns it on).

    :param enabled: train on ``leogym/LeoMultiFlowCC-v0`` with peers drawn per episode.
    :param pool: what a peer runs, drawn uniformly: a leogym controller (``cubic``, ``bbr3``,
        ``maco``, ...), an ns-3 TCP (``TcpCubic``: the peer becomes ns-3 TCP on one route) or
        ``self``, a frozen copy of the agent.
    :param peers: ``[min, max]`` peers per episode, drawn uniformly.
    :param self_every_steps: the frozen copy is the policy of the last multiple of this many
        training steps (the first, of step 0: the untrained policy, or the resumed one).
    """

    enabled: bool = False
    pool: list[str] = field(default_factory=lambda: ["cubic", "bbr3", "maco", SELF])
    peers: list[int] = field(default_factory=lambda: [0, 3], metadata=bounded(0, 63))
    self_every_steps: int = field(default=25_000, metadata=bounded(1))

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if not self.enabled:
            return
        if len(self.peers) != 2 or self.peers[0] > self.peers[1]:
            raise error(f"{path}.peers", f"must be [min, max] with min <= max (got {self.peers})")
        if not self.pool:
            raise error(f"{path}.pool", "must name at least one competitor")
        from leogym.native import cc_algorithms, core

        known = {n for n in cc_algorithms() if "external" not in n and "+" not in n}
        known |= set(core().tcp_variants()) | {SELF}
        for k, name in enumerate(self.pool):
            if name not in known:
                raise error(
                    f"{path}.pool[{k}]", f"must be one of {', '.join(sorted(known))} (got {name!r})"
                )

    @property
    def plays_self(self) -> bool:
        """Whether the pool holds a frozen copy of the agent."""
        return SELF in self.pool


def check_competitors(cfg: Any, error: type[FieldError] = FieldError) -> None:
    """The checks of ``train.competitors`` that relate it to the env and the scenario.

    :param cfg: a :class:`~leogym.agents.config.LeogymConfig` with competitors enabled.
    :param error: the exception class raised.
    :raises FieldError: (of class ``error``) naming the field.
    """
    from leogym.agents.config import MULTI_FLOW_ID

    if cfg.env.id not in ("leogym/LeoCC-v0", MULTI_FLOW_ID) or cfg.env.flows.is_set:
        raise error(
            "train.competitors.enabled",
            "competing flows train leogym/LeoCC-v0 or leogym/LeoMultiFlowCC-v0 with env.flows "
            f"unset (the pool replaces them; got env.id={cfg.env.id!r})",
        )
    from leogym.envs.multi_flow import set_flow_count
    from leogym.scenario import load_scenario

    try:
        set_flow_count(
            load_scenario(cfg.scenario),
            cfg.train.competitors.peers[1] + 1,
            "train.competitors.peers",
        )
    except ValueError as exc:
        raise error(str(exc)) from None
