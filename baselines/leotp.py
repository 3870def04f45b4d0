"""LEOTP: the hop-by-hop, information-centric transport of seed paper 003, as a native baseline.

L. Jiang, Y. Zhang, J. Yin, B. Liu, X. Zhang, "LEOTP: An Information-centric Transport Layer
Protocol for LEO Satellite Networks", ICDCS 2023. The spec: seed 003 of docs/specs/README.md;
the implementation and its [REC] choices: ``cpp/doc/leotp.md``.

LEOTP is not a congestion controller of leogym's transport: it replaces the transport. Its
baseline swaps the connection under study for a LEOTP Consumer and Producer on the route of
the scenario's first path, with a Midnode on the route's ground stations and satellites
(``env_overrides = {"connection": "leotp", "leotp": {...}}``). The env then measures it as it
measures every connection (goodput at the Consumer, one-way delay per Data packet, the losses
the transport detected) and ignores the agent's actions.

Names: ``leotp`` (variant A, the full protocol), ``leotp_b`` (no cache and no in-network
repair), ``leotp_c`` (end-to-end congestion control), ``leotp_d`` (no Midnodes: end-to-end
LEOTP, Fig. 14; the only variant that runs on a path scenario). Variants A-C need a hop
scenario (``scenario.topology: hops``); on a path scenario the env raises a ``ValueError``
naming ``env.leotp.variant``.

Usage::

    policy = make_baseline("leotp")                              # variant A
    policy = make_baseline("leotp_d")                            # end to end
    policy = make_baseline("leotp", target_buffer_packets=10.0)  # BL_tar = 10 packets
    policy = make_baseline("leotp", midnode_fraction=0.25)       # 25 % of satellites
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from leogym import schema
from leogym.baselines.base import NativePolicy
from leogym.scenario.config import LeotpFlowConfig

__all__ = ["CITATION", "VARIANTS", "make_leotp", "BASELINES"]

CITATION = (
    "L. Jiang, Y. Zhang, J. Yin, B. Liu, X. Zhang, LEOTP: An Information-centric Transport "
    "Layer Protocol for LEO Satellite Networks, ICDCS 2023"
)

#: Registry name -> the paper's variant (Table II; D is Fig. 14's end-to-end LEOTP).
VARIANTS = {"leotp": "A", "leotp_b": "B", "leotp_c": "C", "leotp_d": "D"}

#: The parameters a baseline takes (numbers, as every baseline's ``params``).
PARAMS = ("target_buffer_packets", "cache_blocks", "midnode_fraction")


def make_leotp(
    variant: str = "A", params: Mapping[str, Any] | None = None, name: str = "leotp"
) -> NativePolicy:
    """LEOTP as a native policy (``connection="leotp"``).

    :param variant: ``"A"`` .. ``"D"``.
    :param params: ``target_buffer_packets`` (BL_tar, packets, >= 1), ``cache_blocks`` (each
        Midnode's cache, 4096-byte blocks, >= 1), ``midnode_fraction`` ([0, 1]); the ranges
        of a ``transport: leotp`` flow (:class:`~leogym.scenario.config.LeotpFlowConfig`).
    :param name: the registry name (in errors and results).
    :raises ValueError: an unknown or out-of-range parameter, named ``baseline.<name>.<field>``.
    """
    prefix = f"baseline.{name}"
    params = dict(params or {})
    for key in params:
        if key not in PARAMS:
            raise ValueError(f"{prefix}.{key}: unknown parameter (known: {', '.join(PARAMS)})")
    values = dict(params)
    if "cache_blocks" in values and float(values["cache_blocks"]).is_integer():
        values["cache_blocks"] = int(values["cache_blocks"])  # params travel as floats
    cfg = schema.check(LeotpFlowConfig(variant=variant, **values), prefix)
    return NativePolicy(
        name=name,
        env_overrides={"connection": "leotp", "leotp": dataclasses.asdict(cfg)},
        citation=CITATION,
    )


def _factory(name: str, variant: str) -> Callable[..., NativePolicy]:
    def factory(**params: Any) -> NativePolicy:
        return make_leotp(variant, params, name)

    factory.__doc__ = f"{name}: LEOTP variant {variant} ({CITATION})"
    return factory


#: Factories the registry loads.
BASELINES = {name: _factory(name, variant) for name, variant in VARIANTS.items()}
