"""``env.transport`` at the env-config level: recovery presets, their timer overrides and
HyStart++ reach the native config, bad values are refused naming the user's field, and the
per-path timeout measurements follow the preset.

Reference numbers: Linux's TCP_RTO_MIN (200 ms, the ``tcp`` preset's floor), RFC 6298 §2.4
(an RTO of at least 1 s, ns-3's MinRto) and §2.3 (RTO = SRTT + max(G, 4·RTTVAR)), and
RFC 9002, which has no retransmission timeout at all (only the probe timeout, ``pto_count``).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the env ids)
from leogym.envs.config import EnvConfig
from leogym.native import core
from leogym.scenario import load_scenario
from leogym.schema import FieldError
from leogym.simulation import RecoveryParams, Simulation, TransportOptions, native_config

pytestmark = pytest.mark.native

P = "env.transport"
RP = "env.transport.recovery_params"


def _settings(**kwargs: object) -> EnvConfig:
    return EnvConfig.from_kwargs(scenario=None, **kwargs)


def test_unset_options_add_no_native_key() -> None:
    assert TransportOptions().native() == {}
    assert TransportOptions(recovery_params=RecoveryParams()).native() == {}
    config = native_config(_settings(), load_scenario("tiny"), 1)
    assert not {"recovery", "recovery_params", "hystart"} & set(config)


def test_recovery_and_its_params_reach_the_native_config() -> None:
    transport = {"recovery": "tcp", "recovery_params": {"min_rto_s": 1.0, "rto_undo": False}}
    settings = _settings(cc="cubic", transport={**transport, "hystart": True})
    assert isinstance(settings.transport.recovery_params, RecoveryParams)
    config = native_config(settings, load_scenario("tiny"), 1)
    assert config["recovery"] == "tcp" and config["hystart"] is True
    # only the values that were set: the rest stay the preset's
    assert config["recovery_params"] == {"min_rto_s": 1.0, "rto_undo": False}
    core().validate_simulation_config(config)


def _timer(**params: object) -> dict:
    return {"recovery": "tcp", "recovery_params": params}


BAD = [
    ({"recovery": "reno"}, f"{P}.recovery", "must be one of rfc9002, tcp, quic-draft, picoquic"),
    (_timer(min_rto_s=61.0), f"{RP}.min_rto_s", "must be in [0, 60] (got 61.0)"),
    (_timer(min_rto_s=-0.2), f"{RP}.min_rto_s", "must be in [0, 60]"),
    (_timer(max_rto_s=3601.0), f"{RP}.max_rto_s", "must be in [0, 3600]"),
    (_timer(initial_rto_s=0.0), f"{RP}.initial_rto_s", "must be in [0.001, 60]"),
    (_timer(tail_loss_probes=3), f"{RP}.tail_loss_probes", "must be in [0, 2]"),
    (_timer(loss_window_packets=101), f"{RP}.loss_window_packets", "must be in [0, 100]"),
    (_timer(rto_formula="bsd"), f"{RP}.rto_formula", "must be one of rfc6298, linux, quic"),
    (_timer(rto_undo="yes"), f"{RP}.rto_undo", "must be true or false"),
    (_timer(min_rto=1.0), RP, "unknown key(s) ['min_rto']"),
    ({"recovery": "tcp", "recovery_params": 1.0}, RP, "must be a mapping"),
    # RFC 9002 has no retransmission timer to tune, whether chosen or by default
    ({"recovery_params": {"min_rto_s": 1.0}}, RP, "timer-based recoveries"),
    ({"recovery": "rfc9002", "recovery_params": {"min_rto_s": 1.0}}, RP, "timer-based"),
    # a cap under the floor: both set, or under the preset's floor (Linux's 200 ms)
    (_timer(min_rto_s=2.0, max_rto_s=1.0), f"{RP}.max_rto_s", "min_rto_s"),
    (_timer(max_rto_s=0.1), f"{RP}.max_rto_s", "min_rto_s"),
    ({"hystart": "on"}, f"{P}.hystart", "must be true or false"),
]


@pytest.mark.parametrize(("transport", "field", "message"), BAD)
def test_bad_values_name_the_field(transport: dict, field: str, message: str) -> None:
    with pytest.raises(FieldError) as info:
        _settings(cc="cubic", transport=transport)
    text = str(info.value)
    assert text.startswith(f"{field}: ") and message in text, text
    # gymnasium.make refuses it the same way
    with pytest.raises(ValueError, match=f"^{field.replace('.', '[.]')}: "):
        gym.make("leogym/LeoCC-v0", scenario="tiny", cc="cubic", transport=transport)


def test_uncapped_timer_and_preset_floor_are_accepted() -> None:
    # max_rto_s 0 means no cap; 0.2 s equals the tcp preset's floor (Linux TCP_RTO_MIN)
    _settings(transport={"recovery": "tcp", "recovery_params": {"max_rto_s": 0.0}})
    _settings(transport={"recovery": "tcp", "recovery_params": {"max_rto_s": 0.2}})


def test_hystart_needs_a_controller_that_has_it() -> None:
    for cc in ("cubic", "newreno", "freeze+cubic"):
        _settings(cc=cc, transport={"hystart": True})
    with pytest.raises(FieldError, match=rf"^{P}\.hystart: cc 'external'"):
        _settings(cc="external", transport={"hystart": True})
    with pytest.raises(FieldError, match=rf"^{P}\.hystart: contradicts"):
        _settings(cc="cubic", cc_params={"HyStart": 0}, transport={"hystart": True})


def test_the_core_names_the_field_for_settings_that_skipped_the_schema() -> None:
    unchecked = EnvConfig(
        scenario=None,
        cc="cubic",
        transport=TransportOptions(recovery="tcp", recovery_params=RecoveryParams(min_rto_s=61.0)),
    )
    with pytest.raises(ValueError, match=rf"^{RP}\.min_rto_s: "):
        Simulation.open(unchecked, load_scenario("tiny"), 1)


def _run(transport: dict, steps: int = 30) -> list:
    settings = _settings(cc="cubic", transport=transport)
    with Simulation.open(settings, load_scenario("tiny"), 1) as sim:
        return [sim.step(0.1) for _ in range(steps)]


def test_rfc9002_has_no_retransmission_timer() -> None:
    for m in _run({}):
        assert not m.rto_count.any() and not m.in_loss_state.any()
        assert np.isinf(m.time_to_rto_s).all()


def test_rfc6298_timer_runs_while_data_is_in_flight() -> None:
    """ns-3's TcpSocketBase corner (RFC 6298, 1 s minimum, no tail-loss probe, no time
    threshold): while a path has data in flight its retransmission timer runs, and until a
    timeout backs it off, what is left of it never exceeds the largest
    RTO = max(1 s, SRTT + 4·RTTVAR) that the path's estimates have given (RFC 6298 §2.3-2.4)."""
    ns3 = {
        "min_rto_s": 1.0,
        "rto_formula": "rfc6298",
        "tail_loss_probes": 0,
        "time_threshold_loss": False,
        "detect_lost_retransmissions": False,
    }
    largest = np.zeros(0)
    armed = 0
    for m in _run({"recovery": "tcp", "recovery_params": ns3}):
        if m.rto_count.any():
            break  # backed off from here on
        rto = np.maximum(1.0, np.nan_to_num(m.srtt_s) + 4 * np.nan_to_num(m.rttvar_s))
        largest = np.maximum(largest, rto) if largest.size else rto
        busy = m.bytes_in_flight > 0
        left = m.time_to_rto_s[busy]
        assert np.isfinite(left).all() and (left > 0).all(), left
        assert (left <= largest[busy] + 1e-9).all(), (left, largest)
        armed += int(busy.sum())
    assert armed > 10


def test_recovery_features_observe_the_retransmission_timer() -> None:
    # Off by default (observations unchanged); on, three features per path, in their bounds.
    plain = gym.make("leogym/LeoCC-v0", scenario="tiny", cc="cubic")
    env = gym.make(
        "leogym/LeoCC-v0",
        scenario="tiny",
        cc="cubic",
        transport={"recovery": "tcp"},
        observation={"recovery_features": True},
    )
    try:
        names = env.unwrapped.feature_names
        assert not any("time_to_rto" in n for n in plain.unwrapped.feature_names)
        extra = env.observation_space.shape[0] - plain.observation_space.shape[0]
        assert extra == 3 * env.unwrapped.config.observation.max_paths
        col = [i for i, n in enumerate(names) if "path0/time_to_rto" in n][0]
        obs, _ = env.reset(seed=1)
        seen = []
        for _ in range(20):
            obs, *_ = env.step(env.action_space.sample() * 0)
            assert env.observation_space.contains(obs)
            seen.append(float(obs[col]))
        # With data in flight the timer runs: below the 10 s horizon, above 0.
        assert any(0.0 < v < 10.0 for v in seen)
    finally:
        env.close()
        plain.close()
