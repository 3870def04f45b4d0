"""``leogym-reproduce --recovery`` / ``--recovery-param``: every run of an experiment under a
loss-recovery preset (docs/reproduction.md, "Re-runs under the testbeds' loss recovery").

The option is checked before anything is simulated, with one-line errors that name it; the
default leaves the runs (and so their outputs) exactly as without it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from leogym.agents.reproduce import cli as reproduce
from leogym.agents.reproduce.common import (
    parse_recovery_param,
    recovery_options,
    recovery_values,
    transport,
)
from leogym.agents.reproduce.maco_windows import slow_start_phases


def _dry(capsys, *argv: str) -> list[str]:
    assert reproduce.main(list(argv) + ["--dry-run"]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("name", ["maco", "freeze", "alcs", "mptcp_leo"])
def test_default_preset_changes_no_run(name, capsys, tmp_path, monkeypatch):
    """``--recovery rfc9002`` (the core's default) lists exactly the runs of no option."""
    monkeypatch.chdir(tmp_path)
    assert _dry(capsys, name) == _dry(capsys, name, "--recovery", "rfc9002")


def test_every_run_carries_the_preset(capsys):
    lines = _dry(
        capsys,
        "alcs",
        "--quick",
        "--recovery",
        "quic-draft",
        "--recovery-param",
        "tlp_timing=module",
        "--recovery-param",
        "tail_loss_probes=0",
    )
    runs = lines[1:]
    assert runs and all(
        "recovery=quic-draft" in r
        and "'tlp_timing': 'module'" in r
        and "'tail_loss_probes': 0" in r
        for r in runs
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--recovery", "reno"], "--recovery: must be one of rfc9002, tcp, quic-draft, picoquic"),
        (["--recovery", "tcp", "--recovery-param", "min_rto_s=-1"], "--recovery-param min_rto_s"),
        (["--recovery", "tcp", "--recovery-param", "nope=1"], "unknown key 'nope'"),
        (["--recovery", "tcp", "--recovery-param", "min_rto_s"], "must be KEY=VALUE"),
        (["--recovery", "tcp", "--recovery-param", "rto_undo=maybe"], "true or false"),
        (["--recovery", "tcp", "--recovery-param", "tail_loss_probes=1.5"], "an integer"),
        (["--recovery", "tcp", "--recovery-param", "tlp_timing=soon"], "one of draft, module"),
        (
            [
                "--recovery",
                "tcp",
                "--recovery-param",
                "min_rto_s=2",
                "--recovery-param",
                "max_rto_s=1",
            ],
            "--recovery-param max_rto_s: must be >= min_rto_s",
        ),
        (["--recovery-param", "min_rto_s=1"], "set --recovery"),
        (["--recovery", "rfc9002", "--recovery-param", "min_rto_s=1"], "set --recovery"),
    ],
)
def test_bad_preset_is_one_line_naming_the_option(argv, message, capsys, tmp_path, monkeypatch):
    """Rejected up front (status 2, one line on stderr), run or dry run, nothing written."""
    monkeypatch.chdir(tmp_path)
    for extra in (["--dry-run"], ["--quick", "--no-progress"]):
        with pytest.raises(SystemExit) as info:
            reproduce.main(["mptcp_leo", *argv, *extra])
        assert info.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("leogym-reproduce: error: ") and "\n" not in err
        assert message in err
    assert not any(tmp_path.iterdir())


def test_run_experiment_checks_the_preset_before_simulating():
    with pytest.raises(ValueError, match="--recovery"):
        reproduce.run_experiment("maco", "quick", recovery="tahoe")
    with pytest.raises(ValueError, match="--recovery-param loss_window_packets"):
        reproduce.run_experiment(
            "maco", "quick", recovery="tcp", recovery_params={"loss_window_packets": 101}
        )


def test_values_are_read_as_the_field_asks():
    assert parse_recovery_param("tail_loss_probes=0") == ("tail_loss_probes", 0)
    assert isinstance(parse_recovery_param("tail_loss_probes=2")[1], int)
    assert parse_recovery_param("min_rto_s=1") == ("min_rto_s", 1.0)
    assert parse_recovery_param("rto_undo=off") == ("rto_undo", False)
    assert parse_recovery_param(" loss_state = true ") == ("loss_state", True)
    assert parse_recovery_param("rto_backoff=xor") == ("rto_backoff", "xor")


