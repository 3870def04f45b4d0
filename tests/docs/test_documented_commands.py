"""Every command the documentation shows runs as written (at a reduced size) and exits 0.

Commands come from the ```bash / ```console blocks of README.md and docs/ (``$ `` lines in
console blocks), from the examples at the end of each app's ``--help`` (``leogym-train``,
``leogym-eval``, ``leogym-run``: the Hydra help footer; ``leogym-reproduce`` and
``leogym-ns3gym-serve``: their argparse ``parser()``), and from the Makefile's header
(``make run``, ``make test``). Comments are dropped, continuation lines joined, repeats run once.

Each command runs in its own process and its own working directory, exactly as written except
for the changes in the tables below, which shrink sizes or fill in placeholders:

* ``SIZE``: overrides appended to make a run small (episode length, timesteps, seeds, ...;
  workers start with ``fork``, see ``TRAIN_SIZE``); for ``leogym-reproduce``, ``--dry-run`` (a
  reproduction at ``--quick`` size alone costs 13-115 s of CPU;
  tests/agents/test_reproduce.py runs them at that size); ``make run`` composes the main
  job's config (``RUN_ARGS=... --cfg job``), the job itself being ``leogym-run``, run here;
* ``PLACEHOLDERS``: ``<date>_<time>``, ``runs/train/...`` and the like become the run
  directories that documented commands (the ``PRODUCERS``) made earlier in the same test;
  the ns3-gym port 5555 becomes a free port;
* ``SKIP``: commands that are not run, each with its reason.

A command no rule covers fails the test: add it to a table. The Hydra apps run through
``app_runner.py``, which forks one child per command from a process that imported
``leogym.agents`` once, so that PyTorch's import is paid once (the child calls the same entry
point as the console script). Two commands run at a time. On the 2-core development machine
the whole test takes about 210 s of CPU (about 2 minutes of wall time on 2 free cores; 4 min
with other jobs running).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from docs_helpers import ROOT

pytestmark = pytest.mark.timeout(1200)

VENV_BIN = Path(sys.executable).parent
HYDRA_APPS = ("leogym-train", "leogym-eval", "leogym-run")
HELP_CONFIGS = {"leogym-train": "train", "leogym-eval": "evaluate", "leogym-run": "main_job"}
WORKERS = 2
TIMEOUT_S = 240

# ----------------------------------------------------------------------------- the tables
#: Not run, with the reason. Matched (re.search) against the command as written.
SKIP: list[tuple[str, str]] = [
    (r"^make test\b", "runs the whole test suite (12+ min), this test included"),
    (
        r"^make bench\b",
        "the full benchmark suite (5-10 min); tests/benchmarks/test_bench_smoke.py runs its "
        "--quick size",
    ),
    (
        r"-m benchmarks\b",
        "benchmark measurements (about a minute even with --quick); "
        "tests/benchmarks/test_bench_smoke.py runs --quick",
    ),
    (
        r"^(cmake |LEOGYM_CORE_DIR=build/perf |callgrind_annotate |py-spy )",
        "profiling recipe: needs a RelWithDebInfo build (minutes), valgrind or py-spy, and "
        "the two driver scripts the text describes",
    ),
    (
        r"-m pytest tests/reliability",
        "the reliability suite itself (about 4 min at CI size, 12 min at full size)",
    ),
    (
        r"tests/reliability/make_table\.py",
        "prints the figures the reliability suite writes; exits 1 ('no figures') until that "
        "suite has run",
    ),
    (r"^tensorboard ", "starts a web server that runs until it is stopped"),
    (r"^pip install ", "installs packages from the network"),
    (
        r"\bvec_env=ray\b|\bbackend=ray\b|^ray (start|stop)\b|^sbatch ",
        "needs Ray (optional), and a Ray cluster or SLURM where it names one; "
        "tests/agents/test_ray_vec_env.py trains and evaluates on a local Ray instance",
    ),
    (r"jupyter lab", "starts an interactive Jupyter server"),
    (
        r"^papermill ",
        "papermill is not a leogym dependency (pip install papermill); "
        "tests/agents/test_pipeline.py executes the notebooks on the apps' outputs",
    ),
    (
        r"^pytest --nbmake",
        "executes all three notebooks (minutes); tests/agents/test_pipeline.py executes them",
    ),
]

#: Size overrides appended to Hydra app commands (later overrides win in Hydra). Besides the
#: sizes, the env and evaluation workers start with ``fork`` instead of ``forkserver``: a job
#: never hosts a simulator itself, and a forked worker skips the imports (several seconds of
#: CPU per worker) that tests/agents pays with the default start method.
TRAIN_SIZE = [
    "env.episode_s=1",
    "train.total_timesteps=8",
    "train.n_envs=1",
    "train.eval_freq=0",
    "train.checkpoint_freq=4",
    "train.progress=false",
    "train.start_method=fork",
]
EVAL_SIZE = [
    "env.episode_s=1",
    "eval.seeds=[0]",
    "eval.n_workers=1",
    "eval.progress=false",
    "eval.start_method=fork",
]
AGENT_SIZE = {
    "ppo": ["agent.n_steps=8", "agent.batch_size=8", "agent.n_epochs=1"],
    "recurrent_ppo": ["agent.n_steps=8", "agent.batch_size=8", "agent.n_epochs=1"],
    "a2c": ["agent.n_steps=4"],
    "sac": ["agent.learning_starts=4", "agent.batch_size=4", "agent.buffer_size=64"],
    "td3": ["agent.learning_starts=4", "agent.batch_size=4", "agent.buffer_size=64"],
    "dqn": ["agent.learning_starts=4", "agent.batch_size=4", "agent.buffer_size=64"],
    "sweep": ["agent.n_steps=8"],  # -m agent=ppo,a2c: the keys both share
}
#: Replacements that shrink a sweep (a list of seeds becomes one seed).
SWEEP_SIZE = [(r"\bseed=\d+(?:,\d+)+", "seed=0")]
#: Settings a command may give itself that the size tables then leave alone (parallelism).
KEEP_IF_GIVEN = {"eval.n_workers", "train.n_envs"}
#: What each app gets; ``resume=`` runs take none (only their own settings may be given).
SIZE = {
    "leogym-train": TRAIN_SIZE,
    "leogym-eval": EVAL_SIZE,
    "leogym-run": TRAIN_SIZE + EVAL_SIZE,
    "leogym-reproduce": ["--dry-run"],
    "leogym-ns3gym-serve": ["--episodes", "1", "--idle-timeout", "120"],
}
#: ``resume=`` runs: a timestep target is kept small instead.
RESUME_SIZE = [(r"train\.total_timesteps=\d+", "train.total_timesteps=16")]
#: Env overrides the served LeoCC env gets (an episode of 10 steps).
SERVE_ENV_SIZE = {"leogym/LeoCC-v0": ["env.episode_s=1"]}

#: Placeholder -> run directory made by a documented command (``PRODUCERS``).
PLACEHOLDERS: list[tuple[str, str]] = [
    (r"runs/train/cc-ppo/seed0/(?:<date>_<time>|2025-06-01_10-00-00)", "ppo_run"),
    (r"<training run dir>|<run dir>", "ppo_run"),
    (r"(?<=\+eval\.agents\.PPO=)runs/train/\.\.\.", "ppo_run"),
    (r"(?<=\+eval\.agents\.SAC=)runs/train/\.\.\.", "sac_run"),
    (r"runs/eval/cc/(?:<date>_<time>|2025-06-01_11-00-00)|<evaluation run dir>", "eval_run"),
    (r"runs/main_job/2025-06-01_10-00-00|<main-job run dir>", "bench_run"),
    (r"runs/train/multiagent-ppo/seed0/<date>", "multiagent_run"),
    (r"(?<=train\.init_from=)runs/hybrid-maco/seed0", "hybrid_maco_run"),
]
#: The documented commands whose run directories fill the placeholders (run first).
PRODUCERS = {
    "ppo_run": ("leogym-train scenario=tiny train.total_timesteps=20000", "runs/train/cc-ppo/*/*"),
    "sac_run": (
        "leogym-train scenario=tiny agent=sac train.total_timesteps=20000",
        "runs/train/cc-sac/*/*",
    ),
    "eval_run": (
        "leogym-eval scenario=tiny 'baseline=[cubic,maco,olia]' 'eval.seeds=[0,1,2,3,4]'",
        "runs/eval/cc/*",
    ),
    "bench_run": ("leogym-run experiment=quick", "runs/main_job/*"),
    "multiagent_run": ("leogym-train experiment=multiagent", "runs/train/multiagent-ppo/*/*"),
    "hybrid_maco_run": (
        "leogym-train experiment=hybrid env.residual_base=maco "
        "hydra.run.dir=runs/hybrid-maco/seed0",
        "runs/hybrid-maco/seed0",
    ),
}


# ------------------------------------------------------------------------- extraction
@dataclass
class Command:
    text: str  # as written (comments dropped, lines joined)
    sources: list[str] = field(default_factory=list)
    #: In a console block, the documented output of a command shown failing on purpose (its
    #: first line contains ``: error:``): the command must exit 2 and print that line (up to a
    #: trailing ``...``).
    error_line: str | None = None

    @property
    def program(self) -> str:
        words = [w for w in shlex.split(self.text) if not re.match(r"^[A-Z_]+=", w)]
        return Path(words[0]).name if words else ""

    @property
    def id(self) -> str:
        return self.text if len(self.text) <= 90 else self.text[:87] + "..."


def _strip_comment(line: str) -> str:
    """Drop a shell comment: a ``#`` at the start or after a space, outside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def _block_commands(lang: str, body: str) -> list[tuple[str, str | None]]:
    """The commands of one block, each with its documented error line (console blocks only)."""
    out: list[tuple[str, str | None]] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.strip()
        if lang == "console":
            if not line.startswith("$ ") and not pending:
                if out and out[-1][1] is None and ": error: " in line:
                    out[-1] = (out[-1][0], line)
                continue
            line = line[2:] if line.startswith("$ ") else line
        line = _strip_comment(line)
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line:
            out.append((" ".join(line.split()), None))
    return out


