"""LEOTP on controlled hop chains (cpp/doc/leotp.md, "Measured behaviour" and "Validation").

Every network here is a controlled hop network (``topology: hops`` with ``hops.nodes``): a
chain ``p - m1 - ... - c`` of equal hops, the Producer on ``p``, the Consumer on ``c``, a
Midnode on every inner node (``router`` kind unless stated), loss applied in both
directions. The connection under study runs on a private route ``p - x - c`` (1 Mbit/s) that
shares no link with the chain. Packets: 1472 bytes of UDP payload (the 21-byte LEOTP header
and MSS = 1451), 1500 bytes on the wire.

Reference values come from the paper's model or arithmetic:

* wire efficiency: goodput <= rate x 1451 / 1500 (19.35 Mbit/s at 20 Mbit/s);
* eq. (5): with hop-by-hop repair, a loss p per hop costs a fraction p of throughput (-1 % at
  1 %), against 1 - (1 - p)^5 = 4.9 % end to end (eq. (4));
* source traffic: only the first hop's losses reach the Producer, S p / (1 -
  p) of repeated bytes; without caches every loss does, S P / (1 - P), P = 1 - (1 - p)^5;
* recovery time (item 11): a loss is repaired on its own hop, about one hop RTT (20.6 ms here)
  after a later packet reveals it, against one end-to-end RTT (103 ms) without caches;
* the fixed point (item 8): propagation, serialisation and BL_tar at the bottleneck add up to
  about 113 ms of one-way delay.

Where the implementation falls short of the pass criterion written for LEOTP's reproduction
(issue 18) the test asserts the
measured behaviour with the reason (cpp/doc/leotp.md, "Measured behaviour"): the delay-based
window of eqs. (6)-(8) (cut to 0.8 BDP, then +1 packet per hop RTT) runs a sawtooth below the
link rate, so a saturated hop carries about 92 % of its rate, not the >= 95 % expected.

Runtime: about 15 s on one core for the module (each simulation once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.scenario.errors import ScenarioConfigError
from leogym.simulation import Measurements, Simulation

pytestmark = pytest.mark.native

PAYLOAD = 1472  # UDP payload of a full packet: 1500 bytes on the wire
MSS = PAYLOAD - 21
WIRE = PAYLOAD + 28
EFFICIENCY = MSS / WIRE


def chain(
    hops: int = 5,
    rate_mbps: float = 20.0,
    delay_ms: float = 10.0,
    loss: float = 0.0,
    duration_s: float = 10.0,
    leotp: dict[str, Any] | None = None,
    rates: dict[int, float] | None = None,
    kinds: dict[int, str] | None = None,
    file_bytes: int | None = None,
) -> dict[str, Any]:
    """A chain of ``hops`` equal links (link ``i`` at ``rates[i]`` if given) with a LEOTP flow
    from ``p`` to ``c``; ``kinds`` sets inner node ``i``'s kind (default ``router``)."""
    inner = [f"m{i}" for i in range(1, hops)]
    nodes = ["p", *inner, "c"]
    kinds = kinds or {}
    links = [
        {
            "a": nodes[i],
            "b": nodes[i + 1],
            "rate_mbps": (rates or {}).get(i, rate_mbps),
            "delay_ms": delay_ms,
            "loss": loss,
            "queue": {"size": 1000, "unit": "packets"},
        }
        for i in range(hops)
    ]
    links += [
        {"a": "p", "b": "x", "rate_mbps": 1.0, "delay_ms": 1.0},
        {"a": "x", "b": "c", "rate_mbps": 1.0, "delay_ms": 1.0},
    ]
    flow: dict[str, Any] = {
        "name": "leotp",
        "transport": "leotp",
        "routes": ["chain"],
        "leotp": dict(leotp or {}),
    }
    if file_bytes is not None:
        flow.update(workload="file", file_bytes=file_bytes)
    return {
        "name": "leotp-chain",
        "duration_s": duration_s,
        "topology": "hops",
        "paths": [],
        "traffic": {"packet_bytes": PAYLOAD, "start_s": duration_s - 0.5, "flows": [flow]},
        "hops": {
            "nodes": [{"name": "p", "kind": "server"}]
            + [{"name": n, "kind": kinds.get(i + 1, "router")} for i, n in enumerate(inner)]
            + [{"name": "c", "kind": "terminal"}, {"name": "x"}],
            "links": links,
            "routes": [
                {"name": "chain", "nodes": nodes},
                {"name": "own", "nodes": ["p", "x", "c"]},
            ],
            "paths": ["own"],
        },
    }


