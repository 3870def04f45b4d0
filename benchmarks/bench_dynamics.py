"""Cost of the per-slot Starlink dynamics layer: per timeline build, and on the env's speed.

Run: ``python -m benchmarks.bench_dynamics [--quick] [--repeats 5]`` (or through
``python -m benchmarks --only dynamics``).

The ``default`` scenario is ``starlink_geometric`` (the geometric model alone, leogym's
``default`` before the switch) with the dynamics layer (``leogym.scenario.links.dynamics``) on its
satellite path; the two are measured side by side on the same seeds, the order alternating from
one seed to the next, so a change of machine load moves both alike. CPU time
(``time.process_time``) is the figure to read: the machine is shared.

* **timeline build**: ``sample_scenario`` then ``build_timeline`` (what ``reset`` does before
  ns-3 is set up), 30 s episodes; CPU time of ``build_timeline`` for each scenario, their
  difference (the layer's cost per build) and ratio, taken seed by seed. And the CPU time of
  ``apply_dynamics`` alone (preset ``default``) on the satellite path of a 30 s and of a 3600 s
  ``starlink_geometric`` timeline, called as ``tests/scenario/test_dynamics.py`` calls it.
* **env speed**: ``leogym/LeoCC-v0`` with the native CUBIC in charge (the paths kept full),
  100 ms steps, one episode per seed: simulated seconds per CPU second and per wall-clock second
  of the steps (``reset`` apart: its CPU time is a row of its own), mean goodput, and the ratio
  ``default`` / ``starlink_geometric`` of the CPU time per simulated second (and per delivered
  Mbit: the packet work follows the goodput, which the layer changes).

The absolute build times depend on the state of the process's allocator (a fresh process pays
page faults for the arrays of every build; after a large timeline it reuses its heap and builds
take about a third less), so the builds are measured in a fresh process; the difference between
the two scenarios is the same in both states.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from benchmarks.common import Row, measure, ratio_row, run_json_child, section_main

__all__ = [
    "build_cpu",
    "apply_cpu",
    "build_samples",
    "env_episode",
    "build_rows",
    "env_rows",
    "rows",
]

SECTION = "dynamics"
BEFORE = "starlink_geometric"  # the geometric model alone (the world before the switch)
AFTER = "default"  # the same with the per-slot dynamics layer
ENV_ID = "leogym/LeoCC-v0"
STEP_MS = 100


def _order(i: int) -> tuple[str, str]:
    return (BEFORE, AFTER) if i % 2 == 0 else (AFTER, BEFORE)


# ---------------------------------------------------------------------------- timeline build


def build_cpu(name: str, seed: int) -> float:
    """CPU seconds of ``build_timeline`` for scenario ``name``'s episode drawn with ``seed``."""
    from leogym.scenario import build_timeline, load_scenario, sample_scenario

    episode = sample_scenario(load_scenario(name), np.random.default_rng(seed))
    c0 = time.process_time()
    build_timeline(episode, seed)
    return time.process_time() - c0


def _geometric_timeline(duration_s: float) -> tuple[Any, Any]:
    """``starlink_geometric`` at ``duration_s`` with no boundary outage (the layer draws its
    own), and its timeline for seed 0: the input of ``apply_dynamics``."""
    from leogym.scenario import build_timeline, load_scenario
    from leogym.scenario.config.dynamics import DynamicsConfig

    cfg = copy.deepcopy(load_scenario(BEFORE))
    cfg.duration_s = duration_s
    cfg.handover.outage_s = 0.0
    cfg.paths[0].satellite.dynamics = DynamicsConfig(preset="off")
    return cfg, build_timeline(cfg, 0)


