"""LEOTP's experiments as data: the paper's numbers (:data:`PAPER`), the algorithms under test
(:data:`ALGORITHMS`, and :func:`unavailable` for those this build lacks), the experiment
tables (:data:`GROUPS`: scenario, varied condition, algorithms at each) and their sizes
(:data:`SIZES`), which :func:`tasks` turns into runs through the shared
:func:`~leogym.agents.reproduce.common.grid`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from leogym.agents.reproduce.common import algorithms, grid

#: The paper's numbers (section V; "[D]" values are arithmetic on them, as noted).
PAPER: dict[str, Any] = {
    # Fig. 10: OWD of retransmitted packets, and the cut in mean recovery time.
    # The spec's pass criterion: a cut of at least 50 % at every loss rate (0.5, 1, 2 %).
    "fig10_retx_owd_ms": {"LEOTP": 90.0, "BBR": 160.0},
    "fig10_recovery_cut_pct": (59.0, 64.0),
    "fig10_min_cut_pct": 50.0,
    # Fig. 11: LEOTP's source-traffic slope over BBR's; [D] S p/(1-p) and S P/(1-P),
    # P = 1 - (1-p)^5, for S = 100 MB at p = 1 %.
    "fig11_slope_ratio": 0.20,
    "fig11_overhead_mb_at_1pct": {"LEOTP": 1.01, "BBR": 5.15},
    # Fig. 12: throughput change from 0 to 1 % loss per hop; loss-based CCs at 0.1 %.
    "fig12_drop_pct": {"LEOTP": -1.0, "BBR": -12.0, "PCC": -23.0},
    "fig12_loss_based_below_mbps": 5.0,
    # Fig. 13: at a 1 s switching interval.
    "fig13_gain_pct": {"BBR": 34.0, "PCC": 15.0},
    # Fig. 14: every TCP's queueing above 100 ms; end-to-end LEOTP below 8 Mbit/s; -46 %
    # latency (introduction).
    "fig14_tcp_queueing_ms": 100.0,
    "fig14_leotp_d_below_mbps": 8.0,
    "fig14_latency_cut_pct": 46.0,
    # Fig. 16, Beijing-Shanghai without ISLs.
    "fig16_gain_pct": {"BBR": 4.8, "PCC": 12.4},
    "fig16_queueing_ms": {"LEOTP": 16.0, "BBR": 26.0, "PCC": 400.0},
    # Fig. 17, Beijing-New York.
    "fig17_gain_pct": {"BBR": 8.0, "PCC": 12.2},
    "fig17_queueing_ms": {"LEOTP": 20.0, "BBR": 100.0},
    "fig17_p99_below_hybla_ms": 53.0,
    # Fig. 18: LEOTP 15-20 ms above the ideal OWD, >= 4 % above BBR and PCC; the paper's mean
    # hop counts and great-circle distances.
    "fig18_above_ideal_ms": (15.0, 20.0),
    "fig18_gain_pct": 4.0,
    "fig18_hops": {"hk": 5.15, "pr": 9.53, "ny": 18.88},
    "fig18_km": {"hk": 1968.0, "pr": 8209.0, "ny": 10991.0},
    # 25 % of satellites with a Midnode, Beijing-New York (introduction).
    "partial_ny_pct": {"throughput": 6.0, "latency": -42.0},
    # Table II: variant -> route -> (throughput Mbit/s, OWD ms).
    "table2": {
        "A": {"hk": (7.82, 49.17), "pr": (7.70, 76.57), "ny": (7.91, 118.64)},
        "B": {"hk": (7.78, 51.39), "pr": (7.67, 80.74), "ny": (7.73, 126.10)},
        "C": {"hk": (7.38, 40.15), "pr": (7.23, 66.40), "ny": (6.80, 103.63)},
        "D": {"hk": (7.24, 42.05), "pr": (7.03, 70.38), "ny": (6.52, 112.20)},
    },
    # Abstract: +8 to +12 % throughput, -40 to -60 % delay on Beijing-New York.
    "headline_gain_pct": (8.0, 12.0),
    "headline_delay_cut_pct": (40.0, 60.0),
}


@dataclass(frozen=True)
class Algorithm:
    """One algorithm under test: leogym's transport as the connection under study (``cc``),
    or a ``traffic.flows`` entry (``flow``: ``transport``, ``cc`` and the transport's own
    parameters), which then runs beside an idle connection.

    :ivar payload_bytes: data bytes a full packet carries (source traffic in bytes); every
        algorithm sends 1500-byte IP packets (:data:`WIRE_BYTES`).
    """

    cc: str | None = None
    flow: Mapping[str, Any] | None = None
    payload_bytes: int = 1448


#: IP bytes of a full data packet, every algorithm (the store-and-forward ideal's packet).
WIRE_BYTES = 1500


#: ns-3 TCP segments: 1448 bytes (1500-byte IP packets with timestamps).
TCP_PAYLOAD = 1448


#: leogym's transport: 1472-byte UDP payloads less its 17-byte DATA header (cpp/doc/transport.md).
QUIC_PAYLOAD = 1472 - 17


#: LEOTP: 1472-byte UDP payloads less the 21-byte Data header with its backlog report.
LEOTP_PAYLOAD = 1472 - 21


#: The paper's TCPs were Linux's (section V: the hosts of a Mininet emulation run the kernel's
#: TCP), whose retransmission timer has a 200 ms floor (``TCP_RTO_MIN``); ns-3's default is
#: RFC 6298's 1 s, which stalls every TCP under 1 s path switching (docs/reproduction.md).
LINUX_MIN_RTO_S = 0.2


#: Linux floors the variance term of the timer, not the whole timer: tcp_rtt_estimator keeps
#: the deviation term at least ``rto_min``, so RTO = SRTT + max(rto_min, 4 RTTVAR)
#: (net/ipv4/tcp_input.c, tcp_set_rto), where ns-3 computes max(MinRto, SRTT + max(G,
#: 4 RTTVAR)). ns-3's clock granularity G set to 0.2 s gives Linux's formula.
LINUX_RTO_GRANULARITY_S = LINUX_MIN_RTO_S


#: ... and whose receiver delays an ACK by at most 40 ms once it has seen the flow's RTT
#: (``TCP_DELACK_MIN`` = HZ/25, include/net/tcp.h); ns-3's default is 200 ms, which with a
#: 0.2 s timer floor (ns-3 clamps the whole RTO, Linux only the variance term) turns every
#: lone segment of a loss-based TCP into a spurious timeout (docs/reproduction.md, "LEOTP").
LINUX_DELAYED_ACK_S = 0.04


def _tcp(cc: str) -> Algorithm:
    return Algorithm(
        flow={
            "transport": "tcp",
            "cc": cc,
            "min_rto_s": LINUX_MIN_RTO_S,
            "rto_granularity_s": LINUX_RTO_GRANULARITY_S,
            "delayed_ack_s": LINUX_DELAYED_ACK_S,
        },
        payload_bytes=TCP_PAYLOAD,
    )


def _leotp(**params: Any) -> Algorithm:
    return Algorithm(flow={"transport": "leotp", "leotp": params}, payload_bytes=LEOTP_PAYLOAD)


def _leogym(cc: str) -> Algorithm:
    return Algorithm(cc=cc, payload_bytes=QUIC_PAYLOAD)


#: Label -> algorithm. The paper's baselines first (its names), then LEOTP, then leogym's own.
ALGORITHMS: dict[str, Algorithm] = {
    "Cubic": _tcp("TcpCubic"),
    "Hybla": _tcp("TcpHybla"),
    "Westwood": _tcp("TcpWestwoodPlus"),
    "Vegas": _tcp("TcpVegas"),
    "BBR": _tcp("TcpBbr"),
    "PCC": _tcp("TcpPccVivace"),
    "LEOTP-A": _leotp(variant="A"),
    "LEOTP-B": _leotp(variant="B"),
    "LEOTP-C": _leotp(variant="C"),
    "LEOTP-D": _leotp(variant="D"),
    "LEOTP-A 25%": _leotp(variant="A", midnode_fraction=0.25),
    "LEOTP-A BL_tar=2": _leotp(variant="A", target_buffer_packets=2),
    "LEOTP-A BL_tar=5": _leotp(variant="A", target_buffer_packets=5),
    "LEOTP-A BL_tar=10": _leotp(variant="A", target_buffer_packets=10),
    "LEOTP-A BL_tar=20": _leotp(variant="A", target_buffer_packets=20),
    "LEOTP-A BL_tar=50": _leotp(variant="A", target_buffer_packets=50),
    "cubic (leogym)": _leogym("cubic"),
    "bbr (leogym)": _leogym("bbr"),
    "bbr3 (leogym)": _leogym("bbr3"),
}


TCPS = ("Cubic", "Hybla", "Westwood", "Vegas", "BBR", "PCC")


LEOGYM = ("cubic (leogym)", "bbr (leogym)", "bbr3 (leogym)")


BL_TARGETS = tuple(f"LEOTP-A BL_tar={n}" for n in (2, 5, 10, 20, 50))


LOSS_BASED = ("Cubic", "Hybla", "Westwood")


@functools.cache
def unavailable(label: str) -> str | None:
    """Why algorithm ``label`` cannot run in this build (``None``: it can).

    A flow is tried on a three-node chain: its fields must load as a ``traffic.flows`` entry
    (the scenario schema names an unknown transport or parameter), an ns-3 TCP congestion
    control must be one of the core's ``tcp_variants()``, and the core's config check must
    accept the simulation config; leogym's own congestion controls must be among the core's
    ``cc_algorithms()``.
    """
    from leogym import native

    algo = ALGORITHMS[label]
    if algo.cc is not None:
        if algo.cc not in native.cc_algorithms():
            return f"congestion control {algo.cc!r} is not in this core's cc_algorithms()"
        return None
    assert algo.flow is not None
    flow = dict(algo.flow)
    cc = str(flow.get("cc", ""))
    if flow.get("transport", "tcp") == "tcp":
        if cc.removeprefix("ns3::") not in native.core().tcp_variants():
            return f"ns-3 TCP {cc!r} is not in this core's tcp_variants()"
    from leogym.scenario import load_scenario
    from leogym.simulation.native_config import native_config

    probe = {
        "name": "probe",
        "duration_s": 2.0,
        "topology": "hops",
        "paths": [],
        "traffic": {"flows": [{**flow, "routes": ["r"]}]},
        "hops": {
            "nodes": [{"name": "p", "kind": "server"}, {"name": "m"}, {"name": "c"}],
            "links": [{"a": "p", "b": "m"}, {"a": "m", "b": "c"}],
            "routes": [{"name": "r", "nodes": ["p", "m", "c"]}],
            "paths": ["r"],
        },
    }
    try:
        sc = load_scenario(probe)
        native.core().validate_simulation_config(
            native_config(algorithms("cubic", "minrtt"), sc, 1)
        )
    except (TypeError, ValueError) as exc:
        return str(exc).replace("scenario.traffic.flows[0].", "traffic.flows[].")
    return None


@dataclass(frozen=True)
class Group:
    """One experiment: a scenario, its conditions (what varies) and the algorithms run at each.

    :ivar runs: ``(condition, algorithm labels)`` pairs.
    :ivar what: the condition's meaning (column title).
    """

    scenario: str
    what: str
    runs: tuple[tuple[Any, tuple[str, ...]], ...]


def _product(conditions: Sequence[Any], labels: Sequence[str]) -> tuple:
    return tuple((c, tuple(labels)) for c in conditions)


FIG12_LOSSES = (0.0, 0.001, 0.002, 0.005, 0.01)


#: Fig. 10's loss rates per hop (docs/reproduction.md, "LEOTP": the chain's bulk runs of Fig. 12,
#: and 2 % for BBR and LEOTP).
FIG10_LOSSES = (0.005, 0.01, 0.02)


FIG11_LOSSES = (0.0, 0.005, 0.01, 0.015, 0.02)


FIG13_INTERVALS = (1.0, 2.0, 5.0, 10.0, 20.0)


ROUTES = {"sh": "leotp_bj_sh", "hk": "leotp_bj_hk", "pr": "leotp_bj_pr", "ny": "leotp_bj_ny"}


ROUTE_NAMES = {"sh": "Beijing-Shanghai", "hk": "Beijing-Hong Kong", "pr": "Beijing-Paris"}


ROUTE_NAMES["ny"] = "Beijing-New York"


ABLATION = ("LEOTP-A 25%", "LEOTP-B", "LEOTP-C", "LEOTP-D")


#: The experiments at full size. Figs. 10 and 12 share the chain's bulk runs.
GROUPS: dict[str, Group] = {
    "chain5": Group(
        "leotp_chain5",
        "loss per hop",
        _product(FIG12_LOSSES, (*TCPS[:3], "BBR", "PCC", "LEOTP-A", *LEOGYM))
        + ((0.02, ("BBR", "LEOTP-A", "bbr (leogym)")),),
    ),
    "chain5_file": Group(
        "leotp_chain5", "loss per hop", _product(FIG11_LOSSES, ("BBR", "LEOTP-A", "bbr (leogym)"))
    ),
    "parallel": Group(
        "leotp_parallel",
        "switching interval (s)",
        _product(FIG13_INTERVALS, (*TCPS, "LEOTP-A", *LEOGYM)),
    ),
    "wave": Group(
        "leotp_chain10_wave",
        "bottleneck",
        (("9-11 Mbit/s, 2 s", (*TCPS, *LEOGYM, *BL_TARGETS, "LEOTP-D")),),
    ),
    "dumbbell": Group(
        "leotp_dumbbell",
        "RTTs",
        _product(("same", "different"), ("BBR", "LEOTP-A", "bbr (leogym)")),
    ),
    "starlink": Group(
        "leotp_bj_*",
        "route",
        _product(tuple(ROUTES), (*TCPS, "LEOTP-A", *LEOGYM))
        + _product(("hk", "pr", "ny"), ABLATION),
    ),
}


@dataclass(frozen=True)
class Size:
    """A size of the experiment.

    :ivar seeds: repetitions (ns-3 random streams; the orbit position on the Starlink routes).
    :ivar durations: group -> simulated seconds (the chain file runs: the longest allowed).
    :ivar file_bytes: Fig. 11's file.
    :ivar time_scale: the dumbbell's flow times ([0, 600), [200, 800), [400, 1000) s) times this.
    :ivar groups: group -> the (condition, labels) pairs run; a group left out runs all of
        its :data:`GROUPS` pairs, one mapped to ``()`` none.
    """

    seeds: int
    durations: Mapping[str, float]
    warmup_s: float
    file_bytes: int
    time_scale: float
    groups: Mapping[str, tuple | None] = field(default_factory=dict)


SIZES = {
    "full": Size(
        seeds=5,
        durations={
            "chain5": 60.0,
            "chain5_file": 200.0,
            "parallel": 120.0,
            "wave": 60.0,
            "dumbbell": 1000.0,
            "starlink": 120.0,
        },
        warmup_s=10.0,
        file_bytes=100_000_000,
        time_scale=1.0,
    ),
    "quick": Size(
        seeds=1,
        durations={
            "chain5": 8.0,
            "chain5_file": 30.0,
            "parallel": 8.0,
            "wave": 8.0,
            "dumbbell": 50.0,
            "starlink": 8.0,
        },
        warmup_s=2.0,
        file_bytes=2_000_000,
        time_scale=0.05,
        groups={
            "chain5": _product((0.0, 0.01), ("Cubic", "BBR", "PCC", "LEOTP-A", "bbr (leogym)")),
            "chain5_file": _product((0.0, 0.01), ("BBR", "LEOTP-A")),
            "parallel": _product((1.0, 5.0), ("Vegas", "BBR", "PCC", "LEOTP-A")),
            "wave": (("9-11 Mbit/s, 2 s", ("Cubic", "BBR", "LEOTP-A BL_tar=5", "LEOTP-D")),),
            "dumbbell": _product(("different",), ("BBR", "LEOTP-A")),
            "starlink": _product(tuple(ROUTES), ("Hybla", "BBR", "PCC", "LEOTP-A"))
            + (("ny", ("LEOTP-A 25%",)),),
        },
    ),
}


#: Step of the measurements (s): the paper's 1 s throughput bins.
STEP_S = 1.0


def tasks(size: str, seeds: int | None = None) -> list[dict[str, Any]]:
    """One task per (group, condition, algorithm, seed), the runs of a size."""
    sz = SIZES[size]
    n = sz.seeds if seeds is None else seeds
    extra: dict[str, dict[str, list[float]]] = {
        "chain5_file": {"file_bytes": [sz.file_bytes]},
        "dumbbell": {"time_scale": [sz.time_scale]},
    }
    out = []
    for g, group in GROUPS.items():
        sizes = {"duration_s": [sz.durations[g]], "warmup_s": [sz.warmup_s], **extra.get(g, {})}
        chosen = sz.groups.get(g)
        for cond, labels in group.runs if chosen is None else chosen:
            out += grid(group=[g], condition=[cond], algorithm=labels, seed=range(n), **sizes)
    return out


WAVE = "9-11 Mbit/s, 2 s"


FAR = ("hk", "pr", "ny")
