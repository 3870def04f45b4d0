"""Shared-bottleneck physics of the hop topology against outside numbers (leogym issue 14).

Every test builds a controlled hop network (``topology: hops`` with ``hops.nodes``), runs it
once (module-scoped fixtures) and checks one classic result:

1. Equal ns-3 TCP NewReno flows on one drop-tail bottleneck share it fairly (Jain's index,
   R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984; the AIMD fairness argument of D. Chiu and
   R. Jain, "Analysis of the increase and decrease algorithms for congestion avoidance",
   Computer Networks and ISDN Systems 17(1), 1989).
2. Coupled multipath congestion control takes about one flow's share of a bottleneck shared
   by its two paths, uncoupled control about two (RFC 6356, section 2, goals 1-2).
3. Reno flows with different RTTs share a bottleneck in the inverse ratio of their RTTs to a
   power between 1 and 2 (S. Floyd, "Connections with multiple congested gateways in
   packet-switched networks, part 1", ACM CCR 21(5), 1991; T. V. Lakshman and U. Madhow,
   "The performance of TCP/IP for networks with high bandwidth-delay products and random
   loss", IEEE/ACM ToN 5(3), 1997): asserted with random losses (power 1); with drop-tail
   losses alone the ratio is decided by phase effects (measured and documented, not
   asserted), and the test checks the shared queue's delays instead.
4. A hop chain whose only bottleneck is one link carries one flow exactly as the path
   topology's single link with the same delay, rate and queue (and collapses to the same
   arrays).
5. Per-packet one-way and queueing delays equal the arithmetic of propagation, serialisation
   and a full drop-tail queue.

Determinism and phase effects. Apart from the random-loss experiment of 3, nothing in these
networks is random (no loss, constant delays, deterministic TCP), so seeds change nothing.
Drop-tail queues fed by deterministic ACK-clocked flows then show traffic phase effects (S.
Floyd and V. Jacobson, "On traffic phase effects in packet-switched gateways", Internetworking:
Research and Experience 3(3), 1992): which flow loses a packet when the queue overflows
depends on the flows' timing modulo the bottleneck's packet time, and a fraction of a
millisecond of propagation delay can move the shares a lot. Each test states how much.

Wire sizes: leogym's transport sends ``packet_bytes`` of UDP payload (IP packet
``packet_bytes + 28``); ns-3 TCP sends 1448-byte segments (1500-byte IP packets with
timestamps); a link serialises the IP packet (no link-layer header).

Runtime: about 30 s on one core for the whole module (12 simulations, each run once; the
largest are the four 20 Mbit/s ns-3 TCP flows, about 7 s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import build_timeline, load_scenario
from leogym.simulation import Measurements, Simulation
from leogym.simulation.fairness import jain_index

pytestmark = pytest.mark.native

#: ns-3 TCP socket buffers: large enough that no TCP flow here is window-limited (ns-3's
#: default, 128 KiB, caps a flow at 128 KiB per RTT, which would decide the shares itself).
TCP_BUFFER = 1 << 22
#: ns-3 TCP data packet on the wire (1448-byte segment, 32-byte TCP header with timestamps).
TCP_WIRE = 1500
TCP_MSS = 1448


@dataclass
class Run:
    """The measurements of one simulation, one entry per 1 s step."""

    steps: list[Measurements]
    flow_names: list[str]
    scenario: Any
    timeline: Any

    def flow(self, key: str) -> np.ndarray:
        """A per-flow entry over the run, shape ``(steps, flows)``."""
        return np.array([getattr(m, key) for m in self.steps], dtype=np.float64)

    def goodput(self, start: int, stop: int | None = None) -> np.ndarray:
        """Bytes delivered to each flow in steps ``[start, stop)``."""
        return self.flow("flow_goodput_bytes")[start:stop].sum(axis=0)


def controlled(
    links: list[dict[str, Any]],
    routes: dict[str, list[str]],
    paths: list[str],
    flows: list[dict[str, Any]],
    duration_s: float,
    packet_bytes: int = 1400,
) -> dict[str, Any]:
    """A controlled hop network's scenario dict (nodes taken from the links, in order)."""
    nodes: list[str] = []
    for link in links:
        for end in (link["a"], link["b"]):
            if end not in nodes:
                nodes.append(end)
    return {
        "name": "hop-physics",
        "duration_s": duration_s,
        "topology": "hops",
        "paths": [],
        "traffic": {"packet_bytes": packet_bytes, "flows": flows},
        "hops": {
            "nodes": [{"name": n} for n in nodes],
            "links": links,
            "routes": [{"name": name, "nodes": hops} for name, hops in routes.items()],
            "paths": paths,
        },
    }


