"""The paper baselines' Python entry points: registry names, env overrides, parameters."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from leogym.baselines import NativePolicy, bind, make_baseline
from leogym.baselines.alcs import AlcsParams
from leogym.baselines.freeze import FreezeParams
from leogym.baselines.maco import MacoParams
from leogym.baselines.params import native_params

PAPER = {
    "maco": {"cc": "maco"},
    "alcs": {"scheduler": "alcs"},
    "freeze+newreno": {"cc": "freeze+newreno"},
    "freeze+cubic": {"cc": "freeze+cubic"},
    "freeze+bbr": {"cc": "freeze+bbr"},
}


@pytest.mark.parametrize(("name", "overrides"), list(PAPER.items()))
def test_registry_entries(name, overrides):
    p = make_baseline(name)
    assert isinstance(p, NativePolicy)
    assert p.name == name
    assert p.env_overrides == overrides
    assert p.citation and p.params


def test_the_env_knows_the_names():
    """Every baseline's algorithm is one the core accepts, so the env takes it."""
    from leogym.envs.config import EnvConfig
    from leogym.native import core

    for overrides in PAPER.values():
        for key, value in overrides.items():
            assert value in (core().cc_algorithms() if key == "cc" else core().schedulers())
            EnvConfig.from_kwargs(scenario=None, **{key: value})


@pytest.mark.native
@pytest.mark.parametrize("name", ["maco", "freeze+newreno", "freeze+cubic", "freeze+bbr"])
def test_native_cc_accepts_every_parameter(testing, name):
    """Every parameter maps to a real attribute of the native controller, and the paper
    defaults pass the native range checks."""
    p = make_baseline(name)
    probe = testing.CcProbe(name, params=p.params)
    assert probe.name(0) == name


@pytest.mark.native
def test_native_scheduler_accepts_every_parameter(testing):
    p = make_baseline("alcs")
    testing.SchedulerProbe("alcs", params=p.params)


def test_paper_defaults():
    m = MacoParams()
    assert (m.gamma, m.init_cwnd_pkts, m.decrease_factor) == (0.5, 4.0, 0.5)
    assert (m.tx_power_dbm, m.tx_gain_dbi, m.rx_gain_dbi) == (35.12, 37.7, 37.1)
    assert (m.wavelength_m, m.noise_psd_w_hz, m.bandwidth_hz, m.efficiency) == (
        0.086,
        1.6e-20,
        12.5e6,
        0.98,
    )
    f = FreezeParams()
    assert (f.before_s, f.after_s, f.schedule_offset_s, f.schedule_period_s) == (
        0.1,
        0.1,
        12.0,
        15.0,
    )
    a = AlcsParams()
    assert (a.alpha, a.sigma_init, a.guard_rtts) == (0.99, 1.0, 1.0)


def test_changed_parameters_travel_in_the_env_overrides():
    p = make_baseline("maco", gamma=0.25, proactive_clamp=True)
    assert p.env_overrides == {"cc": "maco", "cc_params": {"Gamma": 0.25, "ProactiveClamp": 1.0}}
    assert p.params["Gamma"] == 0.25
    q = make_baseline("alcs", guard_rtts=2.0)
    assert q.env_overrides == {"scheduler": "alcs", "scheduler_params": {"GuardRtts": 2.0}}
    r = make_baseline("freeze+cubic", before_s=0.2)
    assert r.env_overrides["cc_params"] == {"Before": 0.2}


@pytest.mark.parametrize(
    ("name", "kwargs", "field"),
    [
        ("maco", {"gamma": 0.0}, "baseline.maco.gamma"),
        ("maco", {"gama": 0.5}, "baseline.maco.gama"),
        ("maco", {"proactive_clamp": "yes"}, "baseline.maco.proactive_clamp"),
        ("alcs", {"alpha": 2.0}, "baseline.alcs.alpha"),
        ("alcs", {"k_mode": 5}, "baseline.alcs.k_mode"),
        ("freeze+cubic", {"before_s": -0.1}, "baseline.freeze.before_s"),
        ("freeze+bbr", {"schedule_period_s": "15"}, "baseline.freeze.schedule_period_s"),
    ],
)
def test_bad_parameters_name_the_field(name, kwargs, field):
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        make_baseline(name, **kwargs)


def test_native_attribute_names_are_accepted():
    a = make_baseline("maco", Gamma=0.25)
    b = make_baseline("maco", gamma=0.25)
    assert a.env_overrides == b.env_overrides == {"cc": "maco", "cc_params": {"Gamma": 0.25}}
    assert make_baseline("alcs", GuardRtts=2.0).params["GuardRtts"] == 2.0
    with pytest.raises(ValueError, match="given twice"):
        make_baseline("maco", Gamma=0.25, gamma=0.3)
    assert make_baseline("maco", ProactiveClamp=1.0).params["ProactiveClamp"] == 1.0
    with pytest.raises(ValueError, match="must be a bool"):
        make_baseline("maco", ProactiveClamp=2.0)


def test_native_params_only_changed():
    assert native_params(AlcsParams(), only_changed=True) == {}
    assert native_params(AlcsParams(k_mode=1), only_changed=True) == {"KMode": 1.0}


def test_predict_returns_the_neutral_action():
    p = make_baseline("maco")
    with pytest.raises(RuntimeError, match="bind"):
        p.predict(np.zeros(3))

    class Env:
        action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)

    bind(p, Env())
    action, state = p.predict(np.zeros(5, dtype=np.float32))
    assert np.array_equal(action, np.zeros(2, dtype=np.float32)) and state is None
