"""The classes of bad input the fuzz worker tries, each with its strategy and its oracle.

Every target turns one hypothesis example into an :class:`Outcome`:

``accepted``
    the input was valid (or was clipped, as Gymnasium's conventions say) and the whole pipeline
    behind it ran: a scenario that validates is also built into a timeline and simulated, an
    env that constructs is also reset and stepped, a native config that is accepted is also
    stepped.
``clear_error``
    a Python exception of the documented type whose message names the offending field
    (``scenario.paths[0].queue.size: ...``, ``config.cc_params.Beta: ...``, ``env.step_ms: ...``).
``unclear_error``
    any other exception (wrong type, or a message that names no field).
``clear_error_late``
    a clear error naming the field, but raised by a later step than the one given the input
    (e.g. a native parameter checked when the simulation starts rather than when it is
    built); not a defect of the message, listed so the check can move earlier.
``late_error``
    the input was accepted by the first layer and rejected (or crashed) by a later one without
    naming the field: a validation gap.
``wrongly_rejected``
    a valid input (by construction) was refused.
``not_recovered``
    after a rejected input, the object could not be used with a valid input any more.
``upstream_error``
    an unclear exception raised entirely inside a third-party library before any leogym code
    ran (e.g. Gymnasium's ``make`` given ``render_mode=0``); listed, not counted as a defect.

Aborts (SIGABRT, SIGSEGV) and hangs are detected by the parent test, which runs the worker in
a subprocess.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import junk, mutated, numeric_junk

import leogym  # noqa: F401  (registers the env ids)
from leogym.scenario.orbital.tle import tle_checksum
from leogym.simulation import Simulation, native_paths

__all__ = ["Outcome", "TARGETS"]

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "scenario" / "data"
_OURS = tuple(str(ROOT / d) for d in ("src", "envs", "agents", "baselines"))
#: A message that names a field at its start: ``name:``, ``a.b[3].c:``, ``paths[0] ('sat').x:``.
FIELD_PREFIX = re.compile(r"^[A-Za-z_]\w*(\[\d+\])*( \([^)]*\))?(\.\w*(\[\d+\])*)*: ")
#: Simulated seconds an accepted native input is stepped for, and the wall-clock cap.
SIM_STEPS, SIM_DT, WALL_CAP_S = 5, 0.1, 3.0


@dataclass
class Outcome:
    kind: str
    detail: str = ""


def _exc(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e)[:300]}"


def _short(x: Any, n: int = 400) -> str:
    s = repr(x)
    return s if len(s) <= n else s[: n - 3] + "..."


def _names_a_field(e: BaseException) -> bool:
    return bool(FIELD_PREFIX.match(str(e)))


def _mentions(e: BaseException, names: set[str]) -> bool:
    """Whether the message of ``e`` names one of ``names`` (an empty name by its repr)."""
    text = str(e)
    return any((n and n in text) or repr(n) in text for n in names)


def _in_leogym(e: BaseException) -> bool:
    """Whether any frame of ``e``'s traceback is leogym code (else a library raised it)."""
    return any(f.filename.startswith(_OURS) for f in traceback.extract_tb(e.__traceback__))


def _pybind_signature_error(e: BaseException) -> bool:
    return isinstance(e, TypeError) and "incompatible function arguments" in str(e)


def _late(e: BaseException) -> Outcome:
    """An input the constructor accepted was refused by a later step: still clear if the
    message names the field (``clear_error_late``: the check runs too late, inside the first
    step), a validation gap otherwise."""
    if isinstance(e, ValueError) and _names_a_field(e):
        return Outcome("clear_error_late", _exc(e))
    return Outcome("late_error", _exc(e))


def _step_native(sim: Any) -> None:
    t0 = time.perf_counter()
    for _ in range(SIM_STEPS):
        sim.step(SIM_DT)
        if time.perf_counter() - t0 > WALL_CAP_S:
            break


def _build_and_step(config: Any, paths: Any, network: Any = None) -> Outcome:
    """Build a native Simulation from fuzzed inputs and, if it is accepted, step it."""
    sim = None
    try:
        try:
            sim = _core().Simulation(config, paths, network)
        except ValueError as e:
            return Outcome("clear_error" if _names_a_field(e) else "unclear_error", _exc(e))
        except Exception as e:  # noqa: BLE001 - classified
            return Outcome("unclear_error", _exc(e))
        try:
            _step_native(sim)
        except Exception as e:  # noqa: BLE001 - classified
            return _late(e)
        return Outcome("accepted")
    finally:
        if sim is not None:
            sim.close()


def _core() -> Any:
    from leogym.native import core

    return core()