def simulate(data: dict[str, Any], cc: str, seed: int = 1, **transport: Any) -> Run:
    """Run a scenario dict to its end in 1 s steps."""
    scenario = load_scenario(data)
    settings = EnvConfig.from_kwargs(
        scenario=None,
        cc=cc,
        scheduler="minrtt",
        transport={"tcp_buffer_bytes": TCP_BUFFER, **transport},
    )
    with Simulation.open(settings, scenario, seed) as sim:
        steps = [sim.step(1.0) for _ in range(int(round(scenario.duration_s)))]
        return Run(steps, list(sim.flow_names), scenario, sim.timeline)


# A dumbbell: sources at s, a fast access link, the bottleneck r1 -> r2, a fast egress link.
# Propagation RTT 2 * (2 + 15 + 3) ms = 40 ms.
def dumbbell(rate_mbps: float, bottleneck_ms: float = 15.0) -> list[dict[str, Any]]:
    return [
        {"a": "s", "b": "r1", "rate_mbps": 1000, "delay_ms": 2},
        {"a": "r1", "b": "r2", "rate_mbps": rate_mbps, "delay_ms": bottleneck_ms},
        {"a": "r2", "b": "c", "rate_mbps": 1000, "delay_ms": 3},
    ]


#: A private route for the connection under study where it must not touch the bottleneck.
PRIVATE_LINKS = [
    {"a": "s", "b": "x", "rate_mbps": 1, "delay_ms": 10},
    {"a": "x", "b": "c", "rate_mbps": 1, "delay_ms": 10},
]
DUMBBELL = ["s", "r1", "r2", "c"]


# --------------------------------------------------------------------------- 1. Jain's index
JAIN_FLOWS = 4
JAIN_RATE = 20.0


@pytest.fixture(scope="module")
def equal_flows() -> Run:
    # The connection runs on its own route (s -> x -> c, 1 Mbit/s links) that shares no link
    # with the bottleneck, so the N flows under study are N identical ns-3 NewReno flows.
    data = controlled(
        dumbbell(JAIN_RATE) + PRIVATE_LINKS,
        {"main": DUMBBELL, "own": ["s", "x", "c"]},
        ["own"],
        [{"name": "reno", "transport": "tcp", "cc": "NewReno", "routes": ["main"],
          "count": JAIN_FLOWS}],
        duration_s=60.0,
    )  # fmt: skip
    return simulate(data, cc="newreno")


def test_equal_newreno_flows_share_the_bottleneck_fairly(equal_flows: Run) -> None:
    """Four ns-3 TcpNewReno bulk flows, 20 Mbit/s bottleneck, 40 ms propagation RTT, 1 BDP
    drop-tail queue (72 packets: the BDP in 1400-byte packets), all starting at 0: Jain's index
    of the goodput summed over the last 30 s of 60 s must be >= 0.95 (Chiu and Jain: AIMD
    converges to the fair share; 0.95 leaves room for the drop-tail queue's uneven loss
    assignment over a finite window).

    Measured (seed 1; the run is deterministic, other seeds give the same): 0.974 (shares
    0.276, 0.217, 0.204, 0.303 of 19.31 Mbit/s). Phase sensitivity: with the bottleneck delay
    moved by 0.075 to 0.525 ms (eighths of its 0.6 ms packet time) 0.963-0.997; at 10 Mbit/s
    (windows half as large; earlier 128 KiB TCP buffers) 0.943-0.991.
    """
    assert equal_flows.flow_names[1:] == [f"reno.{j}" for j in range(JAIN_FLOWS)]
    share = equal_flows.goodput(30, 60)[1:]
    # the bottleneck is full: 20 Mbit/s less the TCP/IP headers
    assert share.sum() * 8 / 30 > 0.95 * JAIN_RATE * 1e6 * TCP_MSS / TCP_WIRE
    assert jain_index(share) >= 0.95, share / share.sum()
    # and the connection stayed on its own 1 Mbit/s route
    assert equal_flows.goodput(30, 60)[0] * 8 / 30 < 1e6


