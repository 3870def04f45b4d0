"""Two-line element sets: strict parsing and propagation with the ``sgp4`` library.

Propagation uses the maintained ``sgp4`` package (Rhodes; Vallado et al., "Revisiting Spacetrack
Report #3", AIAA 2006-6753) through its vectorised ``SatrecArray``. SGP4 returns TEME positions;
we rotate them to Earth-fixed with the Greenwich mean sidereal time
(:func:`leogym.scenario.orbital.frames.gmst_rad`), ignoring polar motion.

The parser checks what ``sgp4`` does not: line numbers 1/2, line length, the modulo-10
checksum (digits count their value, ``-`` counts 1), and that both lines name the same
satellite. Errors name the config field and the file's line number.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sgp4.api import WGS72, Satrec, SatrecArray

from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.orbital.frames import eci_to_ecef, gmst_rad, julian_date

__all__ = ["TleRecord", "TleConstellation", "read_tle_file", "tle_checksum"]

#: Equatorial radius of WGS-72 (the Earth model of SGP4), km.
_EARTH_RADIUS_KM = 6378.135


@dataclass(frozen=True)
class TleRecord:
    """One satellite's element set."""

    name: str
    line1: str
    line2: str


def tle_checksum(line: str) -> int:
    """Modulo-10 checksum of the first 68 characters of a TLE line."""
    total = 0
    for ch in line[:68]:
        if ch.isdigit():
            total += int(ch)
        elif ch == "-":
            total += 1
    return total % 10


def _check_line(line: str, expected: str, where: str, field: str) -> None:
    if len(line) < 69:
        raise ScenarioConfigError(field, f"{where}: TLE line too short ({len(line)} < 69 chars)")
    if line[0] != expected or line[1] != " ":
        raise ScenarioConfigError(field, f"{where}: expected TLE line {expected}, got {line[:2]!r}")
    if not line[68].isdigit():
        raise ScenarioConfigError(field, f"{where}: checksum column is not a digit")
    want = tle_checksum(line)
    if int(line[68]) != want:
        raise ScenarioConfigError(
            field, f"{where}: checksum mismatch (line says {line[68]}, computed {want})"
        )


def read_tle_file(path: str | Path, field: str) -> list[TleRecord]:
    """Read and check a 2-line or 3-line (name + 2 lines) TLE file.

    :param path: the file.
    :param field: config field path used in error messages.
    :return: one record per satellite, in file order.
    :raises ScenarioConfigError: missing file, malformed line (with its number), bad checksum,
        or elements ``sgp4`` rejects.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ScenarioConfigError(field, f"must be a file name, got {path!r}")
    p = Path(path)
    if not p.is_file():
        raise ScenarioConfigError(field, f"TLE file not found: {str(p)!r}")
    try:
        raw = p.read_text(encoding="ascii").splitlines()
    except UnicodeDecodeError as exc:
        raise ScenarioConfigError(field, f"{p}: not an ASCII TLE file ({exc.reason})") from exc
    lines = [(i + 1, text.rstrip()) for i, text in enumerate(raw) if text.strip()]
    records: list[TleRecord] = []
    i = 0
    while i < len(lines):
        lineno, text = lines[i]
        name = ""
        if not text.startswith("1 "):
            if text.startswith("2 "):
                raise ScenarioConfigError(field, f"{p}:{lineno}: TLE line 2 without a line 1")
            name = text[2:].strip() if text.startswith("0 ") else text.strip()
            i += 1
            if i >= len(lines):
                raise ScenarioConfigError(field, f"{p}:{lineno}: name line without TLE lines")
            lineno, text = lines[i]
        if i + 1 >= len(lines):
            raise ScenarioConfigError(field, f"{p}:{lineno}: TLE line 1 without a line 2")
        no2, text2 = lines[i + 1]
        _check_line(text, "1", f"{p}:{lineno}", field)
        _check_line(text2, "2", f"{p}:{no2}", field)
        if text[2:7] != text2[2:7]:
            raise ScenarioConfigError(
                field, f"{p}:{no2}: satellite number {text2[2:7]!r} differs from line 1's"
            )
        try:
            sat = Satrec.twoline2rv(text, text2, WGS72)
        except (ValueError, IndexError) as exc:
            raise ScenarioConfigError(field, f"{p}:{lineno}: unreadable elements ({exc})") from exc
        if sat.error != 0 or not np.isfinite(sat.no_kozai) or sat.no_kozai <= 0:
            raise ScenarioConfigError(field, f"{p}:{lineno}: elements rejected by SGP4")
        perigee_km = (sat.a * (1.0 - sat.ecco) - 1.0) * _EARTH_RADIUS_KM
        if not np.isfinite(perigee_km) or perigee_km < 0.0:
            rev_per_day = sat.no_kozai * 1440.0 / (2.0 * np.pi)
            raise ScenarioConfigError(
                field,
                f"{p}:{lineno}: the orbit's perigee is below the Earth's surface "
                f"({perigee_km:.0f} km; mean motion {rev_per_day:.4f} rev/day, eccentricity "
                f"{sat.ecco:.7f})",
            )
        records.append(TleRecord(name or text[2:7].strip(), text, text2))
        i += 2
    if not records:
        raise ScenarioConfigError(field, f"{p}: no TLE records")
    return records


class TleConstellation:
    """Satellites from a TLE file, propagated with SGP4.

    :param records: element sets (from :func:`read_tle_file`).
    :param start_unix_s: POSIX time of orbit time 0; ``None`` = the latest TLE epoch.
    """

    def __init__(self, records: list[TleRecord], start_unix_s: float | None = None) -> None:
        self.records = records
        sats = [Satrec.twoline2rv(r.line1, r.line2, WGS72) for r in records]
        self._array = SatrecArray(sats)
        epochs = np.array([(s.jdsatepoch - 2440587.5 + s.jdsatepochF) * 86400.0 for s in sats])
        self.start_unix_s = float(epochs.max() if start_unix_s is None else start_unix_s)
        a_er = np.array([s.a for s in sats])  # semi-major axis in Earth radii (WGS-72)
        self._mean_altitude_km = float(np.mean(a_er * 6378.135 - 6378.135))

    @property
    def num_sats(self) -> int:
        """Number of satellites in the file."""
        return len(self.records)

    @property
    def altitude_km(self) -> float:
        """Mean altitude of the element sets (for bounds and look-ahead only)."""
        return self._mean_altitude_km

    def positions_ecef(self, t_s: np.ndarray) -> np.ndarray:
        """Earth-fixed positions (km) at orbit times ``t_s``, shape ``(T, S, 3)``.

        Satellites that SGP4 cannot propagate at a time (decayed) get NaN there.
        """
        t = np.atleast_1d(np.asarray(t_s, dtype=float))
        jd, fr = julian_date(self.start_unix_s + t)
        err, pos, _vel = self._array.sgp4(jd, fr)
        pos = np.where((err == 0)[..., None], pos, np.nan)
        teme = np.transpose(pos, (1, 0, 2))
        return eci_to_ecef(teme, gmst_rad(jd + fr))