def apply_cpu(cfg: Any, tl: Any, seed: int, preset: str = "default") -> float:
    """CPU seconds of one ``apply_dynamics`` on the satellite path of ``tl`` (the call of
    ``tests/scenario/test_dynamics.py``'s ``_apply``, the slot grid taken from ``cfg``)."""
    from leogym.scenario.config.dynamics import DynamicsConfig
    from leogym.scenario.links.dynamics import (
        apply_dynamics,
        diurnal_gain,
        dynamics_streams,
    )
    from leogym.scenario.links.handover import slot_instants
    from leogym.scenario.timeline_builder import _S_DYN, resolved_epoch_utc_s

    p = tl.paths[0]
    keys = ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps", "loss_down", "loss_up")
    arrays = {k: getattr(p, k) for k in (*keys, "outages")}
    dyn = DynamicsConfig(preset=preset)
    sat = cfg.paths[0].satellite
    c0 = time.process_time()
    epoch = resolved_epoch_utc_s(cfg)
    bounds = slot_instants(tl.duration_s + 1.0, epoch, cfg.handover.period_s, cfg.handover.offset_s)
    apply_dynamics(
        dyn,
        arrays,
        tl.times,
        tl.dt_s,
        bounds,
        dynamics_streams(seed, _S_DYN, dyn.group, 0),
        update_s=sat.capacity_update_s,
        min_rate_bps=sat.min_rate_mbps * 1e6,
        gain=diurnal_gain(epoch, cfg.terminal.lon_deg, 1.0),
        duration_s=tl.duration_s,
    )
    return time.process_time() - c0


def build_samples(seeds: int, long_repeats: int) -> dict[str, list[float]]:
    """CPU milliseconds of the timeline builds (``seeds`` pairs, order alternating) and of
    ``apply_dynamics`` alone (``seeds`` calls on 30 s, ``long_repeats`` on 3600 s), measured in
    this process (:func:`build_rows` runs it in a fresh one)."""
    for name in (BEFORE, AFTER):  # warm-up: imports, scenario files, constellation tables
        build_cpu(name, 0)
    out: dict[str, list[float]] = {BEFORE: [], AFTER: []}
    for seed in range(seeds):
        for name in _order(seed):
            out[name].append(1e3 * build_cpu(name, seed))
    # after the builds: the 3600 s timeline leaves a grown heap behind it
    for duration, n in ((30.0, seeds), (3600.0, long_repeats)):
        cfg, tl = _geometric_timeline(duration)
        apply_cpu(cfg, tl, 0)  # warm-up
        out[f"apply_{duration:g}"] = [1e3 * apply_cpu(cfg, tl, seed) for seed in range(n)]
        out[f"samples_{duration:g}"] = [float(len(tl.times))]
    return out


_BUILD_CHILD = r"""
import json, sys
from benchmarks.bench_dynamics import build_samples
print(json.dumps(build_samples(int(sys.argv[1]), int(sys.argv[2]))))
"""


def build_rows(quick: bool, repeats: int) -> list[Row]:
    """Timeline build CPU time before/after, the layer's cost per build, ``apply_dynamics``;
    measured in a fresh process (the build time depends on the allocator's state)."""
    seeds = 3 if quick else 10 * repeats
    long_repeats = 1 if quick else repeats
    r = run_json_child(_BUILD_CHILD, [str(seeds), str(long_repeats)], "timeline build measurement")
    before_ms, after_ms = r[BEFORE], r[AFTER]
    what = (
        f"30 s episodes, seeds 0..{seeds - 1}, order alternating, fresh process; "
        "sample_scenario excluded"
    )
    out = [
        measure(SECTION, f"{BEFORE} timeline build CPU", "ms", before_ms, note=what),
        measure(SECTION, f"{AFTER} timeline build CPU", "ms", after_ms, note=what),
        measure(
            SECTION,
            "dynamics layer cost per timeline build",
            "ms",
            [a - b for a, b in zip(after_ms, before_ms, strict=True)],
            note=f"CPU of {AFTER} minus {BEFORE}, same seed (pairs back to back)",
        ),
        ratio_row(
            SECTION,
            f"timeline build CPU {AFTER} / {BEFORE}",
            after_ms,
            before_ms,
            note="same seed, pair by pair",
        ),
    ]
    for duration in (30.0, 3600.0):
        ms = r[f"apply_{duration:g}"]
        out.append(
            measure(
                SECTION,
                f"apply_dynamics alone, {duration:g} s timeline CPU",
                "ms",
                ms,
                note=f"preset default on {BEFORE}'s satellite path "
                f"({int(r[f'samples_{duration:g}'][0])} samples of 10 ms), seeds 0..{len(ms) - 1}",
            )
        )
    return out


# ---------------------------------------------------------------------------- env speed