@dataclass
class Run:
    steps: list[Measurements]
    stats: list[dict[str, Any]]  # leotp_stats after each step
    dt: float

    def goodput_mbps(self, t0: float, t1: float) -> float:
        """LEOTP goodput (Mbit/s) over [t0, t1)."""
        sel = [m.flow_goodput_bytes[1] for m in self.steps if t0 < m.time_s <= t1 + 1e-9]
        return 8.0 * float(np.sum(sel)) / (t1 - t0) / 1e6

    @property
    def last(self) -> dict[str, Any]:
        return self.stats[-1]


def simulate(data: dict[str, Any], seed: int = 1, dt: float = 1.0) -> Run:
    scenario = load_scenario(data)
    with Simulation.open(EnvConfig.from_kwargs(scenario=None, cc="cubic"), scenario, seed) as sim:
        steps, stats = [], []
        for _ in range(int(round(scenario.duration_s / dt))):
            steps.append(sim.step(dt))
            stats.append(sim.leotp_stats("leotp"))
        return Run(steps, stats, dt)


# ------------------------------------------------------------ 5-hop chain, loss-free and lossy
@pytest.fixture(scope="module")
def clean() -> Run:
    return simulate(chain(duration_s=15.0))


@pytest.fixture(scope="module")
def lossy() -> Run:
    return simulate(chain(loss=0.01, duration_s=15.0))


def test_loss_free_throughput(clean: Run) -> None:
    ceiling = 20.0 * EFFICIENCY  # 19.35 Mbit/s of goodput at most
    g = clean.goodput_mbps(7.0, 15.0)
    assert g <= ceiling * 1.0001
    # Spec 4.2 item 9 expects >= 0.95 x the ceiling. The window of eqs. (6)-(8) cuts to
    # 0.8 BDP whenever the hop queue exceeds M and then adds one packet per hop RTT (33
    # packets of BDP here): the first hop's rate saws between about 0.75 and 1.0 of the link
    # (measured 0.92 on average), so we assert 0.88.
    assert g >= 0.88 * ceiling, g
    # nothing is lost, nothing is repaired
    c = clean.last["consumer"]
    assert c["timeouts"] == 0 and c["shr_interests"] == 0 and c["vphs"] == 0
    assert clean.last["producer"]["retransmitted_bytes"] == 0


def test_lossy_throughput_drops_as_eq5(clean: Run, lossy: Run) -> None:
    # Eq. (5): hop-by-hop repair loses about p = 1 % (end to end, eq. (4): 4.9 %).
    g0 = clean.goodput_mbps(7.0, 15.0)
    g1 = lossy.goodput_mbps(7.0, 15.0)
    assert g1 >= 0.97 * g0, (g0, g1)
    # every byte arrives in order: what the Consumer delivered is contiguous
    c = lossy.last["consumer"]
    assert c["delivered_bytes"] > 0.9 * c["received_bytes"]


def test_losses_are_repaired_in_the_network(lossy: Run) -> None:
    mids = lossy.last["midnodes"]
    assert [m["name"] for m in mids] == ["m1", "m2", "m3", "m4"]
    # each Midnode announces and requests the holes of its upstream hop ...
    assert all(m["vphs_sent"] > 0 and m["shr_interests"] > 0 for m in mids)
    # ... and the caches upstream answer the requests of the hop below them
    assert all(m["cache_hit_bytes"] > 0 for m in mids[:-1])
    # the Consumer sees the void headers and times out only rarely
    c = lossy.last["consumer"]
    assert c["vphs"] > 0
    assert c["timeouts"] < 0.02 * c["new_interests"]


def test_source_traffic(lossy: Run) -> None:
    # Spec 4.2 item 10: only first-hop losses reach the Producer: S p / (1 - p) repeated.
    p = lossy.last["producer"]
    first = p["payload_bytes_sent"] - p["retransmitted_bytes"]
    ratio = p["retransmitted_bytes"] / first
    assert ratio == pytest.approx(0.01 / 0.99, rel=0.30)


