"""Paper-layout tables from ``{model: {benchmark: metrics_dict}}`` and their csv/md writers.

Tables are DataFrames indexed by ``model`` (row order = the results mapping's order) with
numeric cells (NaN where a model lacks a benchmark). A column ``"X std"`` right after
``"X"`` holds a standard deviation: csv keeps both, markdown shows ``mean ± std``.

Seed groups: every builder takes ``groups={label: [model, ...]}``. A group's cell is the
mean over its members and its ``" std"`` column the sample std (ddof=1, 0 for one member);
a cell is NaN when any member lacks the value. Models in no group are rows of one member
under their own id. Rows: the groups in ``groups`` order, then ungrouped models in results
order. With groups, every metric column gets a ``" std"`` column that is the spread over
members; a builder's own std column (Order's std over perturbation seeds) is not used.

Transposed layouts (``aro_table2``, ``aro_table6``) have tasks as rows and models/groups as
columns; ``aro_table6`` has a two-level ``(section, task)`` index, which markdown shows as a
bold section row before its tasks and csv as two leading columns.
"""

from __future__ import annotations

import json
import math
import numbers
import statistics
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
ARO6_COMPOSITIONAL = {
    "vg_relation": "VG-Relation",
    "vg_attribution": "VG-Attribution",
    "order": "Order",
}
ARO6_DOWNSTREAM = {
    "world_retrieval": {"i2t_r1": "Retrieval I2T R@1", "t2i_r1": "Retrieval T2I R@1"},
}
ARO6_SECTIONS = ("Compositional Tasks", "Downstream Tasks")
SAMPLES_COLUMN = "# Samples"
EXCLUDED_SUFFIX = " (excluded)"
NAN = float("nan")
CHANCE_LEVEL = "Chance-level"  # ARO's name for its chance row
RANDOM = "Random"  # BiVLC's and VisualGPTScore's
Groups = Mapping[str, Sequence[str]]


def _value(value: Any) -> float:
    """A metric value as float, ``None`` as NaN."""
    return NAN if value is None else float(value)


def _frame(rows: dict[str, dict[str, float]], columns: Sequence[str]) -> pd.DataFrame:
    """A table with the given column order, indexed by model."""
    data = [[row.get(column, NAN) for column in columns] for row in rows.values()]
    index = pd.Index(list(rows), name="model")
    return pd.DataFrame(data, index=index, columns=list(columns), dtype=float)


def _is_std(column: str, columns: Sequence[str]) -> bool:
    """Whether ``column`` is the ``" std"`` companion of another column."""
    return column.endswith(STD_SUFFIX) and column[: -len(STD_SUFFIX)] in columns


def group_members(models: Sequence[str], groups: Groups | None) -> dict[str, list[str]]:
    """Row label -> member models: ``groups`` in order, then each ungrouped model alone.

    Raises ``ValueError`` for an empty group, a member not in ``models``, a model in two
    groups, or a group label that is also an ungrouped model's id.
    """
    members: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for label, group in (groups or {}).items():
        if isinstance(group, str):
            raise TypeError(f"group {label!r}: members must be a list of model ids, not a str")
        group = list(group)
        if not group:
            raise ValueError(f"group {label!r} has no members")
        for model in group:
            if model not in models:
                raise ValueError(f"group {label!r}: model {model!r} has no results")
            if model in seen:
                raise ValueError(f"model {model!r} is in groups {seen[model]!r} and {label!r}")
            seen[model] = label
        members[label] = group
    for model in models:
        if model not in seen:
            if model in members:
                raise ValueError(f"group label {model!r} is also an ungrouped model id")
            members[model] = [model]
    return members


