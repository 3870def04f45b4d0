"""Per-step overhead: leogym's in-process step against the ns3-gym ZMQ bridge, same env, same run.

Run: ``python -m benchmarks.bench_overhead [--steps N]`` (or through ``python -m benchmarks``).

Three figures, measured back to back:

* **in-process boundary**: one ``_core.Simulation.step(100 us)`` call on a simulation in which
  nothing happens but the step's own stop event (the transfer starts later), i.e. the cost of
  crossing from Python into ns-3 and back with the step's measurements (a dict of NumPy
  arrays). This is what the in-process design pays per step instead of a bridge.
* **env step**: ``env.step`` of ``leogym/LeoCC-v0`` (``tiny``, 1 ms steps, so the ns-3 work per
  step is small), i.e. the boundary plus the env's Python (action check, observation, reward,
  info) plus the simulated millisecond.
* **bridge step**: the same env, same actions, stepped through ``leogym/Ns3Gym-v0`` against
  ``leogym-ns3gym-serve`` in another process (:func:`benchmarks.bench_ns3gym.run`), so
  ``bridge - env step`` is what the ZMQ bridge adds per step.

Each figure is the fastest of 10 consecutive chunks of calls (noise from other processes on a
shared machine only adds time), and the table shows the median of that over the repeats. The
target compares like with like: the bridge's added cost per step against the in-process
boundary crossing (both are "how the agent reaches the simulator"); the env's own Python is
paid in both designs.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import Row, measure, ratio_row

__all__ = ["boundary_step_us", "rows"]

ENV_ID = "leogym/LeoCC-v0"
ENV_KWARGS = {"scenario": "tiny", "cc": "cubic", "step_ms": 1, "episode_s": 15}


def boundary_step_us(steps: int = 20000) -> tuple[float, int]:
    """Cost (microseconds) of ``Simulation.step(100 us)`` when no packet moves: the fastest of
    10 chunks of ``steps / 10`` calls (load on a shared machine only ever adds time).

    The transfer starts at 14 s, and ``steps + 200`` steps of 100 us stay well before that.

    :return: ``(microseconds per call, ns-3 events executed during the timed calls)``.
    """
    from leogym.native import core
    from leogym.scenario import build_timeline, load_scenario
    from leogym.simulation import native_paths

    # The raw core on purpose: this figure is the pybind11 boundary itself, below the
    # Simulation facade's typed measurements (bench_env measures the whole env step).
    timeline = build_timeline(load_scenario("tiny"), seed=0)
    sim = core().Simulation({"start_s": 14.0}, native_paths(timeline))
    try:
        for _ in range(200):
            sim.step(1e-4)
        events0 = sim.events
        chunks = []
        per = max(steps // 10, 1)
        for _ in range(10):
            t0 = time.perf_counter()
            for _ in range(per):
                sim.step(1e-4)
            chunks.append((time.perf_counter() - t0) / per * 1e6)
        return min(chunks), int(sim.events - events0)
    finally:
        sim.close()


def rows(steps: int = 3000, repeats: int = 3) -> list[Row]:
    """The overhead figures as benchmark-suite rows."""
    from benchmarks.bench_ns3gym import run as bridge_run

    boundary, env_step, bridge, overhead = [], [], [], []
    matches = True
    events = 0
    for _ in range(repeats):
        b, events = boundary_step_us()
        r = bridge_run(ENV_ID, dict(ENV_KWARGS), steps=steps, seed=0)
        boundary.append(b)
        env_step.append(r["inproc_step_best_chunk_us"])
        bridge.append(r["bridge_step_best_chunk_us"])
        overhead.append(r["bridge_step_best_chunk_us"] - r["inproc_step_best_chunk_us"])
        matches = matches and bool(r["trajectories_match"])
    kw = ", ".join(f"{k}={v}" for k, v in ENV_KWARGS.items())
    return [
        measure(
            "overhead",
            "in-process boundary: Simulation.step, idle",
            "us",
            boundary,
            note=f"pybind11 call + Simulator::Run + measurement dict; {events} ns-3 "
            "events in the timed calls (the stop events)",
        ),
        measure(
            "overhead",
            "in-process env.step (LeoCC tiny, 1 ms)",
            "us",
            env_step,
            note=f"fastest of 10 chunks of steps; {kw}",
        ),
        measure(
            "overhead",
            "ns3-gym bridge env.step (same env)",
            "us",
            bridge,
            note=f"fastest of 10 chunks; trajectories identical: {matches}",
        ),
        measure(
            "overhead",
            "bridge overhead per step",
            "us",
            overhead,
            note="bridge step - in-process step",
        ),
        ratio_row(
            "overhead",
            "bridge overhead / in-process boundary",
            overhead,
            boundary,
            target=">= 50",
            note="target: in-process overhead at least 50x below ZMQ",
        ),
        ratio_row(
            "overhead",
            "bridge step / in-process env.step",
            bridge,
            env_step,
            note="whole step, env Python included on both sides",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    from benchmarks.common import format_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(format_table(rows(args.steps, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
