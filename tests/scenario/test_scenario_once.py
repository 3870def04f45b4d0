"""A scenario is validated where it is made (load, sampling) and not again while it is
unchanged; its files are read once per file version (``leogym.scenario.files``); edits to a
file or to the config are seen."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from leogym.scenario import ScenarioConfigError, build_timeline, load_scenario
from leogym.scenario import files as scenario_files
from leogym.scenario.validation import validate_scenario, validation_count

#: mahimahi: one 1500-byte delivery opportunity per line (Netravali et al., USENIX ATC 2015)
MTU_BITS = 1500 * 8


def _tiny() -> dict:
    import importlib.resources as res

    d = OmegaConf.to_container(
        OmegaConf.load(str(res.files("leogym.conf").joinpath("scenario", "tiny.yaml")))
    )
    assert isinstance(d, dict)
    return d


def _tiny_with_trace(trace: Path) -> dict:
    d = _tiny()
    d["paths"][1]["terrestrial"].update(capacity="trace", trace_down=str(trace))
    return d


def _write_trace(path: Path, per_ms: int) -> None:
    """``per_ms`` delivery opportunities in every millisecond of a 100 ms trace."""
    path.write_text("".join(f"{t}\n" * per_ms for t in range(1, 101)))


def test_a_reset_loop_validates_and_reads_the_trace_once(tmp_path: Path) -> None:
    trace = tmp_path / "link.mahi"
    _write_trace(trace, 1)
    cfg = load_scenario(_tiny_with_trace(trace))
    reads = scenario_files.cache_info()["trace_reads"]
    checks = validation_count()
    rates = [build_timeline(cfg, seed).paths[1].rate_down_bps for seed in range(5)]
    copies = [load_scenario(cfg) for _ in range(3)]  # copies keep what cfg passed as
    build_timeline(copies[0], 0)
    assert validation_count() == checks  # validated by load_scenario already
    assert scenario_files.cache_info()["trace_reads"] == reads
    # 100 opportunities of 1500 bytes per 100 ms bin: 12 Mbit/s (the first bin, [0, 100) ms,
    # holds the 99 at 1..99 ms; the one at 100 ms opens the next)
    assert rates[0][0] == pytest.approx(99 * MTU_BITS / 0.1)
    assert np.median(rates[0]) == pytest.approx(100 * MTU_BITS / 0.1)
    # a changed config is validated again by the timeline (once), and by an explicit call
    cfg.duration_s = 10.0
    build_timeline(cfg, 0)
    build_timeline(cfg, 1)
    assert validation_count() == checks + 1
    validate_scenario(cfg)
    assert validation_count() == checks + 2


def test_a_config_changed_after_validation_is_not_built_unchecked() -> None:
    """build_timeline checks a config changed since it passed, down to a nested field and to a
    value of the wrong type that compares equal (the old memo keyed on ``repr`` saw those too;
    the stamp on the config must)."""
    cfg = load_scenario("tiny")
    cfg.paths[0].queue.size = 0
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.paths\[0\]\.queue\.size: "):
        build_timeline(cfg, 0)
    cfg = load_scenario("tiny")
    cfg.paths[0].loss_down = True  # type: ignore[assignment]  # == 1.0, not a number
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.paths\[0\]\.loss_down: "):
        build_timeline(cfg, 0)
    cfg = load_scenario("tiny")
    cfg.duration_s = float("nan")
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.duration_s: "):
        build_timeline(cfg, 0)


def test_a_dict_is_converted_at_each_load_and_each_copy_is_its_own() -> None:
    """No memo keyed on a dict's ``repr``: each load converts it afresh (and validates the
    result); a caller keeps the ScenarioConfig to use it again."""
    d = _tiny()
    a = load_scenario(d)
    checks = validation_count()
    b = load_scenario(d)
    assert validation_count() == checks + 1
    assert a == b and a is not b
    d["duration_s"] = -1.0
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.duration_s: "):
        load_scenario(d)


def test_an_edited_file_is_read_again(tmp_path: Path) -> None:
    trace = tmp_path / "link.mahi"
    _write_trace(trace, 1)
    cfg = load_scenario(_tiny_with_trace(trace))
    rate = build_timeline(cfg, 0).paths[1].rate_down_bps
    assert np.median(rate) == pytest.approx(100 * MTU_BITS / 0.1)
    _write_trace(trace, 2)  # twice the opportunities: twice the capacity
    rate = build_timeline(cfg, 0).paths[1].rate_down_bps
    assert np.median(rate) == pytest.approx(200 * MTU_BITS / 0.1)
    trace.write_text("1\nthree\n")  # corrupt: reported, not kept
    with pytest.raises(ScenarioConfigError, match=r"trace_down: .*link\.mahi:2: expected"):
        load_scenario(_tiny_with_trace(trace))
    _write_trace(trace, 1)
    load_scenario(_tiny_with_trace(trace))


def test_cached_contents_cannot_be_changed_by_a_caller(tmp_path: Path) -> None:
    trace = tmp_path / "link.mahi"
    _write_trace(trace, 1)
    a = scenario_files.mahimahi_trace(trace, "f")
    assert a is scenario_files.mahimahi_trace(trace, "f")
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5


def test_loads_of_one_scenario_are_independent_copies() -> None:
    a = load_scenario("tiny")
    n = len(a.paths)
    a.paths[0].loss_down = 0.5
    a.paths.append(dataclasses.replace(a.paths[0]))
    b = load_scenario("tiny")
    assert len(b.paths) == n and b.paths[0].loss_down != 0.5
    assert b == load_scenario("tiny") and b is not load_scenario("tiny")