def group_rows(
    rows: Mapping[str, Mapping[str, float]], columns: Sequence[str], groups: Groups | None
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Per-model ``rows`` -> per-group rows with mean and sample std of each metric column.

    ``columns`` is the per-model column order; every column ``X`` that is not a std becomes
    ``X`` (mean over members) and ``X std`` (over members, ddof=1). A one-member group keeps
    its model's own std where it has one (Order's spread over perturbation seeds) and has
    none otherwise. A cell is NaN when any member lacks the value (no partial means).
    """
    bases = [c for c in columns if not _is_std(c, columns)]
    labels = [label for base in bases for label in (base, base + STD_SUFFIX)]
    grouped: dict[str, dict[str, float]] = {}
    for label, models in group_members(list(rows), groups).items():
        row: dict[str, float] = {}
        for base in bases:
            values = [rows[m].get(base, NAN) for m in models]
            if any(math.isnan(v) for v in values):
                row[base] = row[base + STD_SUFFIX] = NAN
                continue
            row[base] = statistics.fmean(values)
            if len(values) > 1:
                row[base + STD_SUFFIX] = statistics.stdev(values)
            else:
                row[base + STD_SUFFIX] = rows[models[0]].get(base + STD_SUFFIX, NAN)
        grouped[label] = row
    return grouped, labels


def _table(
    rows: dict[str, dict[str, float]], columns: Sequence[str], groups: Groups | None
) -> pd.DataFrame:
    """Per-model table (``groups`` None) or per-group table with mean and std columns."""
    if groups is None:
        return _frame(rows, columns)
    grouped, labels = group_rows(rows, columns, groups)
    return _frame(grouped, labels)


def _transpose(wide: pd.DataFrame, name: str) -> pd.DataFrame:
    """Tasks as rows, models/groups as columns (each followed by ``" std"`` if ``wide`` has any).

    ``wide`` is a builder's table (rows = models/groups, columns = tasks with optional
    ``"X std"``); a model's std column is NaN for tasks without a std.
    """
    columns = list(wide.columns)
    stds = {c for c in columns if _is_std(c, columns)}
    tasks = [c for c in columns if c not in stds]
    data: dict[str, list[float]] = {}
    for label, row in wide.iterrows():
        data[str(label)] = [row[t] for t in tasks]
        if stds:
            data[str(label) + STD_SUFFIX] = [
                row[t + STD_SUFFIX] if t + STD_SUFFIX in stds else NAN for t in tasks
            ]
    return pd.DataFrame(data, index=pd.Index(tasks, name=name), dtype=float)


def _aro_rows(
    results: Results, columns: Mapping[str, str]
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Per-model ARO cells (see ``aro_table``) and their column order."""
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
    return rows, labels


def _chance_row(results: Results, cells: Mapping[str, Mapping[str | None, str]]
                ) -> dict[str, float]:
    """The chance level of each cell from the first record of its benchmark that has one
    (``chance`` in the metrics, `vlcomp.metrics.benchmarks.chance_accuracy`): ``cells`` maps
    benchmark -> {key of a pair benchmark's chance dict, or None for a plain level -> label}."""
    row: dict[str, float] = {}
    for benchmark, keys in cells.items():
        levels = [m[benchmark]["chance"] for m in results.values()
                  if m.get(benchmark, {}).get("chance") is not None]
        if not levels:
            continue
        for key, label in keys.items():
            level = levels[0] if key is None else levels[0].get(key)
            if level is not None:
                row[label] = float(level)
    return row


def _lead_with(table: pd.DataFrame, name: str, chance: Mapping[str, float]) -> pd.DataFrame:
    """``table`` led by the chance row ``name`` (unchanged when no level is known)."""
    if not chance:
        return table
    if name in table.index:
        raise ValueError(f"a model is labelled {name!r}, the name of the chance row")
    return pd.concat([_frame({name: dict(chance)}, list(table.columns)), table])


def aro_table(
    results: Results, columns: Mapping[str, str] = ARO_COLUMNS, groups: Groups | None = None
) -> pd.DataFrame:
    """ARO layout: macro accuracy for VG benchmarks, Order P@1 as mean plus ``std`` column.

    ``columns`` maps benchmark names to column labels; the metric kind of each benchmark's
    dict decides what is shown (``aro_relation``/``aro_attribution`` or ``order``). Without
    ``groups`` the Order std is the record's std over perturbation seeds; with ``groups``
    every column's std is over the group's members (see the module docstring). The first
    row, ``Chance-level``, is each benchmark's chance accuracy (ARO §2.1: 50 % on VG, 20 %
    on Order's five captions).
    """
    rows, labels = _aro_rows(results, columns)
    chance = _chance_row(results, {b: {None: label} for b, label in columns.items()})
    return _lead_with(_table(rows, labels, groups), CHANCE_LEVEL, chance)


