"""A simulation process started by the client: argv only (no shell), in its own process group.

Upstream started ``./ns3 run ...`` through ``/bin/sh`` and, on close, killed only the shell, so
the launcher and the simulation binary survived. Here the process is the leader of a new session
(``start_new_session=True``) and :meth:`SimProcess.stop` signals the whole group. The leader is
not reaped until the group has been signalled (``waitid(..., WNOWAIT)``), so its process-group id
cannot be reused by an unrelated process in between.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

from leogym.ns3gym.errors import Ns3GymError, Ns3GymSimulationExitedError

__all__ = ["SimProcess"]


def _exit_status(pid: int) -> int | None:
    """Exit status of child ``pid`` if it has ended, without reaping it; ``None`` while running."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return -1  # already reaped
    if info is None or info.si_pid == 0:
        return None
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status  # killed by a signal, as subprocess reports it


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_group_now(proc: subprocess.Popen) -> None:
    """Finalizer: SIGKILL the group of a process that was never stopped, then reap it."""
    if proc.returncode is None:
        _killpg(proc.pid, signal.SIGKILL)
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process SIGKILL cannot stop
            pass


class SimProcess:
    """Start, watch and stop one simulation process.

    :param argv: the command, already split into arguments (no shell is involved).
    :param cwd: working directory of the process.
    :param env: extra environment variables (merged over this process's environment).
    :param log_path: file that receives the process's stdout and stderr; ``None`` to inherit
        ours (never a pipe that nobody reads: a chatty simulation would block on a full pipe).
    :raises Ns3GymError: the command cannot be started.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        log_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.argv = [str(a) for a in argv]
        if not self.argv:
            raise Ns3GymError("sim_cmd is empty")
        full_env = None if env is None else {**os.environ, **{k: str(v) for k, v in env.items()}}
        log = open(Path(log_path), "ab") if log_path is not None else None  # noqa: SIM115
        try:
            self._proc = subprocess.Popen(
                self.argv,
                cwd=cwd,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT if log is not None else None,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            raise Ns3GymError(f"cannot start the simulation {self.argv}: {exc}") from exc
        finally:
            if log is not None:
                log.close()
        self._finalizer = weakref.finalize(self, _kill_group_now, self._proc)

    @property
    def pid(self) -> int:
        """Process id of the started command (also its process-group id)."""
        return self._proc.pid

    def exit_status(self) -> int | None:
        """Exit status if the process has ended (negative: killed by that signal), else ``None``."""
        if self._proc.returncode is not None:
            return self._proc.returncode
        return _exit_status(self._proc.pid)

    def check_alive(self, waiting_for: str) -> None:
        """Raise if the process has ended.

        :param waiting_for: what the caller is waiting for, for the error message.
        :raises Ns3GymSimulationExitedError: the process has exited.
        """
        status = self.exit_status()
        if status is not None:
            raise Ns3GymSimulationExitedError(
                f"the simulation process {self.argv[0]} (pid {self.pid}) exited with status "
                f"{status} while the client was waiting for {waiting_for}",
                returncode=status,
            )

    def _wait_exit(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while self.exit_status() is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def stop(self, grace_s: float = 1.0, term_s: float = 3.0) -> int:
        """End the process and everything else in its process group; idempotent.

        The process may first exit by itself (an ns-3 scenario exits after a stop request); after
        ``grace_s`` the group gets SIGTERM, after ``term_s`` more SIGKILL. Leftover members of the
        group are killed in every case.

        :param grace_s: time allowed for a voluntary exit.
        :param term_s: time allowed between SIGTERM and SIGKILL.
        :return: the exit status of the started process.
        """
        if self._proc.returncode is not None:
            return self._proc.returncode
        pgid = self._proc.pid
        if not self._wait_exit(grace_s):
            _killpg(pgid, signal.SIGTERM)
            if not self._wait_exit(term_s):
                _killpg(pgid, signal.SIGKILL)
        # The leader is a zombie (or gone) now; clear out the rest of its group, then reap it.
        _killpg(pgid, signal.SIGKILL)
        status = self._proc.wait()
        self._finalizer.detach()
        return status
