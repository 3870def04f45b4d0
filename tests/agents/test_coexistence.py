"""Coexistence checks (``eval.peers``, ``suite=coexistence``; :mod:`leogym.agents.coexistence`):
the variants replace exactly the competing bulk flows, bad peers name the field, and on a shared
bottleneck identical CUBIC flows split it fairly, as AIMD flows of one RTT do (Chiu and Jain,
1989), which ``share_of_fair`` and ``jain_flows`` must show."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from leogym.agents.coexistence import with_peer_variants, with_peers
from leogym.agents.config import ConfigError, register_configs, validate_config
from leogym.agents.runtime.app import compose, to_objects
from leogym.scenario import load_scenario
from leogym.schema import FieldError


@pytest.mark.native
def test_a_variant_replaces_the_bulk_flows_and_keeps_the_rest() -> None:
    base = load_scenario("heldout/starlink_path_flows")  # a TCP flow and UDP cross traffic
    v = with_peers(base, "bbr3")
    (flow,) = v.traffic.flows
    (old,) = base.traffic.flows
    assert (flow.transport, flow.cc) == ("mpquic", "bbr3")
    assert (flow.name, flow.routes, flow.start_s, flow.stop_s) == (
        old.name,
        old.routes,
        old.start_s,
        old.stop_s,
    )
    assert v.traffic.cross_traffic == base.traffic.cross_traffic
    tcp = with_peers(load_scenario("bottleneck4"), "TcpBbr")
    assert {(f.transport, f.cc) for f in tcp.traffic.flows} == {("tcp", "TcpBbr")}
    names = [n for n, _ in with_peer_variants([("bottleneck4", "bottleneck4")], ["cubic", "maco"])]
    assert names == ["bottleneck4+cubic", "bottleneck4+maco"]


@pytest.mark.native
@pytest.mark.parametrize(
    ("scenario", "peer", "message"),
    [
        ("bottleneck4", "cubicc", r"^eval\.peers: unknown controller 'cubicc'"),
        ("bottleneck4", "external", r"^eval\.peers: unknown controller 'external'"),
        ("default", "cubic", r"^eval\.peers: scenario 'default' has no mpquic or tcp flow"),
    ],
)
def test_bad_peers_name_the_field(scenario: str, peer: str, message: str) -> None:
    with pytest.raises(FieldError, match=message):
        with_peers(load_scenario(scenario), peer)


def _validate(overrides: list[str]) -> None:
    register_configs()
    validate_config(to_objects(compose("evaluate", overrides)), ("env", "eval"))


@pytest.mark.native
@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("eval.peers=[cubic,bbrr]", r"^eval\.peers\[1\]: must be one of"),
        ("eval.scenarios=[default]", r"^eval\.peers\[0\]: scenario 'default' has no mpquic"),
    ],
)
def test_bad_peers_in_the_config_name_the_field(override: str, message: str) -> None:
    _validate(["suite=coexistence"])
    with pytest.raises(ConfigError, match=message):
        _validate(["suite=coexistence", override])


@pytest.mark.native
@pytest.mark.timeout(600)
def test_identical_cubic_flows_share_a_bottleneck_fairly(tmp_path: Path) -> None:
    from leogym.agents.evaluate import evaluate

    register_configs()
    cfg = compose(
        "evaluate",
        [
            "suite=coexistence",
            "eval.scenarios=[bottleneck4]",
            "eval.peers=[cubic]",
            "baseline=[cubic]",
            "eval.seeds=[0,1]",
            "env.episode_s=20",
            "eval.n_workers=2",
            "eval.plots=false",
            "eval.progress=false",
            "eval.traces=false",
        ],
    )
    evaluate(cfg, tmp_path)
    rows = pd.read_parquet(tmp_path / "results.parquet")
    assert set(rows["scenario"]) == {"bottleneck4+cubic"} and len(rows) == 2
    # four CUBIC flows of one 40 ms RTT on a 20 Mbit/s link: each near a quarter
    assert rows["jain_flows"].min() >= 0.9
    assert rows["share_of_fair"].between(0.7, 1.3).all()