def test_recovery_time(lossy: Run) -> None:
    # Spec 4.2 item 11: about one hop RTT (20.6 ms) plus a few packet times.
    c = lossy.last["consumer"]
    assert c["recovered_chunks"] > 100
    assert 0.015 <= c["recovery_time_median_s"] <= 0.035, c["recovery_time_median_s"]
    # never-retransmitted chunks take the propagation and serialisation of the chain: 5 x
    # (10 ms + 0.6 ms) = 53 ms
    assert c["owd_median_s"] == pytest.approx(0.053, abs=0.002)


# -------------------------------------------------------------------------------- variants
@pytest.fixture(scope="module")
def variants() -> dict[str, Run]:
    return {v: simulate(chain(loss=0.01, duration_s=10.0, leotp={"variant": v})) for v in "BCD"}


def test_variant_b_has_no_in_network_repair(variants: dict[str, Run]) -> None:
    run = variants["B"]
    for m in run.last["midnodes"]:
        assert m["vphs_sent"] == 0 and m["shr_interests"] == 0 and m["cache_hit_bytes"] == 0
        assert m["send_rate_bps"] > 0  # hop-by-hop control: each Midnode sets its upstream rate
    # Spec 4.2 item 10: without caches every loss reaches the Producer: S P / (1 - P).
    p = run.last["producer"]
    big_p = 1 - 0.99**5
    ratio = p["retransmitted_bytes"] / (p["payload_bytes_sent"] - p["retransmitted_bytes"])
    assert ratio == pytest.approx(big_p / (1 - big_p), rel=0.30)
    # and recovery takes an end-to-end round trip (103 ms), not a hop's
    assert run.last["consumer"]["recovery_time_median_s"] >= 0.09


def test_variants_c_and_d_control_end_to_end(variants: dict[str, Run]) -> None:
    for v in "CD":
        run = variants[v]
        c = run.last["consumer"]
        # the Consumer's controller spans the path: its hop RTT is the end-to-end 103 ms
        assert c["hop_rtt_s"] == pytest.approx(0.103, rel=0.1)
        for m in run.last["midnodes"]:
            assert m["send_rate_bps"] == 0  # no sendRate of their own
            assert m["mean_buffer_bytes"] == 0  # no rate limiting: nothing waits
    assert variants["D"].last["midnodes"] == []
    # C keeps the caches: repairs stay in the network
    assert variants["C"].last["consumer"]["recovery_time_median_s"] <= 0.035


def test_variant_ordering(lossy: Run, variants: dict[str, Run]) -> None:
    # Table II's order at 1 % per hop: full LEOTP carries most, endpoint-only LEOTP least.
    a = lossy.goodput_mbps(5.0, 10.0)
    d = variants["D"].goodput_mbps(5.0, 10.0)
    assert a > d


# ------------------------------------------------------------------- partial deployment
def test_partial_deployment_hops() -> None:
    # 9 inner nodes; m5 is a ground station (always a Midnode); of the other 8, 25 %:
    # round(2) = 2 drawn. LEOTP hops = Midnodes + 1, each spanning the links between them.
    run = simulate(
        chain(hops=10, duration_s=4.0, kinds={5: "ground_station"},
              leotp={"midnode_fraction": 0.25}),
    )  # fmt: skip
    mids = run.last["midnodes"]
    names = [m["name"] for m in mids]
    assert len(mids) == 3 and "m5" in names
    # Each Midnode's hop RTT covers the links from the LEOTP node upstream of it: 2 x 10 ms
    # per link plus serialisation (0.6 ms for a data packet, 19 us for an Interest, per link).
    positions = [0] + [int(n[1:]) for n in names]
    for m, up, here in zip(mids, positions[:-1], positions[1:], strict=True):
        links = here - up
        assert m["hop_rtt_s"] == pytest.approx(links * 0.0206, rel=0.05), (m["name"], links)
    c = run.last["consumer"]
    assert c["hop_rtt_s"] == pytest.approx((10 - positions[-1]) * 0.0206, rel=0.05)


def test_midnode_draw_is_the_seeds() -> None:
    data = chain(hops=10, duration_s=1.0, leotp={"midnode_fraction": 0.5})
    draws = [[m["name"] for m in simulate(data, seed=s).last["midnodes"]] for s in (1, 1, 2)]
    assert draws[0] == draws[1]  # drawn with the episode seed
    assert len(draws[0]) == len(draws[2]) == 5  # round(0.5 x 9) = 5 (half away from zero)


