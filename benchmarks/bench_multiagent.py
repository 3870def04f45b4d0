"""Multi-agent env throughput beside the single-agent env's, on one shared bottleneck.

Run: ``python -m benchmarks.bench_multiagent [--quick] [--repeats 3]`` (or through
``python -m benchmarks --only multiagent``).

Scenario ``bottleneck4`` (flows on one 20 Mbit/s satellite access link, 40 ms RTT), 100 ms
steps, 30 s episodes. Each env is driven by the same hand-written controller, which keeps every
agent's window near ``120 / N`` packets (the link's 71-packet BDP plus some queue), so the link
is saturated in every case and the simulation carries the same packet rate:

* ``LeoCC-v0``: one agent (flow 0) beside three native CUBIC flows;
* ``LeoMultiAgentCCEnv`` with N = 4 and N = 16 agents (every flow an agent).

Figures: agent-steps (env steps summed over agents) per wall-clock second and per CPU second of
the process (``time.process_time``: what a step costs, whatever the machine's load), and the
ratio multi-agent / single-agent of agent-steps per CPU second, measured back to back in each
round. The multi-agent env shares one simulation among its agents, so its cost per agent-step
falls with N.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Row, measure, ratio_row, section_main

__all__ = ["rows", "single_agent", "multi_agent"]

SECTION = "multiagent"
SCENARIO = "bottleneck4"
#: Packets in flight over all flows: the 71-packet BDP plus about 49 packets of queue.
TOTAL_WINDOW_PACKETS = 120.0


def _controller(obs: np.ndarray, target_packets: float) -> np.ndarray:
    """Grow the window by 1.5 x while below ``target_packets``, shrink it by 1.5 x above."""
    a = np.zeros(4, np.float32)
    a[0] = 1.0 if obs[0] * 100.0 < target_packets else -1.0
    return a


def single_agent(steps: int, seed: int = 0) -> dict[str, float]:
    """LeoCC-v0 on the bottleneck (flow 0 the agent's, three native CUBIC flows)."""
    import gymnasium as gym

    import leogym  # noqa: F401  (registers the ids)

    env = gym.make("leogym/LeoCC-v0", scenario=SCENARIO, episode_s=30.0)
    obs, _ = env.reset(seed=seed)
    target = TOTAL_WINDOW_PACKETS / 4
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        obs, _, term, trunc, _ = env.step(_controller(obs, target))
        if term or trunc:
            obs, _ = env.reset()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    env.close()
    return {"agent_steps": float(steps), "wall_s": wall, "cpu_s": cpu}


def multi_agent(n_agents: int, steps: int, seed: int = 0) -> dict[str, float]:
    """The multi-agent env with ``n_agents`` flows, every one an agent."""
    from leogym.envs.multi_agent import LeoMultiAgentCCEnv

    env = LeoMultiAgentCCEnv(scenario=SCENARIO, n_flows=n_agents, episode_s=30.0)
    obs, _ = env.reset(seed=seed)
    target = TOTAL_WINDOW_PACKETS / n_agents
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        obs, *_ = env.step({a: _controller(o, target) for a, o in obs.items()})
        if not env.agents:
            obs, _ = env.reset()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    env.close()
    return {"agent_steps": float(steps * n_agents), "wall_s": wall, "cpu_s": cpu}


def rows(quick: bool = False, repeats: int = 3) -> list[Row]:
    """Agent-steps per second, single-agent and multi-agent, alternating in each round."""
    steps = 100 if quick else 1500
    sizes = (4,) if quick else (4, 16)
    single: list[dict[str, float]] = []
    multi: dict[int, list[dict[str, float]]] = {n: [] for n in sizes}
    for r in range(repeats):
        single.append(single_agent(steps, seed=r))
        for n in sizes:
            multi[n].append(multi_agent(n, steps, seed=r))
    note = f"{SCENARIO}, 100 ms steps, {steps} env steps per run, saturating controller"
    out = [
        measure(
            SECTION,
            "LeoCC-v0 (1 agent, 3 CUBIC flows): agent-steps per wall_s",
            "steps/s",
            [x["agent_steps"] / x["wall_s"] for x in single],
            note=note,
        ),
        measure(
            SECTION,
            "LeoCC-v0 (1 agent, 3 CUBIC flows): agent-steps per CPU s",
            "steps/s",
            [x["agent_steps"] / x["cpu_s"] for x in single],
        ),
    ]
    for n in sizes:
        out += [
            measure(
                SECTION,
                f"multi-agent N={n}: agent-steps per wall_s",
                "steps/s",
                [x["agent_steps"] / x["wall_s"] for x in multi[n]],
                note="env steps summed over agents",
            ),
            measure(
                SECTION,
                f"multi-agent N={n}: agent-steps per CPU s",
                "steps/s",
                [x["agent_steps"] / x["cpu_s"] for x in multi[n]],
            ),
            ratio_row(
                SECTION,
                f"multi-agent N={n} / LeoCC-v0, agent-steps per CPU s",
                [x["agent_steps"] / x["cpu_s"] for x in multi[n]],
                [x["agent_steps"] / x["cpu_s"] for x in single],
                note="one simulation serves all N agents",
            ),
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    return section_main(rows, __doc__, argv, default_repeats=3, single_when_quick=False)


if __name__ == "__main__":
    raise SystemExit(main())
