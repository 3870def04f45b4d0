"""leogym.native: the public core, and its test probes only where the core was built with them."""

from __future__ import annotations

from types import ModuleType

import pytest

from leogym import native

PROBES = ("run_reference_flow", "probe_link", "sample_path", "CcProbe", "CongestionProbe")


def test_the_probes_live_in_the_testing_submodule(core: ModuleType, testing: ModuleType) -> None:
    assert testing is core.testing
    for name in PROBES:
        assert callable(getattr(testing, name)), name
    for name in ("run_reference_flow", "probe_link", "sample_path"):
        assert not hasattr(core, name), f"{name} is a test probe, not public API"


def test_a_core_built_without_probes_says_how_to_get_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    public_only = ModuleType("leogym._core")  # what a LEOGYM_TESTING=OFF build exposes
    public_only.Simulation = object  # type: ignore[attr-defined]
    monkeypatch.setattr(native, "_core", public_only)
    assert native.core() is public_only
    with pytest.raises(native.NativeTestingError, match=r"LEOGYM_TESTING=ON") as err:
        native.testing()
    assert isinstance(err.value, ImportError)
    assert "make install" in str(err.value)
