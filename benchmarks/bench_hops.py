"""Hop topology: CPU per packet-hop against ns-3's own chain, simulation speed, memory.

Run: ``python -m benchmarks.bench_hops [--quick] [--repeats 5]`` (or through
``python -m benchmarks --only hops``).

* **cost per packet-hop**: one saturating UDP flow (0.95 of a 10 Mbit/s link, 1372-byte
  payloads, i.e. 1400-byte IPv4 packets) over a chain of 1, 4 and 17 identical links, built
  once as leogym's hop topology (``LeoChannel`` links, timetable routing) and once as ns-3's
  ``PointToPointNetDevice`` chain with IPv4 static host routes
  (``_core.testing.run_chain_flow``): CPU time of ``Simulator::Run`` per delivered packet per
  hop, and the ratio hop topology / ns-3 (target ``<= 1.3``), the two measured back to back in
  each round.
* **simulated seconds per second** through :class:`~leogym.simulation.Simulation` (100 ms
  steps, the native CUBIC in charge of the connection): ``leotp_starlink`` with
  ``topology: hops`` (a 17-hop Beijing - New York route, 10 Mbit/s access links), alone and
  with a 9.5 Mbit/s UDP flow keeping the route full, and in path mode for comparison;
  ``beam16`` (16 terminals behind one 187.7 Mbit/s beam, 15 ns-3 TCP CUBIC flows beside the
  connection); and ``starlink_geometric`` (``default`` without its per-slot dynamics) in path
  mode and in hop mode side by side; ``leogym-reproduce leotp``'s Beijing - New York run
  (``leotp_bj_ny``, built by the reproduction's harness) with LEOTP and with ns-3's BBR side by
  side, and the ratio of their CPU per simulated second. Both per CPU second of the process
  (``time.process_time`` around the steps: what the simulation costs, whatever the machine's
  load) and per wall-clock second.
* **memory**: in a fresh process, the RSS growth over 200 ``Simulation.open`` / 3 steps /
  ``close`` cycles of ``leotp_starlink`` (hop mode, 10 s) and of ``beam16``, after 20 warm-up
  cycles (target ``<= 5`` MiB).
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from benchmarks.common import (
    Row,
    measure,
    ratio_row,
    rss_growth_row,
    run_json_child,
    section_main,
)

__all__ = [
    "chain_cost",
    "sim_speed",
    "reproduction_speed",
    "rows",
    "chain_rows",
    "speed_rows",
    "leotp_speed_rows",
    "memory_rows",
]

SECTION = "hops"
CHAIN_HOPS = (1, 4, 17)
CHAIN_RATE_BPS = 10e6
CHAIN_PAYLOAD = 1372  # + 8 (UDP) + 20 (IPv4) = 1400-byte packets on the links
STEP_S = 0.1


# ---------------------------------------------------------------------------- chain


def chain_cost(testing: Any, link: str, hops: int, duration_s: float) -> dict[str, float]:
    """One ``run_chain_flow``: CPU and wall time per delivered packet per hop (µs), events."""
    r = testing.run_chain_flow(
        link=link,
        hops=hops,
        rate_bps=CHAIN_RATE_BPS,
        delay_s=0.001,
        duration_s=duration_s,
        queue_packets=100,
        payload_bytes=CHAIN_PAYLOAD,
    )
    packet_hops = r["rx_packets"] * hops
    if packet_hops <= 0:
        raise RuntimeError(f"run_chain_flow({link!r}, {hops}) delivered no packets: {r}")
    return {
        "cpu_us": 1e6 * r["cpu_seconds"] / packet_hops,
        "wall_us": 1e6 * r["wall_seconds"] / packet_hops,
        "events": r["events"] / packet_hops,
        "rx_packets": float(r["rx_packets"]),
    }


def chain_rows(quick: bool, repeats: int) -> list[Row]:
    """CPU per packet-hop, hop topology and ns-3's p2p chain, alternating in each round."""
    from leogym.native import testing as load_testing

    testing = load_testing()
    duration = 1.0 if quick else 10.0
    for link in ("leo", "p2p"):  # warm-up: TypeId lookups, allocator pools
        chain_cost(testing, link, 4, 0.2)
    res: dict[tuple[str, int], list[dict[str, float]]] = {}
    for i in range(repeats):
        for hops in CHAIN_HOPS:
            order = ("leo", "p2p") if i % 2 == 0 else ("p2p", "leo")
            for link in order:
                res.setdefault((link, hops), []).append(chain_cost(testing, link, hops, duration))
    out: list[Row] = []
    for hops in CHAIN_HOPS:
        leo, p2p = res[("leo", hops)], res[("p2p", hops)]
        pk = int(leo[0]["rx_packets"])
        out.append(
            measure(
                SECTION,
                f"chain {hops} hop(s): hop topology CPU per packet-hop",
                "us",
                [r["cpu_us"] for r in leo],
                note=f"UDP 9.5 Mbit/s over {hops} x 10 Mbit/s LeoChannel links, timetable "
                f"routing; {duration:g} s simulated, {pk} packets delivered; "
                f"{leo[0]['events']:.2f} events per packet-hop",
            )
        )
        out.append(
            measure(
                SECTION,
                f"chain {hops} hop(s): ns-3 p2p chain CPU per packet-hop",
                "us",
                [r["cpu_us"] for r in p2p],
                note=f"same flow over ns-3 PointToPoint links, Ipv4StaticRouting host routes; "
                f"{p2p[0]['events']:.2f} events per packet-hop",
            )
        )
        out.append(
            ratio_row(
                SECTION,
                f"chain {hops} hop(s): hop topology / ns-3 chain, CPU per packet-hop",
                [r["cpu_us"] for r in leo],
                [r["cpu_us"] for r in p2p],
                target="<= 1.0",  # issue 19 (was 1.3)
                note="pairs measured back to back, order alternating; CPU of Simulator::Run "
                "(the source and sink applications' cost is spread over the hops)",
            )
        )
    return out


