"""BiVLC Table 1 (Miranda et al.): retrieval examples per category of Winoground, SugarCrepe
and BiVLC, computed from the items, with the published rows beside.

A SugarCrepe-style ``i2t`` item is one example, a 2 x 2 ``pair`` item (BiVLC, Winoground)
four (two I2T, two T2I). Winoground items are categorised by ``collapsed_tag`` (the item
``subset``): Object -> SWAP OBJ, Relation -> SWAP REL, Both -> both (BiVLC's footnote: 104
examples are both), so its Total is not the sum of its category cells.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from vlcomp.benchmarks.bivlc import CATEGORIES

TABLE1_CATEGORIES = (*CATEGORIES[:5], ("swap", "rel"), *CATEGORIES[5:])
TABLE1_COLUMNS = ("I2T", "T2I", *(f"{t.upper()} {s.upper()}" for t, s in TABLE1_CATEGORIES),
                  "Total")
WINOGROUND_TAGS = {"Object": (("swap", "obj"),), "Relation": (("swap", "rel"),),
                   "Both": (("swap", "obj"), ("swap", "rel"))}
# BiVLC Table 1 as published; None = empty cell. Winoground's compositional subset (†): 684.
PAPER_TABLE1 = {
    "Winoground": {"I2T": True, "T2I": True, "SWAP OBJ": 668, "SWAP REL": 1036, "Total": 1600},
    "SugarCrepe": {"I2T": True, "T2I": False, "REPLACE OBJ": 1652, "REPLACE ATT": 788,
                   "REPLACE REL": 1406, "SWAP OBJ": 246, "SWAP ATT": 666, "ADD OBJ": 2062,
                   "ADD ATT": 692, "Total": 7512},
    "BiVLC": {"I2T": True, "T2I": True, "REPLACE OBJ": 4800, "REPLACE ATT": 1748,
              "REPLACE REL": 1848, "SWAP OBJ": 324, "SWAP ATT": 1112, "ADD OBJ": 1596,
              "ADD ATT": 304, "Total": 11732},
}
PAPER_WINOGROUND_COMPOSITIONAL = 684

def item_categories(item: Any) -> tuple[tuple[str, str], ...]:
    """An item's Table 1 categories: from ``type``/``subtype``, a ``replace_obj``-style
    ``subset``, or a Winoground ``collapsed_tag`` subset; () when it has none."""
    kind, sub = getattr(item, "type", None), getattr(item, "subtype", None)
    if isinstance(kind, str) and isinstance(sub, str):
        return ((kind.lower(), sub.lower()),)
    subset = str(getattr(item, "subset", ""))
    if subset in WINOGROUND_TAGS:
        return WINOGROUND_TAGS[subset]
    parts = tuple(subset.lower().split("_"))
    return (parts,) if parts in TABLE1_CATEGORIES else ()  # type: ignore[return-value]


def _examples(protocol: str) -> tuple[int, int]:
    """(I2T, T2I) retrieval examples of one item."""
    return {"i2t": (1, 0), "t2i": (0, 1), "pair": (2, 2)}[protocol]


def benchmark_statistics(items: pd.DataFrame) -> dict[str, Any]:
    """Sizes of one benchmark (choice schema): instances, distinct images and captions, I2T,
    T2I and all retrieval examples, examples per Table 1 category (``SWAP OBJ`` ...; an item
    in two categories counts in both) and examples in none (``uncategorised``)."""
    missing = {"item_id", "image_ids", "texts", "protocol"} - set(items.columns)
    if missing or items.empty:
        raise ValueError(f"benchmark items are empty or lack column(s) {sorted(missing)}")
    i2t = t2i = uncategorised = 0
    per_category: Counter[tuple[str, str]] = Counter()
    images: set[str] = set()
    captions: set[str] = set()
    for item in items.itertuples(index=False):
        if item.protocol not in ("i2t", "t2i", "pair"):
            raise ValueError(f"item {item.item_id!r}: unknown protocol {item.protocol!r}")
        a, b = _examples(item.protocol)
        i2t, t2i = i2t + a, t2i + b
        images.update(str(i) for i in item.image_ids)
        captions.update(str(t) for t in item.texts)
        cats = item_categories(item)
        per_category.update({c: a + b for c in cats})
        uncategorised += 0 if cats else a + b
    return {
        "instances": len(items), "images": len(images), "captions": len(captions),
        "i2t_examples": i2t, "t2i_examples": t2i, "retrieval_examples": i2t + t2i,
        "categories": {col: per_category.get(cat, 0) for col, cat in
                       zip(TABLE1_COLUMNS[2:-1], TABLE1_CATEGORIES, strict=True)},
        "uncategorised": uncategorised,
    }


def _mark(flag: bool | None) -> str:
    return "✓" if flag else ""


def benchmark_table(benchmarks: Mapping[str, pd.DataFrame],
                    with_paper: bool = True) -> pd.DataFrame:
    """BiVLC Table 1 for named benchmarks: ``I2T``/``T2I`` marks (✓ where the benchmark has
    such examples), retrieval examples per category (empty where none) and ``Total``; with
    ``with_paper`` the paper's three rows follow as ``{name} (paper)``."""
    lines: dict[str, list[Any]] = {}
    for name, items in benchmarks.items():
        stats = benchmark_statistics(items)
        cells = [stats["categories"][c] or "" for c in TABLE1_COLUMNS[2:-1]]
        lines[name] = [_mark(stats["i2t_examples"] > 0), _mark(stats["t2i_examples"] > 0),
                       *cells, stats["retrieval_examples"]]
    if with_paper:
        for name, row in PAPER_TABLE1.items():
            lines[f"{name} (paper)"] = [_mark(row["I2T"]), _mark(row["T2I"]),
                                        *(row.get(c, "") for c in TABLE1_COLUMNS[2:])]
    table = pd.DataFrame.from_dict(lines, orient="index", columns=list(TABLE1_COLUMNS),
                                   dtype=object)
    table.index.name = "dataset"
    return table


def with_winoground(table: pd.DataFrame, winoground: pd.DataFrame,
                    name: str = "Winoground") -> pd.DataFrame:
    """`vlcomp.benchmarks.bivlc.category_counts`' Table 1 with Winoground beside SugarCrepe
    and BiVLC, as the paper prints it: a ``SWAP REL`` column (Winoground's Relation tag; its
    Both items count under SWAP OBJ and SWAP REL), Winoground's retrieval examples (2 I2T +
    2 T2I per item) first, and its published row (``SWAP REL`` empty for the others)."""
    stats = benchmark_statistics(winoground)["categories"]
    columns = [c for c in TABLE1_COLUMNS[2:]]  # categories + Total, paper order
    out = table.reindex(columns=columns).astype(object)
    out["SWAP REL"] = out["SWAP REL"].where(out["SWAP REL"].notna(), "")
    total = len(winoground) * 4
    ours = {c: stats.get(c, 0) or "" for c in columns[:-1]} | {"Total": total}
    paper = {c: PAPER_TABLE1["Winoground"].get(c, "") for c in columns}
    lead = pd.DataFrame([ours, paper], index=[f"{name} (I2T + T2I examples)",
                                              f"{name} (paper)"], columns=columns, dtype=object)
    result = pd.concat([lead, out])
    result.index.name = table.index.name
    return result