class Target:
    """Base class: one class of bad input."""

    description = ""

    def strategy(self) -> st.SearchStrategy[Any]:
        raise NotImplementedError

    def describe(self, example: Any) -> str:
        return _short(example, 1500)

    def run(self, example: Any) -> Outcome:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the target holds (envs, simulations)."""


# ---------------------------------------------------------------------------------- scenario
def _scenario_bases() -> list[dict[str, Any]]:
    """Every shipped scenario as a full dict, plus a trace-driven and a TLE variant of tiny."""
    from leogym.scenario import available_scenarios, load_scenario

    bases = [dataclasses.asdict(load_scenario(name)) for name in available_scenarios()]
    tiny = dataclasses.asdict(load_scenario("tiny"))
    trace = copy.deepcopy(tiny)
    trace["paths"][1]["terrestrial"].update(capacity="trace", trace_down=str(DATA / "step.mahi"))
    tle = copy.deepcopy(tiny)
    tle["constellation"].update(preset=None, kind="tle", tle_file=str(DATA / "tiny.tle"))
    tle["handover"]["mode"] = "visibility"
    for extra in (trace, tle):
        load_scenario(extra)  # the variants themselves must be valid
    return [*bases, trace, tle]


class ScenarioTarget(Target):
    description = "scenario configs (every field of every shipped scenario mutated)"

    def __init__(self) -> None:
        self.bases = _scenario_bases()

    def strategy(self) -> st.SearchStrategy[Any]:
        # "loader": load_scenario(dict), as from YAML or Hydra; "python": the dataclasses built
        # directly with whatever values (no loader type checks), then validate().
        return st.tuples(st.sampled_from(["loader", "python"]), mutated(self.bases))

    def describe(self, example: Any) -> str:
        return f"{example[0]}: " + "; ".join(example[1][1])

    def run(self, example: Any) -> Outcome:
        from leogym.envs.config import EnvConfig
        from leogym.scenario import (
            ScenarioConfig,
            ScenarioConfigError,
            build_timeline,
            load_scenario,
            validate_scenario,
        )

        route, (data, _, _) = example
        try:
            if route == "loader":
                cfg = load_scenario(data)
            else:
                cfg = _unchecked(ScenarioConfig, data)
                validate_scenario(cfg)
        except ScenarioConfigError as e:
            return Outcome("clear_error", _exc(e))
        except Exception as e:  # noqa: BLE001 - classified
            return Outcome("unclear_error", _exc(e))
        if not _cheap(cfg):
            return Outcome("accepted", "valid; too large to build here")
        sim = None
        try:
            timeline = build_timeline(cfg, seed=1)
            sim = Simulation.open(EnvConfig(cc="cubic"), cfg, 1, timeline=timeline)
            _step_native(sim)
        except ScenarioConfigError as e:
            return Outcome("clear_error", "at build: " + _exc(e))
        except Exception as e:  # noqa: BLE001 - classified
            return Outcome("late_error", _exc(e))
        finally:
            if sim is not None:
                sim.close()
        return Outcome("accepted")


def _unchecked(cls: type, data: Any) -> Any:
    """``cls(**data)`` with nested dataclasses built the same way and no type conversion:
    what a Python user gets by constructing the configs by hand. Non-mappings pass through
    unchanged, so junk reaches ``validate()`` as it is."""
    import typing

    if not isinstance(data, dict):
        return data
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        if key not in known:
            continue  # the constructor itself would raise TypeError: not this route's subject
        tp = hints[key]
        args = typing.get_args(tp)
        if dataclasses.is_dataclass(tp):
            value = _unchecked(tp, value)
        elif typing.get_origin(tp) is list and args and dataclasses.is_dataclass(args[0]):
            if isinstance(value, list):
                value = [_unchecked(args[0], v) for v in value]
        kwargs[key] = value
    return cls(**kwargs)


def _cheap(cfg: Any) -> bool:
    """Whether a valid scenario is small enough to build and simulate in a fuzz example."""
    if cfg.duration_s > 120 or cfg.timeline_dt_s < 1e-3 or cfg.geometry_dt_s < 0.1:
        return False
    flows = sum(int(x.count) for x in cfg.traffic.cross_traffic)
    return flows <= 8 and len(cfg.paths) <= 8


# -------------------------------------------------------------------------------- env kwargs
FULL_KWARGS: dict[str, Any] = {
    "scenario": "tiny",
    "cc": "external",
    "scheduler": "minrtt",
    "step_ms": 100.0,
    "episode_s": 1.0,
    "action_mode": "continuous",
    "action_scale": 0.5,
    "cc_target": "cwnd",
    "sample_scenarios": False,
    "cc_params": {"InitialWindow": 10},
    "scheduler_params": {},
    "observation": {
        "history": 2,
        "max_paths": 4,
        "handover_features": True,
        "snr_features": True,
        "handover_jitter_s": 0.0,
    },
    "reward": {
        "name": "aurora",
        "throughput": 10.0,
        "delay": 1000.0,
        "loss": 2000.0,
        "scale": 0.01,
    },
    "render_mode": None,
}


class EnvKwargsTarget(Target):
    description = "env kwargs of gymnasium.make (all three leogym envs)"

    IDS = ("leogym/LeoCC-v0", "leogym/LeoScheduler-v0", "leogym/LeoJoint-v0")

    def __init__(self) -> None:
        sched = dict(
            FULL_KWARGS,
            cc="cubic",
            scheduler="external",
            cc_params={},
            scheduler_params={},
            action_mode="discrete",
        )
        default = {
            "scenario": "default",
            "episode_s": 1.0,
            "sample_scenarios": True,
            "cc": "bbr",
            "render_mode": "rgb_array",
        }
        self.bases = [FULL_KWARGS, sched, default, {"scenario": "tiny", "episode_s": 0.5}]

    def strategy(self) -> st.SearchStrategy[Any]:
        return st.tuples(st.sampled_from(self.IDS), mutated(self.bases))

    def describe(self, example: Any) -> str:
        env_id, (_, notes, _) = example
        return f"{env_id}: " + "; ".join(notes)

    def run(self, example: Any) -> Outcome:
        env_id, (kwargs, _, where) = example
        names = {str(p[0]) for p in where if p}
        if not isinstance(kwargs, dict):
            return Outcome("accepted", "not a kwargs mapping; nothing to call")
        try:
            env = gym.make(env_id, **kwargs)
        except Exception as e:  # noqa: BLE001 - classified
            ok = isinstance(e, (ValueError, TypeError)) and _mentions(e, names)
            if ok:
                return Outcome("clear_error", _exc(e))
            return Outcome("unclear_error" if _in_leogym(e) else "upstream_error", _exc(e))
        try:
            env.action_space.seed(0)
            env.reset(seed=0)
            for _ in range(3):
                _, _, term, trunc, _ = env.step(env.action_space.sample())
                if term or trunc:
                    break
            env.render()
        except (ValueError, TypeError) as e:
            ok = _mentions(e, names)
            return Outcome("clear_error" if ok else "late_error", "at reset/step: " + _exc(e))
        except Exception as e:  # noqa: BLE001 - classified
            return Outcome("late_error", "at reset/step: " + _exc(e))
        finally:
            env.close()
        return Outcome("accepted")


# ----------------------------------------------------------------------------------- actions
ACTION_ENVS = [
    ("leogym/LeoCC-v0", {"action_mode": "continuous"}),
    ("leogym/LeoCC-v0", {"action_mode": "discrete"}),
    ("leogym/LeoCC-v0", {"action_mode": "continuous", "cc_target": "pacing"}),
    ("leogym/LeoScheduler-v0", {"action_mode": "continuous"}),
    ("leogym/LeoScheduler-v0", {"action_mode": "discrete"}),
    ("leogym/LeoJoint-v0", {"action_mode": "continuous"}),
    ("leogym/LeoJoint-v0", {"action_mode": "discrete"}),
]
_DTYPES = [
    np.float64,
    np.float32,
    np.float16,
    np.int64,
    np.int32,
    np.int8,
    np.uint8,
    np.uint64,
    np.bool_,
    np.complex128,
]


def _space_actions(space: gym.Space) -> st.SearchStrategy[Any]:
    """Valid actions of ``space`` (and, for Box, values a rounding error outside it)."""
    if isinstance(space, gym.spaces.Box):
        lo, hi = float(space.low.min()), float(space.high.max())
        inside = hnp.arrays(np.float64, space.shape, elements=st.floats(lo, hi))
        edge = hnp.arrays(
            np.float64, space.shape, elements=st.sampled_from([lo, hi, lo - 1e-7, hi + 1e-7, 0.0])
        )
        as_list = inside.map(lambda a: a.tolist())
        as_f32 = inside.map(lambda a: a.astype(np.float32))
        return st.one_of(inside, edge, as_list, as_f32)
    if isinstance(space, gym.spaces.MultiDiscrete):
        ints = st.tuples(*[st.integers(0, int(n) - 1) for n in space.nvec.flat]).map(
            lambda t: np.array(t, dtype=np.int64).reshape(space.shape)
        )
        return st.one_of(
            ints, ints.map(lambda a: a.tolist()), ints.map(lambda a: a.astype(np.float64))
        )
    if isinstance(space, gym.spaces.Discrete):
        return st.integers(int(space.start), int(space.start + space.n - 1))
    raise TypeError(space)


def _bad_actions(space: gym.Space) -> st.SearchStrategy[Any]:
    n = int(np.prod(space.shape)) if space.shape else 1
    shapes = st.sampled_from([(), (0,), (1,), (n,), (n - 1,), (n + 1,), (2, n), (n, 1), (n, 2)])
    arrays = st.sampled_from(_DTYPES).flatmap(
        lambda dt: shapes.flatmap(lambda sh: hnp.arrays(dt, sh))
    )
    right_shape_junk = hnp.arrays(np.float64, (n,), elements=numeric_junk())
    lists = st.lists(junk(), min_size=0, max_size=n + 2)
    return st.one_of(
        arrays,
        right_shape_junk,
        lists,
        junk(),
        right_shape_junk.map(lambda a: a * 1e6),
        st.just(object()),
        st.just({"a": 1}),
    )


class ActionTarget(Target):
    description = "actions (NaN, inf, huge, wrong shape, wrong dtype, valid and edge values)"

    def __init__(self) -> None:
        self.envs = [
            gym.make(env_id, scenario="tiny", episode_s=2.0, **kw) for env_id, kw in ACTION_ENVS
        ]
        self.active: int | None = None
        self.resets = 0

    def strategy(self) -> st.SearchStrategy[Any]:
        per_env = [
            st.tuples(
                st.just(i),
                st.one_of(
                    _space_actions(env.action_space).map(lambda a: (a, True)),
                    _bad_actions(env.action_space).map(lambda a: (a, False)),
                ),
            )
            for i, env in enumerate(self.envs)
        ]
        return st.one_of(per_env)

    def describe(self, example: Any) -> str:
        i, (action, valid) = example
        return f"{ACTION_ENVS[i]} valid={valid}: {_short(action)}"

    def _ready(self, i: int) -> gym.Env:
        env = self.envs[i]
        if self.active != i:
            env.reset(seed=self.resets)
            self.resets += 1
            self.active = i
        return env

    def run(self, example: Any) -> Outcome:
        from leogym.envs.actions import InvalidActionError

        i, (action, valid) = example
        env = self._ready(i)
        try:
            _, _, term, trunc, _ = env.step(action)
        except InvalidActionError as e:
            if valid:
                return Outcome("wrongly_rejected", _exc(e))
            try:  # the env must still work
                _, _, term, trunc, _ = env.step(env.action_space.sample())
            except Exception as e2:  # noqa: BLE001 - classified
                self.active = None
                return Outcome("not_recovered", _exc(e2))
            if term or trunc:
                self.active = None
            return Outcome("clear_error", _exc(e))
        except Exception as e:  # noqa: BLE001 - classified
            self.active = None
            return Outcome("unclear_error", _exc(e))
        if term or trunc:
            self.active = None
        return Outcome("accepted", "" if valid else "accepted a junk-strategy action")

    def close(self) -> None:
        for env in self.envs:
            env.close()


# ----------------------------------------------------------------------------- reset args
class ResetTarget(Target):
    description = "reset(seed=..., options=...) arguments"

    def __init__(self) -> None:
        self.env = gym.make("leogym/LeoCC-v0", scenario="tiny", episode_s=1.0)
        # Let Gymnasium's PassiveEnvChecker finish its first-call checks with good input: if the
        # very first reset() raises, the checker is left half-initialised and the next step()
        # fails inside Gymnasium (TypeError in env_data_reuse_passive_checker), whatever the env.
        self.env.reset(seed=0)
        self.env.step(self.env.action_space.sample())
        self.env.step(self.env.action_space.sample())

    def strategy(self) -> st.SearchStrategy[Any]:
        seeds = st.one_of(junk(), st.integers(-(2**70), 2**70), st.none())
        options = st.one_of(
            st.none(), st.just({}), junk(), st.dictionaries(st.text(max_size=4), junk(), max_size=2)
        )
        return st.tuples(seeds, options)

    def run(self, example: Any) -> Outcome:
        seed, options = example
        try:
            self.env.reset(seed=seed, options=options)
            self.env.step(self.env.action_space.sample())
            outcome = Outcome("accepted")
        except Exception as e:  # noqa: BLE001 - classified
            text = str(e).lower()
            ok = isinstance(e, (ValueError, TypeError, gym.error.Error)) and (
                "seed" in text or "option" in text
            )
            outcome = Outcome("clear_error" if ok else "unclear_error", _exc(e))
        try:
            self.env.reset(seed=0)
            self.env.step(self.env.action_space.sample())
        except Exception as e:  # noqa: BLE001 - classified
            return Outcome("not_recovered", _exc(e))
        return outcome

    def close(self) -> None:
        self.env.close()


# ---------------------------------------------------------------------------- native config
def _tiny_paths() -> list[dict[str, Any]]:
    from leogym.scenario import build_timeline, load_scenario

    cfg = load_scenario({"name": "fuzz", **_tiny_dict(), "duration_s": 3.0})
    return native_paths(build_timeline(cfg, seed=1))


def _tiny_dict() -> dict[str, Any]:
    from leogym.scenario import load_scenario

    d = dataclasses.asdict(load_scenario("tiny"))
    d.pop("name")
    d.pop("duration_s")
    return d


def _default_params(kind: str, name: str) -> dict[str, float]:
    out = {}
    for key, spec in _core().algorithm_parameters(kind, name).items():
        if spec["default"] is not None:
            out[key] = float(spec["default"])
    return out


BASE_CONFIG: dict[str, Any] = {
    "seed": 1,
    "run": 1,
    "packet_bytes": 1200,
    "cc": "cubic",
    "cc_params": {},
    "scheduler": "minrtt",
    "scheduler_params": {},
    "workload": "bulk",
    "file_bytes": 10**6,
    "ack_every": 2,
    "max_ack_delay_s": 0.025,
    "pacing": False,
    "initial_path_states": ["active", "standby"],
    "cross_traffic": [
        {
            "kind": "tcp_bulk",
            "path": 0,
            "direction": "down",
            "start_s": 0.1,
            "stop_s": 1.0,
            "tcp_variant": "TcpCubic",
            "max_bytes": 0,
            "segment_bytes": 1000,
            "snd_buf_bytes": 0,
        },
        {
            "kind": "udp_onoff",
            "path": 1,
            "direction": "up",
            "rate_bps": 1e6,
            "on_s": 0.2,
            "off_s": 0.2,
            "packet_bytes": 1000,
        },
    ],
    "start_s": 0.0,
    "subflow_paths": [0, 1],
    "receive_window_bytes": 6 * 2**20,
    "send_buffer_bytes": 4 * 2**20,
    "reinject_on_pto": True,
    "initial_rtt_s": 0.333,
    "mtu": 1500,
    "tcp_buffer_bytes": 0,
}


class SimConfigTarget(Target):
    description = "native Simulation config dict (every key, every CC and scheduler)"

    def __init__(self) -> None:
        c = _core()
        self.paths = _tiny_paths()
        self.bases = [BASE_CONFIG]
        for cc in c.cc_algorithms():
            if not cc.endswith("+"):
                self.bases.append({"cc": cc, "cc_params": _default_params("cc", cc)})
        for s in c.schedulers():
            self.bases.append(
                {
                    "cc": "newreno",
                    "scheduler": s,
                    "scheduler_params": _default_params("scheduler", s),
                    "pacing": True,
                    "workload": "file",
                    "file_bytes": 200_000,
                }
            )

    def strategy(self) -> st.SearchStrategy[Any]:
        return mutated(self.bases)

    def describe(self, example: Any) -> str:
        return "; ".join(example[1])

    def run(self, example: Any) -> Outcome:
        config, _, _ = example
        return _build_and_step(config, self.paths)


# ----------------------------------------------------------------------------- native paths
_ARRAYS = (
    "delay_down_s",
    "delay_up_s",
    "rate_down_bps",
    "rate_up_bps",
    "loss_down",
    "loss_up",
    "snr_db",
    "elevation_deg",
    "serving_sat",
    "outages",
    "handovers",
)
_SCALARS = ("t0_s", "dt_s", "queue_packets", "name", "kind")


@st.composite
def _path_mutation(draw: st.DrawFn, paths: list[Any]) -> str:
    """Mutate the list of path dicts in place; return a description."""
    op = draw(
        st.sampled_from(
            [
                "element",
                "element",
                "element",
                "length",
                "dtype",
                "scalar",
                "delete",
                "extra",
                "outages",
                "handovers",
                "list",
            ]
        )
    )
    i = draw(st.integers(0, len(paths) - 1))
    p = paths[i]
    if not isinstance(p, dict):
        paths[i] = copy.deepcopy(paths[0]) if isinstance(paths[0], dict) else {}
        return f"paths[{i}] restored"
    key = draw(st.sampled_from(_ARRAYS))
    where = f"paths[{i}].{key}"
    arr = p.get(key)
    if op == "element" and isinstance(arr, np.ndarray) and arr.size:
        a = np.array(arr, dtype=np.float64)
        j = draw(st.integers(0, a.size - 1))
        v = draw(numeric_junk())
        a.flat[j] = v
        p[key] = a.astype(arr.dtype) if arr.dtype.kind == "f" else a
        return f"{where}.flat[{j}] = {v!r}"
    if op == "length" and isinstance(arr, np.ndarray):
        m = draw(
            st.sampled_from([0, 1, 2, max(arr.shape[0] - 1, 0), arr.shape[0] + 1, 2 * arr.shape[0]])
        )
        reps = math.ceil(m / max(arr.shape[0], 1)) if arr.shape[0] else 1
        p[key] = np.concatenate([arr] * max(reps, 1))[:m] if arr.shape[0] else arr
        return f"{where} length {m}"
    if op == "dtype" and isinstance(arr, np.ndarray):
        kind = draw(
            st.sampled_from(
                [
                    "object_none",
                    "str",
                    "complex",
                    "bool",
                    "int8",
                    "2d",
                    "list",
                    "reversed",
                    "strided",
                    "fortran",
                    "float32",
                    "scalar",
                ]
            )
        )
        if arr.dtype.kind not in "biuf":  # already junk from an earlier mutation
            p[key] = arr.tolist()
            return f"{where} as list"
        if kind == "object_none":
            a = arr.astype(object)
            if a.size:
                a.flat[0] = None
            p[key] = a
        elif kind == "str":
            p[key] = arr.astype(str)
        elif kind == "complex":
            p[key] = arr.astype(np.complex128) + 1j
        elif kind == "bool":
            p[key] = arr.astype(bool)
        elif kind == "int8":
            with np.errstate(all="ignore"):
                p[key] = np.nan_to_num(arr).astype(np.int8)
        elif kind == "2d":
            p[key] = np.stack([arr, arr])
        elif kind == "list":
            p[key] = arr.tolist()
        elif kind == "reversed":
            p[key] = arr[::-1]
        elif kind == "strided":
            p[key] = np.repeat(arr, 2, axis=0)[::2]
        elif kind == "fortran":
            p[key] = np.asfortranarray(np.atleast_2d(arr))
        elif kind == "float32":
            p[key] = arr.astype(np.float32)
        else:
            p[key] = float(arr.flat[0]) if arr.size else 0.0
        return f"{where} as {kind}"
    if op == "scalar":
        name = draw(st.sampled_from(_SCALARS))
        v = draw(st.one_of(junk(), numeric_junk()))
        p[name] = v
        return f"paths[{i}].{name} = {_short(v, 80)}"
    if op == "delete":
        name = draw(st.sampled_from(_ARRAYS + _SCALARS))
        p.pop(name, None)
        return f"del paths[{i}].{name}"
    if op == "extra":
        p[draw(st.sampled_from(["bogus", "", "slant_range_m"]))] = draw(junk())
        return f"paths[{i}] extra key"
    if op == "outages":
        rows = draw(
            st.lists(
                st.tuples(numeric_junk(), numeric_junk())
                | st.tuples(st.floats(-1, 5), st.floats(-1, 5)),
                max_size=4,
            )
        )
        p["outages"] = np.array(rows, dtype=np.float64).reshape(-1, 2)
        return f"paths[{i}].outages = {rows!r}"
    if op == "handovers":
        hs = draw(st.lists(st.one_of(numeric_junk(), st.floats(-1, 5)), max_size=4))
        p["handovers"] = np.array(hs, dtype=np.float64)
        return f"paths[{i}].handovers = {hs!r}"
    # list-level
    kind = draw(st.sampled_from(["empty", "copies", "junk_item", "tuple", "dict"]))
    if kind == "empty":
        paths.clear()
        paths.append({})
        return "paths = [{}]"
    if kind == "copies":
        n = draw(st.sampled_from([3, 5, 33, 255]))
        paths.extend(copy.copy(p) for _ in range(n - len(paths)))
        return f"{n} paths"
    if kind == "junk_item":
        paths[i] = draw(junk())
        return f"paths[{i}] = {_short(paths[i], 80)}"
    paths.append("TUPLE" if kind == "tuple" else "DICT")
    return f"paths as {kind}"


@st.composite
def _paths_example(draw: st.DrawFn, base: list[Any]) -> tuple[Any, list[str]]:
    paths = [dict(p) for p in base]
    notes = [draw(_path_mutation(paths)) for _ in range(draw(st.integers(1, 3)))]
    last = paths[-1] if paths else None
    if isinstance(last, str) and last == "TUPLE":
        return tuple(paths[:-1]), notes
    if isinstance(last, str) and last == "DICT":
        return {str(k): v for k, v in enumerate(paths[:-1])}, notes
    return paths, notes


class SimPathsTarget(Target):
    description = "native Simulation path arrays (values, lengths, dtypes, shapes, keys)"

    CONFIG = {"seed": 1, "cc": "cubic", "scheduler": "minrtt"}

    def __init__(self) -> None:
        self.paths = _tiny_paths()

    def strategy(self) -> st.SearchStrategy[Any]:
        return _paths_example(self.paths)

    def describe(self, example: Any) -> str:
        return "; ".join(example[1])

    def run(self, example: Any) -> Outcome:
        paths, _ = example
        return _build_and_step(self.CONFIG, paths)


# --------------------------------------------------------------------------- native hop network
def _hop_network() -> dict[str, Any]:
    """A valid hop network over the tiny path's grid: server(0) - r1(1) | r2(2) - client(3)."""
    base = _tiny_paths()[0]

    def link(a: int, b: int) -> dict[str, Any]:
        d = copy.deepcopy(base)
        d.update(a=a, b=b)
        return d

    return {
        "nodes": ["server", "r1", "r2", "client"],
        "links": [link(0, 1), link(1, 3), link(0, 2), link(2, 3)],
        "routes": [
            {
                "times_s": np.array([0.0, 1.0]),
                "nodes": np.array([0, 1, 3, 0, 2, 3]),
                "offsets": np.array([0, 3, 6]),
            }
        ],
        "path_routes": [0],
    }


