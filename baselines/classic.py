"""The classic algorithms the paper baselines are compared with, as native policies.

Each runs in the native core (cpp/model/cc, cpp/model/sched), where its file carries the
equations; this table names it and cites it.
"""

from __future__ import annotations

__all__ = ["CLASSIC"]

#: name -> (citation, env overrides that put it in charge)
CLASSIC: dict[str, tuple[str, dict[str, str]]] = {
    "newreno": (
        "RFC 9002 §7 (NewReno-style congestion control for QUIC); RFC 6582",
        {"cc": "newreno"},
    ),
    "cubic": ("RFC 9438: CUBIC for Fast and Long-Distance Networks", {"cc": "cubic"}),
    "bbr": (
        "Cardwell et al., BBR: Congestion-Based Congestion Control, ACM Queue 14(5), 2016",
        {"cc": "bbr"},
    ),
    "bbr3": (
        "Cardwell, Swett, Beshay, BBR Congestion Control, draft-ietf-ccwg-bbr-04 (BBRv3), 2025",
        {"cc": "bbr3"},
    ),
    "dctcp": (
        "RFC 8257: Data Center TCP (DCTCP), over RFC 9002 NewReno; needs transport.ecn",
        {"cc": "dctcp"},
    ),
    "prague": (
        "De Schepper et al., Prague Congestion Control, "
        "draft-briscoe-iccrg-prague-congestion-control-04 (L4S, RFC 9331); needs transport.ecn",
        {"cc": "prague"},
    ),
    "lia": (
        "RFC 6356: Coupled Congestion Control for Multipath Transport Protocols (LIA)",
        {"cc": "lia"},
    ),
    "olia": (
        "Khalili et al., MPTCP is not Pareto-optimal: performance issues and a possible "
        "solution, IEEE/ACM ToN 21(5), 2013 (OLIA)",
        {"cc": "olia"},
    ),
    "balia": (
        "Peng et al., Multipath TCP: Analysis, Design, and Implementation, IEEE/ACM ToN "
        "24(1), 2016 (BALIA)",
        {"cc": "balia"},
    ),
    "minrtt": (
        "Linux MPTCP default scheduler: lowest smoothed RTT among paths with cwnd space "
        "(docs/specs/alcs.md#minrtt)",
        {"scheduler": "minrtt"},
    ),
    "roundrobin": (
        "Linux MPTCP round-robin scheduler (docs/specs/alcs.md#round-robin)",
        {"scheduler": "roundrobin"},
    ),
    "blest": (
        "Ferlin et al., BLEST: Blocking Estimation-based MPTCP Scheduler for "
        "Heterogeneous Networks, IFIP Networking 2016",
        {"scheduler": "blest"},
    ),
    "ecf": (
        "Lim et al., ECF: An MPTCP Path Scheduler to Manage Heterogeneous Paths, CoNEXT 2017",
        {"scheduler": "ecf"},
    ),
}