# --------------------------------------------------------------------------- fixed point
@pytest.fixture(scope="module")
def fixed_point() -> Run:
    # Spec 4.2 item 8: 10 hops of 20 Mbit/s and 10 ms, hop 2 (m1 -> m2) at 10 Mbit/s.
    return simulate(chain(hops=10, duration_s=20.0, rates={1: 10.0}))


def test_fixed_point_delay_and_buffers(fixed_point: Run) -> None:
    steps = [m for m in fixed_point.steps if m.time_s > 10.0]
    owd = float(np.mean([m.flow_owd_mean_s[1] for m in steps]))
    # 100 ms propagation + 6.6 ms serialisation + 5.8 ms of BL_tar at 10 Mbit/s + up to
    # 2.4 ms of device queue: 113 +- 5 ms
    assert owd == pytest.approx(0.113, abs=0.005)
    target = fixed_point.last["target_buffer_bytes"]
    per_node = np.array(
        [[m["mean_buffer_bytes"] for m in s["midnodes"]] for s in fixed_point.stats[10:]]
    ).mean(axis=0)
    # Node 1 (upstream of the bottleneck) is the only one that holds a backlog, BL_tar +- 1
    # packet (eq. (9)'s fixed point, cpp/doc/leotp.md, "Hop-by-hop congestion control"); the
    # nodes downstream hold < 1 packet on
    # average. (Before the Consumer kept its backed-off RTO, spurious timeouts drained node 1
    # to 2.35 packets: cpp/doc/leotp.md, "Fixes from the issue 18 audit".)
    assert abs(per_node[0] - target) <= WIRE, per_node[0]
    assert np.all(per_node[1:] < WIRE), per_node


def test_fixed_point_goodput(fixed_point: Run) -> None:
    g = fixed_point.goodput_mbps(10.0, 20.0)
    assert g <= 10.0 * EFFICIENCY * 1.0001
    # The reproduction expects >= 0.95 x 9.67; the bottleneck hop's sawtooth (see the module
    # docstring) leaves about 0.91.
    assert g >= 0.87 * 10.0 * EFFICIENCY, g  # measured 8.79 Mbit/s (0.908)
    # Nothing is lost on this chain, so every TR timeout is spurious: with RFC 6298's backoff
    # kept for new Interests they stay rare (309 in 20 s before, 15 after).
    c = fixed_point.last["consumer"]
    assert c["timeouts"] < 0.005 * c["new_interests"], c["timeouts"]
    assert c["duplicate_bytes"] < 0.001 * c["delivered_bytes"]


# ------------------------------------------------- a long chain with the bottleneck last
@pytest.fixture(scope="module")
def bottleneck_last() -> Run:
    # 16 hops of 3.5 ms (the length of the Beijing-New York route), all at 20 Mbit/s but the
    # last one at 10: every Midnode is upstream of the bottleneck, as on the reproduction's
    # Starlink routes, whose 10 Mbit/s GSL is the Consumer's access link.
    return simulate(chain(hops=16, delay_ms=3.5, rates={15: 10.0}, duration_s=10.0))


def test_bottleneck_last_keeps_the_timer_above_the_rtt(bottleneck_last: Run) -> None:
    # The end-to-end RTT grows past the 200 ms floor as the Midnodes' buffers fill. Nothing
    # is lost, so every TR timeout is spurious. Without RFC 6298 rule 5.5's backoff kept for
    # new Interests (Karn), every Interest timed out once the RTT passed the RTO, none gave a
    # sample, SRTT froze and the cached duplicates took half the bottleneck (3.97 Mbit/s,
    # 8.2 MB of duplicates in 20 s).
    c = bottleneck_last.last["consumer"]
    assert c["timeouts"] < 0.01 * c["new_interests"], c["timeouts"]
    assert c["duplicate_bytes"] < 0.01 * c["delivered_bytes"]
    assert c["srtt_s"] > 2 * 16 * 0.0035  # it follows the RTT above the propagation's 112 ms
    # eq. (8)'s sawtooth on the bottleneck hop (BDP 6 packets) leaves about 0.82 of it
    assert bottleneck_last.goodput_mbps(5.0, 10.0) >= 0.75 * 10.0 * EFFICIENCY