# ---------------------------------------------------------------------------- speed


def _scenario(name: str, **changes: Any) -> Any:
    from leogym.scenario import load_scenario, validate_scenario

    cfg = load_scenario(name)
    if changes:
        cfg = dataclasses.replace(cfg, **changes)
    return validate_scenario(cfg)


def sim_speed(scenario: Any, sim_s: float, seed: int = 0) -> dict[str, Any]:
    """Open ``scenario`` (native CUBIC for the connection), step it ``sim_s`` seconds in 100 ms
    steps and close it.

    :return: ``open_s`` (wall), ``cpu_s`` and ``wall_s`` of the steps, ``goodput_mbps`` of the
        connection, ``flows_mbps`` (every flow, the connection included), ``route_hops`` (the
        first route's hop count in each routing step in force during the run; empty in path
        mode).
    """
    from leogym.envs.config import EnvConfig
    from leogym.simulation import Simulation

    w0 = time.perf_counter()
    sim = Simulation.open(EnvConfig(cc="cubic", scheduler="minrtt"), scenario, seed=seed)
    open_s = time.perf_counter() - w0
    try:
        steps = int(round(sim_s / STEP_S))
        net = sim.timeline.network
        route_hops = (
            []
            if net is None
            else [
                len(nodes) - 1
                for t, nodes in zip(net.routes[0].step_times_s, net.routes[0].nodes, strict=True)
                if t < steps * STEP_S
            ]
        )
        goodput = flows = 0.0
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(steps):
            m = sim.step(STEP_S)
            goodput += float(m.goodput_bytes)
            flows += float(m.flow_goodput_bytes.sum())
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    finally:
        sim.close()
    sim_done = steps * STEP_S
    return {
        "sim_s": sim_done,
        "open_s": open_s,
        "cpu_s": cpu,
        "wall_s": wall,
        "goodput_mbps": 8 * goodput / sim_done / 1e6,
        "flows_mbps": 8 * flows / sim_done / 1e6,
        "route_hops": route_hops,
    }


def _speed_pair(label: str, runs: list[dict[str, Any]], note: str) -> list[Row]:
    return [
        measure(
            SECTION,
            f"{label}: sim_s per CPU s",
            "x",
            [r["sim_s"] / r["cpu_s"] for r in runs],
            note=note,
        ),
        measure(
            SECTION, f"{label}: sim_s per wall_s", "x", [r["sim_s"] / r["wall_s"] for r in runs]
        ),
    ]


def reproduction_speed(label: str, sim_s: float, seed: int = 0) -> dict[str, Any]:
    """One run of ``leogym-reproduce leotp``'s Beijing - New York experiment (``leotp_bj_ny``,
    the orbit position of ``seed``) with algorithm ``label`` (``"LEOTP-A"``, ``"BBR"``: ns-3's
    ``TcpBbr``), built by the reproduction's own harness, stepped ``sim_s`` seconds in its 1 s
    steps.

    :return: ``sim_s``, ``cpu_s`` and ``wall_s`` of the steps, ``goodput_mbps`` of the flow
        under test.
    """
    from leogym.agents.reproduce.leotp import experiments as rep
    from leogym.agents.reproduce.leotp import run
    from leogym.simulation import Simulation

    task = {"group": "starlink", "condition": "ny", "algorithm": label, "seed": seed}
    task["duration_s"] = sim_s
    sc, settings, measured = run._under_test(run._scenario(task), rep.ALGORITHMS[label], task)
    sim = Simulation.open(settings, sc, seed + 1)
    try:
        steps = int(round(sim_s / rep.STEP_S))
        goodput = 0.0
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(steps):
            goodput += float(sim.step(rep.STEP_S).flow_goodput_bytes[measured].sum())
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    finally:
        sim.close()
    done = steps * rep.STEP_S
    return {
        "sim_s": done,
        "cpu_s": cpu,
        "wall_s": wall,
        "goodput_mbps": 8 * goodput / done / 1e6,
    }