def doc_commands() -> dict[str, Command]:
    """The commands of README.md and docs/, keyed by their text."""
    found: dict[str, Command] = {}
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```(bash|console|sh|shell)[ \t]*\n(.*?)^```", text, re.S | re.M):
            line = text.count("\n", 0, m.start()) + 1
            for cmd, error_line in _block_commands(m.group(1), m.group(2)):
                where = f"{path.relative_to(ROOT).as_posix()}:{line}"
                found.setdefault(cmd, Command(cmd, error_line=error_line)).sources.append(where)
    return found


def _argparse_examples(prog: str, text: str) -> list[str]:
    lines = text.split("examples:", 1)[1].splitlines() if "examples:" in text else []
    return [_strip_comment(x.strip()) for x in lines if x.strip().startswith(prog + " ")]


def help_commands() -> dict[str, list[str]]:
    """Examples at the end of each app's ``--help``, by app."""
    from leogym.agents.reproduce.cli import parser as reproduce_parser
    from leogym.ns3gym.cli import parser as serve_parser

    out = {
        "leogym-reproduce": _argparse_examples(
            "leogym-reproduce", reproduce_parser().format_help()
        ),
        "leogym-ns3gym-serve": _argparse_examples(
            "leogym-ns3gym-serve", serve_parser().format_help()
        ),
    }
    for app, name in HELP_CONFIGS.items():
        conf = yaml.safe_load((ROOT / "conf" / f"{name}.yaml").read_text(encoding="utf-8"))
        footer = conf["hydra"]["help"]["footer"]
        out[app] = [x.strip() for x in footer.splitlines() if x.strip().startswith(app)]
    return out


