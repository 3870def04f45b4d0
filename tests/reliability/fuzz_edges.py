"""Fuzz targets for the input classes of issue 33, each with an oracle that knows the answer.

The targets of ``fuzz_targets.py`` mutate valid inputs at random and accept any clear error;
they never told an input that *must* be refused from one that must run, so a bad input that
was silently accepted counted as ``accepted``. Each target here generates inputs near the
edges that issue 33 found (times near ns-3's resolution, rates at their bounds, duplicate flow
names, episodes longer than their scenario, tiny trace files, zoo names that are paths) and
decides, from the documented rule and the bounds in the schema's field metadata, whether the
input is valid. Then:

``clear_error``
    an invalid input refused with a ``FieldError``/``ValueError`` naming the expected field;
``clear_error_relation``
    an input valid by its own range refused with a ``FieldError`` naming a field, for a relation
    between fields that the oracle does not model (a ``stop_s`` before its ``start_s``);
``accepted``
    a valid input that ran: built, reset and stepped, each ``step()`` and ``reset()`` within
    :data:`STEP_BOUND_S` / :data:`RESET_BOUND_S`;
``silently_accepted`` (defect)
    an invalid input that ran without an error;
``slow`` (defect: a hang in the making)
    a valid input whose ``reset()`` or one ``step()`` took longer than its bound;
``frozen_time`` (defect)
    an episode that runs past the end of its timeline (the links frozen at their last state);
``code_from_a_name`` (defect)
    a zoo name that made a planted model file unpickle (its marker file was written);
``unclear_error``, ``late_error``, ``wrongly_rejected`` (defects)
    as in ``fuzz_targets.py``: a message that names the wrong field or none, an error after the
    input was accepted, a valid input refused without naming a field.

Aborts and hangs that never return are caught by the parent test (the worker runs in its own
process, under a memory limit for these targets, so an unbounded allocation is a
``MemoryError`` the target reports rather than the OOM killer's business).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
import string
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
from fuzz_targets import Outcome, Target, _exc, _short
from hypothesis import strategies as st
from strategies import dotted, set_at

from leogym.schema import FieldError

__all__ = ["EDGE_TARGETS", "RESET_BOUND_S", "STEP_BOUND_S"]

#: Simulated seconds per step of an accepted input, and how many steps are run.
STEP_S, STEPS = 0.1, 3
#: Wall-clock bounds (s) of one ``step()`` of :data:`STEP_S` and of one ``reset()`` (timeline
#: build and simulation set-up): 20x real time, well above the 1-12x measured at the limits of
#: the rates and periods (docs/scenario.md), on a loaded machine.
STEP_BOUND_S = 2.0
RESET_BOUND_S = 20.0

#: Outcomes that are not defects.
FINE = ("accepted", "clear_error", "clear_error_relation")


def _scenario_dict(name: str, duration_s: float = 2.0) -> dict[str, Any]:
    from leogym.scenario import load_scenario

    d = dataclasses.asdict(load_scenario(name))
    d["duration_s"] = duration_s
    return d


def _refused(e: BaseException, field: str | tuple[str, ...]) -> Outcome:
    """An error for an input the oracle says is invalid at ``field`` (or at one of them)."""
    if isinstance(e, ValueError) and str(e).startswith(field):
        return Outcome("clear_error", _exc(e))
    return Outcome("unclear_error", f"expected {field}: {_exc(e)}")


def _refused_valid(e: BaseException) -> Outcome:
    """An error for an input the oracle says is valid: a relation it does not model (still a
    clear error if it names a field), else a valid input refused."""
    if isinstance(e, FieldError):
        return Outcome("clear_error_relation", _exc(e))
    return Outcome("wrongly_rejected", _exc(e))


def _timed_run(cfg: Any) -> tuple[Outcome, float, float]:
    """Build ``cfg``'s timeline, open a simulation on it and step it :data:`STEPS` times.

    :return: the outcome (``accepted``, ``slow`` or ``late_error``), the ``reset()`` time and
        the slowest step (s).
    """
    from leogym.envs.config import EnvConfig
    from leogym.scenario import build_timeline
    from leogym.simulation import Simulation

    sim = None
    reset_s = slowest = 0.0
    try:
        t0 = time.perf_counter()
        sim = Simulation.open(EnvConfig(cc="cubic"), cfg, 1, timeline=build_timeline(cfg, seed=1))
        reset_s = time.perf_counter() - t0
        if reset_s > RESET_BOUND_S:
            return Outcome("slow", f"reset took {reset_s:.2f} s"), reset_s, slowest
        for _ in range(STEPS):
            t0 = time.perf_counter()
            sim.step(STEP_S)
            slowest = max(slowest, time.perf_counter() - t0)
            if slowest > STEP_BOUND_S:
                return Outcome("slow", f"a {STEP_S} s step took {slowest:.2f} s"), reset_s, slowest
    except Exception as e:  # noqa: BLE001 - classified
        return Outcome("late_error", _exc(e)), reset_s, slowest
    finally:
        if sim is not None:
            sim.close()
    return Outcome("accepted"), reset_s, slowest


class _OracleTarget(Target):
    """A target whose examples carry their own verdict; it also keeps the slowest ``reset()``
    and ``step()`` of the inputs it ran (``timings``, reported by the worker)."""

    def __init__(self) -> None:
        self.timings = {"reset_s": 0.0, "step_s": 0.0}

    def _note(self, reset_s: float, step_s: float) -> None:
        self.timings["reset_s"] = max(self.timings["reset_s"], reset_s)
        self.timings["step_s"] = max(self.timings["step_s"], step_s)

    def _scenario(
        self, data: dict[str, Any], field: str | tuple[str, ...] | None, either: bool = False
    ) -> Outcome:
        """Load scenario ``data``, invalid at ``field`` (``None``: valid) by the oracle, and run
        it if it loads. ``either``: the oracle cannot tell; a refusal must name ``field``, an
        accepted input must run."""
        from leogym.scenario import load_scenario

        try:
            cfg = load_scenario(data)
        except Exception as e:  # noqa: BLE001 - classified
            return _refused(e, field) if field else _refused_valid(e)
        if field and not either:
            return Outcome("silently_accepted", f"expected an error naming {field}")
        out, reset_s, step_s = _timed_run(cfg)
        self._note(reset_s, step_s)
        return out


# ------------------------------------------------------------------------------ time fields
@dataclass(frozen=True)
class TimeField:
    """A time field handed to ns-3, with its bounds from the schema's field metadata."""

    path: tuple[Any, ...]
    #: ``(lo, hi, lo_open, hi_open)`` of :func:`leogym.schema.bounded`.
    range: tuple[Any, Any, bool, bool]
    #: The shortest non-zero value (:func:`leogym.schema.duration`'s ``nonzero_min``).
    floor: float

    @property
    def unit_s(self) -> float:
        """Seconds per unit of the field (``*_ms`` fields are in milliseconds)."""
        return 1e-3 if str(self.path[-1]).endswith("_ms") else 1.0

    def valid(self, value: float) -> bool:
        """Whether ``value`` is in range and, if not 0, at least :attr:`floor`."""
        lo, hi, lo_open, hi_open = self.range
        if value != 0 and value < self.floor:
            return False
        if lo is not None and (value < lo or (lo_open and value == lo)):
            return False
        return not (hi is not None and (value > hi or (hi_open and value == hi)))


