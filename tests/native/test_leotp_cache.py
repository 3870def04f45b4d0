"""A Midnode's cache (paper section IV.B: keyed by flow and byte range, 4096-byte blocks, LRU):
prefix lookups, block accounting and least-recently-used eviction, by arithmetic on the block
size."""

from __future__ import annotations

from types import ModuleType

import pytest


def test_prefix_hit_and_miss(testing: ModuleType) -> None:
    c = testing.LeotpCacheProbe(capacity_blocks=16)
    c.insert(1, 0, 1451)
    c.insert(1, 1451, 2902)
    assert c.lookup_prefix(1, 0, 1451) == 1451  # whole hit
    assert c.lookup_prefix(1, 1000, 4000) == 2902  # the contiguous cached prefix
    assert c.lookup_prefix(1, 2902, 4353) == 2902  # miss: nothing served
    assert c.lookup_prefix(2, 0, 1451) == 0  # another flow's bytes are not ours
    assert c.contains(1, 0, 2902) and not c.contains(1, 0, 2903)
    assert (c.hits, c.misses) == (2, 2)


def test_ranges_cross_block_boundaries(testing: ModuleType) -> None:
    c = testing.LeotpCacheProbe(capacity_blocks=16)
    c.insert(1, 4000, 9000)  # blocks 0 (4000..4096), 1 (all), 2 (8192..9000)
    assert c.n_blocks == 3
    assert c.lookup_prefix(1, 4000, 9000) == 9000
    c.insert(1, 9000, 9100)
    assert c.lookup_prefix(1, 8500, 12000) == 9100


def test_lru_eviction_by_block(testing: ModuleType) -> None:
    c = testing.LeotpCacheProbe(capacity_blocks=2)
    c.insert(1, 0, 4096)  # block 0
    c.insert(1, 4096, 8192)  # block 1
    assert c.lookup_prefix(1, 0, 100) == 100  # block 0 is now the most recently used
    c.insert(1, 8192, 12288)  # block 2 evicts block 1, the least recently used
    assert c.n_blocks == 2 and c.evictions == 1
    assert c.contains(1, 0, 4096)
    assert not c.contains(1, 4096, 4097)
    assert c.contains(1, 8192, 12288)


def test_zero_blocks_is_an_error(testing: ModuleType) -> None:
    with pytest.raises(ValueError, match="cache_blocks"):
        testing.LeotpCacheProbe(capacity_blocks=0)