def test_bottleneck_last_every_midnode_holds_its_target(bottleneck_last: Run) -> None:
    # Eqs. (9)-(10): each Midnode upstream of the bottleneck asks its upstream neighbour for
    # Rate_nextHop - (BL - BL_tar) / hopRTT, so at the fixed point each holds BL_tar, and the
    # one-way delay carries 15 x BL_tar at 10 Mbit/s (90 ms) on top of 56 ms of propagation
    # and 10.2 ms of serialisation (the queueing the Starlink routes show; docs/reproduction.md).
    target = bottleneck_last.last["target_buffer_bytes"]
    per_node = np.array(
        [[m["mean_buffer_bytes"] for m in s["midnodes"]] for s in bottleneck_last.stats[5:]]
    ).mean(axis=0)
    assert np.all((per_node > 0.5 * target) & (per_node < 2.0 * target)), per_node / WIRE
    steps = [m for m in bottleneck_last.steps if m.time_s > 5.0]
    owd = float(np.mean([m.flow_owd_mean_s[1] for m in steps]))
    floor = 0.056 + 0.0102 + 0.5 * 15 * target * 8 / 10e6
    assert floor <= owd <= 0.056 + 0.0102 + 2.0 * 15 * target * 8 / 10e6, owd


# ----------------------------------------------------------------------------- mobility
def test_route_switch_keeps_state_on_nodes() -> None:
    # Two branches p - a1 - a2 - c and p - b1 - b2 - c; the route moves to the b branch at
    # 3 s (make-before-break: packets on the a branch drain). A 10 MB file completes; the
    # b nodes join mid-stream and request nothing from before they joined; the a nodes keep
    # their state until it expires (2 s without packets).
    data = {
        "name": "leotp-switch",
        "duration_s": 14.0,
        "topology": "hops",
        "paths": [],
        "traffic": {
            "packet_bytes": PAYLOAD,
            "start_s": 13.5,
            "flows": [{"name": "leotp", "transport": "leotp", "routes": ["main"],
                       "workload": "file", "file_bytes": 10_000_000}],
        },
        "hops": {
            "nodes": [{"name": n} for n in ["p", "a1", "a2", "b1", "b2", "c", "x"]],
            "links": [
                {"a": "p", "b": "a1", "rate_mbps": 20, "delay_ms": 10},
                {"a": "a1", "b": "a2", "rate_mbps": 20, "delay_ms": 10},
                {"a": "a2", "b": "c", "rate_mbps": 20, "delay_ms": 10},
                {"a": "p", "b": "b1", "rate_mbps": 20, "delay_ms": 11},
                {"a": "b1", "b": "b2", "rate_mbps": 20, "delay_ms": 11},
                {"a": "b2", "b": "c", "rate_mbps": 20, "delay_ms": 11},
                {"a": "p", "b": "x", "rate_mbps": 1, "delay_ms": 1},
                {"a": "x", "b": "c", "rate_mbps": 1, "delay_ms": 1},
            ],
            "routes": [
                {"name": "main", "steps": [{"t_s": 0.0, "nodes": ["p", "a1", "a2", "c"]},
                                           {"t_s": 3.0, "nodes": ["p", "b1", "b2", "c"]}]},
                {"name": "own", "nodes": ["p", "x", "c"]},
            ],
            "paths": ["own"],
        },
    }  # fmt: skip
    run = simulate(data)
    c = run.last["consumer"]
    assert c["completed"] and c["delivered_bytes"] == 10_000_000
    # The b nodes measure their hops from the first Interest that comes up each of them: Data
    # the Producer still had queued for the old branch reach b1 before any Interest did, and
    # carry no stamp (a stamp without the hop's Interest OWD measured half a round trip, which
    # as hopRTT_min cut the new hops for 5 s: 1.8 Mbit/s after the switch). The flow keeps
    # >= 80 % of the 19.35 Mbit/s ceiling over the two seconds after the switch's second.
    assert run.goodput_mbps(4.0, 6.0) >= 0.8 * 20.0 * EFFICIENCY
    assert c["completion_time_s"] < 7.0  # 10 MB at about 17 Mbit/s from 0 s: about 5 s
    mids = {m["name"]: m for m in run.last["midnodes"]}
    assert set(mids) == {"a1", "a2", "b1", "b2"}  # Midnodes on every step's inner nodes
    for n in ("b1", "b2"):
        assert mids[n]["states"] == 1 and mids[n]["data_in"] > 0
        assert mids[n]["shr_interests"] == 0  # nothing requested from before they joined
    for n in ("a1", "a2"):
        assert mids[n]["states"] == 1 and mids[n]["expiries"] == 1 and not mids[n]["active"]