class SimNetworkTarget(Target):
    description = "native Simulation hop network (nodes, links, routes, path routes) and flows"

    CONFIG = {"seed": 1, "cc": "cubic", "scheduler": "minrtt"}

    def __init__(self) -> None:
        self.paths = _tiny_paths()[:1]
        self.network = _hop_network()

    def strategy(self) -> st.SearchStrategy[Any]:
        ints = st.lists(st.integers(-2, 6), max_size=7)
        values = st.one_of(ints, junk(), st.lists(junk(), max_size=3))
        times = st.one_of(
            st.lists(st.one_of(st.floats(-1.0, 5.0), numeric_junk()), max_size=4), junk()
        )
        flows = st.lists(
            st.fixed_dictionaries(
                {
                    "transport": st.sampled_from(["mpquic", "tcp", "udp_onoff", "x"]),
                    "routes": st.one_of(ints, junk()),
                },
                optional={
                    "cc": st.sampled_from(["cubic", "lia", "NewReno", "TcpCubic", "external", ""]),
                    "start_s": st.one_of(st.floats(-1.0, 5.0), junk()),
                    "stop_s": st.one_of(st.floats(-1.0, 5.0), junk()),
                    "rate_bps": st.one_of(st.floats(0.0, 1e13), junk()),
                    "file_bytes": st.one_of(st.integers(-5, 10**6), junk()),
                },
            ),
            max_size=3,
        )
        edits = st.one_of(
            st.tuples(st.just("route_nodes"), values),
            st.tuples(st.just("route_offsets"), values),
            st.tuples(st.just("route_times"), times),
            st.tuples(st.just("link_a"), st.one_of(st.integers(-2, 6), junk())),
            st.tuples(st.just("link_b"), st.one_of(st.integers(-2, 6), junk())),
            st.tuples(st.just("path_routes"), values),
            st.tuples(
                st.just("nodes"), st.one_of(st.lists(st.text(max_size=3), max_size=6), junk())
            ),
            st.tuples(st.just("network"), junk()),
            st.tuples(st.just("flows"), flows),
        )
        return st.lists(edits, min_size=1, max_size=3)

    def describe(self, example: Any) -> str:
        return "; ".join(f"{k}={_short(v, 80)}" for k, v in example)

    def run(self, example: Any) -> Outcome:
        net: Any = copy.deepcopy(self.network)
        config = dict(self.CONFIG)
        for key, value in example:
            if key == "network":
                net = value
            elif not isinstance(net, dict):
                continue
            elif key in ("route_nodes", "route_offsets", "route_times", "link_a", "link_b"):
                # An earlier edit may have replaced the network by a junk dict: nothing to edit.
                field = {"route_nodes": "nodes", "route_offsets": "offsets"}.get(key, "times_s")
                where = "routes" if key.startswith("route") else "links"
                items = net.get(where)
                if not isinstance(items, list) or not items or not isinstance(items[0], dict):
                    continue
                items[0][field if where == "routes" else key[-1]] = value
            elif key == "flows":
                config["flows"] = value
            else:
                net[key] = value
        return _build_and_step(config, self.paths, net)


