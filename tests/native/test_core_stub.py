"""src/leogym/_core.pyi is what tools/generate_stubs.py makes of the core built here.

The stub is checked in so that editors and type checkers see the core's API without building
it; this test keeps it from drifting when a binding changes.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "src" / "leogym" / "_core.pyi"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_stubs", ROOT / "tools" / "generate_stubs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_stub_matches_the_core(core: ModuleType, generator: ModuleType) -> None:
    fresh = generator.generate()
    assert fresh == STUB.read_text(), (
        "src/leogym/_core.pyi is out of date with the compiled core: regenerate it with "
        "`.venv/bin/python tools/generate_stubs.py` (after `make install`) and commit it"
    )


def test_stub_is_the_public_surface(core: ModuleType) -> None:
    text = STUB.read_text()
    declared = {a or b for a, b in re.findall(r"^(?:class|def) (\w+)|^(\w+):", text, re.M)}
    public = {n for n in dir(core) if not n.startswith("_")} - {"testing"}
    assert declared - {"__all__"} == public
    assert "import testing" not in text and "'testing'" not in text  # no probes described
    assert not re.search(r"0x[0-9a-f]{6,}|/work/|/tmp/", text)  # nothing of this machine