def time_fields(obj: Any, prefix: tuple[Any, ...] = ()) -> list[TimeField]:
    """Every field of the dataclass ``obj`` (recursively, list items included) that carries
    :func:`leogym.schema.duration` metadata, by its path in ``dataclasses.asdict(obj)``."""
    out: list[TimeField] = []
    for f in dataclasses.fields(obj):
        value, path = getattr(obj, f.name), (*prefix, f.name)
        if "nonzero_min" in f.metadata:
            out.append(TimeField(path, f.metadata["range"], f.metadata["nonzero_min"][0]))
        elif dataclasses.is_dataclass(value):
            out += time_fields(value, path)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if dataclasses.is_dataclass(item):
                    out += time_fields(item, (*path, i))
    return out


#: Multiples of a field's shortest non-zero value, and times in seconds, tried on a time field:
#: below, at and just above ns-3's nanosecond (4e-10 s rounds to 0 ns) and the field's floor.
FLOOR_FACTORS = (0.0, 1e-3, 0.4, 0.5, 0.999999, 1.0, 1.000001, 2.0, 1e3)
SECONDS = (-1e-9, 1e-10, 4e-10, 5e-10, 9.99e-10, 1e-9, 1.5e-9, 1e-6, 4e-7, 1e-3)
DISCIPLINES = ("droptail", "red", "codel", "fq_codel", "pie", "dualpi2")