def test_preset_merges_with_the_experiments_own_transport():
    own = {"receive_window_bytes": 262144, "recovery_params": {"min_rto_s": 1.0}}
    assert transport({}, **own) == own  # no preset: unchanged
    task = {"recovery": "tcp", "recovery_params": {"tail_loss_probes": 0}}
    assert transport(task, **own) == {
        "receive_window_bytes": 262144,
        "recovery": "tcp",
        "recovery_params": {"min_rto_s": 1.0, "tail_loss_probes": 0},
    }
    assert recovery_options() == {} and recovery_options("rfc9002") == {}
    assert recovery_options("picoquic") == {"recovery": "picoquic"}


@pytest.mark.native
def test_recorded_values_are_the_core_preset_with_overrides():
    from leogym import _core

    rec = recovery_values({"recovery": "quic-draft", "recovery_params": {"tlp_timing": "module"}})
    expected = dict(_core.recovery_presets()["quic-draft"], tlp_timing="module")
    assert rec == {
        "recovery": "quic-draft",
        "recovery_params": {"tlp_timing": "module"},
        "values": expected,
    }


@pytest.mark.native
def test_outputs_record_the_preset(tmp_path, capsys):
    """Titles, CSV names and the JSON of runs name the preset; the default names stay."""
    argv = ["mptcp_leo", "--quick", "--no-progress", "--out", str(tmp_path)]
    rc = reproduce.main(argv + ["--recovery", "tcp", "--recovery-param", "min_rto_s=1"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "[recovery: tcp, min_rto_s=1.0]" in out
    assert "recovery preset tcp: min_rto_s=1.0," in out
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == [
        "mptcp_leo_quick_tcp_min_rto_s-1.0_1.csv",
        "mptcp_leo_quick_tcp_min_rto_s-1.0_2.csv",
    ]
    runs = json.loads((tmp_path / "mptcp_leo_quick_tcp_min_rto_s-1.0_runs.json").read_text())
    assert runs["transport"]["recovery"] == "tcp"
    assert runs["transport"]["values"]["min_rto_s"] == 1.0
    assert runs["transport"]["values"]["loss_window_packets"] == 1  # the preset's, RFC 5681
    assert len(runs["results"]) == 3


# --- MACO's slow-start readings (docs/reproduction.md): hand-made windows, counted samples.


def test_slow_start_phases_after_a_verified_timeout():
    """A first slow start, a congestion halving (not a slow start: ssthresh follows the
    window), then a restart from 2 packets to ssthresh 30 (W/2) and on to the BDP of 60."""
    inf = np.inf
    c = np.array([0, 10, 20, 40, 80, 100, 100, 50, 55, 60, 2, 4, 8, 16, 32, 64, 70.0])
    th = np.array([inf] * 7 + [50, 50, 50] + [30] * 7)
    ph = slow_start_phases(c, th, 0.01, bdp=60.0)
    assert ph["first_to_bdp"] == pytest.approx([0.03])  # 10 -> 80 at the 4th sample
    assert ph["first_to_ssthresh"] == pytest.approx([0.06])  # cut short by the halving
    assert ph["later_to_ssthresh"] == pytest.approx([0.04])  # 2 -> 32 >= 30
    assert ph["later_to_bdp"] == pytest.approx([0.05])  # 2 -> 64 >= 60


def test_quick_start_reentry_is_a_slow_start_phase():
    """MACO's quick start sets the window below a new ssthresh (the BDP estimate): a slow
    start phase although the window fell by less than 75 %."""
    c = np.array([100, 100, 60, 80, 100, 120.0])
    th = np.array([50, 50, 100, 100, 100, 100.0])
    ph = slow_start_phases(c, th, 0.01, bdp=110.0)
    assert ph["first_to_bdp"] == [] and ph["first_to_ssthresh"] == []  # not in slow start
    assert ph["later_to_ssthresh"] == pytest.approx([0.02])
    assert ph["later_to_bdp"] == pytest.approx([0.03])
    # A window left a few bytes under ssthresh by rounding is not a slow start (one-segment
    # margin): after a halving, cwnd 569.9 against ssthresh 570.
    c = np.array([1140, 1140, 569.9, 570, 571.0])
    th = np.array([1140, 1140, 570, 570, 570.0])
    assert slow_start_phases(c, th, 0.01, bdp=888.0, margin=1.0)["later_to_bdp"] == []
    assert len(slow_start_phases(c, th, 0.01, bdp=888.0)["later_to_bdp"]) == 1
