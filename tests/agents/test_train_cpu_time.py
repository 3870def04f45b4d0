"""The CPU time a training reports (``train_summary.json``'s ``cpu_s``, the zoo cards'
``train_cpu_s``) counts the env worker processes, not only the trainer's own."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from leogym.agents.runtime.run_info import process_tree_cpu_s

BUSY_S = 0.6


@pytest.mark.timeout(60)
def test_a_running_child_process_is_counted() -> None:
    # a child that burns BUSY_S of CPU, then waits (still running when measured), as an env
    # worker does between steps
    script = (
        "import time, sys\n"
        f"t = time.process_time()\nwhile time.process_time() - t < {BUSY_S}: pass\n"
        "print('busy', flush=True)\nsys.stdin.read()\n"
    )
    before = process_tree_cpu_s()
    own_before = time.process_time()
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "busy"
        counted = process_tree_cpu_s() - before
        own = time.process_time() - own_before
    finally:
        child.communicate("")
    # the child's CPU (BUSY_S plus its interpreter's start) beyond this process's own
    assert counted - own >= BUSY_S * 0.9


@pytest.mark.timeout(60)
def test_a_finished_child_stays_counted() -> None:
    before = process_tree_cpu_s()
    own_before = time.process_time()
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"import time\nt = time.process_time()\nwhile time.process_time() - t < {BUSY_S}: pass",
        ],
        check=True,
    )
    assert process_tree_cpu_s() - before - (time.process_time() - own_before) >= BUSY_S * 0.9