class TimeFieldsTarget(_OracleTarget):
    description = (
        "time fields near ns-3's 1 ns resolution (every duration field of scenarios and "
        "env.transport, every queue discipline)"
    )

    def __init__(self) -> None:
        from leogym.envs.config import EnvOptions
        from leogym.scenario import load_scenario

        super().__init__()
        base = _scenario_dict("tiny")
        base["traffic"]["cross_traffic"] = [
            {"kind": "udp_onoff", "path": 0, "rate_mbps": 1.0, "on_s": 0.5, "off_s": 0.5},
            {"kind": "tcp_bulk", "path": 1, "start_s": 0.1, "stop_s": 1.5},
        ]
        base["traffic"]["flows"] = [
            {
                "name": "t",
                "transport": "tcp",
                "routes": ["terrestrial"],
                "min_rto_s": 0.2,
                "delayed_ack_s": 0.04,
                "rto_granularity_s": 0.001,
                "stop_s": 1.5,
            },
            {
                "name": "u",
                "transport": "udp_onoff",
                "routes": ["sat"],
                "rate_mbps": 1.0,
                "on_s": 0.5,
                "off_s": 0.5,
            },
            {"name": "m", "transport": "mpquic", "cc": "cubic", "routes": ["sat", "terrestrial"]},
        ]
        self.base = base
        self.scenario_fields = time_fields(load_scenario(base))
        options = EnvOptions()
        self.env_fields = time_fields(options.transport, ("transport",))
        assert self.scenario_fields and self.env_fields

    def strategy(self) -> st.SearchStrategy[Any]:
        fields = [("scenario", f) for f in self.scenario_fields] + [
            ("env", f) for f in self.env_fields
        ]
        return st.tuples(
            st.sampled_from(fields),
            st.one_of(
                st.tuples(st.just("floor"), st.sampled_from(FLOOR_FACTORS)),
                st.tuples(st.just("seconds"), st.sampled_from(SECONDS)),
            ),
            st.sampled_from(DISCIPLINES),
        )

    @staticmethod
    def value(field: TimeField, how: tuple[str, float]) -> float:
        kind, x = how
        return field.floor * x if kind == "floor" else x / field.unit_s

    def describe(self, example: Any) -> str:
        (route, field), how, discipline = example
        v = self.value(field, how)
        return f"{route}.{dotted(field.path)} = {v!r} ({discipline}); valid={field.valid(v)}"

    def run(self, example: Any) -> Outcome:
        (route, field), how, discipline = example
        v = self.value(field, how)
        expected = None if field.valid(v) else f"{route}.{dotted(field.path)}"
        if route == "env":
            return self._env(field, v, discipline, expected)
        data = copy.deepcopy(self.base)
        for path in data["paths"]:
            path["queue"]["discipline"] = discipline
        set_at(data, field.path, v)
        return self._scenario(data, expected)

    def _env(self, field: TimeField, v: float, discipline: str, expected: str | None) -> Outcome:
        transport: dict[str, Any] = {field.path[-1]: v}
        if field.path[1] == "recovery_params":
            transport = {"recovery_params": transport}
            transport["recovery"] = "tcp"  # the parameters apply to a timer-based recovery
        scenario = copy.deepcopy(self.base)
        for path in scenario["paths"]:
            path["queue"]["discipline"] = discipline
        return _env_run(
            "leogym/LeoCC-v0", {"scenario": scenario, "transport": transport}, expected, self
        )


def _env_run(
    env_id: str, kwargs: dict[str, Any], expected: str | None, target: _OracleTarget
) -> Outcome:
    """``gymnasium.make`` then reset and :data:`STEPS` steps, each timed; invalid at
    ``expected`` (``None``: valid) by the oracle."""
    try:
        env = gym.make(env_id, **kwargs)
    except Exception as e:  # noqa: BLE001 - classified
        return _refused(e, expected) if expected else _refused_valid(e)
    reset_s = slowest = 0.0
    try:
        env.action_space.seed(0)
        t0 = time.perf_counter()
        env.reset(seed=0)
        reset_s = time.perf_counter() - t0
        for _ in range(STEPS):
            t0 = time.perf_counter()
            env.step(env.action_space.sample())
            slowest = max(slowest, time.perf_counter() - t0)
    except Exception as e:  # noqa: BLE001 - classified
        if expected:
            return _refused(e, expected)
        return Outcome("late_error", "at reset/step: " + _exc(e))
    finally:
        env.close()
    target._note(reset_s, slowest)
    if expected:
        return Outcome("silently_accepted", f"expected an error naming {expected}")
    if reset_s > RESET_BOUND_S or slowest > STEP_BOUND_S:
        return Outcome("slow", f"reset {reset_s:.2f} s, slowest step {slowest:.2f} s")
    return Outcome("accepted")


