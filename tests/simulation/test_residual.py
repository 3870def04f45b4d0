"""Hybrid (residual) control: ``cc="residual+<base>"`` runs the base controller and scales its
window and pacing rate by a gain set at each step boundary (cpp/model/cc/mp-residual.h).

The contract that makes the hybrid action safe to learn over: a gain of 1 is the base
controller's own run, bit for bit, on a path scenario, MACO's scenario and a hop network; a
gain away from 1 reaches the window the sender uses.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.simulation import Measurements, Simulation

pytestmark = pytest.mark.native

STEP_S = 0.1


def _run(
    scenario: str, cc: str, steps: int, gain: float | None, seed: int = 3
) -> list[Measurements]:
    """Step ``scenario`` with ``cc``; apply ``gain`` to the connection's subflows before each
    step when given (a residual controller)."""
    settings = EnvConfig.from_kwargs(scenario=None, cc=cc, scheduler="minrtt")
    sim = Simulation.open(settings, load_scenario(scenario), seed)
    out = []
    try:
        for _ in range(steps):
            if gain is not None:
                sim.apply(flow_cwnd_gain={0: np.full(sim.flow_n_paths[0], gain)})
            out.append(sim.step(STEP_S))
    finally:
        sim.close()
    return out


def _assert_identical(a: list[Measurements], b: list[Measurements]) -> None:
    assert len(a) == len(b)
    for step, (x, y) in enumerate(zip(a, b, strict=True)):
        for f in dataclasses.fields(Measurements):
            np.testing.assert_array_equal(
                np.asarray(getattr(x, f.name)),
                np.asarray(getattr(y, f.name)),
                err_msg=f"step {step}: {f.name}",
            )


@pytest.mark.parametrize(
    ("scenario", "base", "steps"),
    [
        # default: CUBIC and BBRv3 through the first handover window
        ("default", "cubic", 140),
        ("default", "bbr3", 140),
        # MACO on its own paper's scenario, across the 12 s handover
        ("maco", "maco", 130),
        # a hop network (a shared bottleneck with competing flows)
        ("bottleneck4", "cubic", 80),
    ],
)
def test_gain_one_is_the_base_controller_bit_for_bit(scenario: str, base: str, steps: int) -> None:
    plain = _run(scenario, base, steps, gain=None)
    residual = _run(scenario, f"residual+{base}", steps, gain=1.0)
    assert sum(float(m.goodput_bytes) for m in plain) > 0
    _assert_identical(plain, residual)


def test_a_gain_scales_the_window_the_sender_uses() -> None:
    # In slow start from RFC 9002's initial window, before any loss, a gain scales what the
    # sender may put in flight at once: more (or fewer) packets go out and come back acked.
    runs = [_run("default", cc, 2, gain) for cc, gain in STARTS]
    cwnd = [float(np.nansum(ms[-1].cwnd_bytes)) for ms in runs]
    sent = [sum(float(np.nansum(m.sent_packets)) for m in ms) for ms in runs]
    assert cwnd[0] < cwnd[1] < cwnd[2]
    assert sent[0] < sent[1] < sent[2]


#: (cc, gain): half, the base itself, double
STARTS = [("residual+cubic", 0.5), ("cubic", None), ("residual+cubic", 2.0)]


def test_gain_errors_name_the_flow_and_value() -> None:
    settings = EnvConfig.from_kwargs(scenario=None, cc="residual+cubic", scheduler="minrtt")
    sim = Simulation.open(settings, load_scenario("tiny"), 0)
    try:
        n = sim.flow_n_paths[0]
        for bad in (0.0, 17.0, float("nan"), float("inf")):
            with pytest.raises(ValueError, match=r"flow_cwnd_gain\[.*gain\[0\]"):
                sim.apply(flow_cwnd_gain={0: np.full(n, bad)})
        with pytest.raises(ValueError, match="expected"):
            sim.apply(flow_cwnd_gain={0: np.ones(n + 1)})
    finally:
        sim.close()
    plain = Simulation.open(
        EnvConfig.from_kwargs(scenario=None, cc="cubic", scheduler="minrtt"),
        load_scenario("tiny"),
        0,
    )
    try:
        with pytest.raises(ValueError, match=r"residual\+<base>"):
            plain.apply(flow_cwnd_gain={0: np.ones(plain.flow_n_paths[0])})
    finally:
        plain.close()


def _run_pair(scenario: str, base: str, alternate: str, steps: int, follow: float) -> list:
    """Step ``scenario`` with ``residual+<base>+<alternate>`` at gain 1, every subflow following
    the alternate (``follow=1``) or the base (``0``) throughout."""
    settings = EnvConfig.from_kwargs(
        scenario=None,
        scheduler="minrtt",
        action_mode="residual",
        residual_base=base,
        residual_alternate=alternate,
    ).core_settings()
    assert settings.cc == f"residual+{base}+{alternate}"
    sim = Simulation.open(settings, load_scenario(scenario), 3)
    out = []
    try:
        for _ in range(steps):
            n = sim.flow_n_paths[0]
            sim.apply(flow_cwnd_gain={0: np.ones(n)}, flow_follow_alternate={0: np.full(n, follow)})
            out.append(sim.step(STEP_S))
    finally:
        sim.close()
    return out


@pytest.mark.parametrize(
    ("scenario", "base", "alternate", "steps"),
    [
        # MACO as the alternate keeps its coupling across the paths (it finds its siblings
        # behind the residual wrapper), across the first handover window
        ("default", "bbr3", "maco", 140),
        # a hop network: two controllers that each draw their own randomness (BBRv3's probe
        # timing) from the same stream
        ("bottleneck4", "cubic", "bbr3", 80),
    ],
)
def test_following_either_controller_throughout_is_its_own_run_bit_for_bit(
    scenario: str, base: str, alternate: str, steps: int
) -> None:
    for follow, alone in ((0.0, base), (1.0, alternate)):
        plain = _run(scenario, alone, steps, gain=None)
        _assert_identical(plain, _run_pair(scenario, base, alternate, steps, follow))


def test_switching_between_the_controllers_changes_the_run() -> None:
    # Both controllers see every ACK, so a switch mid-episode is a third trajectory, not
    # either controller's.
    settings = EnvConfig.from_kwargs(
        scenario=None, action_mode="residual", residual_base="bbr3", residual_alternate="maco"
    ).core_settings()
    sim = Simulation.open(settings, load_scenario("default"), 3)
    runs: list[list[float]] = []
    try:
        cwnd = []
        for k in range(40):
            sim.apply(flow_follow_alternate={0: np.full(sim.flow_n_paths[0], float(k >= 20))})
            cwnd.append(float(np.nansum(sim.step(STEP_S).cwnd_bytes)))
        runs.append(cwnd)
    finally:
        sim.close()
    alone = [float(np.nansum(m.cwnd_bytes)) for m in _run("default", "bbr3", 40, gain=None)]
    assert runs[0][:20] == alone[:20]
    assert runs[0][20:] != alone[20:]


def test_follow_errors_name_the_flow_and_value() -> None:
    pair = EnvConfig.from_kwargs(
        scenario=None, action_mode="residual", residual_base="cubic", residual_alternate="bbr3"
    ).core_settings()
    sim = Simulation.open(pair, load_scenario("tiny"), 0)
    try:
        n = sim.flow_n_paths[0]
        for bad in (0.5, -1.0, 2.0, float("nan")):
            with pytest.raises(ValueError, match=r"flow_follow_alternate\[.*follow\[0\].*0 \(the"):
                sim.apply(flow_follow_alternate={0: np.full(n, bad)})
        with pytest.raises(ValueError, match="expected"):
            sim.apply(flow_follow_alternate={0: np.ones(n + 1)})
    finally:
        sim.close()
    single = EnvConfig.from_kwargs(scenario=None, cc="residual+cubic", scheduler="minrtt")
    sim = Simulation.open(single, load_scenario("tiny"), 0)
    try:
        with pytest.raises(ValueError, match=r"'residual\+cubic', which has no alternate"):
            sim.apply(flow_follow_alternate={0: np.ones(sim.flow_n_paths[0])})
    finally:
        sim.close()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("freeze+cubic+maco", "wrapper 'freeze' takes one controller"),
        ("residual+bbr3+maco+cubic", "takes a controller and one alternate"),
        ("residual+bbr3+freeze", "unknown congestion control 'freeze'"),
        ("residual+bbr3+nope", "unknown congestion control 'nope'"),
        ("residual+cubic+external", "'external' cannot be one"),
        ("residual+external", "'external' cannot be its controller"),
        ("residual+external+maco", "'external' cannot be its controller"),
    ],
)
def test_names_with_alternates_are_checked(name: str, message: str) -> None:
    from leogym.native import core, is_cc_algorithm

    assert not is_cc_algorithm(name)
    with pytest.raises(ValueError, match=message):
        core().algorithm_parameters("cc", name)


def test_the_listed_names_are_the_accepted_ones() -> None:
    # cc_algorithms() lists each wrapper around each controller that Resolve accepts: an
    # external agent under freeze (the agent's window held through a handover), not under
    # residual (whose gains scale a native controller's window).
    from leogym.native import cc_algorithms, core

    names = cc_algorithms()
    assert "freeze+external" in names and "residual+bbr3" in names
    assert "residual+external" not in names
    for name in names:
        core().algorithm_parameters("cc", name)  # every listed name resolves


def test_a_parameter_reaches_the_controller_that_has_it() -> None:
    from leogym.native import core, is_cc_algorithm
    from leogym.schema import FieldError

    assert is_cc_algorithm("residual+bbr3+maco")
    params = core().algorithm_parameters("cc", "residual+cubic+maco")
    assert set(core().algorithm_parameters("cc", "maco")) <= set(params)
    # MACO's quick-start factor is a parameter of the pair, not of CUBIC under the wrapper.
    kw = {"scenario": None, "action_mode": "residual", "residual_base": "cubic"}
    EnvConfig.from_kwargs(**kw, residual_alternate="maco", cc_params={"Gamma": 0.3})
    with pytest.raises(FieldError, match=r"cc_params\.Gamma: unknown parameter"):
        EnvConfig.from_kwargs(**kw, cc_params={"Gamma": 0.3})