# --------------------------------------------------------------- 2. RFC 6356 shared bottleneck
MP_RATE = 10.0
MP_WARM = 10
MP_CCS = ("newreno", "cubic", "lia", "olia", "balia")


def shared_bottleneck(cc: str) -> Run:
    """The connection's two paths (routes ``p0`` and ``p1``) and a single-path reference flow
    (route ``ref``) all cross ``s -> r1 -> r2 -> c``: one 10 Mbit/s drop-tail queue."""
    reference = "cubic" if cc == "cubic" else "newreno"
    data = controlled(
        dumbbell(MP_RATE),
        {"p0": DUMBBELL, "p1": DUMBBELL, "ref": DUMBBELL},
        ["p0", "p1"],
        [{"name": "ref", "transport": "mpquic", "cc": reference, "routes": ["ref"]}],
        duration_s=60.0,
    )
    return simulate(data, cc=cc)


@pytest.fixture(scope="module")
def multipath() -> dict[str, Run]:
    return {cc: shared_bottleneck(cc) for cc in MP_CCS}


def share_ratio(run: Run) -> float:
    """Goodput of the connection over that of the single-path reference flow, 10-60 s."""
    g = run.goodput(MP_WARM)
    return float(g[0] / g[1])


@pytest.mark.parametrize("cc", ["lia", "olia", "balia"])
def test_coupled_multipath_takes_about_one_share(multipath: dict[str, Run], cc: str) -> None:
    """RFC 6356 section 2, goal 2 ("do no harm"): a multipath flow should take no more from a
    shared bottleneck than a single-path flow would. Two subflows on one 10 Mbit/s, 40 ms
    bottleneck (1 BDP queue: 36 packets of 1428 B) beside one single-path flow of leogym's
    transport running NewReno, which LIA (RFC 6356 section 3), OLIA (R. Khalili et al., "MPTCP
    is not Pareto-optimal", CoNEXT 2012) and BALIA (Q. Peng et al., "Multipath TCP: analysis,
    design and implementation", IEEE/ACM ToN 24(1), 2016) reduce to on one path. Ratio
    connection / reference goodput over 10-60 s of 60 s.

    Tolerance 0.6-1.5, the path topology test's (tests/native/test_transport_multipath.py):
    one share is 1; two identical single-path NewReno flows here measure 0.92-1.11 over the
    drop-tail phase, and LIA is known to take more than one share (Khalili et al.), OLIA and
    BALIA less so.

    Measured (seed 1): LIA 1.197, OLIA 1.104, BALIA 1.130 (the path topology, same experiment:
    1.234, 1.104, 1.130). Over eight bottleneck delays an eighth of a packet time apart: LIA
    0.95-1.40, OLIA 0.95-1.42, BALIA 0.90-1.28. At 20 Mbit/s (not tested: twice the run time)
    the same sweep gives LIA 1.17-1.61, OLIA 1.11-1.43, BALIA 1.08-1.56: above 1.5 at some
    delays. The reference is leogym's own NewReno, not ns-3's TCP: our NewReno takes 0.58-0.85
    of an ns-3 TcpLinuxReno's share and 1.24-2.28 of a TcpNewReno's (per-ACK increase) on this
    bottleneck, which would decide the ratio (cpp/doc/hops.md, "Validation").
    """
    ratio = share_ratio(multipath[cc])
    assert 0.6 < ratio < 1.5, ratio


