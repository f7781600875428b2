"""Paper-layout tables from ``{model: {benchmark: metrics_dict}}`` and their csv/md writers.

Tables are DataFrames indexed by ``model`` (row order = the results mapping's order) with
numeric cells (NaN where a model lacks a benchmark). A column ``"X std"`` right after
``"X"`` holds a standard deviation: csv keeps both, markdown shows ``mean ± std``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from vlcomp.io import atomic_path

Results = Mapping[str, Mapping[str, Mapping[str, Any]]]

STD_SUFFIX = " std"
CSV_DECIMALS = 4
MD_DECIMALS = 2
ARO_COLUMNS = {
    "vg_relation": "VG-Relation",
    "vg_attribution": "VG-Attribution",
    "coco_order": "COCO-Order",
    "flickr_order": "Flickr-Order",
}
SUGARCREPE_COLUMNS = {
    "replace_obj": "Replace obj",
    "replace_att": "Replace att",
    "replace_rel": "Replace rel",
    "swap_obj": "Swap obj",
    "swap_att": "Swap att",
    "add_obj": "Add obj",
    "add_att": "Add att",
}
BIVLC_TYPE_LABELS = {"replace": "Replace", "swap": "Swap", "add": "Add"}
BIVLC_MAIN = ("I2T", "T2I", "Group")
BIVLC_DIRECTIONAL = ("Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I")
NAN = float("nan")


def _value(value: Any) -> float:
    """A metric value as float, ``None`` as NaN."""
    return NAN if value is None else float(value)


def _frame(rows: dict[str, dict[str, float]], columns: Sequence[str]) -> pd.DataFrame:
    """A table with the given column order, indexed by model."""
    data = [[row.get(column, NAN) for column in columns] for row in rows.values()]
    index = pd.Index(list(rows), name="model")
    return pd.DataFrame(data, index=index, columns=list(columns), dtype=float)


def aro_table(results: Results, columns: Mapping[str, str] = ARO_COLUMNS) -> pd.DataFrame:
    """ARO layout: macro accuracy for VG benchmarks, Order P@1 as mean plus ``std`` column.

    ``columns`` maps benchmark names to column labels; the metric kind of each benchmark's
    dict decides what is shown (``aro_relation``/``aro_attribution`` or ``order``).
    """
    labels: list[str] = []
    rows: dict[str, dict[str, float]] = {}
    order_labels = {
        label
        for name, label in columns.items()
        for metrics in results.values()
        if metrics.get(name, {}).get("metric") == "order"
    }
    for label in columns.values():
        labels.append(label)
        if label in order_labels:
            labels.append(label + STD_SUFFIX)
    for model, benchmarks in results.items():
        row: dict[str, float] = {}
        for name, label in columns.items():
            metrics = benchmarks.get(name)
            if metrics is None:
                continue
            kind, overall = metrics["metric"], metrics["overall"]
            if kind in ("aro_relation", "aro_attribution"):
                row[label] = _value(overall["macro_accuracy"])
            elif kind == "order":
                row[label] = _value(overall["mean"])
                row[label + STD_SUFFIX] = _value(overall["std"])
            else:
                raise ValueError(f"benchmark {name!r} has metric {kind!r}, not an ARO metric")
        rows[model] = row
    return _frame(rows, labels)


def sugarcrepe_table(
    results: Results,
    benchmark: str = "sugarcrepe",
    columns: Mapping[str, str] = SUGARCREPE_COLUMNS,
    average_label: str = "Avg (micro)",
) -> pd.DataFrame:
    """SugarCrepe layout: Replace obj/att/rel, Swap obj/att, Add obj/att, micro average."""
    rows: dict[str, dict[str, float]] = {}
    for model, benchmarks in results.items():
        metrics = benchmarks.get(benchmark)
        if metrics is None:
            rows[model] = {}
            continue
        subsets = metrics["subsets"]
        row = {
            label: _value(subsets[name]["accuracy"])
            for name, label in columns.items()
            if name in subsets
        }
        row[average_label] = _value(metrics["overall"]["accuracy"])
        rows[model] = row
    return _frame(rows, [*columns.values(), average_label])


def _bivlc_rows(
    results: Results, benchmark: str, scores: Sequence[str], types: Sequence[str]
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Rows of BiVLC ``scores`` overall (types empty) or per type (``"{Type} {score}"``)."""
    labels = (
        list(scores)
        if not types
        else [f"{BIVLC_TYPE_LABELS.get(t, t)} {s}" for t in types for s in scores]
    )
    rows: dict[str, dict[str, float]] = {}
    for model, benchmarks in results.items():
        metrics = benchmarks.get(benchmark)
        row: dict[str, float] = {}
        if metrics is not None:
            if not types:
                row = {s: _value(metrics["overall"][s]) for s in scores}
            for t in types:
                entry = metrics["types"].get(t)
                for s in scores:
                    label = f"{BIVLC_TYPE_LABELS.get(t, t)} {s}"
                    row[label] = NAN if entry is None else _value(entry[s])
        rows[model] = row
    return rows, labels


