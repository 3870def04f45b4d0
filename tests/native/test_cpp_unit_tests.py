"""The C++ unit tests beside the models: ns-3 ``TestSuite`` files in ``test/`` folders next to
the sources they test (``cpp/model/leotp/test/leotp-hole-detector-test-suite.cc``, ...),
compiled into one program, ``leogym-test-runner`` (cpp/doc/build.md, "C++ unit tests").

The runner is built with the core when ``LEOGYM_TESTING=ON`` (``make install``) and sits beside
``_core``: at the top of the build folder and in the installed package. Each suite runs as its
own test here, and a failure shows the runner's report: the failing C++ test case, the failed
check (``file:line``) and its message.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = "leogym-test-runner"


def _declared_suites() -> list[str]:
    """The suite names the test files under cpp/ declare (``TestSuite("name", ...)``)."""
    names = []
    for path in sorted((ROOT / "cpp").rglob("test/*-test-suite.cc")):
        names += re.findall(r'TestSuite\("([^"]+)"', path.read_text())
    return names


SUITES = _declared_suites()


def _runner(core: ModuleType) -> Path:
    """The runner beside the loaded ``_core`` (installed, or a LEOGYM_CORE_DIR build)."""
    path = Path(str(core.__file__)).with_name(RUNNER)
    if not path.is_file():
        pytest.fail(
            f"{path} is missing: the C++ unit tests are built with the core only with the "
            "CMake option LEOGYM_TESTING=ON, e.g. `make install`"
        )
    return path


def _run(runner: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(runner), *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_suites_are_found() -> None:
    assert len(SUITES) >= 2, SUITES
    assert len(set(SUITES)) == len(SUITES), f"a suite name is used twice: {SUITES}"


@pytest.mark.timeout(150)
def test_the_runner_holds_every_suite(core: ModuleType) -> None:
    out = _run(_runner(core), "--list")
    assert out.returncode == 0, out.stderr
    assert sorted(out.stdout.split()) == sorted(SUITES), (
        "leogym-test-runner's suites differ from the test files under cpp/ (is each "
        "*-test-suite.cc in LEOGYM_UNIT_TEST_SOURCES of cpp/CMakeLists.txt?)"
    )


@pytest.mark.timeout(150)
@pytest.mark.parametrize("suite", SUITES)
def test_cpp_suite(core: ModuleType, suite: str) -> None:
    out = _run(_runner(core), f"--suite={suite}", "--verbose")
    # ns-3's verbose report: "PASS|FAIL <suite>", then each case, each failed check below it
    report = "\n".join(line for line in out.stdout.splitlines() if "PASS" not in line[:8])
    assert out.returncode == 0 and out.stdout.startswith(f"PASS {suite} "), (
        f"C++ suite {suite} failed (exit status {out.returncode}):\n{report}\n{out.stderr}"
    )
    assert not out.stderr, f"C++ suite {suite} wrote to stderr:\n{out.stderr}"
