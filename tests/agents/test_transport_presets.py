"""The Hydra group ``transport`` (``conf/transport/``): each option composes into
``env.transport`` with every app and reaches the native config; the default adds nothing;
single keys override; bad names and values fail naming the field (without running a sim).

Reference values: ns-3 3.44's TcpSocketBase (MinRto 1 s, RFC 6298 §2.4; no tail-loss probe,
RACK or F-RTO upstream), Linux 5.4 (tcp_is_cwnd_limited) and the core's preset names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hydra.errors import HydraException

from leogym.agents.config import ConfigError, env_kwargs, validate_config
from leogym.agents.runtime.app import compose, to_objects
from leogym.envs.config import EnvConfig
from leogym.native import core
from leogym.scenario import load_scenario
from leogym.simulation import native_config

pytestmark = pytest.mark.native

APPS = ("train", "evaluate", "main_job")
CONF = Path(__file__).resolve().parents[2] / "conf" / "transport"
OPTIONS = sorted(p.stem for p in CONF.glob("*.yaml"))
SECTIONS = ("env", "agent", "train", "eval")


def _native(overrides: list[str], app: str = "train") -> dict:
    """The native config an app's composed env would open (scenario tiny, no simulation)."""
    c = to_objects(compose(app, overrides))
    validate_config(c, SECTIONS)
    settings = EnvConfig.from_kwargs(scenario=None, **env_kwargs(c.env))
    config = native_config(settings, load_scenario("tiny"), 1)
    core().validate_simulation_config(config)
    return config


def test_the_group_holds_one_option_per_core_preset() -> None:
    presets = set(core().recovery_presets())
    assert {"rfc9002", "tcp", "tcp_ns3", "quic_draft", "picoquic"} == set(OPTIONS)
    for option in OPTIONS:
        recovery = to_objects(compose("train", [f"transport={option}"])).env.transport.recovery
        assert (recovery or "rfc9002") in presets, option
        first = (CONF / f"{option}.yaml").read_text(encoding="utf-8").splitlines()[:2]
        assert first[0] == "# @package env.transport" and first[1].startswith("# "), option


@pytest.mark.parametrize("app", APPS)
def test_the_default_adds_no_transport_key(app: str) -> None:
    """Runs compose as before the group existed: no transport kwarg, the core's defaults."""
    c = to_objects(compose(app))
    assert c.env.transport.native() == {}
    assert "transport" not in env_kwargs(c.env)  # episode keys of earlier runs unchanged
    assert c.env.transport == to_objects(compose(app, ["transport=rfc9002"])).env.transport


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("option", OPTIONS)
def test_every_option_composes_with_every_app(app: str, option: str) -> None:
    c = to_objects(compose(app, [f"transport={option}"]))
    validate_config(c, SECTIONS)


@pytest.mark.parametrize("app", APPS)
def test_transport_tcp_reaches_the_native_config(app: str) -> None:
    c = to_objects(compose(app, ["transport=tcp"]))
    assert c.env.transport.recovery == "tcp"
    config = _native(["transport=tcp"], app)
    assert config["recovery"] == "tcp" and config["cwnd_validation"] == "linux"
    assert "recovery_params" not in config  # the preset's own values


def test_tcp_ns3_is_ns3_tcp_socket_base() -> None:
    config = _native(["transport=tcp_ns3"])
    assert config["recovery"] == "tcp"
    assert config["recovery_params"] == {
        "min_rto_s": 1.0,
        "rto_formula": "rfc6298",
        "tail_loss_probes": 0,
        "rto_undo": False,
        "time_threshold_loss": False,
        "detect_lost_retransmissions": False,
        "slow_start_after_idle": False,
    }


def test_presets_work_with_the_paper_experiments() -> None:
    c = to_objects(compose("evaluate", ["experiment=maco", "transport=quic_draft"]))
    validate_config(c, SECTIONS)
    assert c.env.transport.recovery == "quic-draft" and c.scenario.name == "maco"
    c = to_objects(compose("main_job", ["experiment=alcs", "transport=tcp"]))
    validate_config(c, SECTIONS)
    assert c.env.transport.recovery == "tcp" and c.env.cc == "cubic"


