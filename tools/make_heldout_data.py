#!/usr/bin/env python3
"""Write the synthetic data files of the held-out scenario suite (``conf/suite/heldout.yaml``).

leogym ships no measured trace or third-party element set (docs/scenario.md, "Replaying measured
traces", licences), so the suite's TLE set and traces are made up here, from fixed seeds, and
committed under ``conf/scenario/heldout/data/``. ``tests/agents/test_heldout_suite.py`` runs
:func:`generate` again and checks that the committed files are its output, byte for byte.

Files (each small enough to ship, a few tens of kB):

``polar1200.tle``
    A OneWeb-like polar shell as two-line element sets: 12 planes x 49 satellites, 1200 km,
    87.9 deg, RAAN every 15 deg (a star pattern over 180 deg), satellites evenly spaced in each
    plane with half a slot of offset between neighbouring planes. Each satellite's mean anomaly
    is jittered by a few tenths of a degree and its eccentricity is 1e-4 to 1e-3, as in a real
    deployment whose slots are not exact. Mean motion from Kepler's third law at
    ``a = 6378.137 + 1200 km`` (``mu = 398600.4418 km^3/s^2``). Epoch 2024 day 122.5, drag terms
    0. The checksum is the TLE rule: the sum of the digits, each ``-`` counting 1, modulo 10.
``cellular.mahi``
    A 12 s mahimahi trace (one line per 1500-byte delivery opportunity, at an integer
    millisecond) of a cellular-like downlink: a log-normal AR(1) rate on 200 ms steps around
    9 Mbit/s (sd of the log 0.45, lag-1 correlation 0.8), two 400 ms fades to 0.5 Mbit/s.
``replay_bw.txt``, ``replay_delay.txt``
    A LeoReplayer-format pair (docs/specs/starlink-dynamics.md#public-trace-formats) of 30 s
    with Starlink-like slots every 15 s, boundaries at trace times 3 s and 18 s: per-slot rates
    of 9, 6 and 11 Mbit/s (a tenth of a Starlink downlink, to keep the file small) with 100 ms
    variation (sd of the log 0.15), a 60 ms stall at 1 % of the slot rate at each boundary
    that recovers as ``1 - 0.9 exp(-t / 0.25 s)``; one-way delays of 19, 24 and 21 ms per slot
    with 1-2 ms of jitter and a +30 ms spike at each boundary that decays over 150 ms.

Usage: ``python tools/make_heldout_data.py [--check]`` (``--check``: compare, write nothing;
exit status 1 when a file differs).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from leogym.scenario.orbital.tle import tle_checksum

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "conf" / "scenario" / "heldout" / "data"

EARTH_RADIUS_KM = 6378.137
MU_KM3_S2 = 398600.4418
#: Bits carried by one mahimahi delivery opportunity (a 1500-byte MTU).
MTU_BITS = 1500 * 8


# ------------------------------------------------------------------------------------ TLE
def tle_lines(
    number: int,
    inclination_deg: float,
    raan_deg: float,
    eccentricity: float,
    arg_perigee_deg: float,
    mean_anomaly_deg: float,
    mean_motion_rev_day: float,
    epoch: str = "24122.50000000",
) -> tuple[str, str]:
    """Lines 1 and 2 of one element set, in the fixed columns of the TLE format."""
    ecc = f"{round(eccentricity * 1e7):07d}"
    one = f"1 {number:05d}U 24001A   {epoch}  .00000000  00000-0  00000-0 0  999"
    two = (
        f"2 {number:05d} {inclination_deg:8.4f} {raan_deg % 360:8.4f} {ecc} "
        f"{arg_perigee_deg % 360:8.4f} {mean_anomaly_deg % 360:8.4f} "
        f"{mean_motion_rev_day:11.8f}{1:5d}"
    )
    assert len(one) == 68 and len(two) == 68, (one, two)
    return one + str(tle_checksum(one)), two + str(tle_checksum(two))


def polar_shell_tle(seed: int = 1200) -> str:
    """The ``polar1200.tle`` text (module docstring)."""
    rng = np.random.default_rng(seed)
    planes, per_plane, altitude_km, inclination = 12, 49, 1200.0, 87.9
    a = EARTH_RADIUS_KM + altitude_km
    rev_day = 86400.0 / (2.0 * math.pi * math.sqrt(a**3 / MU_KM3_S2))
    out = []
    for p in range(planes):
        for j in range(per_plane):
            n = p * per_plane + j
            slot = (j + 0.5 * (p % 2)) * 360.0 / per_plane
            one, two = tle_lines(
                number=91001 + n,
                inclination_deg=inclination,
                raan_deg=p * 180.0 / planes,
                eccentricity=float(rng.uniform(1e-4, 1e-3)),
                arg_perigee_deg=float(rng.uniform(0.0, 360.0)),
                mean_anomaly_deg=slot + float(rng.normal(0.0, 0.3)),
                mean_motion_rev_day=rev_day,
            )
            out += [f"LEOGYM-POLAR-{p:02d}-{j:02d}", one, two]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- mahimahi
def mahimahi_from_rate(rate_bps: np.ndarray) -> str:
    """A mahimahi trace delivering ``rate_bps[m]`` in millisecond ``m + 1``: the cumulative
    count of opportunities is ``floor(sum(rate) * 1 ms / 12000 bit)``."""
    cum = np.floor(np.cumsum(rate_bps) * 1e-3 / MTU_BITS).astype(np.int64)
    counts = np.diff(np.concatenate([[0], cum]))
    stamps = np.repeat(np.arange(1, len(rate_bps) + 1), counts)
    if len(stamps) == 0 or stamps[-1] != len(rate_bps):
        stamps = np.append(stamps, len(rate_bps))  # the period is the last timestamp
    return "".join(f"{int(s)}\n" for s in stamps)


def log_ar1(rng: np.random.Generator, n: int, sigma: float, rho: float) -> np.ndarray:
    """``n`` steps of a stationary AR(1) with marginal sd ``sigma`` and lag-1 correlation
    ``rho``, mean-corrected so that ``exp`` of it has mean 1."""
    x = np.empty(n)
    x[0] = rng.normal(0.0, sigma)
    for k in range(1, n):
        x[k] = rho * x[k - 1] + math.sqrt(1.0 - rho**2) * rng.normal(0.0, sigma)
    return x - sigma**2 / 2.0


def cellular_trace(seed: int = 7) -> str:
    """The ``cellular.mahi`` text (module docstring)."""
    rng = np.random.default_rng(seed)
    period_ms, step_ms = 12_000, 200
    steps = 9e6 * np.exp(log_ar1(rng, period_ms // step_ms, 0.45, 0.8))
    rate = np.repeat(steps, step_ms)
    for start_ms in (3_600, 9_200):  # two fades
        rate[start_ms : start_ms + 400] = 0.5e6
    return mahimahi_from_rate(rate)


def replay_pair(seed: int = 15) -> tuple[str, str]:
    """The ``replay_bw.txt`` and ``replay_delay.txt`` texts (module docstring)."""
    rng = np.random.default_rng(seed)
    period_ms = 30_000
    bounds_ms = (3_000, 18_000)
    t_ms = np.arange(period_ms)
    slot = np.searchsorted(np.asarray(bounds_ms), t_ms, side="right")  # 0, 1, 2
    slot_rate = np.array([9e6, 6e6, 11e6])[slot]
    wiggle = np.repeat(np.exp(log_ar1(rng, period_ms // 100, 0.15, 0.6)), 100)
    factor = np.ones(period_ms)
    for b in bounds_ms:  # stall, then recovery
        factor[b : b + 60] = 0.01
        after = np.arange(b + 60, min(b + 60 + 1250, period_ms))
        factor[after] = 1.0 - 0.9 * np.exp(-(after - b - 60) / 250.0)
    bw = mahimahi_from_rate(slot_rate * wiggle * factor)
    # one-way delay, one line per 10 ms
    t10 = np.arange(period_ms // 10) * 10
    base = np.array([19.0, 24.0, 21.0])[np.searchsorted(np.asarray(bounds_ms), t10, "right")]
    delay = base + np.abs(rng.normal(0.0, 1.5, len(t10)))
    for b in bounds_ms:
        since = t10 - b
        spike = np.where((since >= 0) & (since < 150), 30.0 * (1.0 - since / 150.0), 0.0)
        delay += spike
    return bw, "".join(f"{d:.1f}\n" for d in delay)


def generate() -> dict[str, str]:
    """Every data file of the suite: file name -> text."""
    bw, delay = replay_pair()
    return {
        "polar1200.tle": polar_shell_tle(),
        "cellular.mahi": cellular_trace(),
        "replay_bw.txt": bw,
        "replay_delay.txt": delay,
    }


def main(argv: list[str] | None = None) -> int:
    """Write (or ``--check``) the files under ``conf/scenario/heldout/data/``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    args = ap.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    differ = []
    for name, text in generate().items():
        path = DATA / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                differ.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(text.encode())} bytes)")
    if differ:
        print("differ from the generator: " + ", ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
