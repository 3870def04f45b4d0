"""Reference flows over a LeoTopology: saturating UDP and ns-3's own TCP.

Expected goodputs come from the link rate and the protocol overheads of RFC 768 / 791 / 793
(UDP 8 B, IPv4 20 B, TCP 20 B + 12 B timestamp option per segment).
"""

from __future__ import annotations

import numpy as np
import pytest
from leo_paths import grid

from leogym.simulation.native_config import synthetic_path

IP, UDP, TCP_TS = 20, 8, 20 + 12


def test_saturating_udp_goodput_is_the_link_rate(testing):
    rate, payload, dur = 20e6, 1472, 10.0
    r = testing.run_reference_flow(
        "udp", [synthetic_path(dur + 1, rate_bps=rate, delay_s=0.02)], dur
    )
    wire = payload + UDP + IP
    # the first datagram arrives after one serialization and one propagation delay
    expected = rate * payload / wire * (dur - 0.02) / dur
    assert r["goodput_bps"] == pytest.approx(expected, rel=0.01)
    assert r["drops_overflow"] > 0 and r["drops_random"] == r["drops_outage"] == 0
    assert r["paths"][0]["down"]["rx_bytes"] == r["rx_packets"] * wire


def test_udp_follows_a_rate_step(testing):
    p = synthetic_path(9.0)
    p["rate_down_bps"] = np.where(grid(p) < 4.0, 8e6, 24e6)
    lo = testing.run_reference_flow("udp", [p], 4.0, udp_rate_bps=30e6)
    full = testing.run_reference_flow("udp", [p], 8.0, udp_rate_bps=30e6)
    second = (full["rx_bytes"] - lo["rx_bytes"]) * 8 / 4.0
    ratio = 1472 / 1500
    assert lo["goodput_bps"] == pytest.approx(8e6 * ratio, rel=0.01)
    assert second == pytest.approx(24e6 * ratio, rel=0.01)


def _tcp_path(loss: float = 0.0, rate: float = 50e6, rtt: float = 0.040, dur: float = 12.0):
    bdp_packets = int(np.ceil(rate * rtt / 8 / 1500))
    return synthetic_path(dur, rate_bps=rate, delay_s=rtt / 2, loss=loss, queue_packets=bdp_packets)


def test_ns3_newreno_fills_a_bdp_buffered_link(testing):
    r = testing.run_reference_flow("tcp_bulk", [_tcp_path(dur=9.0)], 8.0)
    assert r["goodput_bps"] > 0.8 * 50e6
    # never above the link rate less TCP/IP headers
    assert r["goodput_bps"] < 50e6 * 1448 / 1500
    assert r["drops_random"] == r["drops_outage"] == 0


@pytest.mark.parametrize("variant", ["ns3::TcpNewReno", "ns3::TcpCubic"])
def test_ns3_tcp_steady_state_goodput(testing, variant):
    # after the slow-start overshoot has been repaired (4 s), over the next 4 s
    early = testing.run_reference_flow("tcp_bulk", [_tcp_path(dur=9.0)], 4.0, tcp_variant=variant)
    late = testing.run_reference_flow("tcp_bulk", [_tcp_path(dur=9.0)], 8.0, tcp_variant=variant)
    steady = (late["rx_bytes"] - early["rx_bytes"]) * 8 / 4.0
    # (the upper bound allows for the bytes in the pipe at the window's edges)
    assert 0.8 * 50e6 < steady < 1.01 * 50e6 * 1448 / 1500


@pytest.mark.parametrize(
    ("kind", "variant", "queue"),
    [
        ("udp", "TcpNewReno", 20),
        ("tcp_bulk", "TcpNewReno", 167),
        ("tcp_bulk", "TcpNewReno", 20),
        ("tcp_bulk", "TcpCubic", 167),
    ],
)
def test_matches_ns3_point_to_point_link(testing, kind, variant, queue):
    """On a constant link, LeoNetDevice and ns-3's PointToPointNetDevice agree."""
    p = synthetic_path(5.0, rate_bps=50e6, delay_s=0.02, queue_packets=queue)
    leo = testing.run_reference_flow(kind, [p], 4.0, tcp_variant=variant)
    ref = testing.run_reference_flow(kind, [p], 4.0, tcp_variant=variant, link="p2p")
    assert leo["rx_bytes"] == pytest.approx(ref["rx_bytes"], rel=1e-3)
    assert leo["rx_packets"] == pytest.approx(ref["rx_packets"], rel=1e-3)


