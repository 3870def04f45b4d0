"""A LEOTP run that once stopped the simulator's clock (cpp/doc/leotp.md, "Loss detection").

Variant B on ``leotp_bj_ny`` (the reproduction's Beijing-New York task, seed 0) opened a hole
at the Consumer whose 200 ms expiry fell half a nanosecond off ns-3's clock: the hole timer
found nothing due, re-armed itself for the same instant and ran without end at 47 s
(the "clock:" cases of cpp/model/leotp/test/leotp-hole-detector-test-suite.cc check it on
ns-3's clock). The run is the reproduction's own (``run_task``'s scenario and settings) up to
48 s, in a child process with a time limit, so a stall fails the test instead of hanging the
suite.

Runtime: about 10 s on the 2-core development machine.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

#: Simulated seconds: the stall began at 47 s.
UNTIL_S = 48

SCRIPT = textwrap.dedent(
    f"""
    from leogym.agents.reproduce import leotp as L
    from leogym.agents.reproduce.leotp import run as R
    from leogym.simulation import Simulation

    task = next(
        t for t in L.tasks("full", 1)
        if t["algorithm"] == "LEOTP-B" and t["condition"] == "ny"
    )
    sc, settings, measured = R._under_test(R._scenario(task), L.ALGORITHMS["LEOTP-B"], task)
    with Simulation.open(settings, sc, int(task["seed"]) + 1) as sim:
        for _ in range({UNTIL_S}):
            m = sim.step(1.0)
        print("reached", m.time_s, int(m.flow_goodput_bytes[measured[0]]))
    """
)


def test_variant_b_beijing_new_york_runs_past_47_s() -> None:
    """The run reaches 48 s in well under the limit (about 5 s of CPU; the stall never
    returned) and still delivers data in its last second."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
        )
    except subprocess.TimeoutExpired as e:  # pragma: no cover - the defect
        raise AssertionError(f"the simulation stalled (no return within {e.timeout} s)") from e
    assert out.returncode == 0, out.stderr[-2000:]
    words = out.stdout.split()
    assert words[0] == "reached"
    assert float(words[1]) == UNTIL_S
    assert int(words[2]) > 0
