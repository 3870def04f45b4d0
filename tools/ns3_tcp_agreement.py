"""Agreement of leogym's transport with ns-3's TCP, single path, over a grid of links.

    python tools/ns3_tcp_agreement.py                       # the full grid (issue 15)
    python tools/ns3_tcp_agreement.py --links 20e6:0.1 --losses 1e-3 --seeds 2 --duration 10

Three sides cross the same LeoTopology link with the same seeds:

* ``ns3``: ns-3 3.44's own TCP (``TcpNewReno`` / ``TcpCubic``, run by the testing probe
  ``run_reference_flow``) with ns-3's defaults: MinRto 1 s, RFC 6298 RTO, InitialCwnd 10,
  DelAckCount 2, DelAckTimeout 200 ms, SACK, PRR, 1448 B segments (1500 B IP packets with the
  timestamp option);
* ``ours-ns3like``: our transport with the ``tcp`` recovery preset set like ns-3's TCP
  (``NS3_LIKE_RECOVERY``: 1 s minimum RTO, RFC 6298 formula, no tail-loss probe, no undo, no
  time-threshold (RACK) loss, no detection of lost retransmissions, no slow start after idle,
  60 s maximum RTO as ns-3's ReTxTimeout caps it) and ns-3's ACK policy (ACK every 2 packets,
  ``max_ack_delay_s`` = DelAckTimeout 0.2 s), initial window 10 packets; NewReno grows per
  ACK like TcpNewReno (``ByteCounting = 0``, RFC 5681 eq. 3);
* ``ours-rfc9002``: our transport with its default RFC 9002 recovery and ACK delay (25 ms), the
  same controller parameters.

CUBIC is compared with HyStart off on both sides (``ns3::TcpCubic::HyStart = false``); with
``--hystart`` also with it on (ns-3's own HyStart against our HyStart++, RFC 9406: different
algorithms, reported, not expected to agree).

Each run is one process (a spawn pool, at most ``--workers``; ns-3 holds one simulation per
process). Finished runs are appended to ``<out>.jsonl`` so an interrupted grid resumes; the
tidy table (one row per run) goes to ``--out`` (parquet), and a markdown table of the means,
the min-max spread over the seeds and the difference to ns-3 is printed.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import multiprocessing as mp
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

PACKET_BYTES = 1472  # ours: UDP payload, 1455 B of stream data, 1500 B IP packets
SEGMENT_BYTES = 1448  # ns-3 TCP: 1448 B + 32 B TCP header with timestamps + 20 B IP = 1500 B
IP_PACKET_BYTES = 1500

NS3_LIKE_RECOVERY: dict[str, Any] = {
    "min_rto_s": 1.0,  # ns3::TcpSocketBase::MinRto
    "max_rto_s": 60.0,  # TcpSocketBase::ReTxTimeout: m_rto = min(2 m_rto, 60 s)
    "rto_formula": "rfc6298",  # SRTT + max(G, 4 RTTVAR), floor MinRto
    "tail_loss_probes": 0,  # ns-3 has no TLP
    "rto_undo": False,  # no F-RTO / Eifel
    "time_threshold_loss": False,  # no RACK
    "detect_lost_retransmissions": False,  # a lost retransmission waits for the RTO
    "slow_start_after_idle": False,
}
NS3_DEL_ACK_TIMEOUT_S = 0.2  # ns3::TcpSocket::DelAckTimeout
NS3_DEL_ACK_COUNT = 2  # ns3::TcpSocket::DelAckCount
NS3_INITIAL_CWND = 10  # ns3::TcpSocket::InitialCwnd (segments)

NS3_VARIANT = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic"}
SIDES = ("ns3", "ours-ns3like", "ours-rfc9002")


@dataclass(frozen=True)
class Link:
    """A constant link: rate, round-trip propagation time and a one-BDP drop-tail queue."""

    rate_bps: float
    rtt_s: float

    @property
    def queue_packets(self) -> int:
        return max(2, int(self.rate_bps * self.rtt_s / 8 / IP_PACKET_BYTES))

    @property
    def label(self) -> str:
        return f"{self.rate_bps / 1e6:g} Mbit/s, {self.rtt_s * 1e3:g} ms"


@dataclass(frozen=True)
class Task:
    """One run of the grid."""

    rate_bps: float
    rtt_s: float
    loss: float
    cc: str
    hystart: bool
    side: str
    seed: int
    duration_s: float

    @property
    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def make_path(link: Link, loss: float, duration_s: float, dt_s: float = 0.01) -> dict[str, Any]:
    """The PathTimeline dict (docs/architecture.md) of a constant link: Bernoulli loss on the
    data direction (server -> client) only, none on the ACKs."""
    n = int(round(duration_s / dt_s)) + 1

    def full(x: float) -> np.ndarray:
        return np.full(n, float(x))

    return {
        "name": "p0",
        "kind": "terrestrial",
        "t0_s": 0.0,
        "dt_s": dt_s,
        "queue_packets": link.queue_packets,
        "delay_down_s": full(link.rtt_s / 2),
        "delay_up_s": full(link.rtt_s / 2),
        "rate_down_bps": full(link.rate_bps),
        "rate_up_bps": full(link.rate_bps),
        "loss_down": full(loss),
        "loss_up": full(0.0),
        "snr_db": full(float("nan")),
        "elevation_deg": full(float("nan")),
        "serving_sat": np.full(n, -1, dtype=np.int32),
        "outages": np.zeros((0, 2)),
        "handovers": np.zeros(0),
    }


def ours_config(task: Task) -> dict[str, Any]:
    """Our transport's simulation config for a task (side ours-ns3like or ours-rfc9002)."""
    cc_params: dict[str, Any] = {"InitialWindow": NS3_INITIAL_CWND}
    if task.cc == "newreno":
        cc_params["ByteCounting"] = False  # per ACK, like TcpNewReno (RFC 5681 eq. 3)
    if task.hystart:
        cc_params["HyStart"] = True
    cfg: dict[str, Any] = {
        "cc": task.cc,
        "cc_params": cc_params,
        "packet_bytes": PACKET_BYTES,
        "seed": task.seed,
    }
    if task.side == "ours-ns3like":
        cfg["recovery"] = "tcp"
        cfg["recovery_params"] = dict(NS3_LIKE_RECOVERY)
        cfg["ack_every"] = NS3_DEL_ACK_COUNT
        cfg["max_ack_delay_s"] = NS3_DEL_ACK_TIMEOUT_S
    return cfg


