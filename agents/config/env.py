"""The ``env`` section of the apps: which env to make (:class:`EnvSpec`), the flows of
``LeoMultiFlowCC-v0`` (:class:`FlowsSpec`), and the ``gymnasium.make`` kwargs they give
(:func:`env_kwargs`, :func:`multi_agent_kwargs`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from leogym import schema
from leogym.envs.config import EnvOptions
from leogym.envs.multi_agent import FairnessConfig
from leogym.native import cc_algorithms, core
from leogym.schema import FieldError, bounded

__all__ = ["MULTI_FLOW_ID", "EnvSpec", "FlowsSpec", "env_kwargs", "multi_agent_kwargs"]

#: The Gymnasium id whose flows :class:`FlowsSpec` configures.
MULTI_FLOW_ID = "leogym/LeoMultiFlowCC-v0"


@dataclass
class FlowsSpec:
    """The flows of ``leogym/LeoMultiFlowCC-v0`` (docs/multi_agent.md): several flows on one
    bottleneck, flow 0 the agent's (or the baseline's).

    :param n_flows: how many flows (``None``: the scenario's own ``traffic.flows``); else the
        connection plus ``n_flows - 1`` copies of the scenario's one ``mpquic`` flow entry.
    :param others: the controls of the other ``mpquic`` flows: empty (the scenario's own), one
        name for all of them, or one per flow; a leogym controller (``cubic``, ``bbr``, ...) or
        an ns-3 TCP (``TcpCubic``, ``TcpBbr``: that flow becomes ns-3 TCP).
    :param agents: train every flow as an agent with one shared policy (parameter sharing over
        the PettingZoo env :class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv`; ``others``
        must then be empty); evaluation still runs ``LeoMultiFlowCC-v0``, the policy on flow 0
        beside ``others``.
    :param fairness: the multi-agent reward's fairness terms (only with ``agents``).
    """

    n_flows: int | None = field(default=None, metadata=bounded(1, 64))
    others: list[str] = field(default_factory=list)
    agents: bool = False
    fairness: FairnessConfig = field(default_factory=FairnessConfig)

    @property
    def is_set(self) -> bool:
        """Whether any field differs from its default (the scenario's flows as they are)."""
        return self != FlowsSpec()

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if not self.agents and self.fairness != FairnessConfig():
            raise error(
                f"{path}.fairness", "only for env.flows.agents=true (the multi-agent reward)"
            )
        for k, name in enumerate(self.others):
            if "external" in name:
                raise error(
                    f"{path}.others[{k}]",
                    "'external' needs a policy to drive it; the apps take controller names",
                )
            known = {n for n in cc_algorithms() if "external" not in n}
            known |= set(core().tcp_variants())
            if name not in known:
                raise schema.fail(
                    error, f"{path}.others[{k}]", f"must be one of {', '.join(sorted(known))}", name
                )


@dataclass
class EnvSpec(EnvOptions):
    """Which leogym env to make: its :class:`~leogym.envs.config.EnvOptions` (every env option,
    defined there once) and what the apps need besides.

    The scenario is not here: it is the ``scenario`` group of the root config.

    :param name: short name used in run directories (``cc``, ``scheduler``, ``joint``).
    :param id: Gymnasium id, e.g. ``leogym/LeoCC-v0``. Ids outside ``leogym/`` are made with
        ``kwargs`` only (a debugging aid: any registered Gymnasium env trains and evaluates, with
        the network metrics left empty).
    :param kwargs: extra ``gymnasium.make`` kwargs for a non-leogym id; must be empty for
        leogym ids, whose kwargs are the :class:`~leogym.envs.config.EnvOptions` fields.
    :param flows: the flows of ``leogym/LeoMultiFlowCC-v0`` (:class:`FlowsSpec`).
    """

    name: str = "cc"
    id: str = "leogym/LeoCC-v0"
    kwargs: dict[str, Any] = field(default_factory=dict)
    flows: FlowsSpec = field(default_factory=FlowsSpec)

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        super()._check_relations(path, error)
        if not self.id:
            raise error(f"{path}.id", "must be a Gymnasium env id")
        if self.flows.is_set and self.id != MULTI_FLOW_ID:
            raise error(f"{path}.flows", f"only for {MULTI_FLOW_ID} (env.id is {self.id!r})")
        if self.id.startswith("leogym/"):
            from leogym.envs.registration import ENV_IDS

            if self.id not in ENV_IDS:
                raise schema.fail(
                    error, f"{path}.id", f"must be one of {', '.join(sorted(ENV_IDS))}", self.id
                )
            if self.kwargs:
                raise error(
                    f"{path}.kwargs",
                    "only for non-leogym ids; set leogym env options as env.<field>",
                )


def env_kwargs(env: Any) -> dict[str, Any]:
    """The ``gymnasium.make`` kwargs of an :class:`EnvSpec` (plain Python values, no scenario).

    :param env: an :class:`EnvSpec` or a ``DictConfig`` of one.
    :return: for leogym ids the :class:`~leogym.envs.config.EnvOptions` fields (with
        ``n_flows`` and ``others`` from ``env.flows`` where set); otherwise ``env.kwargs``.
    """
    from omegaconf import DictConfig, OmegaConf

    if isinstance(env, DictConfig):
        data: Any = OmegaConf.to_container(env, resolve=True)
    else:
        data = asdict(env)
    assert isinstance(data, dict)
    if not str(data["id"]).startswith("leogym/"):
        return dict(data.get("kwargs") or {})
    out = {f.name: data[f.name] for f in fields(EnvOptions) if f.name in data}
    if _all_unset(out.get("transport")):
        out.pop("transport", None)  # all unset: the core's defaults (episode keys unchanged)
    if out.get("connection") == "mpquic":  # the default connection: no LEOTP settings
        out.pop("connection")
        out.pop("leotp", None)
    flows = data.get("flows") or {}
    if flows.get("n_flows") is not None:
        out["n_flows"] = int(flows["n_flows"])
    others = list(flows.get("others") or [])
    if others:
        out["others"] = others[0] if len(others) == 1 else others
    return out


def multi_agent_kwargs(env: Any) -> dict[str, Any]:
    """The :class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv` kwargs (no scenario) of an
    :class:`EnvSpec` with ``flows.agents``: the env options, ``n_flows`` and ``fairness``."""
    from omegaconf import DictConfig, OmegaConf

    data: Any = (
        OmegaConf.to_container(env, resolve=True) if isinstance(env, DictConfig) else asdict(env)
    )
    out = env_kwargs(env)
    out["fairness"] = dict(data["flows"]["fairness"])
    return out


def _all_unset(section: Any) -> bool:
    """Whether every option of a (nested) options mapping is ``None``."""
    if isinstance(section, dict):
        return all(_all_unset(v) for v in section.values())
    return section is None