def aro_table6(
    results: Results,
    groups: Groups | None = None,
    compositional: Mapping[str, str] | None = None,
    downstream: Mapping[str, Mapping[str, str]] | None = None,
) -> pd.DataFrame:
    """ARO Table 6 layout: ``(section, task)`` rows, models/groups (+ ``" std"``) as columns.

    ``compositional`` maps benchmark -> row label (default ``ARO6_COMPOSITIONAL``; values
    as in ``aro_table``: VG macro accuracy, Order mean P@1). ``downstream`` maps benchmark
    -> {key of its ``overall`` -> row label} (default ``ARO6_DOWNSTREAM``: retrieval R@1).
    Without ``groups`` the only std is Order's over perturbation seeds (other rows NaN);
    with ``groups`` each cell is mean ± std over members. Missing values are NaN.
    """
    wide, sections = _aro6_wide(results, groups, compositional, downstream)
    table = _transpose(wide, "task")
    table.index = pd.MultiIndex.from_tuples(
        [(sections[task], task) for task in table.index], names=["section", "task"]
    )
    return table


def _aro6_wide(
    results: Results,
    groups: Groups | None,
    compositional: Mapping[str, str] | None,
    downstream: Mapping[str, Mapping[str, str]] | None,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """Table 6 cells as models/groups x tasks, and each task's section."""
    compositional = ARO6_COMPOSITIONAL if compositional is None else compositional
    downstream = ARO6_DOWNSTREAM if downstream is None else downstream
    rows, labels = _aro_rows(results, compositional)
    sections = {label: ARO6_SECTIONS[0] for label in compositional.values()}
    for benchmark, keys in downstream.items():
        for key, label in keys.items():
            if label in sections:
                raise ValueError(f"row label {label!r} is used twice")
            sections[label] = ARO6_SECTIONS[1]
            labels.append(label)
            for model, benchmarks in results.items():
                metrics = benchmarks.get(benchmark)
                if metrics is None:
                    continue
                if key not in metrics["overall"]:
                    raise ValueError(f"benchmark {benchmark!r} has no overall {key!r}")
                rows[model][label] = _value(metrics["overall"][key])
    return _table(rows, labels, groups), sections


def aro_table2(
    results: Results, groups: Groups | None = None, benchmark: str = "vg_relation"
) -> pd.DataFrame:
    """ARO Table 2 layout: ``Accuracy``, ``Accuracy (<section>)`` for each relation group of
    the record (ARO's spatial / verbs subtotals), then one row per relation; models/groups as
    columns.

    ``Accuracy`` is the record's macro accuracy over non-excluded relations; relations
    follow sorted by name, excluded ones (e.g. symmetric ``next to``) kept with the label
    suffix ``" (excluded)"``. ``# Samples`` (last column, int) is each relation's ``n`` and,
    for ``Accuracy``, the items of the non-excluded relations. Relations, their ``n`` and the
    excluded set must be equal across the models that have ``benchmark``, and at least one
    model must have it (``ValueError`` otherwise); models without it get NaN columns.
    """
    reference: tuple[str, Mapping[str, Any]] | None = None
    rows: dict[str, dict[str, float]] = {}
    for model, benchmarks in results.items():
        rows[model] = {}
        metrics = benchmarks.get(benchmark)
        if metrics is None:
            continue
        if reference is None:
            reference = (model, metrics)
        else:
            _check_same_relations(reference, model, metrics)
    if reference is None:
        raise ValueError(f"no model has results for {benchmark!r}")
    subsets, excluded = reference[1]["subsets"], set(reference[1].get("excluded", {}))
    relation_labels = {
        name: name + EXCLUDED_SUFFIX if name in excluded else name for name in sorted(subsets)
    }
    sections = reference[1].get("groups", {})
    section_labels = {name: f"Accuracy ({name})" for name in sections}
    for model, benchmarks in results.items():
        metrics = benchmarks.get(benchmark)
        if metrics is not None:
            rows[model]["Accuracy"] = _value(metrics["overall"]["macro_accuracy"])
            for name, label in section_labels.items():
                rows[model][label] = _value(metrics["groups"][name]["macro_accuracy"])
            for name, label in relation_labels.items():
                rows[model][label] = _value(metrics["subsets"][name]["accuracy"])
    labels = ["Accuracy", *section_labels.values(), *relation_labels.values()]
    table = _transpose(_table(rows, labels, groups), "relation")
    samples = [sum(int(s["n"]) for r, s in subsets.items() if r not in excluded)]
    samples += [int(sections[name]["n"]) for name in section_labels]
    samples += [int(subsets[name]["n"]) for name in relation_labels]
    table[SAMPLES_COLUMN] = pd.Series(samples, index=table.index, dtype="int64")
    return table


def _check_same_relations(
    reference: tuple[str, Mapping[str, Any]], model: str, metrics: Mapping[str, Any]
) -> None:
    """Raise ``ValueError`` unless ``metrics`` has the reference's relations, n and exclusions."""
    first, ref = reference
    ref_n = {name: int(s["n"]) for name, s in ref["subsets"].items()}
    n = {name: int(s["n"]) for name, s in metrics["subsets"].items()}
    if n != ref_n:
        diff = sorted(k for k in ref_n.keys() | n.keys() if ref_n.get(k) != n.get(k))
        raise ValueError(f"# Samples differ between {first!r} and {model!r} for relations {diff}")
    if set(ref.get("excluded", {})) != set(metrics.get("excluded", {})):
        raise ValueError(f"excluded relations differ between {first!r} and {model!r}")
    if set(ref.get("groups", {})) != set(metrics.get("groups", {})):
        raise ValueError(f"relation groups differ between {first!r} and {model!r}")


def sugarcrepe_table(
    results: Results,
    benchmark: str = "sugarcrepe",
    columns: Mapping[str, str] = SUGARCREPE_COLUMNS,
    average_label: str = "Avg (micro)",
    groups: Groups | None = None,
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
    return _table(rows, [*columns.values(), average_label], groups)


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
    results: Results,
    benchmark: str,
    sugarcrepe: str | None,
    scores: Sequence[str],
    groups: Groups | None,
    random_row: bool = False,
) -> pd.DataFrame:
    """A leading SugarCrepe micro-accuracy column, then overall BiVLC ``scores``; with
    ``random_row`` a first ``Random`` row of chance levels (BiVLC Table 2)."""
    rows, labels = _bivlc_rows(results, benchmark, scores, ())
    if sugarcrepe is not None:
        for model, benchmarks in results.items():
            metrics = benchmarks.get(sugarcrepe)
            if metrics is not None:
                rows[model] = {"SugarCrepe": _value(metrics["overall"]["accuracy"])} | rows[model]
        labels = ["SugarCrepe", *labels]
    table = _table(rows, labels, groups)
    if not random_row:
        return table
    cells = {benchmark: {s: s for s in scores}}
    if sugarcrepe is not None:
        cells[sugarcrepe] = {None: "SugarCrepe"}
    return _lead_with(table, RANDOM, _chance_row(results, cells))


def bivlc_table2(
    results: Results,
    benchmark: str = "bivlc",
    sugarcrepe: str | None = "sugarcrepe",
    groups: Groups | None = None,
) -> pd.DataFrame:
    """BiVLC Table 2 layout: SugarCrepe accuracy, then BiVLC I2T, T2I, Group; the Random row
    first (chance levels: 50, 25, 25, 16.67)."""
    return _sugarcrepe_and_bivlc(results, benchmark, sugarcrepe, BIVLC_MAIN, groups,
                                 random_row=True)


def bivlc_table3(
    results: Results,
    benchmark: str = "bivlc",
    sugarcrepe: str | None = "sugarcrepe",
    groups: Groups | None = None,
) -> pd.DataFrame:
    """BiVLC Table 3 layout: SugarCrepe, I2T, T2I, Group, then Ipos2T, Ineg2T, Tpos2I, Tneg2I."""
    return _sugarcrepe_and_bivlc(
        results, benchmark, sugarcrepe, (*BIVLC_MAIN, *BIVLC_DIRECTIONAL), groups
    )


def bivlc_table6(
    results: Results,
    benchmark: str = "bivlc",
    types: Sequence[str] = tuple(BIVLC_TYPE_LABELS),
    groups: Groups | None = None,
) -> pd.DataFrame:
    """BiVLC Table 6 layout: I2T, T2I, Group per category (Replace, Swap, Add)."""
    rows, labels = _bivlc_rows(results, benchmark, BIVLC_MAIN, types)
    return _table(rows, labels, groups)


def _format_number(value: Any, decimals: int) -> str:
    """Fixed-decimal text for a float, digits for an int, ``-`` for a missing value."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.{decimals}f}"
    return str(value)


def to_markdown(df: pd.DataFrame, decimals: int = MD_DECIMALS) -> str:
    """A GitHub-markdown table; ``X`` + ``X std`` columns are shown as ``mean ± std``.

    Integer columns are shown without decimals. A two-level index ``(section, row)`` is
    shown as a bold section row whenever the section changes, then the rows' labels.
    """
    std_columns = {c for c in df.columns if _is_std(c, list(df.columns))}
    columns = [c for c in df.columns if c not in std_columns]
    sectioned = df.index.nlevels == 2
    header = [str(df.index.names[-1] or ""), *(str(c) for c in columns)]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---", *("---:" for _ in columns)]) + "|",
    ]
    section: Any = None
    for index, *values in df.itertuples(name=None):
        row = dict(zip(df.columns, values, strict=True))
        if sectioned:
            if index[0] != section:
                section = index[0]
                lines.append(_markdown_row([f"**{section}**", *("" for _ in columns)]))
            index = index[1]
        cells = [str(index)]
        for column in columns:
            text = _format_number(row[column], decimals)
            std = column + STD_SUFFIX
            if std in std_columns and text != "-":
                std_text = _format_number(row[std], decimals)
                if std_text != "-":
                    text = f"{text} ± {std_text}"
            cells.append(text)
        lines.append(_markdown_row(cells))
    return "\n".join(lines) + "\n"


def _markdown_row(cells: Sequence[str]) -> str:
    """One markdown table row, ``|`` inside cells escaped."""
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def to_csv_text(df: pd.DataFrame, decimals: int = CSV_DECIMALS, index: bool = True) -> str:
    """CSV text with fixed decimals and ``\\n`` line endings."""
    return df.to_csv(float_format=f"%.{decimals}f", lineterminator="\n", index=index)


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


def write_csv(df: pd.DataFrame, path: Path | str, index: bool = True) -> Path:
    """Write one table as CSV (4 decimals) atomically."""
    _atomic_write(Path(path), to_csv_text(df, index=index))
    return Path(path)


def read_results(paths: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """``{model: {benchmark: record}}`` from metric JSON files (each names both)."""
    results: dict[str, dict[str, Any]] = {}
    for path in map(Path, paths):
        record = json.loads(path.read_text())
        results.setdefault(record["model"], {})[record["benchmark"]] = record
    return results


def write_table(df: pd.DataFrame, stem: Path | str, notes: Sequence[str] = ()
                ) -> tuple[Path, Path]:
    """Write ``{stem}.csv`` (4 decimals) and ``{stem}.md`` (2 decimals, then ``notes`` as
    paragraphs) atomically."""
    stem = Path(stem)
    csv_path = stem.with_name(stem.name + ".csv")
    md_path = stem.with_name(stem.name + ".md")
    _atomic_write(csv_path, to_csv_text(df))
    _atomic_write(md_path, to_markdown(df) + "".join(f"\n{note}\n" for note in notes))
    return csv_path, md_path


BISON_COLUMNS = {
    "list_shapes": "Shapes",
    "list_attributes": "Attributes",
    "relation_coarse": "Relation (coarse)",
    "relation_fine": "Relation (fine)",
    "there_relation": "There is",
    "definite_relation": "Definite",
    "relation_and": "Relation + object",
}


COCO_1K_COLUMNS = {"t2i_r1": "T2I R@1", "t2i_r5": "T2I R@5",
                   "i2t_r1": "I2T R@1", "i2t_r5": "I2T R@5"}  # BISON Tables 3 / 7


def bison_table(results: Results, groups: Groups | None = None,
                retrieval: str | None = None) -> pd.DataFrame:
    """BISON accuracy overall (first column), then per caption template of the query (world
    captions only: templates no model has, e.g. all of them for BISON's release, are left out);
    with ``retrieval`` (a retrieval benchmark scored in folds: COCO-1K) its fold-averaged R@1
    and R@5 both ways beside it, as BISON Tables 3 and 7 set them."""
    table = sugarcrepe_table(results, "bison", BISON_COLUMNS, "Accuracy", groups)
    table = table.dropna(axis=1, how="all")
    first = [c for c in table.columns if c in ("Accuracy", "Accuracy std")]
    table = table[first + [c for c in table.columns if c not in first]]
    if retrieval is None:
        return table
    rows = {model: {label: _value(m[retrieval]["folds"]["overall"][key])
                    for key, label in COCO_1K_COLUMNS.items()}
            for model, m in results.items() if "folds" in m.get(retrieval, {})}
    rows = {model: rows.get(model, {}) for model in results}
    folds = _table(rows, list(COCO_1K_COLUMNS.values()), groups)
    return table.join(folds.dropna(axis=1, how="all"))


BISON_ALTERATION_LABELS = {
    "negate": "Negation", "synonym": "Synonym", "hypernym": "Hypernym",
    "permute": "Permutation", "reverse": "Reversal",
}


def bison_fig9_table(results: Results, groups: Groups | None = None) -> pd.DataFrame:
    """BISON Fig. 9: unaltered accuracy, then per query alteration the % of items whose
    predicted image changed and the accuracy on the altered queries."""
    rows: dict[str, dict[str, float]] = {}
    columns: list[str] = ["Accuracy"]
    for model, benchmarks in results.items():
        metrics = benchmarks.get("bison_altered")
        if metrics is None:
            rows[model] = {}
            continue
        row = {"Accuracy": _value(metrics["overall"]["accuracy"])}
        subsets = metrics["subsets"]
        names = [n for n in BISON_ALTERATION_LABELS if n in subsets]  # the paper's order
        names += sorted(set(subsets) - set(names) - {"original"})
        for name in names:
            entry = subsets[name]
            label = BISON_ALTERATION_LABELS.get(name, name)
            for column, value in ((f"{label} changed %", entry["changed_prediction"]),
                                  (f"{label} acc.", entry["accuracy"])):
                row[column] = _value(value)
                if column not in columns:
                    columns.append(column)
        rows[model] = row
    return _table(rows, columns, groups)


WINOGROUND_SCORES = {"I2T": "Text", "T2I": "Image", "Group": "Group"}
WINOGROUND_SUBSET_LABELS = {"swap_obj": "Swap obj", "swap_att": "Swap att",
                            "swap_phrases": "Swap phrases"}


def winoground_table(results: Results, benchmark: str = "winoground",
                     groups: Groups | None = None) -> pd.DataFrame:
    """Winoground layout: text, image and group score overall, then per subset (the world's
    swap kinds or Winoground's tags), ``"{subset} {score}"``."""
    rows: dict[str, dict[str, float]] = {}
    columns = list(WINOGROUND_SCORES.values())
    for model, benchmarks in results.items():
        metrics = benchmarks.get(benchmark)
        row: dict[str, float] = {}
        if metrics is not None:
            row = {label: _value(metrics["overall"][key])
                   for key, label in WINOGROUND_SCORES.items()}
            for name, entry in metrics["subsets"].items():
                for key, score in WINOGROUND_SCORES.items():
                    column = f"{WINOGROUND_SUBSET_LABELS.get(name, name)} {score}"
                    row[column] = _value(entry[key])
                    if column not in columns:
                        columns.append(column)
        rows[model] = row
    return _table(rows, columns, groups)


TABLE_BUILDERS = {
    "bison": bison_table,
    "bison_fig9": bison_fig9_table,
    "aro": aro_table,
    "sugarcrepe": sugarcrepe_table,
    "bivlc_table2": bivlc_table2,
    "bivlc_table3": bivlc_table3,
    "bivlc_table6": bivlc_table6,
    "winoground": winoground_table,
    "aro_table2": aro_table2,
    "aro_table6": aro_table6,
}