def ns3_attributes(task: Task) -> dict[str, Any]:
    """ns-3 TCP attributes of a task: ns-3's defaults, HyStart set as the task says."""
    return {"ns3::TcpCubic::HyStart": task.hystart} if task.cc == "cubic" else {}


def run_task(task: Task) -> dict[str, Any]:
    """Run one task in this process and return its row."""
    from leogym.native import core as load_core
    from leogym.native import testing as load_testing

    core = load_core()  # honours LEOGYM_CORE_DIR (a developer build)

    link = Link(task.rate_bps, task.rtt_s)
    path = make_path(link, task.loss, task.duration_s + 1.0)
    row: dict[str, Any] = {
        "link": link.label,
        "rate_mbps": task.rate_bps / 1e6,
        "rtt_ms": task.rtt_s * 1e3,
        "queue_packets": link.queue_packets,
        "loss": task.loss,
        "cc": task.cc,
        "hystart": task.hystart,
        "side": task.side,
        "seed": task.seed,
        "duration_s": task.duration_s,
    }
    t0 = time.perf_counter()
    if task.side == "ns3":
        r = load_testing().run_reference_flow(
            "tcp_bulk",
            [path],
            task.duration_s,
            seed=task.seed,
            tcp_variant=NS3_VARIANT[task.cc],
            segment_bytes=SEGMENT_BYTES,
            tcp_attributes=ns3_attributes(task),
        )
        row.update(
            goodput_mbps=float(r["goodput_bps"]) / 1e6,
            rto_events=int(r["rto_expiries"]),
            recovery_episodes=int(r["recovery_episodes"]),
            retransmissions=int(r["retransmissions"]),
            drops_random=int(r["drops_random"]),
            drops_overflow=int(r["drops_overflow"]),
        )
    else:
        sim = core.Simulation(ours_config(task), [path])
        total = {"goodput": 0, "rto": 0, "retx": 0, "random": 0, "overflow": 0, "pc": 0}
        try:
            for _ in range(int(round(task.duration_s))):
                m = sim.step(1.0)
                total["goodput"] += int(m["goodput_bytes"])
                total["rto"] += int(np.sum(m["rto_count"]))
                total["retx"] += int(np.sum(m["retransmitted_packets"]))
                total["random"] += int(np.sum(m["drops_random"]))
                total["overflow"] += int(np.sum(m["drops_overflow"]))
                total["pc"] += int(np.sum(m["persistent_congestion"]))
        finally:
            sim.close()
        row.update(
            goodput_mbps=total["goodput"] * 8 / task.duration_s / 1e6,
            rto_events=total["rto"],
            recovery_episodes=-1,  # not counted by our measurements
            retransmissions=total["retx"],
            drops_random=total["random"],
            drops_overflow=total["overflow"],
            persistent_congestion=total["pc"],
        )
    row["wall_s"] = time.perf_counter() - t0
    return row