# --------------------------------------------------------------------------- native methods
_METHODS = (
    "step",
    "set_cwnd",
    "set_pacing_rate",
    "set_weights",
    "set_path_choice",
    "set_path_state",
)


class SimMethodsTarget(Target):
    description = "native Simulation methods (step, set_cwnd, set_pacing_rate, set_weights, ...)"

    CONFIG = {"seed": 1, "cc": "external", "scheduler": "external"}

    def __init__(self) -> None:
        self.paths = _tiny_paths()
        self.sim: Any = None

    def strategy(self) -> st.SearchStrategy[Any]:
        arrays = st.one_of(
            hnp.arrays(
                np.float64,
                st.sampled_from([(2,), (1,), (3,), (0,), (2, 2)]),
                elements=st.one_of(numeric_junk(), st.floats(0, 1e7)),
            ),
            hnp.arrays(np.float64, (2,), elements=st.floats(0, 1e9)),
            hnp.arrays(st.sampled_from(_DTYPES), (2,)),
            st.lists(junk(), max_size=3),
            junk(),
        )
        small_dt = st.floats(1e-6, 0.2)
        # valid but long steps (0.2 s .. 1e7 s) would only make the example slow
        dts = junk().map(
            lambda v: (
                0.2
                if isinstance(v, (int, float)) and not isinstance(v, bool) and 0.2 < v < 1e7
                else v
            )
        )
        return st.one_of(
            st.tuples(st.just("step"), st.tuples(st.one_of(dts, small_dt))),
            st.tuples(
                st.sampled_from(["set_cwnd", "set_pacing_rate", "set_weights"]), st.tuples(arrays)
            ),
            st.tuples(st.just("set_path_choice"), st.tuples(st.one_of(junk(), st.integers(-3, 4)))),
            st.tuples(
                st.just("set_path_state"),
                st.tuples(
                    st.one_of(junk(), st.integers(-1, 3)),
                    st.one_of(
                        junk(), st.sampled_from(["active", "standby", "deactivated", "ACTIVE"])
                    ),
                ),
            ),
            st.tuples(st.just("stray_kwargs"), st.tuples(junk())),
        )

    def _live(self) -> Any:
        if self.sim is None or self.sim.now > 2.5:
            if self.sim is not None:
                self.sim.close()
            self.sim = _core().Simulation(self.CONFIG, self.paths)
        return self.sim

    def run(self, example: Any) -> Outcome:
        name, args = example
        sim = self._live()
        try:
            if name == "stray_kwargs":
                sim.step(dt_s=0.01, bogus=args[0])
            else:
                getattr(sim, name)(*args)
            outcome = Outcome("accepted")
        except (ValueError, TypeError) as e:
            ok = _names_a_field(e) or _pybind_signature_error(e)
            outcome = Outcome("clear_error" if ok else "unclear_error", _exc(e))
        except Exception as e:  # noqa: BLE001 - classified
            outcome = Outcome("unclear_error", _exc(e))
        try:
            sim.step(0.01)
        except Exception as e:  # noqa: BLE001 - classified
            self.close()
            return Outcome("not_recovered", _exc(e))
        return outcome

    def close(self) -> None:
        if self.sim is not None:
            self.sim.close()
            self.sim = None