# ------------------------------------------------------------------------------------ rates
#: Multiples of a rate's upper bound, and absolute rates (Mbit/s), tried on a rate field.
BOUND_FACTORS = (0.25, 0.5, 0.999999, 1.0, 1.0 + 1e-12, 1.0001, 2.0, 100.0)
RATES_MBPS = (0.0, -0.0, -1.0, 5e-324, 1e-9, 1e-7, 1e-6, 1e6, 1e303, math.inf, math.nan)


class RatesTarget(_OracleTarget):
    description = (
        "rates at their bounds (UDP sources alone and together, count included; hop link rates)"
    )

    def __init__(self) -> None:
        from leogym.scenario.config import MAX_LINK_RATE_MBPS, MAX_UDP_RATE_MBPS

        super().__init__()
        self.udp_max, self.link_max = MAX_UDP_RATE_MBPS, MAX_LINK_RATE_MBPS
        self.paths = _scenario_dict("tiny")
        self.hops = _scenario_dict("bottleneck4")
        for d in (self.paths, self.hops):
            assert d["rate_scale"] == 1.0  # the oracle's sums take rate_scale as 1

    def strategy(self) -> st.SearchStrategy[Any]:
        rate = st.one_of(
            st.sampled_from(BOUND_FACTORS).map(lambda f: ("bound", f)),
            st.sampled_from(RATES_MBPS).map(lambda r: ("mbps", r)),
        )
        udp = st.tuples(
            st.just("udp"),
            st.lists(
                st.tuples(
                    st.sampled_from(["cross_traffic", "flows"]), rate, st.sampled_from([1, 2, 3])
                ),
                min_size=1,
                max_size=3,
            ),
        )
        link = st.tuples(
            st.just("link"),
            st.lists(
                st.tuples(
                    st.sampled_from([0, 1, 2]), st.sampled_from(["rate_mbps", "rate_up_mbps"]), rate
                ),
                min_size=1,
                max_size=2,
            ),
        )
        return st.one_of(udp, link)

    @staticmethod
    def _mbps(rate: tuple[str, float], bound: float) -> float:
        kind, x = rate
        return bound * x if kind == "bound" else x

    def describe(self, example: Any) -> str:
        kind, items = example
        if kind == "udp":
            return "udp sources: " + ", ".join(
                f"{where} {self._mbps(r, self.udp_max)!r} Mbit/s x{n}" for where, r, n in items
            )
        return "hop links: " + ", ".join(
            f"links[{i}].{name} = {self._mbps(r, self.link_max)!r}" for i, name, r in items
        )

    def run(self, example: Any) -> Outcome:
        kind, items = example
        return self._udp(items) if kind == "udp" else self._links(items)

    def _udp(self, items: list[Any]) -> Outcome:
        """UDP sources added to tiny: each must be in (0, max] Mbit/s and at least 1 bit/s
        (rate_scale 1), and all of them together, ``count`` included, at most max; a refusal
        names a source's ``rate_mbps`` (one out of range, else any of them: which source tips
        the sum depends on the checking order)."""
        data = copy.deepcopy(self.paths)
        traffic = data["traffic"]
        alone: list[str] = []
        every: list[str] = []
        total = 0.0
        for where, r, count in items:
            mbps = self._mbps(r, self.udp_max)
            entry: dict[str, Any] = {"rate_mbps": mbps, "count": count, "on_s": 0.05}
            if where == "cross_traffic":
                entry.update(kind="udp_onoff", path=0, off_s=0.05)
            else:
                entry.update(transport="udp_onoff", routes=["sat"])
            field = f"scenario.traffic.{where}[{len(traffic[where])}].rate_mbps"
            traffic[where].append(entry)
            every.append(field)
            if 1e-6 <= mbps <= self.udp_max:  # (0, max] Mbit/s, and at least 1 bit/s
                total += mbps * count
            else:
                alone.append(field)
        expected = tuple(alone) or (tuple(every) if total > self.udp_max else None)
        return self._scenario(data, expected)

    def _links(self, items: list[Any]) -> Outcome:
        """Hop link rates of bottleneck4: each direction in (0, max] Mbit/s and at least 1 bit/s
        (rate_scale 1, no square wave here); a refusal names a bad link's rate."""
        data = copy.deepcopy(self.hops)
        for i, name, r in items:
            data["hops"]["links"][i][name] = self._mbps(r, self.link_max)
        bad = tuple(
            f"scenario.hops.links[{i}].{name}"
            for i, link in enumerate(data["hops"]["links"])
            for name in ("rate_mbps", "rate_up_mbps")
            if link[name] is not None and not (1e-6 <= link[name] <= self.link_max)
        )
        return self._scenario(data, bad or None)