@pytest.mark.parametrize("cc", ["newreno", "cubic"])
def test_uncoupled_multipath_takes_about_two_shares(multipath: dict[str, Run], cc: str) -> None:
    """RFC 6356 section 2: two uncoupled subflows on one bottleneck behave as two flows and
    take about two shares. The reference flow runs the same controller on one path (NewReno
    for NewReno, CUBIC for CUBIC: outside its Reno-friendly region, RFC 9438 section 4.3, CUBIC
    takes more than Reno, so a NewReno reference would not measure "two shares"). Tolerance
    1.6-2.6, the path topology test's.

    Measured (seed 1): NewReno 1.809, CUBIC 1.798 (the path topology, same experiment: 1.905,
    2.039); over eight bottleneck delays NewReno 1.81-2.26, CUBIC 1.77-2.21.
    """
    ratio = share_ratio(multipath[cc])
    assert 1.6 < ratio < 2.6, ratio


def test_shared_bottleneck_is_one_queue(multipath: dict[str, Run]) -> None:
    """The three routes share one link: together they fill it, and only it drops."""
    for cc, run in multipath.items():
        total = run.goodput(MP_WARM).sum() * 8 / (60 - MP_WARM)
        assert total > 0.95 * MP_RATE * 1e6 * 1400 / 1428, cc
        drops = sum(m.link_drops_overflow for m in run.steps)
        assert drops[1, 0] > 0 and drops.sum() == drops[1, 0], cc


# ------------------------------------------------------------------------ 3. RTT unfairness
RTT_RATE = 10.0
RTT_WARM = 10
RTT_SHORT, RTT_LONG = 0.040, 0.080
#: Random loss on the bottleneck for the random-loss regime, and its seeds.
RTT_LOSS = 3e-3
RTT_SEEDS = (1, 2, 3)


def rtt_pair(offset_ms: float = 0.0, loss: float = 0.0, seed: int = 1) -> Run:
    """ns-3 NewReno from ``sa`` (RTT 40 ms) and from ``sb`` (RTT 80 ms) through r1 -> r2 (10
    Mbit/s, 1 BDP queue: the link's BDP at the longer RTT, 70 packets of 1448 B)."""
    links = [
        {"a": "sa", "b": "r1", "rate_mbps": 1000, "delay_ms": 2},
        {"a": "sb", "b": "r1", "rate_mbps": 1000, "delay_ms": 22},
        {
            "a": "r1",
            "b": "r2",
            "rate_mbps": RTT_RATE,
            "delay_ms": 15 + offset_ms,
            "loss": loss,
            "loss_up": 0.0,
        },
        {"a": "r2", "b": "c", "rate_mbps": 1000, "delay_ms": 3},
        {"a": "sa", "b": "x", "rate_mbps": 1, "delay_ms": 10},
        {"a": "x", "b": "c", "rate_mbps": 1, "delay_ms": 10},
    ]
    data = controlled(
        links,
        {"short": ["sa", "r1", "r2", "c"], "long": ["sb", "r1", "r2", "c"],
         "own": ["sa", "x", "c"]},
        ["own"],
        [{"name": "short", "transport": "tcp", "cc": "NewReno", "routes": ["short"]},
         {"name": "long", "transport": "tcp", "cc": "NewReno", "routes": ["long"]}],
        duration_s=60.0,
        packet_bytes=TCP_MSS,
    )  # fmt: skip
    return simulate(data, cc="newreno", seed=seed)


def mean_queue_delay(run: Run, flows: slice) -> np.ndarray:
    """Each flow's queueing delay over steps RTT_WARM.., weighted by packets."""
    queue = run.flow("flow_queue_delay_s")[RTT_WARM:, flows]
    packets = run.flow("flow_packets")[RTT_WARM:, flows]
    return np.asarray(np.nansum(queue * packets, axis=0) / packets.sum(axis=0))


@pytest.fixture(scope="module")
def rtt_drop_tail() -> Run:
    return rtt_pair()


@pytest.fixture(scope="module")
def rtt_random_loss() -> list[Run]:
    return [rtt_pair(loss=RTT_LOSS, seed=seed) for seed in RTT_SEEDS]


