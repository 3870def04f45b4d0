"""Where a baseline's settings go (``leogym.baselines.params.baseline_env_kwargs``): its
algorithm and parameters into the env kwargs, per-baseline env kwargs last, ``external``
controls to the evaluation's fallbacks, residual mode off."""

from __future__ import annotations

from leogym.baselines import make_baseline
from leogym.baselines.params import baseline_env_kwargs

FALLBACKS = {"fallback_cc": "cubic", "fallback_scheduler": "minrtt"}


def test_a_classic_baselines_parameters_are_native_values_of_its_cc() -> None:
    policy = make_baseline("cubic", Beta=0.6)
    env = {"cc": "external", "scheduler": "external", "cc_params": {"C": 0.3}}
    kwargs = baseline_env_kwargs(policy, {"Beta": 0.6}, env, {}, **FALLBACKS)
    assert kwargs["cc"] == "cubic"
    assert kwargs["cc_params"] == {"C": 0.3, "Beta": 0.6}  # merged, not replaced
    assert kwargs["scheduler"] == "minrtt"  # external goes to the fallback
    assert env == {"cc": "external", "scheduler": "external", "cc_params": {"C": 0.3}}


def test_a_paper_baseline_routes_only_its_changed_parameters() -> None:
    policy = make_baseline("maco", gamma=0.8)
    kwargs = baseline_env_kwargs(policy, {"gamma": 0.8}, {}, {}, **FALLBACKS)
    assert kwargs["cc"] == "maco"
    assert kwargs["cc_params"] == policy.env_overrides["cc_params"]
    assert len(kwargs["cc_params"]) == 1  # the one that differs from the paper's default


def test_per_baseline_env_kwargs_come_last_and_residual_mode_is_off() -> None:
    policy = make_baseline("alcs")
    env = {"action_mode": "residual", "cc": "bbr", "scheduler_params": {"A": 1.0}}
    extra = {"cc": "external", "scheduler_params": {"B": 2.0}, "episode_s": 3.0}
    kwargs = baseline_env_kwargs(policy, {}, env, extra, **FALLBACKS)
    assert kwargs["scheduler"] == "alcs"
    assert kwargs["scheduler_params"] == {"A": 1.0, "B": 2.0}
    assert kwargs["cc"] == "cubic"  # the per-baseline "external", then the fallback
    assert kwargs["episode_s"] == 3.0
    assert kwargs["action_mode"] == "continuous"


def test_a_gain_puts_the_baselines_controller_under_the_residual_mode() -> None:
    policy = make_baseline("bbr3")
    env = {"cc": "external", "action_mode": "continuous", "residual_base": "cubic"}
    kwargs = baseline_env_kwargs(policy, {}, env, {}, **FALLBACKS, gain=-0.5)
    assert (kwargs["cc"], kwargs["action_mode"], kwargs["residual_base"]) == (
        "external",
        "residual",
        "bbr3",
    )