# ----------------------------------------------------------------------------- corrupt files
_JUNK_LINES = [
    "-5",
    "1.5",
    "abc",
    "",
    "   ",
    "1" * 40,
    "\u00b2",
    "\u0661\u0662\u0663",
    "0x10",
    "1e3",
    "\x00",
    "\t7",
    "+5",
    "9" * 400,
    "12 13",
    "\ufeff12",
    "NaN",
    "-0",
]


@st.composite
def _corrupt_text(
    draw: st.DrawFn, base: bytes, lines_junk: list[str], fix: Any = None
) -> tuple[bytes, list[str]]:
    """``base`` with 1..3 corruptions: truncation, byte flips, junk lines, deleted, duplicated
    or swapped lines, garbage, other encodings. ``fix`` post-processes text (checksums)."""
    data, notes = base, []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(
            st.sampled_from(
                [
                    "truncate",
                    "flip",
                    "insert",
                    "delete",
                    "duplicate",
                    "swap",
                    "garbage",
                    "utf16",
                    "crlf",
                    "empty",
                    "field",
                ]
            )
        )
        lines = data.decode("latin-1").split("\n")
        if op == "truncate":
            at = draw(st.integers(0, len(data)))
            data = data[:at]
            notes.append(f"truncated at byte {at}")
        elif op == "flip" and data:
            at = draw(st.integers(0, len(data) - 1))
            b = draw(st.integers(0, 255))
            data = data[:at] + bytes([b]) + data[at + 1 :]
            notes.append(f"byte {at} = {b:#04x}")
        elif op == "insert":
            at = draw(st.integers(0, len(lines)))
            junk_line = draw(st.sampled_from(lines_junk))
            lines.insert(at, junk_line)
            data = "\n".join(lines).encode("utf-8", "surrogatepass")
            notes.append(f"line {at + 1} = {junk_line!r}")
        elif op in ("delete", "duplicate") and lines:
            at = draw(st.integers(0, len(lines) - 1))
            if op == "delete":
                del lines[at]
            else:
                lines.insert(at, lines[at])
            data = "\n".join(lines).encode("latin-1")
            notes.append(f"{op} line {at + 1}")
        elif op == "swap" and len(lines) > 1:
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            data = "\n".join(lines).encode("latin-1")
            notes.append(f"swap lines {i + 1} and {j + 1}")
        elif op == "garbage":
            data = draw(st.binary(min_size=1, max_size=600))
            notes.append("random bytes")
        elif op == "utf16":
            data = data.decode("latin-1").encode("utf-16")
            notes.append("UTF-16 with BOM")
        elif op == "crlf":
            data = data.replace(b"\n", b"\r\n")
            notes.append("CRLF line ends")
        elif op == "empty":
            data = b""
            notes.append("empty")
        elif op == "field" and fix is not None:
            data, note = draw(fix(data))
            notes.append(note)
    return data, notes