def test_p2p_reference_needs_a_constant_path(testing):
    p = synthetic_path(2.0)
    p["delay_down_s"] = np.linspace(0.02, 0.03, p["delay_down_s"].size)
    with pytest.raises(ValueError, match="link"):
        testing.run_reference_flow("udp", [p], 1.0, link="p2p")
    with pytest.raises(ValueError, match="link"):
        testing.run_reference_flow("udp", [synthetic_path(2.0, loss=0.01)], 1.0, link="p2p")
    with pytest.raises(ValueError, match="link"):
        testing.run_reference_flow("udp", [synthetic_path(2.0)], 1.0, link="ethernet")


def test_tcp_is_reproducible_per_seed_and_varies_across_seeds(testing):
    paths = [_tcp_path(loss=2e-4, dur=5.0)]
    a = testing.run_reference_flow("tcp_bulk", paths, 4.0, seed=11)
    b = testing.run_reference_flow("tcp_bulk", paths, 4.0, seed=11)
    c = testing.run_reference_flow("tcp_bulk", paths, 4.0, seed=12)
    assert a["drops_random"] > 0
    for key in ("rx_bytes", "tx_bytes", "drops_random", "events"):
        assert a[key] == b[key]
    assert (a["rx_bytes"], a["drops_random"]) != (c["rx_bytes"], c["drops_random"])


def test_tcp_resumes_after_an_outage(testing):
    p = _tcp_path(dur=13.0)
    p["outages"] = np.array([[3.0, 4.0]])
    before = testing.run_reference_flow("tcp_bulk", [p], 4.0)
    after = testing.run_reference_flow("tcp_bulk", [p], 12.0)
    assert before["drops_outage"] > 0
    # everything in flight and queued at 3.0 s is lost; after the retransmission timeouts
    # (ns-3 MinRto 1 s, doubled per RFC 6298) the transfer goes on
    assert after["rx_bytes"] > before["rx_bytes"] + 10 * 1448


def test_flow_uses_the_chosen_path_only(testing):
    paths = [
        synthetic_path(3.0, rate_bps=10e6, name="a"),
        synthetic_path(3.0, rate_bps=30e6, name="b"),
    ]
    r = testing.run_reference_flow("udp", paths, 2.0, path=1)
    assert r["paths"][0]["down"]["tx_packets"] == 0
    assert r["paths"][1]["down"]["rx_packets"] == r["rx_packets"] > 0
    assert r["goodput_bps"] == pytest.approx(30e6 * 1472 / 1500, rel=0.02)


def test_cross_traffic_shares_the_path_queue(testing):
    dur = 10.0
    paths = [_tcp_path(dur=dur + 1)]
    udp = {"kind": "udp_onoff", "path": 0, "rate_bps": 10e6, "packet_bytes": 1000}
    r = testing.run_reference_flow("tcp_bulk", paths, dur, cross_traffic=[udp])
    cross = r["cross_rx_bytes"][0] * 8 / dur
    assert cross == pytest.approx(10e6, rel=0.05)
    # TCP takes (most of) what is left of 50 Mbit/s
    assert 0.75 * 40e6 < r["goodput_bps"] < 40e6

    tcp = {"kind": "tcp_bulk", "path": 0, "tcp_variant": "TcpNewReno"}
    r2 = testing.run_reference_flow("tcp_bulk", paths, dur, cross_traffic=[tcp])
    total = r2["goodput_bps"] + r2["cross_rx_bytes"][0] * 8 / dur
    assert total > 0.8 * 50e6
    assert min(r2["goodput_bps"], r2["cross_rx_bytes"][0] * 8 / dur) > 0.15 * 50e6