def _sugarcrepe_and_bivlc(
    results: Results, benchmark: str, sugarcrepe: str | None, scores: Sequence[str]
) -> pd.DataFrame:
    """A leading SugarCrepe micro-accuracy column, then overall BiVLC ``scores``."""
    rows, labels = _bivlc_rows(results, benchmark, scores, ())
    if sugarcrepe is None:
        return _frame(rows, labels)
    for model, benchmarks in results.items():
        metrics = benchmarks.get(sugarcrepe)
        if metrics is not None:
            rows[model] = {"SugarCrepe": _value(metrics["overall"]["accuracy"])} | rows[model]
    return _frame(rows, ["SugarCrepe", *labels])


def bivlc_table2(
    results: Results, benchmark: str = "bivlc", sugarcrepe: str | None = "sugarcrepe"
) -> pd.DataFrame:
    """BiVLC Table 2 layout: SugarCrepe accuracy, then BiVLC I2T, T2I, Group."""
    return _sugarcrepe_and_bivlc(results, benchmark, sugarcrepe, BIVLC_MAIN)


def bivlc_table3(
    results: Results, benchmark: str = "bivlc", sugarcrepe: str | None = "sugarcrepe"
) -> pd.DataFrame:
    """BiVLC Table 3 layout: SugarCrepe, I2T, T2I, Group, then Ipos2T, Ineg2T, Tpos2I, Tneg2I."""
    return _sugarcrepe_and_bivlc(
        results, benchmark, sugarcrepe, (*BIVLC_MAIN, *BIVLC_DIRECTIONAL)
    )


def bivlc_table6(
    results: Results,
    benchmark: str = "bivlc",
    types: Sequence[str] = tuple(BIVLC_TYPE_LABELS),
) -> pd.DataFrame:
    """BiVLC Table 6 layout: I2T, T2I, Group per category (Replace, Swap, Add)."""
    rows, labels = _bivlc_rows(results, benchmark, BIVLC_MAIN, types)
    return _frame(rows, labels)


def _format_number(value: Any, decimals: int) -> str:
    """Fixed-decimal text for a number, ``-`` for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, int | float):
        return f"{value:.{decimals}f}"
    return str(value)


def to_markdown(df: pd.DataFrame, decimals: int = MD_DECIMALS) -> str:
    """A GitHub-markdown table; ``X`` + ``X std`` columns are shown as ``mean ± std``."""
    std_columns = {
        c for c in df.columns if c.endswith(STD_SUFFIX) and c[: -len(STD_SUFFIX)] in df.columns
    }
    columns = [c for c in df.columns if c not in std_columns]
    header = [str(df.index.name or ""), *(str(c) for c in columns)]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---", *("---:" for _ in columns)]) + "|",
    ]
    for index, row in df.iterrows():
        cells = [str(index)]
        for column in columns:
            text = _format_number(row[column], decimals)
            std = column + STD_SUFFIX
            if std in std_columns and text != "-":
                std_text = _format_number(row[std], decimals)
                if std_text != "-":
                    text = f"{text} ± {std_text}"
            cells.append(text)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def to_csv_text(df: pd.DataFrame, decimals: int = CSV_DECIMALS) -> str:
    """CSV text with fixed decimals and ``\\n`` line endings."""
    return df.to_csv(float_format=f"%.{decimals}f", lineterminator="\n")


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` through a temp file next to ``path``, then rename it into place."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def subsets_table(result: Mapping[str, Any]) -> pd.DataFrame:
    """One row per subset of a metric record (its ``subsets`` entries as columns)."""
    rows = {name: dict(values) for name, values in result.get("subsets", {}).items()}
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "subset"
    return df


def write_csv(df: pd.DataFrame, path: Path | str) -> Path:
    """Write one table as CSV (4 decimals) atomically."""
    _atomic_write(Path(path), to_csv_text(df))
    return Path(path)


def write_table(df: pd.DataFrame, stem: Path | str) -> tuple[Path, Path]:
    """Write ``{stem}.csv`` (4 decimals) and ``{stem}.md`` (2 decimals) atomically."""
    stem = Path(stem)
    csv_path = stem.with_name(stem.name + ".csv")
    md_path = stem.with_name(stem.name + ".md")
    _atomic_write(csv_path, to_csv_text(df))
    _atomic_write(md_path, to_markdown(df))
    return csv_path, md_path


TABLE_BUILDERS = {
    "aro": aro_table,
    "sugarcrepe": sugarcrepe_table,
    "bivlc_table2": bivlc_table2,
    "bivlc_table3": bivlc_table3,
    "bivlc_table6": bivlc_table6,
}


def build_table(name: str, results: Results, **options: Any) -> pd.DataFrame:
    """Build the named paper table (see ``TABLE_BUILDERS``)."""
    if name not in TABLE_BUILDERS:
        raise ValueError(f"unknown table {name!r}; known: {sorted(TABLE_BUILDERS)}")
    return TABLE_BUILDERS[name](results, **options)
