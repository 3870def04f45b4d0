"""The bound on ns-3 TCP cross-traffic send buffers (cpp/doc/link.md, "TCP send buffers").

ns-3's ``TcpTxBuffer`` walks its list of sent segments on every retransmission, so a sender
with megabytes in flight costs time quadratic in its window; leogym's cross traffic therefore
gets a send buffer of BDP + queue of its path. The expected numbers come from outside the code:
the socket's own ``SndBufSize`` bounds what ``TcpTxBuffer`` holds, and a window of BDP + queue
fills the link, so goodput is the link rate less TCP/IP headers (RFC 791, RFC 793 with the
12-byte timestamp option: 1448 of every 1500 bytes), as ns-3's TCP gets with a sufficient
(twice as large) buffer.
"""

from __future__ import annotations

import numpy as np

from leogym.simulation.native_config import synthetic_path

RATE, RTT, MTU, MSS = 50e6, 0.040, 1500, 1448
QUEUE = int(np.ceil(RATE * RTT / 8 / MTU))  # one BDP of queue, in packets
BOUND = int(RATE * RTT / 8 + QUEUE * MTU)  # BDP + queue, bytes
CEILING = RATE * MSS / MTU


def _run(testing, snd_buf: int, duration: float) -> dict:
    path = synthetic_path(duration + 1, rate_bps=RATE, delay_s=RTT / 2, queue_packets=QUEUE)
    return testing.run_reference_flow(
        "tcp_bulk", [path], duration, snd_buf_bytes=snd_buf, rcv_buf_bytes=2 * BOUND
    )


def test_send_buffer_bound_holds_and_costs_no_goodput(testing):
    early_b, late_b = _run(testing, BOUND, 3.0), _run(testing, BOUND, 8.0)
    early_s, late_s = _run(testing, 2 * BOUND, 3.0), _run(testing, 2 * BOUND, 8.0)
    # the sender never holds more than the bound unsent + unacknowledged, and reaches it
    assert 0.9 * BOUND < late_b["max_buffered_bytes"] <= BOUND
    assert late_s["max_buffered_bytes"] <= 2 * BOUND
    # steady state (3-8 s): the bounded sender fills the link ...
    bounded = (late_b["rx_bytes"] - early_b["rx_bytes"]) * 8 / 5.0
    sufficient = (late_s["rx_bytes"] - early_s["rx_bytes"]) * 8 / 5.0
    assert 0.97 * CEILING < bounded < 1.01 * CEILING
    # ... and gets at least what ns-3's TCP gets with twice the buffer (within 1 %)
    assert bounded > 0.99 * sufficient