@pytest.mark.parametrize(
    ("args", "opts", "match"),
    [
        (("tcp_bulk",), {"tcp_variant": "ns3::TcpWarpDrive"}, "tcp_variant"),
        (("quic",), {}, "kind"),
        (("udp",), {"path": 3}, "path"),
        (("udp",), {"udp_payload_bytes": 1480}, "udp_payload_bytes"),
        (("udp",), {"colour": "red"}, "colour"),
        (("udp",), {"start_s": 5.0}, "start_s"),
        (("udp",), {"cross_traffic": [{"kind": "tcp_bulk"}]}, r"cross_traffic\[0\]\.path"),
        (("udp",), {"cross_traffic": [{"kind": "ftp", "path": 0}]}, r"cross_traffic\[0\]\.kind"),
        (
            ("udp",),
            {"cross_traffic": [{"kind": "tcp_bulk", "path": 0, "tcp_variant": "Foo"}]},
            r"cross_traffic\[0\]\.tcp_variant",
        ),
        (
            ("udp",),
            {"cross_traffic": [{"kind": "udp_onoff", "path": 0, "rate_bps": -1.0}]},
            r"cross_traffic\[0\]\.rate_bps",
        ),
        (
            ("udp",),
            {"cross_traffic": [{"kind": "udp_onoff", "path": 0, "ecn": True}]},
            r"cross_traffic\[0\]\.ecn: only a 'tcp_bulk'",
        ),
        (
            ("udp",),
            {"cross_traffic": [{"kind": "tcp_bulk", "path": 0, "ecn": "yes"}]},
            r"cross_traffic\[0\]\.ecn",
        ),
    ],
)
def test_reference_flow_rejects_bad_input(testing, args, opts, match):
    with pytest.raises(ValueError, match=match):
        testing.run_reference_flow(*args, [synthetic_path(1.0)], 1.0, **opts)


def test_bad_duration_seed_and_paths(testing):
    for bad in (-1.0, np.nan, 1e300):
        with pytest.raises(ValueError, match="duration_s"):
            testing.run_reference_flow("udp", [synthetic_path(1.0)], bad)
    with pytest.raises(ValueError, match=r"cross_traffic\[0\]\.stop_s"):
        testing.run_reference_flow(
            "udp",
            [synthetic_path(1.0)],
            1.0,
            cross_traffic=[{"kind": "udp_onoff", "path": 0, "stop_s": 1e300}],
        )
    with pytest.raises(ValueError, match="seed"):
        testing.run_reference_flow("udp", [synthetic_path(1.0)], 1.0, seed=0)
    with pytest.raises(ValueError, match="paths"):
        testing.run_reference_flow("udp", [], 1.0)
    with pytest.raises(ValueError, match=r"paths\[0\]"):
        testing.run_reference_flow("udp", [42], 1.0)


def test_tcp_variants_lists_ns3_congestion_controls(core):
    names = core.tcp_variants()
    assert {"TcpNewReno", "TcpCubic", "TcpBbr"} <= set(names)


def test_upstream_cross_traffic_uses_the_up_direction(testing):
    cross = [
        {
            "kind": "udp_onoff",
            "path": 0,
            "direction": "up",
            "rate_bps": 1e6,
            "packet_bytes": 972,
            "on_s": 0.5,
            "off_s": 0.5,
        },
        {
            "kind": "tcp_bulk",
            "path": 0,
            "direction": "up",
            "max_bytes": 200_000,
            "tcp_variant": "ns3::TcpCubic",
        },
    ]
    r = testing.run_reference_flow(
        "udp", [synthetic_path(3.0, rate_up_bps=5e6)], 2.0, udp_rate_bps=1e6, cross_traffic=cross
    )
    # on/off at 1 Mbit/s, on half the time: 0.5 s on per second -> about 1 Mbit over 2 s
    assert r["cross_rx_bytes"][0] * 8 == pytest.approx(1e6 * 1.0, rel=0.05)
    assert r["cross_rx_bytes"][1] == 200_000  # the whole transfer arrives
    assert r["paths"][0]["up"]["rx_bytes"] > 200_000
