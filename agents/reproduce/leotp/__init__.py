"""Reproduction of LEOTP's evaluation (Jiang et al., "LEOTP: An Information-centric Transport
Layer Protocol for LEO Satellite Networks", ICDCS 2023, section V).

Every experiment runs on a hop network (``topology: hops``), one ns-3 node per Producer,
Midnode and Consumer, each hop with its own drop-tail queue, rate and loss
(docs/scenario.md, "Path and hop topologies"):

* **controlled chains** (paper section V.B): ``leotp_chain5`` (5 hops of 20 Mbit/s, 10 ms one
  way; Figs. 10-12, per-hop loss set per run, in both directions), ``leotp_parallel`` (two
  disjoint 4-hop branches, RTT 80 and 90 ms, the route alternating between them, break before
  make; Fig. 13, switching interval set per run), ``leotp_chain10_wave`` (10 hops, the second
  a 9 <-> 11 Mbit/s square wave of period 2 s; Fig. 14) and ``leotp_dumbbell`` /
  ``leotp_dumbbell_rtt`` (three flows on a 5 Mbit/s bottleneck, RTT 60 ms each or 90 / 120 /
  150 ms, flows over [0, 600), [200, 800), [400, 1000) s; Fig. 15);
* **emulated Starlink** (paper section V.C): ``leotp_bj_sh`` (no ISLs, Fig. 16),
  ``leotp_bj_hk``, ``leotp_bj_pr`` and ``leotp_bj_ny`` (+Grid ISLs; Figs. 17-18, the 25 %
  deployment and Table II), 120 s, the orbit position drawn per seed.

Algorithms (:data:`ALGORITHMS`): the paper's TCPs as ns-3's own (``traffic.flows`` entries with
``transport: tcp``: ``TcpCubic``, ``TcpHybla``, ``TcpWestwoodPlus``, ``TcpVegas``, ``TcpBbr``
(BBR v1; the paper cites v2, neither Linux mainline nor ns-3 has it), PCC Vivace as
``TcpPccVivace``), leogym's own transport with ``cubic``, ``bbr`` and ``bbr3`` as the connection
under study, and LEOTP (variants A-D, ``BL_tar`` settings, 25 % of satellites with a Midnode)
as ``transport: leotp`` flows. An algorithm that this build of leogym does not have (a transport
the scenario schema refuses, an ns-3 congestion control the core does not list) is skipped, and
its rows say "not yet available" with the reason (:func:`unavailable`); adding one is one entry
in :data:`ALGORITHMS`.

Metrics, in 1 s steps after a warm-up (10 s at full size), per measured flow
(``Measurements.flow_*``, measured per packet in the core: docs/scenario.md, "Measuring them"):
throughput (application goodput), one-way delay (mean, p50, p99, max) from the source's IP
layer to the sink's, the propagation ("ideal") OWD of the flow's route on the timeline grid
and the queueing delay ``OWD - ideal`` (serialisation, queues and in-network buffers), the
part spent in link queues, the data packets the source sent (source traffic, retransmissions
included) and, for the dumbbell, Jain's index over 1 s bins. The core times every
transmission of a packet separately in these per-step figures; the paper's recovery time (Fig.
10) comes from ``Simulation.recovery_stats`` instead, which times each TCP segment or LEOTP
chunk from its **first** transmission to its first arrival, over the whole run: a retransmitted
copy's delay less the median delay of the copies never retransmitted.
"""

from __future__ import annotations

from leogym.agents.reproduce.leotp.experiments import (
    ALGORITHMS,
    GROUPS,
    PAPER,
    SIZES,
    Algorithm,
    tasks,
    unavailable,
)
from leogym.agents.reproduce.leotp.rows import CHECKS, ROWS
from leogym.agents.reproduce.leotp.run import RECOVERY_KEYS, run_task
from leogym.agents.reproduce.leotp.tables import summarise

__all__ = [
    "ALGORITHMS",
    "CHECKS",
    "GROUPS",
    "PAPER",
    "RECOVERY_KEYS",
    "ROWS",
    "SIZES",
    "Algorithm",
    "run_task",
    "summarise",
    "tasks",
    "unavailable",
]