def test_rtt_pair_shares_one_queue(rtt_drop_tail: Run) -> None:
    """The two flows of different RTT cross one drop-tail queue: together they fill the
    bottleneck; each packet's one-way delay less its queueing delay is its route's
    propagation plus serialisation (20 or 40 ms, plus 1500 B at 1 Gbit/s, 10 Mbit/s and
    1 Gbit/s: 1.224 ms), and the two flows wait about equally long in the queue (they sample
    one FIFO at different instants: within 10 %; measured 56.2 and 57.9 ms).

    The classic RTT bias is NOT asserted here: with drop-tail and deterministic flows it is
    decided by phase effects (Floyd and Jacobson, 1992). Measured throughput ratio short /
    long over 10-60 s (seed 1) for bottleneck delays 15 + {0, 0.15, ..., 1.05} ms: 3.40,
    3.40, 0.87, 3.71, 2.19, 2.19, 0.49, 2.64, against 1.41-4 from the classic result (a
    between 1 and 2, effective RTTs with the 57 ms of queueing). See cpp/doc/hops.md,
    "Validation".
    """
    run = rtt_drop_tail
    assert run.flow_names == ["connection", "short", "long"]
    g = run.goodput(RTT_WARM)
    assert g[1:].sum() * 8 / (60 - RTT_WARM) > 0.95 * RTT_RATE * 1e6 * TCP_MSS / TCP_WIRE
    serialisation = TCP_WIRE * 8 * (1 / 1e9 + 1 / (RTT_RATE * 1e6) + 1 / 1e9)
    for m in run.steps[1:]:
        for f, prop in ((1, RTT_SHORT / 2), (2, RTT_LONG / 2)):
            owd = m.flow_owd_mean_s[f] - m.flow_queue_delay_s[f]
            assert owd == pytest.approx(prop + serialisation, abs=1e-6), (f, m.time_s)
    q = mean_queue_delay(run, slice(1, 3))
    assert run.timeline.network.links[2].name == "r1-r2"
    full = run.timeline.network.links[2].arrays.queue_packets * TCP_WIRE * 8 / (RTT_RATE * 1e6)
    assert np.all((0.25 * full < q) & (q < full)), q
    assert q[0] == pytest.approx(q[1], rel=0.1)


def test_rtt_bias_under_random_loss_is_inverse_rtt(rtt_random_loss: list[Run]) -> None:
    """Both flows lose packets at random on the bottleneck (p = 0.003 in the data direction,
    so random losses, not the drop-tail queue's phase, decide who loses): Reno's throughput
    is MSS / RTT x C / sqrt(p) (M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic
    behavior of the TCP congestion avoidance algorithm", ACM CCR 27(3), 1997; the random-loss
    case of Lakshman and Madhow 1997, a = 1), so short / long = RTT_long / RTT_short with the
    RTTs including the queueing delay each flow sees: 1.97 here. Tolerance 15 % on the
    goodput pooled over seeds 1-3 (the seeds' own ratios spread by about 10 %).

    Measured (10-60 s of 60 s): seeds 1, 2, 3: 2.14, 1.98, 1.71; pooled 1.93 (3.86, 3.81,
    3.46 against 1.80, 1.93, 2.02 Mbit/s); expected 1.97 (queueing 1.6 and 1.7 ms).
    """
    short = sum(r.goodput(RTT_WARM)[1] for r in rtt_random_loss)
    long_ = sum(r.goodput(RTT_WARM)[2] for r in rtt_random_loss)
    q = np.mean([mean_queue_delay(r, slice(1, 3)) for r in rtt_random_loss], axis=0)
    expected = (RTT_LONG + q[1]) / (RTT_SHORT + q[0])
    assert short / long_ == pytest.approx(expected, rel=0.15), (short / long_, expected)
    for r in rtt_random_loss:  # random losses, not a full queue, limit the flows
        random = sum(m.link_drops_random[2, 0] for m in r.steps[RTT_WARM:])
        overflow = sum(m.link_drops_overflow[2, 0] for m in r.steps[RTT_WARM:])
        assert overflow < 0.1 * random, (overflow, random)