def env_episode(scenario: str, episode_s: float, seed: int) -> dict[str, float]:
    """One ``LeoCC-v0`` episode with the native CUBIC, 100 ms steps.

    :return: ``sim_s``, ``cpu_s`` and ``wall_s`` of the steps, ``reset_cpu_s`` (timeline build
        and ns-3 set-up) and the mean ``goodput_mbps``.
    """
    import gymnasium as gym

    import leogym  # noqa: F401

    env = gym.make(ENV_ID, scenario=scenario, cc="cubic", step_ms=STEP_MS, episode_s=episode_s)
    try:
        action = np.zeros(env.action_space.shape, dtype=np.float32)
        c0 = time.process_time()
        env.reset(seed=seed)
        c1, w1 = time.process_time(), time.perf_counter()
        goodput = []
        while True:
            _, _, terminated, truncated, info = env.step(action)
            goodput.append(info["goodput_bps"])
            if terminated or truncated:
                break
        c2, w2 = time.process_time(), time.perf_counter()
        sim_s = float(info["sim_time_s"])
    finally:
        env.close()
    return {
        "sim_s": sim_s,
        "cpu_s": c2 - c1,
        "wall_s": w2 - w1,
        "reset_cpu_s": c1 - c0,
        "goodput_mbps": float(np.mean(goodput)) / 1e6,
    }


def env_rows(quick: bool, repeats: int) -> list[Row]:
    """Env speed on ``starlink_geometric`` and ``default``, side by side, seeds 0..repeats-1."""
    episode = 2.0 if quick else 10.0
    env_episode(BEFORE, 0.5, 0)  # warm-up: ns-3 libraries, TypeIds
    runs: dict[str, list[dict[str, float]]] = {BEFORE: [], AFTER: []}
    for seed in range(repeats):
        for name in _order(seed):
            runs[name].append(env_episode(name, episode, seed))
    what = (
        f"{episode:g} s episodes, {STEP_MS} ms steps, cc=cubic, seeds 0..{repeats - 1}, "
        "order alternating"
    )
    out: list[Row] = []
    for name in (BEFORE, AFTER):
        r = runs[name]
        out += [
            measure(
                SECTION,
                f"env {name}: sim_s per CPU s",
                "x",
                [x["sim_s"] / x["cpu_s"] for x in r],
                note=f"{what}; time.process_time around the steps",
            ),
            measure(
                SECTION,
                f"env {name}: sim_s per wall_s",
                "x",
                [x["sim_s"] / x["wall_s"] for x in r],
            ),
            measure(
                SECTION,
                f"env {name}: goodput",
                "Mbit/s",
                [x["goodput_mbps"] for x in r],
                note="mean over the episode, both paths",
            ),
            measure(
                SECTION,
                f"env {name}: reset CPU",
                "ms",
                [1e3 * x["reset_cpu_s"] for x in r],
                note="30 s timeline build + ns-3 set-up",
            ),
        ]
    per_sim = {n: [x["cpu_s"] / x["sim_s"] for x in runs[n]] for n in (BEFORE, AFTER)}
    out.append(
        ratio_row(
            SECTION,
            f"env {AFTER} / {BEFORE}, CPU per simulated s",
            per_sim[AFTER],
            per_sim[BEFORE],
            note="same seed, pair by pair (> 1: the layer's world costs more to simulate)",
        )
    )
    per_bit = {
        n: [x["cpu_s"] / (x["goodput_mbps"] * x["sim_s"]) for x in runs[n]] for n in (BEFORE, AFTER)
    }
    out.append(
        ratio_row(
            SECTION,
            f"env {AFTER} / {BEFORE}, CPU per delivered Mbit",
            per_bit[AFTER],
            per_bit[BEFORE],
            note="the same pairs, per unit of goodput (the packet work the layer's world leaves)",
        )
    )
    return out


def rows(quick: bool = False, repeats: int = 5) -> list[Row]:
    """The section's rows: timeline build, then env speed."""
    return build_rows(quick, repeats) + env_rows(quick, repeats)


def main(argv: list[str] | None = None) -> int:
    return section_main(rows, __doc__, argv)


if __name__ == "__main__":
    raise SystemExit(main())