# -------------------------------------------------------------------------- determinism
def test_same_seed_same_measurements() -> None:
    data = chain(loss=0.01, duration_s=3.0)
    a = simulate(data, seed=7)
    b = simulate(data, seed=7)
    for ma, mb in zip(a.steps, b.steps, strict=True):
        np.testing.assert_array_equal(ma.flow_goodput_bytes, mb.flow_goodput_bytes)
        np.testing.assert_array_equal(ma.flow_owd_mean_s, mb.flow_owd_mean_s)
    np.testing.assert_equal(a.stats, b.stats)  # every counter and state (NaN == NaN)


# ---------------------------------------------------------------------- bad parameters
@pytest.mark.parametrize(
    ("leotp", "field"),
    [
        ({"target_buffer_packets": 0.5}, "target_buffer_packets"),
        ({"cache_blocks": 0}, "cache_blocks"),
        ({"midnode_fraction": 1.5}, "midnode_fraction"),
        ({"midnode_fraction": -0.1}, "midnode_fraction"),
        ({"variant": "E"}, "variant"),
    ],
)
def test_bad_parameters_name_the_field(leotp: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=rf"scenario\.traffic\.flows\[0\]\.leotp\.{field}"):
        load_scenario(chain(leotp=leotp))


def test_leotp_flow_needs_exactly_one_route() -> None:
    data = chain()
    data["traffic"]["flows"][0]["routes"] = []
    with pytest.raises(ScenarioConfigError, match=r"flows\[0\]\.routes"):
        load_scenario(data)


def test_chain_without_hops_is_refused() -> None:
    data = chain()
    data["hops"]["routes"][0]["nodes"] = ["p"]
    with pytest.raises(ScenarioConfigError, match=r"hops\.routes\[0\]\.nodes"):
        load_scenario(data)


def test_core_refuses_bad_settings_without_aborting() -> None:
    # The core checks again (for callers that bypass the scenario schema) and names the field.
    from leogym.native import core
    from leogym.scenario import build_timeline
    from leogym.simulation import native_config, native_network, native_paths

    scenario = load_scenario(chain(duration_s=1.0))
    config = native_config(EnvConfig.from_kwargs(scenario=None, cc="cubic"), scenario, 1)
    timeline = build_timeline(scenario, 1)
    for key, value in (("target_buffer_packets", 0.2), ("cache_blocks", 0),
                       ("midnode_fraction", 2.0)):  # fmt: skip
        bad = {**config, "flows": [{**config["flows"][0], "leotp": {key: value}}]}
        with pytest.raises(ValueError, match=rf"flows\[0\]\.leotp\.{key}"):
            core().Simulation(bad, native_paths(timeline), native_network(timeline))


# ------------------------------------------------ the pass criteria this version misses
# The tests above bound what this implementation does (with the reason next to each bound).
# These hold the reproduction's own pass criteria (from the paper's Figs. 10-12 and the chain
# fixed point; cpp/doc/leotp.md, "Measured behaviour"), strict: they fail the suite the day
# they pass, so that the bounds above get raised.
@pytest.mark.xfail(strict=True, reason="eq. (8)'s cut to 0.8 BDP saws the hop: 0.926 measured")
def test_spec_loss_free_throughput_criterion(clean: Run) -> None:
    assert clean.goodput_mbps(7.0, 15.0) >= 0.95 * 20.0 * EFFICIENCY


@pytest.mark.xfail(strict=True, reason="eq. (8)'s sawtooth on the bottleneck hop: 0.908 measured")
def test_spec_fixed_point_goodput_criterion(fixed_point: Run) -> None:
    assert fixed_point.goodput_mbps(10.0, 20.0) >= 0.95 * 10.0 * EFFICIENCY


def test_spec_fixed_point_buffer_criterion(fixed_point: Run) -> None:
    # Spec 4.2 item 8 (passes since issue 18: 5.02 packets measured, 2.35 before)
    target = fixed_point.last["target_buffer_bytes"]
    per_node = np.array(
        [[m["mean_buffer_bytes"] for m in s["midnodes"]] for s in fixed_point.stats[10:]]
    ).mean(axis=0)
    assert abs(per_node[0] - target) <= WIRE  # BL_tar +- 1 packet
