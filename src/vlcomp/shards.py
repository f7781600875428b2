"""A heavy job's items split into shards, each a job and a file target, and joined again.

A shard is named ``{index}-of-{count}`` (zero-based index: ``0-of-3``, ``1-of-3``,
``2-of-3``). The count is fixed when the DAG is built (from config); the items themselves are
known only when a shard job runs, which then takes its block of them (`shard_block`). Blocks
are contiguous and start on a multiple of the job's batching unit, so every batch a model sees
is the batch it would see in one unsharded job, and the joined outputs are byte-identical to
an unsharded job's: outputs never depend on the sharding.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence

SHARD_NAME = re.compile(r"(\d+)-of-(\d+)")
# a shard wildcard's pattern for rules (`wildcard_constraints`)
SHARD_PATTERN = r"\d+-of-\d+"


def shard_names(count: int) -> list[str]:
    """The names of a job's ``count`` shards, in order."""
    if count < 1:
        raise ValueError(f"a job has at least one shard, not {count}")
    return [f"{index}-of-{count}" for index in range(count)]


def parse_shard(name: str) -> tuple[int, int]:
    """``(index, count)`` of a shard name; a ValueError names a malformed one."""
    found = SHARD_NAME.fullmatch(name)
    if not found:
        raise ValueError(f"shard {name!r} is not named INDEX-of-COUNT (e.g. 0-of-3)")
    index, count = int(found.group(1)), int(found.group(2))
    if not 0 <= index < count:
        raise ValueError(f"shard {name!r}: index {index} outside 0..{count - 1}")
    return index, count


def shard_block(n_items: int, shard: str | tuple[int, int], unit: int = 1) -> slice:
    """The items of one shard: a contiguous block of ``range(n_items)``.

    The ``ceil(n_items / unit)`` whole units are spread as evenly as they go over the shards
    (earlier shards take the spare ones), so every block but the last is a whole number of
    units. A shard with nothing left to do gets an empty block.
    """
    index, count = parse_shard(shard) if isinstance(shard, str) else shard
    if unit < 1:
        raise ValueError(f"a batching unit is at least 1, not {unit}")
    units = math.ceil(n_items / unit)
    base, spare = divmod(units, count)
    start = index * base + min(index, spare)
    stop = start + base + (index < spare)
    return slice(min(start * unit, n_items), min(stop * unit, n_items))


def batching_unit(*sizes: int) -> int:
    """The least block size that keeps every batching level whole (their lcm): e.g. a loader's
    batch of 256 inside chunks of 1024 gives 1024."""
    return math.lcm(*(max(int(s), 1) for s in sizes))


def check_complete(blocks: Sequence[slice], n_items: int) -> None:
    """Raise unless the blocks tile ``range(n_items)`` in order (a gather's sanity check)."""
    position = 0
    for k, block in enumerate(blocks):
        if block.start != position:
            raise ValueError(f"shard {k} starts at item {block.start}, not {position}")
        position = block.stop
    if position != n_items:
        raise ValueError(f"the shards cover {position} of {n_items} items")


def weighted_block(weights: Sequence[float], shard: str | tuple[int, int]) -> slice:
    """One shard's contiguous block of items of unequal cost: shard ``i`` of ``n`` ends at
    the first item where the running total of ``weights`` reaches ``(i + 1) / n`` of the
    whole, so the blocks tile the items and each carries about a ``1 / n`` share."""
    index, count = parse_shard(shard) if isinstance(shard, str) else shard
    total = math.fsum(weights)
    running = list(itertools.accumulate(float(w) for w in weights))

    def boundary(k: int) -> int:
        if k <= 0:
            return 0
        if k >= count:
            return len(running)
        return bisect.bisect_left(running, total * k / count) + 1

    start, stop = boundary(index), boundary(index + 1)
    return slice(min(start, len(running)), min(stop, len(running)))
