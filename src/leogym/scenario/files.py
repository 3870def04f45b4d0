"""The files a scenario names (TLE element sets, mahimahi traces, replayed measurement traces),
each read once per process: the scenario's one file cache (:func:`cached_read`).

Validation, timeline building and every env reset ask for the same files again and again; the
readers here parse a file once and keep the result, keyed by the file's absolute path and its
modification time, size and inode (``os.stat``), so an edited or replaced file is read again.
Errors (a missing or corrupt file) are not kept: each call reports them naming its own field.

Cached results are shared, hence immutable: traces are read-only NumPy arrays, TLE records a
tuple of frozen records.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from leogym.scenario.links.terrestrial import read_mahimahi_trace
from leogym.scenario.orbital.tle import TleRecord, read_tle_file

__all__ = [
    "cached_read",
    "file_stamp",
    "mahimahi_trace",
    "tle_records",
    "cache_info",
    "clear_cache",
]

T = TypeVar("T")

#: (reader name, absolute path) -> ((mtime_ns, size, inode), parsed content)
_CACHE: dict[tuple[str, str], tuple[tuple[int, int, int], Any]] = {}
#: Parses done by the readers (for tests and benchmarks): reader name -> count.
_READS: dict[str, int] = {"trace": 0, "tle": 0}


def file_stamp(path: Any) -> tuple[int, int, int] | None:
    """The version of a file: ``(mtime_ns, size, inode)``, or ``None`` if it cannot be read."""
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def cached_read(kind: str, path: Any, field: str, read: Callable[[Any, str], T]) -> T:
    """``read(path, field)`` once per version of the file (:func:`file_stamp`), kept under
    ``(kind, absolute path)``. ``read`` must return something its callers cannot change (the
    result is shared); its errors are not kept.

    :param kind: the reader's name in the cache and in :func:`cache_info` (``trace``, ``tle``,
        ``read_mahimahi_bw``, ...).
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        return read(path, field)  # the reader names the field and what is wrong
    stamp = file_stamp(path)
    if stamp is None:
        return read(path, field)  # not found: the reader says so, naming the field
    key = (kind, os.path.abspath(os.fspath(path)))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    value = read(path, field)
    _READS[kind] = _READS.get(kind, 0) + 1
    _CACHE[key] = (stamp, value)
    return value


def _read_trace(path: Any, field: str) -> np.ndarray:
    trace = read_mahimahi_trace(path, field)
    trace.flags.writeable = False
    return trace


def _read_tle(path: Any, field: str) -> tuple[TleRecord, ...]:
    return tuple(read_tle_file(path, field))


def mahimahi_trace(path: str | Path, field: str) -> np.ndarray:
    """:func:`~leogym.scenario.links.terrestrial.read_mahimahi_trace`, once per file version.

    :return: the timestamps (ms), a read-only int64 array.
    :raises ScenarioConfigError: as the reader, naming ``field``.
    """
    return cached_read("trace", path, field, _read_trace)


def tle_records(path: str | Path, field: str) -> list[TleRecord]:
    """:func:`~leogym.scenario.orbital.tle.read_tle_file`, once per file version.

    :return: one record per satellite (a new list; the records are frozen).
    :raises ScenarioConfigError: as the reader, naming ``field``.
    """
    return list(cached_read("tle", path, field, _read_tle))


def cache_info() -> dict[str, int]:
    """How many files each reader has parsed in this process, and how many it holds."""
    return {**{f"{k}_reads": v for k, v in _READS.items()}, "files": len(_CACHE)}


def clear_cache() -> None:
    """Forget every file read (the next call reads again)."""
    _CACHE.clear()
