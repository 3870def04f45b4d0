"""``leogym-reproduce leotp``, row 1 (the paper's Fig. 10): the recovery time of retransmitted
data on the 5-hop chain (20 Mbit/s and 10 ms one way per hop), LEOTP against BBR.

The paper (section V.B): most retransmitted packets arrive about 160 ms after their first
transmission with BBR ("an end-to-end RTT larger than the basic OWD") and about 90 ms with
LEOTP ("the loss can be recovered in hopRTT"); LEOTP cuts the mean recovery time by 59-64 %.
The spec's criterion (docs/reproduction.md, "LEOTP", row 1): a cut of at least 50 % at every
loss rate of Fig. 10 (0.5, 1 and 2 % per hop).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from leogym.agents.reproduce import judge, leotp

#: The chain: five hops of 10 ms one way, 1500-byte packets at 20 Mbit/s (0.6 ms each).
PROPAGATION_MS = 5 * 10.0
SERIALISATION_MS = 5 * 1500 * 8 / 20e6 * 1e3
E2E_RTT_MS = 2 * PROPAGATION_MS
HOP_RTT_MS = 2 * 10.0


def _run(label: str, loss: float, recovery_mean_ms: float) -> dict[str, Any]:
    """A chain run as run_task returns it, with only the recovery time measured."""
    nan = math.nan
    flow: dict[str, Any] = {k: nan for k in leotp.RECOVERY_KEYS.values()}
    flow.update(
        goodput_mbps=nan,
        owd_ms=nan,
        owd_p99_ms=nan,
        bins_mbps=[],
        recovery_mean_ms=recovery_mean_ms,
        first_copies_clean=1000.0,
        first_copies_retransmitted=10.0,
    )
    return {"group": "chain5", "condition": loss, "algorithm": label, "seed": 0, "flows": [flow]}


def _row1_text(results: list[dict[str, Any]]) -> str:
    head = leotp.summarise(results, "quick")[0]
    return next(row for row in head.rows if row[0] == 1)


def test_row1_cut_is_the_papers_arithmetic():
    """The paper's own figures (basic OWD 50 ms, retransmitted OWD 90 ms against 160 ms) give
    recovery times of 40 and 110 ms, a cut of 63.6 %: inside its 59-64 % and above the 50 %
    criterion. A LEOTP recovery of 60 ms against BBR's 110 ms (a 45 % cut) fails it."""
    paper = leotp.PAPER["fig10_retx_owd_ms"]
    lt, bbr = paper["LEOTP"] - PROPAGATION_MS, paper["BBR"] - PROPAGATION_MS
    results = [
        _run("BBR", 0.005, bbr),
        _run("LEOTP-A", 0.005, lt),
        _run("BBR", 0.01, bbr),
        _run("LEOTP-A", 0.01, lt),
    ]
    dirs = judge.directions(leotp.CHECKS, results)
    assert dirs == {
        "fig10_recovery_cut_ge_50pct_at_0.5pct": True,
        "fig10_recovery_cut_ge_50pct_at_1pct": True,
    }
    low, high = leotp.PAPER["fig10_recovery_cut_pct"]
    assert low <= 100 * (1 - lt / bbr) <= high
    row = _row1_text(results)
    assert "1 %: BBR 110.0, LEOTP 40.0 ms (-63.6 %)" in row[3]
    assert row[-1] == "yes (2 of 3 parts measured)"  # 2 % per hop not run here

    results += [_run("BBR", 0.02, bbr), _run("LEOTP-A", 0.02, 60.0)]
    assert judge.directions(leotp.CHECKS, results)["fig10_recovery_cut_ge_50pct_at_2pct"] is False
    assert _row1_text(results)[-1] == "NO"


@pytest.mark.native
def test_fig10_recovery_on_a_short_lossy_chain():
    """4 s of the chain at 1 % loss per hop: BBR's retransmitted data wait at least one
    end-to-end RTT beyond the clean delay, LEOTP's about one hop RTT (the spec's item 11:
    20-30 ms), and row 1 holds at 1 %."""
    task = {"group": "chain5", "condition": 0.01, "seed": 0, "duration_s": 4.0, "warmup_s": 1.0}
    runs = [leotp.run_task({**task, "algorithm": lab}) for lab in ("BBR", "LEOTP-A")]
    bbr, lt = (r["flows"][0] for r in runs)
    clean = PROPAGATION_MS + SERIALISATION_MS  # five hops of propagation and serialisation
    for f in (bbr, lt):
        assert f["first_copies_retransmitted"] >= 10
        assert clean - 1e-6 <= f["clean_owd_median_ms"]
    # LEOTP's hop controllers keep little queue. BBR (v1, ns-3's) ignores the 5 % loss and
    # keeps up to cwnd_gain 2 x BDP in flight after its startup overshoot: one BDP or more
    # queued, which Linux's timer (SRTT + max(0.2 s, 4 RTTVAR)) no longer drains with the
    # spurious timeouts that ns-3's whole-timer floor caused.
    assert lt["clean_owd_median_ms"] <= clean + 10.0
    assert bbr["retx_owd_median_ms"] >= bbr["clean_owd_median_ms"] + E2E_RTT_MS
    assert HOP_RTT_MS <= lt["recovery_median_ms"] <= 30.0
    assert judge.directions(leotp.CHECKS, runs)["fig10_recovery_cut_ge_50pct_at_1pct"] is True
