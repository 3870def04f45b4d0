"""Helpers for the ns3-gym tests: loopback ports, background peers, golden transcripts."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from leogym.ns3gym.transcript import canonical

GOLDEN_DIR = Path(__file__).parent / "golden"
#: Set to 1 to rewrite the golden transcripts from the C++-style reference simulation.
REGEN = os.environ.get("NS3GYM_REGEN_GOLDEN") == "1"


def free_port() -> int:
    """An ephemeral TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Background:
    """Run ``fn`` in a daemon thread; :meth:`result` joins with a deadline and re-raises."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self._value: Any = None
        self._error: BaseException | None = None

        def target() -> None:
            try:
                self._value = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the test thread
                self._error = exc

        self._thread = threading.Thread(target=target, daemon=True)
        self._thread.start()

    def result(self, timeout_s: float = 20.0) -> Any:
        self._thread.join(timeout_s)
        assert not self._thread.is_alive(), "background peer did not finish in time"
        if self._error is not None:
            raise self._error
        return self._value


def episodes(transcript: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split a transcript into episodes (each starts with a SimInitMsg); drop event markers."""
    out: list[list[dict[str, Any]]] = []
    for entry in canonical(transcript):
        if "event" in entry:
            continue
        if entry["type"] == "SimInitMsg":
            out.append([])
        out[-1].append(entry)
    return out


def check_golden(
    name: str, transcript_episodes: list[list[dict[str, Any]]], regen: bool = False
) -> None:
    """Compare decoded episodes with tests/ns3gym/golden/<name>.json (or rewrite it)."""
    path = GOLDEN_DIR / f"{name}.json"
    if regen and REGEN:
        path.write_text(json.dumps(transcript_episodes, indent=1) + "\n")
    golden = json.loads(path.read_text())
    assert len(transcript_episodes) == len(golden), "number of episodes differs from golden"
    for i, (got, want) in enumerate(zip(transcript_episodes, golden, strict=True)):
        assert len(got) == len(want), f"episode {i}: {len(got)} messages, golden has {len(want)}"
        for j, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g == w, f"episode {i}, message {j} differs from golden"
