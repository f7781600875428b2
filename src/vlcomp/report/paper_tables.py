"""Every paper table by name, for rule report_table: the choice-benchmark tables
(`vlcomp.report.tables.TABLE_BUILDERS`) and the robustness tables
(`vlcomp.report.robustness.ROBUSTNESS_TABLES`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from vlcomp.report.robustness import ROBUSTNESS_TABLES
from vlcomp.report.tables import TABLE_BUILDERS, Results


def build_table(name: str, results: Results, **options: Any) -> pd.DataFrame:
    """Build the named paper table; a ValueError lists the known names."""
    builders = {**TABLE_BUILDERS, **ROBUSTNESS_TABLES}
    if name not in builders:
        raise ValueError(f"unknown table {name!r}; known: {sorted(builders)}")
    return builders[name](results, **options)
