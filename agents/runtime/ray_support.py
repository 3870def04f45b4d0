"""Ray for leogym's apps: finding it, and starting or joining the instance the run uses.

Ray is optional and comes from one place, the ``distributed`` extra (``pip install
'leogym[distributed]'``; ``make install`` installs it): :func:`import_ray` imports it like any
other package, and without it raises :class:`RayUnavailableError` (an ``ImportError``) saying
what to install. Nothing here edits ``sys.path`` or ``PYTHONPATH``.

:func:`init` connects to the cluster named by ``ray.address`` or starts a local instance, once
per process; :func:`session` does the same for the length of a ``with`` block and shuts down
what it started. This module imports no SB3 and no torch: Ray actors import it.
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from leogym.schema import FieldError

__all__ = [
    "INSTALL_HINT",
    "RayUnavailableError",
    "check_address",
    "import_ray",
    "init",
    "local_cpus",
    "session",
]

log = logging.getLogger("leogym.agents.runtime.ray_support")

#: How to get Ray, as the error says it.
INSTALL_HINT = (
    "install it with `pip install 'leogym[distributed]'` (in a source checkout, `make install` "
    "does)"
)

#: CPUs of the local instance this process started (``None``: it joined a cluster, or none).
_LOCAL_CPUS: float | None = None

_ADDRESS = re.compile(r"^(ray://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


class RayUnavailableError(ImportError):
    """Ray is needed (``train.vec_env=ray``, ``eval.backend=ray``) but cannot be imported."""


def import_ray(what: str = "this") -> ModuleType:
    """The ``ray`` module.

    :param what: what needs Ray, for the error message (``train.vec_env=ray``).
    :raises RayUnavailableError: naming what to install.
    """
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailableError(
            f"{what} needs Ray, which is not importable: {exc}. Ray is optional; " + INSTALL_HINT
        ) from exc
    return ray


def check_address(address: str, path: str = "ray.address") -> None:
    """Raise :class:`~leogym.schema.FieldError` naming ``path`` unless ``address`` is empty
    (a local instance), ``auto`` (the cluster started on this machine with ``ray start``),
    ``host:port`` (a cluster's head, its GCS port) or ``ray://host:port`` (Ray Client)."""
    if address in ("", "auto"):
        return
    m = _ADDRESS.match(address)
    if m is None or not 1 <= int(m.group(3)) <= 65535:
        raise FieldError(
            path,
            "must be empty (start a local Ray instance), 'auto', 'host:port' or "
            f"'ray://host:port' with a port in [1, 65535] (got {address!r})",
        )


def _check_reachable(address: str, timeout_s: float = 10.0) -> None:
    """Fail fast on a ``host:port`` nobody listens on (``ray.init`` would retry for minutes)."""
    m = _ADDRESS.match(address)
    if m is None:  # auto: Ray finds the local cluster, or says at once that there is none
        return
    host, port = m.group(2).strip("[]"), int(m.group(3))
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        raise FieldError(
            "ray.address",
            f"no Ray cluster reachable at {address!r} ({exc}); start one with "
            "`ray start --head` and give its address",
        ) from exc


def local_cpus() -> float | None:
    """The CPUs of the local Ray instance this process started (``None`` if it joined a
    cluster, or started none)."""
    return _LOCAL_CPUS


def init(options: Any = None) -> bool:
    """Connect this process to Ray unless it already is; return whether this call did.

    :param options: a :class:`~leogym.agents.config.RayConfig` (``None``: a local instance with
        the defaults). With ``address`` empty, a new local instance is started (``num_cpus``,
        ``include_dashboard``); otherwise the cluster at that address is joined.
    :raises RayUnavailableError: Ray is not importable.
    :raises FieldError: naming ``ray.address`` or ``ray.num_cpus`` when Ray refuses them.
    """
    global _LOCAL_CPUS
    address = str(getattr(options, "address", "") or "")
    num_cpus = getattr(options, "num_cpus", None)
    check_address(address)
    if address and num_cpus is not None:
        raise FieldError(
            "ray.num_cpus",
            f"sizes a local instance only; the cluster at ray.address={address!r} has "
            "its own (leave ray.num_cpus unset)",
        )
    if address:
        _check_reachable(address)
    ray = import_ray("train.vec_env=ray / eval.backend=ray")
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {
        "include_dashboard": bool(getattr(options, "include_dashboard", False)),
        "log_to_driver": bool(getattr(options, "log_to_driver", True)),
    }
    if address:
        kwargs["address"] = address
    else:
        kwargs["address"] = "local"  # always a new instance, never a stray one found by Ray
        if num_cpus is not None:
            kwargs["num_cpus"] = int(num_cpus)
    # ray.init installs a SIGTERM handler that exits at once; the apps' own handler (which
    # checkpoints first) stays
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    try:
        ray.init(**kwargs)
    except ConnectionError as exc:
        raise FieldError("ray.address", f"no Ray cluster reachable at {address!r}: {exc}") from exc
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    _LOCAL_CPUS = None if address else float(ray.cluster_resources().get("CPU", 0.0))
    log.info(
        "Ray %s: %s, %g CPUs",
        ray.__version__,
        f"joined {address}" if address else "started a local instance",
        ray.cluster_resources().get("CPU", 0.0),
    )
    return True


def shutdown() -> None:
    """Shut down the Ray connection of this process (and the local instance it started)."""
    global _LOCAL_CPUS
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()
    _LOCAL_CPUS = None


@contextlib.contextmanager
def session(options: Any = None) -> Iterator[None]:
    """Ray for the length of a ``with`` block: :func:`init`, and at the end shut down what this
    block started (a process that was already connected stays connected)."""
    started = init(options)
    try:
        yield
    finally:
        if started:
            shutdown()