def _worker(task: Task) -> tuple[str, dict[str, Any]]:
    return task.key, run_task(task)


def parse_links(text: str) -> list[Link]:
    """'50e6:0.04,20e6:0.1' -> links (rate in bit/s, RTT in s)."""
    links = []
    for item in text.split(","):
        try:
            rate, rtt = (float(x) for x in item.split(":"))
        except ValueError:
            raise SystemExit(f"--links: '{item}' is not RATE_BPS:RTT_S") from None
        if not (rate > 0 and rtt > 0):
            raise SystemExit(f"--links: '{item}': rate and RTT must be > 0")
        links.append(Link(rate, rtt))
    return links


def hystart_available() -> bool:
    """Whether our controllers have the HyStart parameter (HyStart++)."""
    from leogym.native import core

    return "HyStart" in core().algorithm_parameters("cc", "cubic")


def build_tasks(args: argparse.Namespace) -> list[Task]:
    tasks = []
    for link in parse_links(args.links):
        for loss in args.losses:
            for cc in args.ccs:
                hystarts = [False] + ([True] if cc == "cubic" and args.hystart else [])
                for hs in hystarts:
                    for side in args.sides:
                        for seed in range(1, args.seeds + 1):
                            tasks.append(
                                Task(
                                    link.rate_bps,
                                    link.rtt_s,
                                    loss,
                                    cc,
                                    hs,
                                    side,
                                    seed,
                                    args.duration,
                                )
                            )
    # The expensive ns-3 runs (large windows: lossless, long RTT) first, so two workers stay
    # busy to the end.
    tasks.sort(key=lambda t: (t.side != "ns3", t.loss, -t.rtt_s))
    return tasks