# ------------------------------------------------------------- 4. hop mode equals path mode
CHAIN_RATE = 20.0
CHAIN_DELAY_MS = 20.0


def chain_scenario() -> dict[str, Any]:
    """1 Gbit/s (5 ms), 20 Mbit/s (10 ms, queue 1 BDP), 1 Gbit/s (5 ms): one-way 20 ms."""
    links = [
        {"a": "s", "b": "r1", "rate_mbps": 1000, "delay_ms": 5},
        {"a": "r1", "b": "r2", "rate_mbps": CHAIN_RATE, "delay_ms": 10},
        {"a": "r2", "b": "c", "rate_mbps": 1000, "delay_ms": 5},
    ]
    return controlled(links, {"main": DUMBBELL}, ["main"], [], duration_s=60.0)


def path_scenario() -> dict[str, Any]:
    """The same as one terrestrial path with a constant rate."""
    return {
        "name": "path-physics",
        "duration_s": 60.0,
        "traffic": {"packet_bytes": 1400},
        "paths": [
            {
                "name": "main",
                "kind": "terrestrial",
                "queue": {"size": 1.0, "unit": "bdp"},
                "terrestrial": {
                    "one_way_delay_ms": CHAIN_DELAY_MS,
                    "capacity": "constant",
                    "rate_down_mbps": CHAIN_RATE,
                },
            }
        ],
    }


