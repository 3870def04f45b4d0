"""Translate an env config plus a scenario into the native Simulation's config dict.

This is the one place that knows the native core's config keys (docs/architecture.md,
"The native simulation contract").
"""

from __future__ import annotations

from typing import Any

from leogym.envs.config import EnvConfig

__all__ = ["native_config", "split_cc", "cross_traffic"]


def split_cc(cc: str) -> tuple[str, bool]:
    """``"freeze+cubic"`` → ``("cubic", True)``; ``"cubic"`` → ``("cubic", False)``."""
    if cc.startswith("freeze+"):
        return cc.split("+", 1)[1], True
    return cc, False


def native_config(cfg: EnvConfig, scenario: Any, episode_seed: int) -> dict[str, Any]:
    """Build the dict passed to ``leogym._core.Simulation``.

    :param cfg: the validated env config.
    :param scenario: the episode's (possibly sampled) :class:`ScenarioConfig`.
    :param episode_seed: the episode's seed, drawn from ``reset(seed=...)``; it becomes the
        ns-3 ``RngRun`` so that every random stream in the simulator follows it.
    """
    cc, freeze = split_cc(cfg.cc)
    out: dict[str, Any] = {
        "seed": 1,
        "run": int(episode_seed),
        "cc": cc,
        "cc_params": {k: float(v) for k, v in cfg.cc_params.items()},
        "scheduler": cfg.scheduler,
        "scheduler_params": {k: float(v) for k, v in cfg.scheduler_params.items()},
        "packet_bytes": int(scenario.traffic.packet_bytes),
        # jumbo packets (the scenario allows up to 9000 B) need an MTU that carries them
        "mtu": max(1500, int(scenario.traffic.packet_bytes) + 28),
        "workload": scenario.traffic.workload,
        "file_bytes": _scaled_bytes(scenario.traffic.file_bytes, scenario),
        "start_s": float(scenario.traffic.start_s),
        "cross_traffic": cross_traffic(scenario),
    }
    if freeze:
        out["freeze"] = True
    return out


def cross_traffic(scenario: Any) -> list[dict[str, Any]]:
    """The scenario's cross traffic as the native core's list of flow dicts.

    ``count`` flows of a kind become ``count`` separate native flows.
    """
    flows: list[dict[str, Any]] = []
    for ct in scenario.traffic.cross_traffic:
        spec: dict[str, Any] = {
            "kind": ct.kind,
            "path": int(ct.path),
            "direction": ct.direction,
            "start_s": float(ct.start_s),
        }
        if ct.stop_s is not None:
            spec["stop_s"] = float(ct.stop_s)
        if ct.kind == "udp_onoff":
            rate_bps = float(ct.rate_mbps) * 1e6 / _rate_scale(scenario)
            spec.update(rate_bps=rate_bps, on_s=float(ct.on_s), off_s=float(ct.off_s))
        flows.extend(dict(spec) for _ in range(int(ct.count)))
    return flows


def _rate_scale(scenario: Any) -> float:
    """The scenario's ``rate_scale`` (1 for configs that predate it)."""
    return float(getattr(scenario, "rate_scale", 1.0))


def _scaled_bytes(n: int, scenario: Any) -> int:
    """A byte count at the scenario's ``rate_scale``: ``n / k``, at least one byte."""
    k = _rate_scale(scenario)
    return int(n) if k == 1.0 else max(1, int(round(int(n) / k)))
