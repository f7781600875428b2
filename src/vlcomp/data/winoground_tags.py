"""Diwan et al.'s (EMNLP 2022, "Why is Winoground Hard?") fine-grained Winoground tags.

Released as ``new_tag_assignments.json`` in ``ajd12342/why-winoground-hard`` (t2v_metrics'
Winoground zip carries a copy as ``why_winoground_hard.json``): one JSON object keyed by the
Winoground id as a *string* (``"0"`` .. ``"399"``) with a list of tag names each, often
empty. The six tags and their counts in that file: Complex Reasoning 78, Unusual Image 56,
Unusual Text 50, Ambiguously Correct 46, Visually Difficult 38, Non Minimal 30 (the paper and
VisualGPTScore call the last one "Non Compositional").

No-Tag: the items with no tag at all. The file has **172** of them. Diwan et al.'s own
scoring scripts (``score_subsets.py``, ``winoground_replication_subsets.py``) hard-code a
171-item "None" list, the file's 172 without item 313 (which those scripts put among the
"Harder" items while the file gives it no tag), and both papers print 171. VisualGPTScore's
No-Tag cells (Tables 1 and 13) are nevertheless all k/172 and none is k/171, so they were
computed on the file's 172 items: the default here. ``exclude=DIWAN_SCRIPT_EXCLUDED`` gives
the 171-item list of Diwan et al.'s scripts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

TAGS = ("Ambiguously Correct", "Visually Difficult", "Unusual Image", "Unusual Text",
        "Complex Reasoning", "Non Minimal")
PAPER_NAMES = {"Non Minimal": "Non Compositional"}
ITEMS = 400
DIWAN_SCRIPT_EXCLUDED = (313,)  # untagged in the file, but not in the scripts' "None" list
NO_TAG = "No Tag"


def read_tag_assignments(
    path: str | Path, known_tags: Sequence[str] | None = TAGS,
) -> dict[int, list[str]]:
    """Winoground id -> tag list, checked: integer keys (given as strings), each once, lists
    of distinct tag names from ``known_tags`` (None accepts any name)."""
    path = Path(path)

    def unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
        seen: dict[str, object] = {}
        for key, value in pairs:
            if key in seen:
                raise ValueError(f"{path}: item {key!r} is listed twice")
            seen[key] = value
        return seen

    try:
        data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a readable tag-assignment file ({err})") from err
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON object keyed by Winoground id")
    out: dict[int, list[str]] = {}
    for key, tags in data.items():
        try:
            item = int(key)
        except ValueError:
            raise ValueError(f"{path}: key {key!r} is not a Winoground id") from None
        if item in out:
            raise ValueError(f"{path}: item {item} is listed twice (as {key!r})")
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"{path}: item {key!r}: expected a list of tag names, got {tags!r}")
        if len(set(tags)) != len(tags):
            raise ValueError(f"{path}: item {key!r} repeats a tag: {tags}")
        unknown = sorted(set(tags) - set(known_tags)) if known_tags is not None else []
        if unknown:
            raise ValueError(f"{path}: item {key!r}: unknown tag(s) {unknown}; "
                             f"known: {list(known_tags or ())}")
        out[item] = list(tags)
    return dict(sorted(out.items()))


def no_tag_ids(
    assignments: Mapping[int, Sequence[str]], n_items: int = ITEMS,
    exclude: Iterable[int] = (),
) -> list[int]:
    """Sorted ids of the items without any tag, less ``exclude``; the assignments must cover
    exactly the ids ``0 .. n_items-1``."""
    ids = set(assignments)
    expected = set(range(n_items))
    if ids != expected:
        missing, extra = sorted(expected - ids), sorted(ids - expected)
        raise ValueError(f"tag assignments do not cover ids 0..{n_items - 1}: "
                         f"missing {missing[:10]}, extra {extra[:10]}")
    dropped = set(exclude)
    return [i for i in sorted(ids) if not assignments[i] and i not in dropped]


def tag_counts(assignments: Mapping[int, Sequence[str]]) -> dict[str, int]:
    """Items per tag, plus ``"No Tag"`` (items with an empty list)."""
    counts = {tag: 0 for tag in TAGS}
    for tags in assignments.values():
        for tag in tags:
            counts[tag] = counts.get(tag, 0) + 1
    counts[NO_TAG] = sum(1 for tags in assignments.values() if not tags)
    return counts


def add_diwan_tags(
    items: pd.DataFrame, assignments: Mapping[int, Sequence[str]],
    exclude: Iterable[int] = (),
) -> pd.DataFrame:
    """A copy of `vlcomp.data.winoground.winoground_items`' table with ``diwan_tags`` (the
    item's tag list) and ``no_tag`` (whether it is in `no_tag_ids` less ``exclude``).

    Item ids must read ``winoground-{id:03d}``; an item without an assignment is an error.
    """
    ids = []
    for item_id in items["item_id"]:
        prefix, _, number = str(item_id).partition("-")
        if prefix != "winoground" or not number.isdigit():
            raise ValueError(f"item {item_id!r}: not a Winoground item id (winoground-NNN)")
        ids.append(int(number))
    missing = sorted(set(ids) - set(assignments))
    if missing:
        raise ValueError(f"Winoground item(s) without a tag assignment: {missing[:10]}")
    dropped = set(exclude)
    out = items.copy()
    out["diwan_tags"] = [list(assignments[i]) for i in ids]
    out["no_tag"] = [not assignments[i] and i not in dropped for i in ids]
    return out
