"""``leogym-eval``'s one supervisor (``evaluate._run_pending``) and its one stop policy, the
same for the local process pool and Ray: driven here through a scripted pool, so every branch
runs without processes. An episode that raised is a failure and the rest run on; a worker death
is the failure of the episode(s) it ran, the interrupted others run again, and the evaluation
stops with ``on_worker_death=stop`` or after too many deaths; Ctrl-C cancels what is in flight."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from leogym.agents import evaluate
from leogym.agents.config import MetricsConfig
from leogym.agents.results.table import ResultsStore
from leogym.agents.runtime.rollout import EpisodeTask, PolicyRef
from leogym.agents.sb3.env_factory import EnvFactory


def _task(i: int) -> EpisodeTask:
    ref = PolicyRef(label="CUBIC", kind="baseline", name="cubic")
    env = EnvFactory("leogym/LeoCC-v0", {}, "tiny")
    return EpisodeTask(
        key=f"k{i}", policy=ref, env=env, scenario="tiny", seed=i, metrics=MetricsConfig()
    )


class ScriptedPool:
    """A pool whose ``wait`` answers from a script: per call, ``{seed: kind}`` for the
    episodes that end (``"break"``: a local pool's death, every episode in flight ends)."""

    def __init__(self, script: list[dict[int, str]], capacity: int = 2) -> None:
        self.script, self.capacity = list(script), capacity
        self.started: list[int] = []
        self.cancelled: list[int] = []
        self.closed = False

    def __enter__(self) -> ScriptedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def submit(self, t: EpisodeTask) -> int:
        self.started.append(t.seed)
        return len(self.started)  # a handle

    def wait(self, running: dict[Any, EpisodeTask]) -> tuple[list[Any], int]:
        step = self.script.pop(0)
        if step.get(-1) == "interrupt":
            raise KeyboardInterrupt
        out, died = [], 0
        for handle, t in running.items():
            kind = step.get(t.seed)
            if kind == "done":
                out.append((handle, "done", {"key": t.key, "goodput_mbps": 1.0}))
            elif kind == "failed":
                out.append((handle, "failed", ValueError("boom")))
            elif kind == "died":
                out.append((handle, "died", f"pid {100 + t.seed}"))
                died = 1
            elif step.get(-1) == "break":
                out.append((handle, "retry", None))
        return out, died

    def cancel(self, running: dict[Any, EpisodeTask]) -> None:
        self.cancelled += [t.seed for t in running.values()]


def _run(tmp_path: Path, pool: ScriptedPool, n: int, **kw: Any) -> Any:
    store = ResultsStore(tmp_path)
    added: list[str] = []
    store.add = lambda row: added.append(row["key"])  # type: ignore[method-assign]
    evaluate.LocalEpisodes = lambda *a, **k: pool  # type: ignore[assignment,misc]
    failures = evaluate._run_pending(
        [_task(i) for i in range(n)],
        store,
        n_workers=1,
        start_method="spawn",
        progress=False,
        total=n,
        done=0,
        **kw,
    )
    return failures, added


@pytest.fixture(autouse=True)
def _restore_pool() -> Any:
    original = evaluate.LocalEpisodes
    yield
    evaluate.LocalEpisodes = original  # type: ignore[misc]


def test_a_failure_is_recorded_and_the_rest_run_on(tmp_path: Path) -> None:
    pool = ScriptedPool([{0: "failed", 1: "done"}, {2: "done"}])
    failures, added = _run(tmp_path, pool, 3)
    assert added == ["k1", "k2"]
    assert [(t.seed, why) for t, why in failures] == [(0, "ValueError: boom")]
    assert pool.closed


def test_a_death_fails_its_episode_and_retries_the_interrupted_ones(tmp_path: Path) -> None:
    # episode 0's worker dies; the pool breaks, episode 1 was in flight and runs again
    pool = ScriptedPool([{0: "died", -1: "break"}, {1: "done", 2: "done"}])
    failures, added = _run(tmp_path, pool, 3)
    assert sorted(added) == ["k1", "k2"]
    assert pool.started == [0, 1, 1, 2]
    assert len(failures) == 1 and failures[0][0].seed == 0
    assert failures[0][1].startswith("WorkerDied: ") and "pid 100" in failures[0][1]


@pytest.mark.parametrize(("policy", "deaths"), [("stop", 1), ("continue", 2)])
def test_the_stop_policy(tmp_path: Path, policy: str, deaths: int) -> None:
    script = [{0: "died"}, {1: "died"}, {2: "done"}, {3: "done"}]
    pool = ScriptedPool(script, capacity=1)
    with pytest.raises(RuntimeError, match="evaluation stopped after a worker died") as info:
        _run(tmp_path, pool, 4, on_worker_death=policy, max_pool_restarts=deaths - 1)
    assert f"/seed={deaths - 1}" in str(info.value) and "resume=" in str(info.value)
    assert pool.started == list(range(deaths))


def test_ctrl_c_cancels_what_is_in_flight(tmp_path: Path) -> None:
    pool = ScriptedPool([{0: "done"}, {-1: "interrupt"}])
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, pool, 4)
    assert pool.cancelled == [1, 2] and pool.closed