def run_grid(
    tasks: list[Task], workers: int, journal: Path, rerun: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """Run the tasks not yet in the journal (entries of the sides in ``rerun`` are dropped
    first); a crashed worker's pool is rebuilt and its unfinished tasks are resubmitted (four
    times at most)."""
    done: dict[str, dict[str, Any]] = {}
    if journal.exists():
        kept = []
        for line in journal.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                if rec["row"]["side"] in rerun:
                    continue
                done[rec["key"]] = rec["row"]
                kept.append(line)
        if rerun:
            journal.write_text("".join(k + "\n" for k in kept))
    todo = [t for t in tasks if t.key not in done]
    print(f"{len(tasks)} runs, {len(tasks) - len(todo)} already in {journal}", flush=True)
    attempts: dict[str, int] = {}
    t_start = time.perf_counter()
    ctx = mp.get_context("spawn")
    while todo:
        failed: list[Task] = []
        # max_tasks_per_child (Python >= 3.11): one simulation per process.
        pool_kw: dict[str, Any] = {"mp_context": ctx, "max_tasks_per_child": 1}
        with cf.ProcessPoolExecutor(workers, **pool_kw) as pool:
            futures = {pool.submit(_worker, t): t for t in todo}
            for fut in cf.as_completed(futures):
                task = futures[fut]
                try:
                    key, row = fut.result()
                except Exception as exc:  # a crashed process breaks the pool: retry
                    attempts[task.key] = attempts.get(task.key, 0) + 1
                    if attempts[task.key] > 4:
                        print(f"FAILED {task}: {exc!r}", file=sys.stderr, flush=True)
                    else:
                        failed.append(task)
                    continue
                done[key] = row
                with journal.open("a") as f:
                    f.write(json.dumps({"key": key, "row": row}) + "\n")
                n = len(done)
                el = time.perf_counter() - t_start
                print(
                    f"[{n}/{len(tasks)} {el:6.0f} s] {row['link']:>18} loss {row['loss']:<6g} "
                    f"{row['cc']:<7} hystart={row['hystart']!s:<5} {row['side']:<12} "
                    f"seed {row['seed']}: {row['goodput_mbps']:7.3f} Mbit/s, "
                    f"{row['rto_events']} RTO ({row['wall_s']:.1f} s)",
                    flush=True,
                )
        todo = failed
        if todo:
            # A broken pool fails every pending run at once; a core being rebuilt (its .so
            # replaced under running processes) is the usual cause: wait before retrying.
            print(f"retrying {len(todo)} runs in 30 s", file=sys.stderr, flush=True)
            time.sleep(30)
    return [done[t.key] for t in tasks if t.key in done]


def summarise(df: Any) -> Any:
    """One row per cell: per side the mean, min and max over seeds, RTOs per run, and the
    differences to ns-3 in % of ns-3's mean."""
    import pandas as pd

    keys = ["rate_mbps", "rtt_ms", "link", "loss", "cc", "hystart"]
    g = df.groupby([*keys, "side"])
    stats = g.agg(
        mean=("goodput_mbps", "mean"),
        lo=("goodput_mbps", "min"),
        hi=("goodput_mbps", "max"),
        rto=("rto_events", "mean"),
        n=("seed", "count"),
    ).reset_index()
    wide = stats.pivot_table(index=keys, columns="side", values=["mean", "lo", "hi", "rto", "n"])
    out = pd.DataFrame(index=wide.index)
    for side in SIDES:
        if ("mean", side) in wide.columns:
            out[f"{side}_mean"] = wide[("mean", side)]
            out[f"{side}_min"] = wide[("lo", side)]
            out[f"{side}_max"] = wide[("hi", side)]
            out[f"{side}_rto"] = wide[("rto", side)]
            out[f"{side}_n"] = wide[("n", side)]
    for side in ("ours-ns3like", "ours-rfc9002"):
        if f"{side}_mean" in out and "ns3_mean" in out:
            out[f"{side}_diff_pct"] = 100 * (out[f"{side}_mean"] / out["ns3_mean"] - 1)
    return out.reset_index().sort_values(
        ["rate_mbps", "rtt_ms", "loss", "cc", "hystart"], ascending=[False, True, True, False, True]
    )


def markdown(summary: Any, tolerance_pct: float) -> str:
    """The summary as a markdown table (Mbit/s: mean [min-max] over seeds)."""

    def cell(r: Any, side: str) -> str:
        m = r.get(f"{side}_mean")
        if m is None or (isinstance(m, float) and math.isnan(m)):
            return "-"
        return f"{m:.2f} [{r[f'{side}_min']:.2f}-{r[f'{side}_max']:.2f}]"

    def diff(r: Any, side: str) -> str:
        d = r.get(f"{side}_diff_pct")
        if d is None or (isinstance(d, float) and math.isnan(d)):
            return "-"
        mark = "" if abs(d) <= tolerance_pct else " ✗"
        return f"{d:+.1f} %{mark}"

    def rto(r: Any, side: str) -> str:
        v = r.get(f"{side}_rto")
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}"

    lines = [
        "| link | loss | cc | HyStart | ns-3 TCP | ours, ns-3-like `tcp` | diff | "
        "ours, `rfc9002` | diff | RTOs/run ns-3 / ours ns-3-like |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in summary.iterrows():
        lines.append(
            f"| {r['link']} | {r['loss']:g} | {r['cc']} | {'on' if r['hystart'] else 'off'} | "
            f"{cell(r, 'ns3')} | {cell(r, 'ours-ns3like')} | {diff(r, 'ours-ns3like')} | "
            f"{cell(r, 'ours-rfc9002')} | {diff(r, 'ours-rfc9002')} | "
            f"{rto(r, 'ns3')} / {rto(r, 'ours-ns3like')} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--links",
        default="50e6:0.04,20e6:0.1,10e6:0.6",
        help="RATE_BPS:RTT_S,... (queue: one BDP in 1500 B packets)",
    )
    ap.add_argument(
        "--losses",
        type=lambda s: [float(x) for x in s.split(",")],
        default=[0.0, 1e-4, 1e-3],
        help="random loss of data packets, comma list",
    )
    ap.add_argument("--ccs", type=lambda s: s.split(","), default=["newreno", "cubic"])
    ap.add_argument("--sides", type=lambda s: s.split(","), default=list(SIDES))
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N")
    ap.add_argument("--duration", type=float, default=30.0, help="simulated seconds per run")
    ap.add_argument(
        "--hystart",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="add the CUBIC HyStart-on pair (default: if our CUBIC has HyStart)",
    )
    ap.add_argument("--workers", type=int, default=2, help="processes (at most 2)")
    ap.add_argument("--tolerance", type=float, default=10.0, help="acceptance band (%%)")
    ap.add_argument("--out", type=Path, default=Path("/work/out/ns3_tcp_agreement.parquet"))
    ap.add_argument(
        "--rerun-sides",
        type=lambda s: frozenset(s.split(",")),
        default=frozenset(),
        help="drop these sides' runs from the journal and run them again (e.g. "
        "ours-ns3like after a transport change; the ns-3 runs are kept)",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.workers <= 2:
        ap.error("--workers must be 1 or 2 (the machine is shared)")
    if args.seeds < 1 or args.duration <= 0 or args.duration != int(args.duration):
        ap.error("--seeds must be >= 1 and --duration a positive whole number of seconds")
    for cc in args.ccs:
        if cc not in NS3_VARIANT:
            ap.error(f"--ccs: '{cc}' is not one of {sorted(NS3_VARIANT)}")
    for side in [*args.sides, *args.rerun_sides]:
        if side not in SIDES:
            ap.error(f"--sides/--rerun-sides: '{side}' is not one of {list(SIDES)}")
    if args.hystart is None:
        args.hystart = hystart_available()
    elif args.hystart and not hystart_available():
        ap.error("--hystart: our CUBIC has no HyStart parameter in this build")

    import pandas as pd

    args.out.parent.mkdir(parents=True, exist_ok=True)
    journal = args.out.with_suffix(".jsonl")
    tasks = build_tasks(args)
    rows = run_grid(tasks, args.workers, journal, args.rerun_sides)
    df = pd.DataFrame(rows)
    df.to_parquet(args.out, index=False)
    print(f"\n{len(df)} runs -> {args.out}\n")
    summary = summarise(df)
    print(markdown(summary, args.tolerance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
