"""Where a run of ``python -m benchmarks`` writes: a full run adds a dated record; a ``--quick``
or ``--only`` run writes a git-ignored file beside the records and never touches one."""

from __future__ import annotations

import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

import benchmarks.__main__ as bench_main
from benchmarks.common import Row, read_csv

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sections that measure nothing and a machine snapshot without the 1 s sampling."""

    def runner(name: str, quick: bool, repeats: int):  # noqa: ANN202
        return lambda: [Row(name, "figure", 2.0 if quick else 1.0, "x")]

    snap = {"load1": 0.5, "load5": 0.4, "load15": 0.3, "cpus": 2, "others_cpu_percent": 10.0}
    monkeypatch.setattr(bench_main, "_section_runner", runner)
    monkeypatch.setattr(bench_main, "load_snapshot", lambda: dict(snap))


def _record_folder(out: Path) -> Path:
    records = out / bench_main.RECORDS_DIR
    records.mkdir(parents=True)
    (records / "2026-01-01T0000Z.csv").write_text("kept as it is\n")
    return records


@pytest.mark.usefixtures("fake_suite")
@pytest.mark.parametrize(
    ("args", "written"), [(["--quick"], "quick.csv"), (["--only", "env,memory"], "partial.csv")]
)
def test_quick_and_partial_runs_leave_the_records_alone(
    tmp_path: Path, args: list[str], written: str
) -> None:
    records = _record_folder(tmp_path)
    assert bench_main.main([*args, "--out", str(tmp_path)]) == 0
    assert [p.name for p in records.iterdir()] == ["2026-01-01T0000Z.csv"]
    assert (records / "2026-01-01T0000Z.csv").read_text() == "kept as it is\n"
    rows = read_csv(tmp_path / written)
    assert {r.section for r in rows} >= {"machine", "env"}


@pytest.mark.usefixtures("fake_suite")
def test_a_full_run_adds_a_dated_record_with_the_machine(tmp_path: Path) -> None:
    records = _record_folder(tmp_path)
    assert bench_main.main(["--out", str(tmp_path)]) == 0
    new = sorted(p for p in records.iterdir() if p.name != "2026-01-01T0000Z.csv")
    assert len(new) == 1 and not (tmp_path / "quick.csv").exists()
    assert datetime.strptime(new[0].stem, bench_main.RECORD_STAMP).year >= 2026
    rows = read_csv(new[0])
    assert {r.section for r in rows} == {"machine", *bench_main.SECTIONS}
    host = next(r for r in rows if r.metric == "CPUs (nproc)")
    assert host.value >= 1 and "started" in host.note
    loads = [r for r in rows if r.metric.startswith("load average")]
    assert [r.metric.rsplit(" ", 1)[1] for r in loads] == ["before", "after"]


def test_output_path_is_a_record_only_for_a_full_run(tmp_path: Path) -> None:
    when = datetime(2026, 12, 5, 10, 2, tzinfo=timezone.utc)
    every = list(bench_main.SECTIONS)
    assert bench_main.output_path(tmp_path, False, every, when) == (
        tmp_path / "records" / "2026-12-05T1002Z.csv"
    )
    assert bench_main.output_path(tmp_path, True, every, when) == tmp_path / "quick.csv"
    assert bench_main.output_path(tmp_path, False, every[:3], when) == tmp_path / "partial.csv"


def test_quick_and_partial_outputs_are_git_ignored() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    paths = ["benchmarks/results/quick.csv", "benchmarks/results/partial.csv"]
    ignored = subprocess.run(
        ["git", "check-ignore", *paths, "benchmarks/results/records/x.csv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert ignored == paths