def test_collapsed_chain_equals_the_path_arrays() -> None:
    """The chain's route collapsed (docs/scenario.md, "Collapse") is the path's timeline."""
    hop = build_timeline(load_scenario(chain_scenario()), 1)
    path = build_timeline(load_scenario(path_scenario()), 1)
    assert hop.network is not None and path.network is None
    a, b = hop.paths[0], path.paths[0]
    assert (a.name, a.kind, a.queue_packets) == (b.name, b.kind, b.queue_packets)
    for key in ("delay_down_s", "delay_up_s", "loss_down", "loss_up"):
        np.testing.assert_allclose(getattr(a, key), getattr(b, key), rtol=0, atol=1e-15)
    for key in ("rate_down_bps", "rate_up_bps", "serving_sat", "outages", "handovers"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
    for key in ("snr_db", "elevation_deg"):
        assert np.isnan(getattr(a, key)).all() and np.isnan(getattr(b, key)).all()


@pytest.fixture(scope="module")
def chain_and_path() -> tuple[Run, Run]:
    return simulate(chain_scenario(), cc="cubic"), simulate(path_scenario(), cc="cubic")


def test_hop_chain_carries_one_flow_as_the_path_does(chain_and_path: tuple[Run, Run]) -> None:
    """One CUBIC connection, 30-60 s: goodput within 5 % (measured: 19.3697 Mbit/s both, the
    same bytes over 30-60 s; single 1 s steps differ by at most one packet). Its minimum RTT
    differs by the two fast links' serialisation only: a data packet (1428 B) and an ACK each
    cross two 1 Gbit/s links (measured 23.66 us: 22.85 us of data, ACKs of about 50 B)."""
    hop, path = chain_and_path
    g_hop, g_path = hop.goodput(30, 60)[0], path.goodput(30, 60)[0]
    assert g_hop == pytest.approx(g_path, rel=0.05)
    assert g_path * 8 / 30 > 0.95 * CHAIN_RATE * 1e6 * 1400 / 1428
    extra = float(hop.steps[-1].min_rtt_s[0] - path.steps[-1].min_rtt_s[0])
    data = 2 * 1428 * 8 / 1e9
    assert data <= extra <= data + 2 * 200 * 8 / 1e9, extra


# ------------------------------------------------------------------ 5. per-packet delays
OWD_Q = 50
OWD_RATE = 10e6
OWD_WIRE = 1400 + 28


@pytest.fixture(scope="module")
def probe() -> Run:
    """A 1 Mbit/s UDP probe (10 % of the 10 Mbit/s bottleneck) on 100 / 10 / 100 Mbit/s links
    (3, 12 and 5 ms); from 10 s a 10 Mbit/s UDP flow on the same route overloads the
    bottleneck (50-packet queue). The connection has its own route."""
    links = [
        {"a": "s", "b": "r1", "rate_mbps": 100, "delay_ms": 3},
        {"a": "r1", "b": "r2", "rate_mbps": 10, "delay_ms": 12,
         "queue": {"size": OWD_Q, "unit": "packets"}},
        {"a": "r2", "b": "c", "rate_mbps": 100, "delay_ms": 5},
    ] + PRIVATE_LINKS  # fmt: skip
    data = controlled(
        links,
        {"main": DUMBBELL, "own": ["s", "x", "c"]},
        ["own"],
        [{"name": "probe", "transport": "udp_onoff", "rate_mbps": 1.0, "off_s": 0,
          "routes": ["main"]},
         {"name": "load", "transport": "udp_onoff", "rate_mbps": 10.0, "off_s": 0,
          "routes": ["main"], "start_s": 10.0}],
        duration_s=20.0,
    )  # fmt: skip
    return simulate(data, cc="newreno")


#: Propagation plus one serialisation per hop of a probe packet.
PROBE_OWD = 0.020 + OWD_WIRE * 8 * (1 / 100e6 + 1 / 10e6 + 1 / 100e6)


def test_uncongested_one_way_delay_is_propagation_plus_serialisation(probe: Run) -> None:
    """Alone on the chain, every probe packet's one-way delay is 20 ms of propagation plus
    1428 B serialised at 100, 10 and 100 Mbit/s: 21.37088 ms (measured: 21.37088 ms, mean,
    p50 and max alike), with no queueing."""
    assert probe.flow_names == ["connection", "probe", "load"]
    for m in probe.steps[1:10]:
        assert 89 <= m.flow_packets[1] <= 90  # 1 Mbit/s of 1400-byte payloads
        for key in ("flow_owd_mean_s", "flow_owd_p50_s", "flow_owd_max_s", "flow_owd_p99_s"):
            assert getattr(m, key)[1] == pytest.approx(PROBE_OWD, abs=1e-6), key
        assert abs(m.flow_queue_delay_s[1]) < 1e-9
        assert m.flow_packets[2] == 0 and math.isnan(m.flow_owd_mean_s[2])


def test_full_drop_tail_queue_delays_by_its_length(probe: Run) -> None:
    """Overloaded (11 Mbit/s offered to 10), the bottleneck's queue stays full: a packet that
    gets in waits for the OWD_Q packets ahead of it less the part of the first one already
    sent, between (Q - 1) T and Q T with T = 1428 B / 10 Mbit/s = 1.1424 ms: 55.98-57.12 ms
    (measured 56.87-56.88 ms). The one-way delay less the arithmetic of test above is that
    queueing delay (measured to 1e-9 s)."""
    t = OWD_WIRE * 8 / OWD_RATE
    for m in probe.steps[12:]:
        assert m.link_queue_packets[1, 0] >= OWD_Q - 1
        for f in (1, 2):
            q = m.flow_queue_delay_s[f]
            assert (OWD_Q - 1) * t <= q <= OWD_Q * t, (f, q)
            assert m.flow_owd_mean_s[f] - PROBE_OWD == pytest.approx(q, abs=1e-6)
            assert m.flow_owd_max_s[f] <= PROBE_OWD + OWD_Q * t + 1e-6


def test_connection_delay_less_queueing_is_its_route_arithmetic(probe: Run) -> None:
    """The connection saturates its private 1 Mbit/s route (two 10 ms links): per step, its
    mean one-way delay less its mean queueing delay is 20 ms plus two serialisations of a
    1428-byte packet at 1 Mbit/s (42.848 ms)."""
    own = 0.020 + 2 * OWD_WIRE * 8 / 1e6
    for m in probe.steps[1:]:
        assert m.flow_queue_delay_s[0] > 0.0
        assert m.flow_owd_mean_s[0] - m.flow_queue_delay_s[0] == pytest.approx(own, abs=1e-6)