def test_single_keys_override() -> None:
    config = _native(["env.transport.ack_every=10"])
    assert config["ack_every"] == 10 and "recovery" not in config
    config = _native(["transport=tcp", "env.transport.recovery_params.min_rto_s=1.0"])
    assert config["recovery"] == "tcp" and config["recovery_params"] == {"min_rto_s": 1.0}
    config = _native(["transport=tcp_ns3", "env.transport.recovery_params.min_rto_s=0.5"])
    assert config["recovery_params"]["min_rto_s"] == 0.5  # the command line wins over the file
    config = _native(["env=scheduler", "env.transport.hystart=true"])  # cc cubic
    assert config["hystart"] is True


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["env.transport.recovery=reno"], "env.transport.recovery: must be one of"),
        (
            ["transport=tcp", "env.transport.recovery_params.min_rto_s=61"],
            "env.transport.recovery_params.min_rto_s: must be in [0, 60] (got 61.0)",
        ),
        (
            ["transport=picoquic", "env.transport.recovery_params.initial_rto_s=0"],
            "env.transport.recovery_params.initial_rto_s: must be in [0.001, 60]",
        ),
        (
            ["transport=tcp", "env.transport.recovery_params.max_rto_s=0.1"],
            "env.transport.recovery_params.max_rto_s: must be >= min_rto_s",
        ),
        (
            ["env.transport.recovery_params.min_rto_s=1.0"],  # under the default rfc9002
            "env.transport.recovery_params: applies to the timer-based recoveries",
        ),
        (
            ["transport=quic_draft", "env.transport.recovery_params.tlp_timing=late"],
            "env.transport.recovery_params.tlp_timing: must be one of draft, module",
        ),
        (["env.transport.hystart=true"], "env.transport.hystart: cc 'external'"),
    ],
)
def test_bad_values_name_the_field(overrides: list[str], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_config(to_objects(compose("train", overrides)), SECTIONS)
    assert str(info.value).startswith(field), str(info.value)


def test_bad_option_and_unknown_key_name_the_group_and_field() -> None:
    with pytest.raises(HydraException, match="transport/reno"):
        compose("train", ["transport=reno"])
    with pytest.raises(HydraException) as info:
        compose("train", ["transport=tcp", "env.transport.recovery_params.min_rto=1"])
    text, cause = str(info.value), info.value.__cause__
    assert "env.transport.recovery_params.min_rto" in text + str(cause)
    with pytest.raises(HydraException) as info:
        compose("train", ["env.transport.recovery_params.rto_undo=maybe"])
    assert "env.transport.recovery_params.rto_undo" in str(info.value) + str(info.value.__cause__)


def test_cli_reports_a_bad_timer_value_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"}
    argv = [sys.executable, "-m", "leogym.agents.train", f"hydra.run.dir={tmp_path / 'run'}"]
    for args, line in (
        (
            ["transport=tcp", "env.transport.recovery_params.min_rto_s=61"],
            "leogym-train: error: env.transport.recovery_params.min_rto_s: must be in [0, 60] "
            "(got 61.0)",
        ),
        (["transport=reno"], "leogym-train: error: transport: no option 'reno'"),
    ):
        proc = subprocess.run(
            argv + args, capture_output=True, text=True, timeout=180, check=False, env=env
        )
        lines = [x for x in proc.stderr.splitlines() if x.strip()]
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert lines[0].startswith(line), lines[0]
    assert not (tmp_path / "run" / "run_info.json").exists()


def test_documented_preset_values_are_the_cores() -> None:
    """The ``recovery_params`` table of docs/workflows.md shows each preset's values as the core
    has them."""
    text = (CONF.parents[1] / "docs" / "workflows.md").read_text(encoding="utf-8")
    presets = core().recovery_presets()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] in presets["tcp"]:
            rows[cells[0]] = cells[2:5]
    assert set(rows) == set(presets["tcp"])
    for key, shown in rows.items():
        for preset, value in zip(("tcp", "quic-draft", "picoquic"), shown, strict=True):
            want = presets[preset][key]
            if isinstance(want, bool):
                assert value == str(want).lower(), (key, preset)
            elif isinstance(want, str):
                assert value == want, (key, preset)
            else:
                assert float(value) == pytest.approx(want), (key, preset)