def leotp_speed_rows(quick: bool, repeats: int) -> list[Row]:
    """The reproduction's Beijing - New York run with LEOTP (variant A) and with ns-3's BBR,
    side by side: same seeds, order alternating, and the ratio of their CPU per simulated s."""
    sim_s = 4.0 if quick else 30.0
    labels = ("LEOTP-A", "BBR")
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    for i in range(repeats):
        for label in labels if i % 2 == 0 else labels[::-1]:
            runs[label].append(reproduction_speed(label, sim_s, seed=i))
    out: list[Row] = []
    for label, name in (("LEOTP-A", "LEOTP (variant A)"), ("BBR", "ns-3 TcpBbr")):
        out += _speed_pair(
            f"leotp_bj_ny, {name}",
            runs[label],
            f"leogym-reproduce leotp's Beijing - New York run (first {sim_s:g} s of 120, 1 s "
            f"steps, orbit position of seeds 0..{repeats - 1}); goodput "
            f"{_median([r['goodput_mbps'] for r in runs[label]]):.2f} Mbit/s",
        )
    out.append(
        ratio_row(
            SECTION,
            "leotp_bj_ny: LEOTP / ns-3 BBR, CPU per simulated s",
            [r["cpu_s"] / r["sim_s"] for r in runs["LEOTP-A"]],
            [r["cpu_s"] / r["sim_s"] for r in runs["BBR"]],
            note="same seed in each pair, order alternating; per simulated second, not per "
            "packet: the two carry different goodput (the rows above)",
        )
    )
    return out


def _median(xs: list[float]) -> float:
    import statistics

    return statistics.median(xs)


def speed_rows(quick: bool, repeats: int) -> list[Row]:
    """Simulated seconds per CPU and per wall second: leotp_starlink (17 hops), beam16, and
    ``starlink_geometric`` in path and hop mode side by side."""
    out: list[Row] = []
    # (a) 17-hop Beijing - New York route. The route gains an 18th hop at 55.6 s; the runs stay
    # well before that.
    leotp_s = 4.0 if quick else 30.0
    hop_sc = _scenario("leotp_starlink", topology="hops")
    path_sc = _scenario("leotp_starlink")
    hop_runs, path_runs = [], []
    for i in range(repeats):
        for hop_mode in (True, False) if i % 2 == 0 else (False, True):
            if hop_mode:
                hop_runs.append(sim_speed(hop_sc, leotp_s, seed=i))
            else:
                path_runs.append(sim_speed(path_sc, leotp_s, seed=i))
    hops = sorted({h for r in hop_runs for h in r["route_hops"]})
    out += _speed_pair(
        "leotp_starlink (hop mode)",
        hop_runs,
        f"{leotp_s:g} s, 100 ms steps, cc=cubic; route hops during the run: "
        f"{'/'.join(map(str, hops))} (Beijing - New York; an 18-hop step starts at 55.6 s); "
        f"10 Mbit/s GSLs with 2 % loss each, 20 Mbit/s ISLs with 0.1 %; goodput "
        f"{_median([r['goodput_mbps'] for r in hop_runs]):.2f} Mbit/s",
    )
    # the same route kept full: a 9.5 Mbit/s UDP flow beside the loss-limited connection
    from leogym.scenario import validate_scenario
    from leogym.scenario.config import FlowConfig

    udp = FlowConfig(name="udp", transport="udp_onoff", rate_mbps=9.5, routes=["bj_ny"])
    full_sc = validate_scenario(
        dataclasses.replace(hop_sc, traffic=dataclasses.replace(hop_sc.traffic, flows=[udp]))
    )
    full_runs = [sim_speed(full_sc, leotp_s, seed=i) for i in range(repeats)]
    out += _speed_pair(
        "leotp_starlink (hop mode) + 9.5 Mbit/s UDP flow",
        full_runs,
        f"same route kept busy by a udp_onoff flow at 9.5 Mbit/s beside the connection; "
        f"all flows {_median([r['flows_mbps'] for r in full_runs]):.2f} Mbit/s delivered",
    )
    out += _speed_pair(
        "leotp_starlink (path mode, for comparison)",
        path_runs,
        f"same scenario, topology: path; goodput "
        f"{_median([r['goodput_mbps'] for r in path_runs]):.2f} Mbit/s",
    )
    # (b) the 16-terminal beam
    beam_s = 0.5 if quick else 5.0
    beam = _scenario("beam16")
    beam_runs = [sim_speed(beam, beam_s, seed=i) for i in range(repeats)]
    out += _speed_pair(
        "beam16",
        beam_runs,
        f"{beam_s:g} s from the start, 100 ms steps; connection cc=cubic + 15 ns-3 TcpCubic "
        f"flows over server-gw-sat-beam-terminal (4 hops), 187.7 Mbit/s shared beam; all flows "
        f"{_median([r['flows_mbps'] for r in beam_runs]):.0f} Mbit/s, connection "
        f"{_median([r['goodput_mbps'] for r in beam_runs]):.1f} Mbit/s",
    )
    # (c) path mode unchanged: path and hop mode side by side, alternating
    default_s = 2.0 if quick else 10.0
    # starlink_geometric: the hop topology takes no per-slot dynamics (docs/scenario.md)
    geo = "starlink_geometric"
    modes = {"path": _scenario(geo), "hops": _scenario(geo, topology="hops")}
    res: dict[str, list[dict[str, Any]]] = {"path": [], "hops": []}
    for i in range(repeats):
        order = ("path", "hops") if i % 2 == 0 else ("hops", "path")
        for mode in order:
            res[mode].append(sim_speed(modes[mode], default_s, seed=i))
    hop_counts = res["hops"][0]["route_hops"]
    for mode in ("path", "hops"):
        runs = res[mode]
        extra = (
            "; the env section's figures are this mode (topology: path, the default; unchanged)"
            if mode == "path"
            else f"; 2 routes (the first one {'/'.join(map(str, sorted(set(hop_counts))))} hops)"
        )
        out += _speed_pair(
            f"starlink_geometric ({'hop' if mode == 'hops' else 'path'} mode)",
            runs,
            f"{default_s:g} s, 100 ms steps, cc=cubic, seeds 0..{repeats - 1}; goodput "
            f"{_median([r['goodput_mbps'] for r in runs]):.0f} Mbit/s{extra}",
        )
    out += leotp_speed_rows(quick, repeats)
    out.append(
        ratio_row(
            SECTION,
            "starlink_geometric: hop mode / path mode, CPU per simulated s",
            [r["cpu_s"] / r["sim_s"] for r in res["hops"]],
            [r["cpu_s"] / r["sim_s"] for r in res["path"]],
            note="same seed in each pair, order alternating; hop mode forwards every packet "
            "over each link of the route (store and forward), path mode over one link",
        )
    )
    return out