class _FileTarget(Target):
    """A scenario that reads one corrupt file; accepted files are built and simulated."""

    FIELD = ""

    def __init__(self) -> None:
        import tempfile

        self.dir = Path(tempfile.mkdtemp(prefix="leogym-corrupt-"))
        self.n = 0
        self.scenario = ScenarioTarget()

    def describe(self, example: Any) -> str:
        return "; ".join(example[1])

    def scenario_with(self, path: Path) -> dict[str, Any]:
        raise NotImplementedError

    def run(self, example: Any) -> Outcome:
        data, _ = example
        self.n += 1
        path = self.dir / f"file{self.n}"
        path.write_bytes(data)
        try:
            out = self.scenario.run(("loader", (self.scenario_with(path), [], [])))
        finally:
            path.unlink()
        if out.kind == "clear_error" and self.FIELD not in out.detail:
            return Outcome("unclear_error", "names another field: " + out.detail)
        return out

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


class TraceFileTarget(_FileTarget):
    description = "mahimahi trace files (truncated, flipped bytes, junk lines, garbage, encodings)"
    FIELD = "scenario.paths[1].terrestrial.trace_down"

    def strategy(self) -> st.SearchStrategy[Any]:
        return _corrupt_text((DATA / "step.mahi").read_bytes(), _JUNK_LINES)

    def scenario_with(self, path: Path) -> dict[str, Any]:
        d = copy.deepcopy(self.scenario.bases[-2])  # tiny with a trace-driven path 1
        d["paths"][1]["terrestrial"]["trace_down"] = str(path)
        return d


