"""Sizes of the papers' released files as their hub cards state them: what the loaders check
a download against (`vlcomp.data.trohn_release`) and what the count tables set beside ours
(`vlcomp.benchmarks.bivlc_counts`); below both, so neither imports the other."""

from __future__ import annotations

# rows per split of BiVLC's released TROHN sets (the hub cards)
TROHN_ROWS = {"trohn_text": {"train": 2_922_276, "validation": 730_570}}
