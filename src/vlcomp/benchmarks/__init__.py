"""Benchmark builders: items in the common choice schema (`vlcomp.items`, DESIGN §4)."""

from vlcomp.items import CHOICE_COLUMNS, make_items

__all__ = ["CHOICE_COLUMNS", "make_items"]
