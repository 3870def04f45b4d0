"""Per-step queue measurements: link sojourn, AQM drops and marks, a path's queueing delay.

References from outside the code: the link's arithmetic (a packet admitted to a full FIFO of
L packets waits L - 1/2 transmission times on average, a full data packet being 1400 B of
payload + 28 B of headers) and CoDel's TARGET of 5 ms (RFC 8289 section 4.4), which bounds the
standing sojourn it allows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native

RATE_BPS = 10e6
ONE_WAY_S = 0.02
STEP_S = 0.5
LIMIT = 60
WIRE_BYTES = 1400 + 28
TX_S = WIRE_BYTES * 8 / RATE_BPS  # 1.1424 ms per packet


def run(core: Any, queue: dict[str, Any] | None, flows: list[dict[str, Any]], **cfg: Any) -> list:
    duration_s = cfg.pop("duration_s", 6.0)
    path = synthetic_path(
        duration_s + 1.0, rate_bps=RATE_BPS, delay_s=ONE_WAY_S, queue_packets=LIMIT
    )
    if queue is not None:
        path["queue"] = queue
    config = {"cc": "cubic", "packet_bytes": 1400, "start_s": 1e6, "flows": flows, **cfg}
    with core.Simulation(config, [path], None) as sim:
        return [sim.step(STEP_S) for _ in range(int(round(duration_s / STEP_S)))]


def overload() -> dict[str, Any]:
    # 20 Mbit/s of datagrams into a 10 Mbit/s link: the FIFO stays full.
    return {"transport": "udp_onoff", "routes": [0], "rate_bps": 2e7, "on_s": 1e6, "off_s": 0.0}


def test_full_fifo_sojourn_follows_the_link_arithmetic(core: Any) -> None:
    out = run(core, None, [overload()])
    sojourn = [m["link_sojourn_s"][0, 0] for m in out[2:]]
    # Admitted when a slot frees, i.e. behind LIMIT - 1 queued packets and the rest of the one
    # in service: (LIMIT - 1/2) transmission times on average.
    assert np.mean(sojourn) == pytest.approx((LIMIT - 0.5) * TX_S, rel=0.02)
    assert all(m["link_drops_overflow"][0, 0] > 0 for m in out[2:])
    assert all(m["link_drops_aqm"][0, 0] == 0 for m in out)
    # The reverse direction carries nothing: no packet started, no sojourn.
    assert all(np.isnan(m["link_sojourn_s"][0, 1]) for m in out)


def test_codel_sojourn_and_drop_counts_per_step(core: Any) -> None:
    tcp = {"transport": "tcp", "routes": [0], "cc": "TcpNewReno"}
    out = run(core, {"discipline": "codel"}, [tcp], duration_s=8.0)
    sojourn = np.array([m["link_sojourn_s"][0, 0] for m in out[6:]])
    # CoDel keeps the standing sojourn below its 5 ms TARGET (it drops when the minimum over
    # an interval exceeds it); drop-tail's standing queue here is tens of milliseconds.
    assert 0.0 < float(np.mean(sojourn)) < 0.005
    assert sum(m["link_drops_aqm"][0, 0] for m in out) > 0
    assert sum(m["link_mark_packets"][0, 0] for m in out) == 0  # no ECN
    # The flow's own packets saw the same queue: its per-packet queueing delay agrees with
    # the link's per-step sojourn within a packet time.
    flow_q = np.array([m["flow_queue_delay_s"][1] for m in out[6:]])
    assert float(np.mean(np.abs(flow_q - sojourn))) < TX_S
    # Per path, the same drops on the path's route.
    assert [m["drops_aqm"][0] for m in out] == [m["link_drops_aqm"][0, 0] for m in out]


def test_path_queue_delay_is_the_connection_packets_queueing(core: Any) -> None:
    # The connection alone on one path: its per-path queueing delay is measured on the same
    # packets as flow 0's (the flow monitor's), so the two agree exactly.
    path = synthetic_path(7.0, rate_bps=RATE_BPS, delay_s=ONE_WAY_S, queue_packets=LIMIT)
    with core.Simulation({"cc": "cubic", "packet_bytes": 1400}, [path], None) as sim:
        out = [sim.step(STEP_S) for _ in range(12)]
    for m in out[1:]:
        assert m["queue_delay_s"][0] == pytest.approx(m["flow_queue_delay_s"][0], rel=1e-9)
    # CUBIC fills the drop-tail queue: the delay reaches a large share of LIMIT packets.
    assert max(m["queue_delay_s"][0] for m in out) > 0.5 * LIMIT * TX_S
