"""Loader for the compiled ns-3 core (``leogym._core``).

Only this module imports the extension, so that importing ``leogym`` never starts ns-3 and a
missing or broken build gives one clear message instead of an obscure ``ImportError``.

:func:`core` is the public core (``Simulation``, the algorithm listings, ...). :func:`testing`
is its ``testing`` submodule: the probes that the tests and benchmarks drive (reference flows,
the link probe, the congestion-control and scheduler probes). It exists only in a core built
with the CMake option ``LEOGYM_TESTING=ON``, as ``make install`` builds it; a wheel built
without the option leaves it out.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

_core: ModuleType | None = None


class NativeCoreError(ImportError):
    """The compiled core could not be loaded."""


class NativeTestingError(NativeCoreError):
    """The compiled core was built without its test probes (``LEOGYM_TESTING=OFF``)."""


def core() -> ModuleType:
    """Return the ``leogym._core`` extension module, importing it on first use.

    :raises NativeCoreError: the extension or the ns-3 libraries it links are missing.
    """
    global _core
    if _core is None:
        try:
            _core = _load_override() or importlib.import_module("leogym._core")
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise NativeCoreError(
                "leogym's compiled ns-3 core could not be loaded "
                f"({exc}). Build it with `make install` (or `pip install --no-deps "
                "ns3==3.44.post0` followed by `pip install --no-build-isolation -e .`)."
            ) from exc
    return _core


def testing() -> ModuleType:
    """Return ``leogym._core.testing``, the test and benchmark probes of the compiled core.

    :raises NativeTestingError: the core was built without them (``LEOGYM_TESTING=OFF``).
    :raises NativeCoreError: the core itself could not be loaded.
    """
    probes: ModuleType | None = getattr(core(), "testing", None)
    if probes is None:
        raise NativeTestingError(
            "leogym's compiled core was built without its test probes (leogym._core.testing): "
            "rebuild it with the CMake option LEOGYM_TESTING=ON, e.g. `make install` (which "
            "passes -Ccmake.define.LEOGYM_TESTING=ON to pip) or `pip install "
            "--no-build-isolation -Ccmake.define.LEOGYM_TESTING=ON -e .`."
        )
    return probes


@functools.cache
def cc_algorithms() -> tuple[str, ...]:
    """Every congestion-control name the core accepts (``freeze+cubic`` and the other
    wrapper compositions included), except the residual wrapper's pairs
    (``residual+bbr3+maco``, which :func:`is_cc_algorithm` accepts):
    ``_core.cc_algorithms()``, read once per process."""
    return tuple(core().cc_algorithms())


@functools.cache
def is_cc_algorithm(name: str) -> bool:
    """Whether the core accepts ``name`` as a congestion control: one of
    :func:`cc_algorithms`, or a wrapper with an alternate (``residual+<base>+<alternate>``)."""
    if name in cc_algorithms():
        return True
    try:
        core().algorithm_parameters("cc", name)
    except ValueError:
        return False
    return True


@functools.cache
def schedulers() -> tuple[str, ...]:
    """Every scheduler name the core accepts: ``_core.schedulers()``, read once per process."""
    return tuple(core().schedulers())


def _load_override() -> ModuleType | None:
    """Load ``_core`` from ``$LEOGYM_CORE_DIR`` (a developer build, see tools/dev-build.sh)."""
    where = os.environ.get("LEOGYM_CORE_DIR")
    if not where:
        return None
    candidates = sorted(Path(where).glob("_core*.so"))
    if not candidates:
        raise NativeCoreError(f"LEOGYM_CORE_DIR={where!r} holds no _core*.so")
    spec = importlib.util.spec_from_file_location("leogym._core", candidates[0])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["leogym._core"] = module
    spec.loader.exec_module(module)
    return module