# ------------------------------------------------------------------------------- flow names
NAMES = ("", "x", "x", "connection", "a", "a.0", "a.1", "flow0", "flow1", "flow2", "b.0", "y")


def expected_duplicate(flows: list[dict[str, Any]]) -> int | None:
    """The documented naming rule (docs/scenario.md, "Flows"): flow ``i`` is named ``name`` or
    ``flow<i>``, ``<name>.<j>`` for each of ``count > 1`` copies; the connection is
    ``connection``. The index of the first flow that repeats a name, or ``None``."""
    seen = {"connection"}
    for i, flow in enumerate(flows):
        base = flow["name"] or f"flow{i}"
        names = [base] if flow["count"] == 1 else [f"{base}.{j}" for j in range(flow["count"])]
        for name in names:
            if name in seen:
                return i
            seen.add(name)
    return None


class FlowNamesTarget(_OracleTarget):
    description = "flow names (duplicates, 'connection', count expansions, defaults)"

    def __init__(self) -> None:
        super().__init__()
        self.base = _scenario_dict("tiny")

    def strategy(self) -> st.SearchStrategy[Any]:
        flow = st.fixed_dictionaries(
            {
                "name": st.sampled_from(NAMES),
                "count": st.sampled_from([1, 1, 2, 3]),
                "transport": st.sampled_from(["tcp", "udp_onoff", "mpquic"]),
            }
        )
        return st.lists(flow, min_size=1, max_size=4)

    def describe(self, example: Any) -> str:
        dup = expected_duplicate(example)
        return f"{[(f['name'], f['count']) for f in example]}; duplicate at {dup}"

    def run(self, example: Any) -> Outcome:
        data = copy.deepcopy(self.base)
        for f in example:
            flow = dict(f, routes=["terrestrial"])
            if f["transport"] == "mpquic":
                flow["cc"] = "cubic"
            data["traffic"]["flows"].append(flow)
        dup = expected_duplicate(example)
        out = self._scenario(data, None if dup is None else f"scenario.traffic.flows[{dup}].name")
        if out.kind == "accepted":
            from leogym.scenario import load_scenario
            from leogym.scenario.flows import flow_names

            names = flow_names(load_scenario(data))
            if len(set(names)) != len(names) or len(names) != 1 + sum(f["count"] for f in example):
                return Outcome("silently_accepted", f"flow names {names}")
        return out


# ---------------------------------------------------------------------------- episode length
ENV_IDS = ("leogym/LeoCC-v0", "leogym/LeoScheduler-v0", "leogym/LeoJoint-v0", "multi_agent")
#: ``episode_s`` as a multiple of the scenario's ``duration_s``, and long episodes (s; up to
#: ``env.episode_s``'s maximum, a day, and beyond).
EPISODE_FACTORS = (0.5, 0.999, 1.0, 1.001, 1.5, 2.0, 3.0)
HUGE_EPISODES_S = (600.0, 3600.0, 86400.0, 1e5, 1e12)