def _tle_checksum(line: str) -> str:
    """``line`` with its checksum column rewritten (the reader's own rule), so that a fuzzed
    field reaches the field's checks instead of failing the checksum."""
    if len(line) >= 69 and line[:2] in ("1 ", "2 "):
        return line[:68] + str(tle_checksum(line)) + line[69:]
    return line


# (line, first column, width) of TLE fields, and values to put there
_TLE_FIELDS = [
    ("2", 8, 8, ["999.9999", "180.0000", "-10.0000", "  0.0000"]),  # inclination
    ("2", 26, 7, ["9999999", "0000000", "5000000"]),  # eccentricity
    ("2", 52, 11, ["00.00000000", "99.99999999", " 0.00100000", "16.99999999"]),  # mean motion
    ("1", 18, 14, ["99999.99999999", "00000.00000000", "57001.00000000"]),  # epoch
    ("1", 53, 8, ["99999-9", "-99999+9", " 00000+0"]),  # B*
]


@st.composite
def _tle_field(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    """Set one orbital element of one satellite to an extreme value, checksum fixed."""
    lines = data.decode("latin-1").split("\n")
    which, col, width, values = draw(st.sampled_from(_TLE_FIELDS))
    candidates = [
        i for i, ln in enumerate(lines) if ln.startswith(which + " ") and len(ln) >= col + width
    ]
    if not candidates:
        return data, "no field to set"
    i = draw(st.sampled_from(candidates))
    value = draw(st.sampled_from(values)).rjust(width)[:width]
    lines[i] = _tle_checksum(lines[i][:col] + value + lines[i][col + width :])
    return "\n".join(lines).encode("latin-1"), f"line {i + 1} cols {col}-{col + width} = {value!r}"


class TleFileTarget(_FileTarget):
    description = "TLE files (truncated, flipped bytes, bad checksums, extreme elements, garbage)"
    FIELD = "scenario.constellation.tle_file"

    def strategy(self) -> st.SearchStrategy[Any]:
        return st.one_of(
            _corrupt_text(
                (DATA / "tiny.tle").read_bytes(), _JUNK_LINES + ["1 ", "2 ", "0 X"], fix=_tle_field
            ),
            _tle_field((DATA / "tiny.tle").read_bytes()).map(lambda t: (t[0], [t[1]])),
        )

    def scenario_with(self, path: Path) -> dict[str, Any]:
        d = copy.deepcopy(self.scenario.bases[-1])  # tiny on a TLE constellation
        d["constellation"]["tle_file"] = str(path)
        return d


class CheckpointTarget(Target):
    description = (
        "SB3 checkpoints (.zip and sidecar: truncated, flipped bytes, garbage, "
        "missing or junk members, wrong algorithm)"
    )

    def __init__(self) -> None:
        import tempfile

        import torch
        from stable_baselines3 import PPO

        from leogym.agents.sb3.checkpoints import save_model

        torch.set_num_threads(1)
        self.dir = Path(tempfile.mkdtemp(prefix="leogym-ckpt-"))
        env = gym.make("leogym/LeoCC-v0", scenario="tiny")
        self.obs = env.observation_space.sample()
        model = PPO(
            "MlpPolicy",
            env,
            n_steps=16,
            batch_size=16,
            device="cpu",
            policy_kwargs={"net_arch": [8]},
            seed=0,
        )
        good = save_model(model, self.dir / "good.zip", algo="ppo", env_id="leogym/LeoCC-v0")
        env.close()
        self.zip = good.read_bytes()
        self.sidecar = good.with_suffix(".json").read_bytes()
        self.n = 0

    def strategy(self) -> st.SearchStrategy[Any]:
        import io
        import zipfile

        with zipfile.ZipFile(io.BytesIO(self.zip)) as z:
            members = z.namelist()

        def rezip(drop: str | None, junk_member: str | None, junk: bytes) -> bytes:
            out = io.BytesIO()
            with zipfile.ZipFile(io.BytesIO(self.zip)) as zin, zipfile.ZipFile(out, "w") as zout:
                for name in zin.namelist():
                    if name == drop:
                        continue
                    zout.writestr(name, junk if name == junk_member else zin.read(name))
            return out.getvalue()

        zips = st.one_of(
            st.just((self.zip, "intact")),
            st.integers(0, len(self.zip) - 1).map(lambda k: (self.zip[:k], f"truncated at {k}")),
            st.lists(
                st.tuples(st.integers(0, len(self.zip) - 1), st.integers(0, 255)),
                min_size=1,
                max_size=8,
            ).map(lambda fl: (_flip(self.zip, fl), f"flips {fl}")),
            st.binary(max_size=3000).map(lambda b: (b, "random bytes")),
            st.sampled_from(members).map(lambda m: (rezip(m, None, b""), f"without {m}")),
            st.tuples(st.sampled_from(members), st.binary(max_size=64)).map(
                lambda t: (rezip(None, t[0], t[1]), f"{t[0]} = {t[1]!r}")
            ),
        )
        sidecars = st.one_of(
            st.just((self.sidecar, "sidecar intact")),
            st.just((self.sidecar, "sidecar intact")),
            st.just((None, "no sidecar")),
            st.binary(max_size=40).map(lambda b: (b, f"sidecar = {b!r}")),
            st.sampled_from(["sac", "dqn", "td3", "a2c", "recurrent_ppo", "bogus"]).map(
                lambda a: (
                    json.dumps({"algo": a, "num_timesteps": 16}).encode(),
                    f"sidecar says {a}",
                )
            ),
        )
        return st.tuples(zips, sidecars)

    def describe(self, example: Any) -> str:
        (_, zip_note), (_, side_note) = example
        return f"{zip_note}; {side_note}"

    def run(self, example: Any) -> Outcome:
        from leogym.agents.sb3.algos import load_model
        from leogym.agents.sb3.checkpoints import read_sidecar

        (data, _), (side, _) = example
        self.n += 1
        path = self.dir / f"ckpt{self.n}.zip"
        path.write_bytes(data)
        if side is not None:
            path.with_suffix(".json").write_bytes(side)
        try:
            algo = read_sidecar(path).get("algo") or "ppo"
            model = load_model(path, str(algo))
            model.predict(self.obs, deterministic=True)
        except Exception as e:  # noqa: BLE001 - classified
            ok = isinstance(e, (ValueError, FileNotFoundError)) and path.stem in str(e)
            return Outcome("clear_error" if ok else "unclear_error", _exc(e))
        finally:
            path.unlink(missing_ok=True)
            path.with_suffix(".json").unlink(missing_ok=True)
        return Outcome("accepted")

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


def _flip(data: bytes, flips: list[tuple[int, int]]) -> bytes:
    b = bytearray(data)
    for at, value in flips:
        b[at] = value
    return bytes(b)


TARGETS: dict[str, type[Target]] = {
    "scenario": ScenarioTarget,
    "env_kwargs": EnvKwargsTarget,
    "actions": ActionTarget,
    "reset": ResetTarget,
    "sim_config": SimConfigTarget,
    "sim_paths": SimPathsTarget,
    "sim_network": SimNetworkTarget,
    "sim_methods": SimMethodsTarget,
    "trace_file": TraceFileTarget,
    "tle_file": TleFileTarget,
    "checkpoint": CheckpointTarget,
}