def make_commands() -> list[str]:
    """``make <target>`` lines of the Makefile's header comment."""
    out = []
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#\s+(make \S+)", line)
        if m:
            out.append(m.group(1))
    return out


def all_commands() -> list[Command]:
    found = doc_commands()
    for app, cmds in help_commands().items():
        for cmd in [f"{app} --help", *cmds]:
            found.setdefault(cmd, Command(cmd)).sources.append(f"{app} --help")
    for cmd in make_commands():
        found.setdefault(cmd, Command(cmd)).sources.append("Makefile")
    return list(found.values())


def skip_reason(cmd: Command) -> str | None:
    for pattern, why in SKIP:
        if re.search(pattern, cmd.text):
            return why
    return None


COMMANDS = all_commands()
RUNNABLE = [c for c in COMMANDS if skip_reason(c) is None]
SKIPPED = [c for c in COMMANDS if skip_reason(c) is not None]


# --------------------------------------------------------------------------- execution
@dataclass
class Result:
    rc: int | str
    wall: float
    argv: list[str]
    log: Path
    cpu: float = 0.0  # seconds of CPU of the command's whole process tree

    def tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def _agent_of(words: list[str]) -> str:
    for w in words:
        if w.startswith("agent="):
            return "sweep" if "," in w else w.split("=", 1)[1]
    for w in words:
        if w.startswith("experiment="):
            name = w.split("=", 1)[1].split(",")[0]
            conf = yaml.safe_load((ROOT / "conf" / "experiment" / f"{name}.yaml").read_text())
            for d in conf.get("defaults", []):
                if isinstance(d, dict) and "override /agent" in d:
                    return d["override /agent"]
    return "ppo"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Runner:
    """Runs the commands, two at a time, in per-command folders under ``base``."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.runs: dict[str, Path] = {}
        self.results: dict[str, Result] = {}
        self._local = threading.local()
        self._runners: list[subprocess.Popen] = []
        self._lock = threading.Lock()
        self._n = 0
        self._copies: dict[str, str] = {}

    # --- placeholders and sizes
    def substitute(self, text: str) -> str:
        for pattern, key in PLACEHOLDERS:
            if re.search(pattern, text):
                text = re.sub(pattern, str(self.runs[key]), text)
        m = re.search(r"([^\s=]+)/checkpoints/step_\d+\.zip", text)
        if m:
            newest = sorted((Path(m.group(1)) / "checkpoints").glob("step_*.zip"))[-1]
            text = text.replace(m.group(0), str(newest))
        return text

    def argv(self, cmd: Command) -> tuple[list[str], list[str]]:
        """The command's words after the tables (placeholders, sizes), and what was appended."""
        words = shlex.split(self.substitute(cmd.text))
        prog = Command(shlex.join(words)).program
        extra: list[str] = []
        if prog in HYDRA_APPS:
            if any(w.startswith("resume=") for w in words):
                for pattern, new in RESUME_SIZE:
                    words = [re.sub(pattern, new, w) for w in words]
            elif "--cfg" not in words and "--help" not in words:
                for pattern, new in SWEEP_SIZE:
                    words = [re.sub(pattern, new, w) for w in words]
                given = {w.split("=", 1)[0] for w in words}
                extra = [w for w in SIZE[prog] if w.split("=", 1)[0] not in given & KEEP_IF_GIVEN]
                if prog != "leogym-eval":
                    extra += AGENT_SIZE.get(_agent_of(words), [])  # none for an unknown agent
        elif prog in SIZE and "--help" not in words:
            extra = list(SIZE[prog])
        return words + extra, extra

    # --- running
    def _folder(self) -> Path:
        with self._lock:
            self._n += 1
            n = self._n
        folder = self.base / f"cmd{n:02d}"
        folder.mkdir()
        return folder

    def _app_runner(self) -> subprocess.Popen:
        proc = getattr(self._local, "proc", None)
        if proc is None:
            proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("app_runner.py"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=self.base,
            )
            assert json.loads(proc.stdout.readline()) == {"ready": True}
            self._local.proc = proc
            with self._lock:
                self._runners.append(proc)
        return proc

    def _hydra(self, argv: list[str], folder: Path) -> Result:
        proc = self._app_runner()
        log = folder / "log.txt"
        job = {"argv": argv, "cwd": str(folder), "log": str(log), "timeout": TIMEOUT_S}
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        return Result(answer["rc"], answer["wall"], argv, log, answer["cpu"])

    def _shell(self, text: str, cwd: Path, folder: Path) -> Result:
        log = folder / "log.txt"
        t0 = time.monotonic()
        full_env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}
        with open(log, "w") as out:
            proc = subprocess.Popen(
                ["bash", "-c", text],
                cwd=cwd,
                env=full_env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            rc, cpu = _wait(proc, t0 + TIMEOUT_S)
        return Result(rc, time.monotonic() - t0, ["bash", "-c", text], log, cpu)

    def _serve(self, argv: list[str], folder: Path) -> Result:
        """The server as written; this test plays the ns3-gym agent for one episode."""
        from leogym.envs.ns3gym_env import Ns3GymEnv

        port = _free_port()
        argv[argv.index("--port") + 1] = str(port)
        env_id = next(w.split("=", 1)[1] for w in argv if w.startswith("env="))
        argv += SERVE_ENV_SIZE.get(env_id, [])
        log = folder / "log.txt"
        t0 = time.monotonic()
        with open(log, "w") as out:
            server = subprocess.Popen(
                [str(VENV_BIN / argv[0]), *argv[1:]],
                cwd=folder,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
            deadline = t0 + TIMEOUT_S
            failed = None
            try:
                agent = Ns3GymEnv(port=port, handshake_timeout_s=120, step_timeout_s=120)
                try:
                    agent.reset(seed=0)
                    done = False
                    while not done:
                        _, _, terminated, truncated, _ = agent.step(agent.action_space.sample())
                        done = terminated or truncated
                finally:
                    agent.close()
            except Exception as exc:  # the agent's side failed: stop the server, report both
                failed = f"agent failed: {type(exc).__name__}: {exc}"
                out.write(f"\n{failed}\n")
                deadline = time.monotonic() + 5
            rc, cpu = _wait(server, deadline)
            rc = failed or rc
        return Result(rc, time.monotonic() - t0, argv, log, cpu)

    def run(self, cmd: Command) -> Result:
        folder = self._folder()
        (folder / "command.txt").write_text(cmd.text + "\n")
        try:
            argv, extra = self.argv(cmd)
            prog = cmd.program
            if prog in HYDRA_APPS and argv[0] == prog:
                result = self._hydra(argv, folder)
            elif prog == "leogym-ns3gym-serve" and "--help" not in argv:
                result = self._serve(argv, folder)
            elif prog == "make":
                result = self._shell(_make_line(argv), ROOT, folder)
            else:  # through bash, as written (quotes and $(...) intact), plus the sizes
                text = " ".join([self.substitute(cmd.text), *map(shlex.quote, extra)])
                result = self._shell(text, folder if prog.startswith("leogym-") else ROOT, folder)
        except Exception as exc:  # a producer failed, a placeholder is missing, ...
            (folder / "log.txt").write_text(f"{type(exc).__name__}: {exc}\n")
            result = Result(f"not run: {exc!r}", 0.0, [cmd.text], folder / "log.txt")
        self.results[cmd.text] = result
        for key, (text, pattern) in PRODUCERS.items():
            if text == cmd.text and result.rc == 0:
                made = sorted(folder.glob(pattern))
                if made:
                    self.runs[key] = made[-1]
        return result

    def run_all(self, commands: list[Command]) -> None:
        producers = {text for text, _ in PRODUCERS.values()}
        first = [c for c in commands if c.text in producers]
        resumes = [c for c in commands if "resume=" in c.text]
        rest = [c for c in commands if c not in first and c not in resumes]
        with ThreadPoolExecutor(WORKERS) as pool:
            list(pool.map(self.run, first))
            list(pool.map(self.run, self._once(rest)))
            for cmd in self._once(resumes):  # they extend the producers' runs: one at a time
                pool.submit(self.run, cmd).result()
        for text, same in self._copies.items():
            self.results[text] = self.results[same]

    def _once(self, commands: list[Command]) -> list[Command]:
        """One command per distinct command line once placeholders are filled in (README's
        ``resume=runs/train/cc-ppo/seed0/<date>_<time>`` and docs/workflows.md's
        ``resume=runs/train/cc-ppo/seed0/2025-06-01_10-00-00`` are the same command); the
        others share its result."""
        seen: dict[str, str] = {}
        out = []
        for cmd in commands:
            try:
                key = self.substitute(cmd.text)
            except Exception:  # a missing producer: run it to report the failure
                key = cmd.text
            if key in seen:
                self._copies[cmd.text] = seen[key]
            else:
                seen[key] = cmd.text
                out.append(cmd)
        return out

    def close(self) -> None:
        for proc in self._runners:
            proc.stdin.close()
            proc.wait(timeout=60)
            proc.stdout.close()


def _wait(proc: subprocess.Popen, deadline: float) -> tuple[int | str, float]:
    """Wait for ``proc`` until ``deadline`` (then kill its session): exit status and CPU
    seconds (its own and those of the descendants it reaped)."""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            os.killpg(proc.pid, 9)
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            return "timeout", usage.ru_utime + usage.ru_stime
        time.sleep(0.05)


def _make_line(argv: list[str]) -> str:
    """``make run`` as written, with ``RUN_ARGS`` that compose the main job's config and print
    it (``--cfg job``) instead of running it: the job is ``leogym-run``, which this test runs
    at reduced size as documented. ``-o`` keeps make from rebuilding the core when a source
    file is newer than the install stamp (a rebuild is not what is checked)."""
    run_args = [*SIZE["leogym-run"], *AGENT_SIZE["ppo"], "--cfg", "job"]
    return shlex.join([*argv, "-o", ".venv/.leogym-installed", f"RUN_ARGS={shlex.join(run_args)}"])


# ------------------------------------------------------------------------------- tests
@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    if not (ROOT / ".venv" / ".leogym-installed").exists():
        pytest.skip("needs the .venv made by make install (the documented commands use it)")
    runner = Runner(tmp_path_factory.mktemp("documented"))
    t0 = time.monotonic()
    try:
        runner.run_all(RUNNABLE)
    finally:
        runner.close()
    wall = time.monotonic() - t0
    cpu = sum(r.cpu for text, r in runner.results.items() if text not in runner._copies)
    print(f"\n{len(RUNNABLE)} documented commands: {wall:.0f} s wall, {cpu:.0f} s CPU")
    for text, r in sorted(runner.results.items(), key=lambda kv: -kv[1].cpu):
        same = " (same as above)" if text in runner._copies else ""
        print(f"  {r.cpu:6.1f} s CPU {r.wall:6.1f} s wall  rc={r.rc}  {text}{same}")
    return runner.results


@pytest.mark.parametrize("cmd", RUNNABLE, ids=lambda c: c.id)
def test_documented_command_runs(cmd: Command, results: dict[str, Result]) -> None:
    r = results[cmd.text]
    where = f"{cmd.text!r} (from {', '.join(cmd.sources)})"
    if cmd.error_line is not None:  # documented as failing: status 2 and the documented line
        expected = cmd.error_line.removesuffix("...").rstrip()
        lines = r.tail().splitlines()
        assert r.rc == 2, f"{where} exited {r.rc}, documented as a usage error\n{r.tail()}"
        assert any(x.startswith(expected) for x in lines), (
            f"{where} printed\n{r.tail()}\ninstead of the documented\n{cmd.error_line}"
        )
        return
    assert r.rc == 0, f"{where} exited {r.rc}; ran as {r.argv}\n{r.tail()}"


@pytest.mark.parametrize("cmd", SKIPPED, ids=lambda c: c.id)
def test_documented_command_not_run(cmd: Command) -> None:
    """Listed so that every documented command appears in the report, with its reason."""
    pytest.skip(f"not run: {skip_reason(cmd)}")


def test_every_command_is_covered_by_a_rule() -> None:
    known = {*HYDRA_APPS, *SIZE, "make", "python"}
    unknown = [c.text for c in RUNNABLE if c.program not in known]
    assert not unknown, f"commands without a rule (add them to SKIP or SIZE): {unknown}"
    for key, (text, _) in PRODUCERS.items():
        assert any(c.text == text for c in RUNNABLE), f"producer of {key} is not documented"


def test_skipped_commands_have_reasons() -> None:
    assert all(skip_reason(c) for c in SKIPPED)
    # the skip list only skips what is documented: no stale rule
    for pattern, _why in SKIP:
        assert any(re.search(pattern, c.text) for c in SKIPPED), f"stale rule {pattern!r}"


def test_extraction_finds_the_documented_commands() -> None:
    texts = {c.text for c in COMMANDS}
    assert "leogym-run experiment=quick" in texts  # README.md and docs/workflows.md
    assert "make run" in texts and "make test" in texts
    assert "leogym-reproduce freeze --quick" in texts  # reproduction.md and --help
    assert "leogym-ns3gym-serve --port 5555 env=CartPole-v1" in texts
    assert any(t.startswith("python -m grpc_tools.protoc -I") for t in texts)  # joined lines
    assert not any("#" in t.split("'")[0] for t in texts if t.startswith("leogym-"))


@pytest.mark.parametrize("app", [*HYDRA_APPS, "leogym-reproduce", "leogym-ns3gym-serve"])
def test_help_prints_the_examples_that_are_run(app: str, results: dict[str, Result]) -> None:
    """``<app> --help`` exits 0 and ends with the examples the test above runs."""
    r = results[f"{app} --help"]
    assert r.rc == 0, r.tail()
    examples = help_commands()[app]
    assert examples
    for example in examples:
        assert example in " ".join(r.tail(20000).split()), example