class EpisodeLengthTarget(_OracleTarget):
    description = (
        "episode_s against the scenario's duration_s (shorter, equal, longer, far longer; "
        "every env, the multi-agent one included)"
    )

    def strategy(self) -> st.SearchStrategy[Any]:
        episode = st.one_of(
            st.sampled_from(EPISODE_FACTORS).map(lambda f: ("factor", f)),
            st.sampled_from(HUGE_EPISODES_S).map(lambda s: ("seconds", s)),
        )
        return st.tuples(
            st.sampled_from(ENV_IDS),
            st.sampled_from([0.5, 1.0, 1.5]),
            episode,
            st.sampled_from([50.0, 100.0, 250.0]),
            st.booleans(),
        )

    @staticmethod
    def episode_s(duration: float, episode: tuple[str, float]) -> float:
        kind, x = episode
        return round(duration * x, 6) if kind == "factor" else x

    def describe(self, example: Any) -> str:
        env_id, duration, episode, step_ms, sample = example
        return (
            f"{env_id}: duration_s {duration}, episode_s {self.episode_s(duration, episode)}, "
            f"step_ms {step_ms}, sample_scenarios {sample}"
        )

    def run(self, example: Any) -> Outcome:
        env_id, duration, episode, step_ms, sample = example
        episode_s = self.episode_s(duration, episode)
        huge = episode[0] == "seconds"
        base = "bottleneck4" if env_id == "multi_agent" else "tiny"
        kwargs = {
            "scenario": _scenario_dict(base, duration),
            "episode_s": episode_s,
            "step_ms": step_ms,
            "sample_scenarios": sample,
        }
        try:
            env = self._make(env_id, kwargs)
        except Exception as e:  # noqa: BLE001 - classified
            # an episode the scenario cannot be extended to is refused naming env.episode_s
            if huge:
                return _refused(e, "env.episode_s")
            return _refused_valid(e)
        try:
            return self._play(env, env_id, episode_s, step_ms, huge)
        finally:
            env.close()

    @staticmethod
    def _make(env_id: str, kwargs: dict[str, Any]) -> Any:
        if env_id == "multi_agent":
            from leogym.envs.multi_agent import LeoMultiAgentCCEnv

            return LeoMultiAgentCCEnv(**kwargs)
        return gym.make(env_id, **kwargs)

    def _play(self, env: Any, env_id: str, episode_s: float, step_ms: float, huge: bool) -> Outcome:
        """Reset, then step to the episode's end (a few steps only of a huge one). The episode
        lasts ``episode_s`` rounded to whole steps, and the timeline covers every step: no
        step runs on links frozen at the timeline's last sample."""
        t0 = time.perf_counter()
        try:
            env.reset(seed=1)
        except Exception as e:  # noqa: BLE001 - classified
            return _refused(e, "env.episode_s") if huge else Outcome("late_error", _exc(e))
        reset_s = time.perf_counter() - t0
        step_s = step_ms / 1000.0
        steps_due = max(1, round(episode_s / step_s))  # docs: episode_s, in whole steps
        covered = env.unwrapped.timeline.duration_s
        if covered < steps_due * step_s - 1e-9:
            return Outcome(
                "frozen_time",
                f"timeline ends at {covered:g} s, the episode's {steps_due} steps at "
                f"{steps_due * step_s:g} s",
            )
        slowest, steps, done = 0.0, 0, False
        while not done and steps < (3 if huge else steps_due + 1):
            t0 = time.perf_counter()
            if env_id == "multi_agent":
                actions = {a: env.action_space(a).sample() for a in env.agents}
                _, _, term, trunc, _ = env.step(actions)
                done = not env.agents or any(term.values()) or any(trunc.values())
            else:
                _, _, term, trunc, _ = env.step(env.action_space.sample())
                done = term or trunc
            slowest = max(slowest, time.perf_counter() - t0)
            steps += 1
        self._note(reset_s, slowest)
        if not huge and (not done or steps != steps_due):
            return Outcome(
                "late_error", f"ended after {steps} steps (done {done}), {steps_due} due"
            )
        if reset_s > RESET_BOUND_S or slowest > STEP_BOUND_S * step_ms / 100.0:
            return Outcome("slow", f"reset {reset_s:.2f} s, slowest step {slowest:.2f} s")
        return Outcome("accepted", "long episode, extended" if huge else "")


