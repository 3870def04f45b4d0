"""Recovery-preset benchmark: CPU time per delivered data packet of each loss-recovery preset.

On one lossy link (50 Mbit/s, 40 ms RTT, one-BDP drop-tail queue, 1e-3 random loss on data
packets, a 1 s outage every 10 s so timeouts fire), in the same process and interleaved, it
runs our transport (CUBIC, one path) under every recovery preset of
``_core.recovery_presets()`` (RFC 9002, ``tcp``, ``quic-draft``, ``picoquic``) and reports the
CPU time per delivered data packet and its ratio to RFC 9002's (the timer engine is meant to
cost nothing measurable: target <= 1.1). CPU time, not wall time: the machine is shared.
"""

from __future__ import annotations

import sys
import time

from leogym.native import core as load_core
from leogym.simulation.native_config import synthetic_path

PACKET = 1472
LINK = {"rate_bps": 50e6, "delay_s": 0.02, "queue_packets": 166, "loss": 1e-3, "loss_up": 0.0}


def run_preset(core, recovery: str, sim_s: int) -> dict[str, float]:
    """One run: CPU seconds, delivered data packets, retransmission timeouts."""
    outages = [(t, t + 1.0) for t in range(5, sim_s, 10)]
    path = synthetic_path(sim_s + 1.0, outages=outages, **LINK)
    config = {"cc": "cubic", "packet_bytes": PACKET, "seed": 1, "recovery": recovery}
    delivered = rtos = 0
    with core.Simulation(config, [path]) as sim:
        c0 = time.process_time()
        for _ in range(sim_s):
            m = sim.step(1.0)
            delivered += int(m["delivered_bytes"].sum())
            rtos += int(m["rto_count"].sum())
        cpu = time.process_time() - c0
    return {"cpu_s": cpu, "packets": delivered / PACKET, "rtos": rtos}


def rows(sim_s: int = 20, repeats: int = 3) -> list:
    """The recovery figures as benchmark-suite rows (see :mod:`benchmarks.common`)."""
    from benchmarks.common import measure, ratio_row

    core = load_core()
    presets = list(core.recovery_presets())
    per: dict[str, list[dict[str, float]]] = {p: [] for p in presets}
    for _ in range(repeats):  # interleaved: load changes hit every preset alike
        for p in presets:
            per[p].append(run_preset(core, p, sim_s))
    us = {p: [1e6 * r["cpu_s"] / max(r["packets"], 1) for r in runs] for p, runs in per.items()}
    out = []
    for p in presets:
        last = per[p][-1]
        out.append(
            measure(
                "recovery",
                f"{p} CPU per delivered packet",
                "us",
                us[p],
                note=f"{last['packets']:.0f} packets, {last['rtos']} RTOs in {sim_s} s simulated",
            )
        )
    for p in presets:
        if p == "rfc9002":
            continue
        out.append(
            ratio_row(
                "recovery",
                f"{p} cost per packet vs rfc9002",
                us[p],
                us["rfc9002"],
                target="<= 1.1",
                note="same link and seed, runs interleaved",
            )
        )
    return out


if __name__ == "__main__":
    from benchmarks.common import format_table

    print(format_table(rows(sim_s=int(sys.argv[1]) if len(sys.argv) > 1 else 20)))
