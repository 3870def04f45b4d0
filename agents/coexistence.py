"""Coexistence checks (``eval.peers``): every scenario of an evaluation run again with its
competing flows switched to each of a list of controllers.

A learned controller that wins alone can still starve, or be starved by, the flows it meets.
``leogym-eval suite=coexistence`` (conf/suite/coexistence.yaml) runs each scenario once per
entry of ``eval.peers``: every bulk flow of the scenario's ``traffic.flows`` (``mpquic`` or
``tcp``; cross traffic stays as it is) runs that controller on its own routes. A leogym
controller (``cubic``, ``bbr3``, ``maco``, ...) makes the flow a leogym MPQUIC flow, an ns-3 TCP
name (``TcpCubic``, ...) an ns-3 TCP flow. The variant is named ``<scenario>+<peer>`` in the
results, where ``share_of_fair`` and ``jain_flows`` tell whether the connection held its share
(:mod:`leogym.agents.results.metrics`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from leogym.scenario import load_scenario
from leogym.scenario.config import ScenarioConfig
from leogym.schema import FieldError

__all__ = ["peer_controls", "with_peer_variants", "with_peers"]

#: The flow kinds whose controller a peer setting replaces.
_BULK = ("mpquic", "tcp")


def peer_controls() -> set[str]:
    """The controllers a peer may run: leogym's (not the agent's ``external``, no wrapper)
    and ns-3's TCP variants."""
    from leogym.envs.config import residual_bases
    from leogym.native import core

    return set(residual_bases()) | set(core().tcp_variants())


def with_peers(scenario: ScenarioConfig, control: str, field: str = "eval.peers") -> ScenarioConfig:
    """``scenario`` with every ``mpquic`` and ``tcp`` flow of ``traffic.flows`` running
    ``control`` (its name, routes, start and stop kept).

    :raises FieldError: naming ``field``: an unknown controller, a scenario without such a
        flow, or an ns-3 TCP controller for a flow with several routes.
    """
    from leogym.native import core

    if control not in peer_controls():
        raise FieldError(field, f"unknown controller {control!r}: one of {sorted(peer_controls())}")
    tcp = control in set(core().tcp_variants())
    flows = list(scenario.traffic.flows)
    if not any(fc.transport in _BULK for fc in flows):
        raise FieldError(field, f"scenario {scenario.name!r} has no mpquic or tcp flow to replace")
    out = []
    for fc in flows:
        if fc.transport in _BULK:
            if tcp and len(fc.routes) != 1:
                raise FieldError(
                    field,
                    f"{control!r} is an ns-3 TCP and flow {fc.name!r} of scenario "
                    f"{scenario.name!r} has {len(fc.routes)} routes (TCP takes one)",
                )
            if tcp:
                fc = dataclasses.replace(fc, transport="tcp", cc=control)
            else:  # the TCP-only settings do not apply to an MPQUIC flow
                fc = dataclasses.replace(
                    fc, transport="mpquic", cc=control, min_rto_s=None, delayed_ack_s=None
                )
        out.append(fc)
    traffic = dataclasses.replace(scenario.traffic, flows=out)
    return load_scenario(dataclasses.replace(scenario, traffic=traffic))


def with_peer_variants(
    suite: Sequence[tuple[str, Any]], peers: Sequence[str]
) -> list[tuple[str, Any]]:
    """An evaluation suite's ``(name, payload)`` entries, each replaced by one variant per
    peer controller (``<name>+<peer>``, the payload a scenario dict); ``suite`` itself when
    ``peers`` is empty."""
    if not peers:
        return list(suite)
    out = []
    for name, payload in suite:
        scenario = load_scenario(payload)
        for k, peer in enumerate(peers):
            variant = with_peers(scenario, peer, f"eval.peers[{k}]")
            out.append((f"{name}+{peer}", dataclasses.asdict(variant)))
    return out