# ------------------------------------------------------------------------------ tiny traces
class TinyTraceTarget(_OracleTarget):
    description = (
        "tiny trace files (0-3 lines: LENS IRTT CSV, LeoReplayer bw and delay, mahimahi "
        "terrestrial trace; close or equal timestamps) against short and long scenarios"
    )

    def __init__(self) -> None:
        from leogym.scenario.links.replay import MAX_TILED_PROBES

        super().__init__()
        self.max_probes = MAX_TILED_PROBES
        self.dir = Path(tempfile.mkdtemp(prefix="leogym-tiny-trace-"))
        self.n = 0
        self.base = _scenario_dict("tiny")
        self.good_delay = self._write("\n".join(["20"] * 10) + "\n")
        self.good_bw = self._write("\n".join(str(i) for i in range(1, 101)) + "\n")

    def _write(self, text: str) -> str:
        self.n += 1
        path = self.dir / f"trace{self.n}"
        path.write_text(text)
        return str(path)

    def strategy(self) -> st.SearchStrategy[Any]:
        gap = st.sampled_from([0, 1, 2, 1000, 10**6, 10**7, 10**9])
        rtt = st.sampled_from(["30", "0", "-1", "0.001"])
        irtt = st.tuples(
            st.just("irtt"),
            st.booleans(),  # a header line
            st.lists(st.tuples(gap, rtt), min_size=0, max_size=3),
        )
        stamps = st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=3).map(sorted)
        mahimahi = st.tuples(
            st.sampled_from(["bw_down", "terrestrial", "delay"]), st.just(False), stamps
        )
        duration = st.sampled_from([1.0, 2.0, 30.0, 3600.0])
        return st.tuples(st.one_of(irtt, mahimahi), duration)

    def describe(self, example: Any) -> str:
        (kind, header, lines), duration = example
        return f"{kind} file of {len(lines)} lines {lines!r} (header {header}); {duration} s"

    def _irtt_text(self, header: bool, lines: list[tuple[int, str]]) -> tuple[str, float | None]:
        """The file, and the probes a replay of one second lays out (``None``: no probes or
        no span)."""
        out = ["timestamp,rtt,uplink,downlink"] if header else []
        t = 1_700_000_000_000_000_000
        stamps = []
        for gap, rtt in lines:
            t += gap
            stamps.append(t)
            up = "-1" if rtt == "-1" else "10"
            out.append(f"{t},{rtt},{up},10")
        text = "\n".join(out) + ("\n" if out else "")
        if not stamps:
            return text, None
        gaps = sorted(b - a for a, b in zip(stamps, stamps[1:], strict=False))
        median = (gaps[len(gaps) // 2] + gaps[(len(gaps) - 1) // 2]) / 2 if gaps else 0
        period_s = (stamps[-1] - stamps[0] + median) * 1e-9
        return text, (len(stamps) / period_s if period_s > 0 else None)

    def run(self, example: Any) -> Outcome:
        (kind, header, lines), duration = example
        data = copy.deepcopy(self.base)
        data["duration_s"] = duration
        if kind == "irtt":
            text, per_s = self._irtt_text(header, lines)
            field = "scenario.paths[0].satellite.replay.csv"
            replay = {"format": "lens_irtt", "csv": self._write(text), "allow_stacking": True}
            data["paths"][0]["satellite"]["replay"] = replay
            # no probes or no span is an error; a replay far above the probe limit must be
            # refused, one far below it must run; in between, either (a refusal naming the file)
            must_fail = per_s is None or per_s * duration > 100 * self.max_probes
            must_run = per_s is not None and per_s * (duration + 20) < self.max_probes / 100
        else:
            text = "\n".join(str(s) for s in lines) + ("\n" if lines else "")
            path = self._write(text)
            if kind == "terrestrial":
                field = "scenario.paths[1].terrestrial.trace_down"
                data["paths"][1]["terrestrial"].update(capacity="trace", trace_down=path)
            else:
                field = f"scenario.paths[0].satellite.replay.{kind}"
                replay = {
                    "format": "leoreplayer",
                    "bw_down": self.good_bw,
                    "delay": self.good_delay,
                    "allow_stacking": True,  # keep tiny's handover outage: not this test's subject
                }
                replay[kind] = path
                data["paths"][0]["satellite"]["replay"] = replay
            # an empty file, or a mahimahi trace whose last timestamp is 0, repeats nothing
            must_fail = not lines or (kind != "delay" and lines[-1] == 0)
            must_run = not must_fail
        if must_run:
            return self._scenario(data, None)
        return self._scenario(data, field, either=not must_fail)

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


# -------------------------------------------------------------------------------- zoo names
#: Characters a zoo name may hold; the rule of docs/workflows.md ("[a-z0-9][a-z0-9-]*", at most
#: 64 characters), written out here as the oracle.
ZOO_CHARS = set(string.ascii_lowercase + string.digits + "-")


def is_zoo_name(name: object) -> bool:
    return (
        isinstance(name, str) and 0 < len(name) <= 64 and set(name) <= ZOO_CHARS and name[0] != "-"
    )


class ZooNamesTarget(_OracleTarget):
    description = (
        "zoo names (paths out of the zoo to a planted model, absolute paths, look-alikes, "
        "non-strings) through resolve, load_pretrained and leogym-eval's zoo: agents"
    )

    def __init__(self) -> None:
        from test_zoo_security import plant

        from leogym.agents import zoo
        from leogym.agents.runtime.app import compose

        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="leogym-zoo-fuzz-"))
        self.marker = self.dir / "marker"
        self.shipped = zoo.names()
        evil = self.dir / "x"
        plant(evil, "x", self.marker)
        rel = os.path.relpath(evil, zoo.MODELS_DIR)
        shipped = self.shipped[0]
        self.paths = [
            rel,
            str(evil),
            f"{evil}/",
            f"./{rel}",
            f"{shipped}/../{rel}",
            f"zoo:{rel}",
            f"{shipped}/..",
            "..",
            ".",
            "/",
            f"{shipped}/model.zip",
            f"~/{rel}",
            f"{shipped}\n",
            f" {shipped}",
            f"{shipped.upper()}",
            shipped.replace("-", "\u2010"),
            f"-{shipped}",
            "a" * 64,
            "a" * 65,
            "x" * 100_000,
            "",
            "a_b",
            "a.b",
            "x",
        ]
        self.cfg = compose("evaluate", ["scenario=tiny", "baseline=[]", "eval.seeds=[0]"])

    def strategy(self) -> st.SearchStrategy[Any]:
        names = st.one_of(
            st.sampled_from(self.paths),
            st.sampled_from(self.shipped),
            st.text(alphabet=string.ascii_lowercase + string.digits + "-./_A\\", max_size=12),
            st.sampled_from([None, 3, 3.5, b"ppo-cc-default", ["x"], {"x": 1}, Path("x")]),
        )
        return st.tuples(st.sampled_from(["resolve", "load", "eval"]), names)

    def describe(self, example: Any) -> str:
        route, name = example
        return f"{route}: {_short(name, 120)}; zoo name {is_zoo_name(name)}"

    def _card_names(self, name: Any) -> None:
        """Where ``name``, read as a path from the zoo, reaches the planted folder, put ``name``
        on its card: the attacker writes the card too (the old loader compared the two)."""
        from leogym.agents import zoo

        if not isinstance(name, str) or "\0" in name:
            return
        text = name.removeprefix("zoo:")
        card = Path(os.path.normpath(zoo.MODELS_DIR / os.path.expanduser(text))) / "card.json"
        try:
            planted = self.dir in card.parents and card.is_file()
        except OSError:  # a name too long for a path
            return
        if planted:
            data = json.loads(card.read_text())
            data["name"] = name
            card.write_text(json.dumps(data))

    def run(self, example: Any) -> Outcome:
        route, name = example
        self._card_names(name)
        out = self._load(route, name)
        if self.marker.exists():
            self.marker.unlink()
            return Outcome("code_from_a_name", f"the planted model ran: {out.detail}")
        return out

    def _load(self, route: str, name: Any) -> Outcome:
        from leogym.agents import zoo
        from leogym.agents.evaluate import agent_policy

        field = "eval.agents.X: zoo model" if route == "eval" else "zoo model"
        if route == "eval" and not isinstance(name, str):
            name = str(name)  # a Hydra override is text
        try:
            if route == "resolve":
                zoo.resolve(name)
            elif route == "load":
                zoo.load_pretrained(name, check_env=False)
            else:
                agent_policy("X", f"zoo:{name}", self.cfg)
        except Exception as e:  # noqa: BLE001 - classified
            if is_zoo_name(name) and name in self.shipped:
                return Outcome("wrongly_rejected", _exc(e))
            return _refused(e, field)
        if not is_zoo_name(name) or name not in self.shipped:
            return Outcome("silently_accepted", "loaded a model by a name outside the zoo")
        return Outcome("accepted")

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


EDGE_TARGETS: dict[str, type[Target]] = {
    "time_fields": TimeFieldsTarget,
    "rates": RatesTarget,
    "flow_names": FlowNamesTarget,
    "episode_length": EpisodeLengthTarget,
    "tiny_trace": TinyTraceTarget,
    "zoo_names": ZooNamesTarget,
}