# ---------------------------------------------------------------------------- memory

_MEM_CHILD = r"""
import dataclasses, json, sys
from benchmarks.common import rss_over_cycles
from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario, validate_scenario
from leogym.simulation import Simulation
spec, n, warm = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
name = spec.pop("name")
sc = load_scenario(name)
if spec:
    sc = dataclasses.replace(sc, **spec)
sc = validate_scenario(sc)
settings = EnvConfig(cc="cubic", scheduler="minrtt")
def cycle(seed):
    sim = Simulation.open(settings, sc, seed=seed)
    for _ in range(3):
        sim.step(0.02)
    sim.close()
print(json.dumps(rss_over_cycles(cycle, n, warm)))
"""


def _memory_child(spec: dict[str, Any], cycles: int, warm: int) -> dict[str, Any]:
    return run_json_child(
        _MEM_CHILD, [json.dumps(spec), str(cycles), str(warm)], f"hop memory child {spec}"
    )


def memory_rows(quick: bool) -> list[Row]:
    """RSS growth over repeated open/step/close cycles of two hop scenarios (fresh process)."""
    cycles, warm = (30, 5) if quick else (200, 20)
    cases = [
        (
            "leotp_starlink (hops, 10 s)",
            {"name": "leotp_starlink", "topology": "hops", "duration_s": 10.0},
            "geometry-derived network, 17-hop route, timeline and graph rebuilt each cycle",
        ),
        ("beam16", {"name": "beam16"}, "controlled network, 16 terminals, 15 ns-3 TCP flows"),
    ]
    out: list[Row] = []
    for label, spec, what in cases:
        out.append(
            rss_growth_row(
                SECTION,
                f"{label}: RSS growth over {cycles} Simulation open/step/close cycles",
                _memory_child(spec, cycles, warm),
                cycles,
                f"{what}; fresh process, after {warm} warm-up cycles; 3 x 20 ms steps each",
                target="<= 5" if cycles >= 200 else "",
            )
        )
    return out


def rows(quick: bool, repeats: int) -> list[Row]:
    """The ``hops`` section of ``python -m benchmarks``."""
    return chain_rows(quick, repeats) + speed_rows(quick, repeats) + memory_rows(quick)


def main(argv: list[str] | None = None) -> int:
    return section_main(rows, __doc__, argv)


if __name__ == "__main__":
    raise SystemExit(main())
