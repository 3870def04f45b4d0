"""The ns3-gym bridge when its peer process vanishes mid-step (SIGKILL): a clear error at once,
a clean state, and the next reset() starts a fresh simulation.

The protocol-level cases (malformed messages, silent peers, timeouts, an agent that goes away,
sockets on loopback only) are tested in tests/ns3gym/test_ns3gym_robustness.py and
test_ns3gym_process.py; this test adds the real process killed in the middle of a step.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import gymnasium
import psutil
import pytest
from reliability_support import Figure, sized

import leogym  # noqa: F401
from leogym.ns3gym import Ns3GymError, Ns3GymSimulationExitedError

pytestmark = pytest.mark.timeout(300)

SERVE = [sys.executable, "-m", "leogym.ns3gym.cli"]


def test_a_simulation_killed_mid_step_is_reported_and_replaced(record) -> None:
    env = gymnasium.make(
        "leogym/Ns3Gym-v0",
        sim_cmd=[*SERVE, "--idle-timeout", "5", "env=CartPole-v1"],
        sim_seed=3,
        relaunch=True,
        handshake_timeout_s=30.0,
        step_timeout_s=20.0,
    )
    rounds = sized(2, 10)
    pids, detect_s = [], []
    try:
        for _ in range(rounds):
            env.reset()
            env.step(0)
            pid = env.unwrapped._proc.pid
            pids.append(pid)
            os.kill(pid, signal.SIGKILL)
            t0 = time.monotonic()
            with pytest.raises(
                Ns3GymSimulationExitedError,
                match=rf"pid {pid}\) exited with "
                r"status -9 while the client was waiting",
            ):
                env.step(1)
            detect_s.append(time.monotonic() - t0)
            with pytest.raises(Ns3GymError, match="no episode in progress"):
                env.step(1)  # a clean state: no half-finished episode
        env.reset()  # a fresh simulation serves the next episode
        assert env.unwrapped._proc.pid not in pids
        for _ in range(5):
            env.step(0)
    finally:
        env.close()
    assert max(detect_s) < 5.0, "the death is noticed at once, not after the step timeout"
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    record(
        Figure(
            id="fault/ns3gym_peer_killed",
            category="fault",
            what="ns3-gym simulation process killed (SIGKILL) in the middle of a step",
            cases=rounds,
            outcomes={"clear_error_then_relaunched": rounds},
            notes=f"noticed after at most {max(detect_s):.2f} s (step timeout 20 s); "
            "protocol-level "
            "faults and loopback-only sockets: tests/ns3gym/test_ns3gym_robustness.py",
            extra={"detect_s": detect_s},
        )
    )
