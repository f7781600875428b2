"""VisualGPTScore tables and figure (Lin et al.) from the metric records of every model and
the α-curve records of generative models (`vlcomp.metrics.alpha_curves`,
``results/metrics/{model}/{benchmark}_alpha.{json,csv}``).

* ``method_table`` (Table 1): each benchmark's headline for chance, every ITM, generative
  (VisualGPTScore, α = 0) and discriminative model, and the best discriminative one.
* ``prior_table`` (Table 2): the accuracy of a language prior alone (each text-only LM's
  P_LLM(t), a captioner's P(t|null): the text with the highest prior wins, whatever the
  image), of P(t|i) (α = 0) and of PMI (α = 1).
  On 2 × 2 pair benchmarks also the per-image accuracy (chance 50 %).
* ``alpha_table`` (Table 4): α = 0, α = 1 and α* picked on validation halves (held-out
  accuracy and α*, mean ± std over repeats), and the oracle α* picked on all items.
* ``alpha_curves_figure`` (Table 3's curves): accuracy against α, one panel per benchmark.
* ``null_sampling_table`` (appendix Table 5): the oracle α* text score with P(t)
  from n null images, mean and std over sampling seeds.

Rows are methods and columns benchmarks, as in the paper (and its published records).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.benchmarks import PAIR_CHANCE_FRACTIONS, chance_accuracy
from vlcomp.report.labels import DISPLAY_NAMES

BENCHMARK_NAMES = {b: n for b, n in DISPLAY_NAMES.items() if b != "bison_altered"}
PAIR_KINDS = ("bivlc", "winoground")
# Table 1: per metric kind, (column suffix, key of the metric record's ``overall``)
HEADLINES = {
    "aro_relation": [("", "macro_accuracy")],
    "aro_attribution": [("", "macro_accuracy")],
    "order": [("", "mean")],
    "sugarcrepe": [("", "accuracy")],
    "bivlc": [(" I2T", "I2T"), (" T2I", "T2I"), (" Group", "Group")],
    "winoground": [(" Text Score", "I2T"), (" Image Score", "T2I"), (" Group Score", "Group")],
    "bison": [("", "accuracy")],
    "crepe": [("", "accuracy")],
    "vl_checklist": [("", "relation")],
}
PRIOR_MEASURES = {" P(t|null)": "accuracy_prior_only", "": "accuracy_alpha0",
                  " PMI": "accuracy_alpha1"}
LLM_ROW = "P_LLM(t)"  # Table 2's text-only LM rows: "P_LLM(t) {LM label}"
PER_IMAGE = {" P(t|null)": "prior_only", "": "alpha0", " PMI": "alpha1"}

Records = Mapping[str, Mapping[str, Mapping[str, Any]]]  # model -> benchmark -> record


def benchmark_name(benchmark: str, names: Mapping[str, str] | None = None) -> str:
    """Display name: ``names`` first (e.g. "Winoground-style" for the world's set)."""
    return (names or {}).get(benchmark, BENCHMARK_NAMES.get(benchmark, benchmark))


def alpha_column(benchmark: str, metric: str, names: Mapping[str, str] | None = None) -> str:
    """The α tables' column of a benchmark: its name, plus " Text Score" for 2 × 2 pairs."""
    name = benchmark_name(benchmark, names)
    return f"{name} Text Score" if metric in PAIR_KINDS else name


def _benchmarks(records: Records) -> list[str]:
    names = {b for per_model in records.values() for b in per_model}
    order = list(BENCHMARK_NAMES)
    return sorted(names, key=lambda b: (order.index(b) if b in order else len(order), b))


def _frame(rows: dict[str, dict[str, float]], columns: Sequence[str],
           index_name: str = "method") -> pd.DataFrame:
    data = [[row.get(c, np.nan) for c in columns] for row in rows.values()]
    df = pd.DataFrame(data, index=pd.Index(list(rows), name=index_name), columns=list(columns),
                      dtype=float)
    return df.dropna(axis=1, how="all")


def chance_level(items: pd.DataFrame, metric: str) -> dict[str, float]:
    """Accuracy (%) of random scores on a benchmark, per ``overall`` key of its headline
    (`vlcomp.metrics.benchmarks.chance_accuracy`, unrounded): 1/k per image→text item with
    k texts (t2i: k images); a 2 × 2 pair's text and image scores 25 %, its group score 1/6."""
    if metric in PAIR_KINDS:
        return {key: 100 * PAIR_CHANCE_FRACTIONS[key] for _, key in HEADLINES[metric]}
    level = chance_accuracy(items, rounded=False)
    return {key: level for _, key in HEADLINES[metric]}


def method_table(results: Records, metrics: Mapping[str, str],
                 chance: Mapping[str, Mapping[str, float]], groups: Mapping[str, Sequence[str]],
                 roles: Mapping[str, str], names: Mapping[str, str] | None = None,
                 ) -> pd.DataFrame:
    """Table 1. ``results``: model → benchmark → metric record; ``metrics``: benchmark →
    metric kind; ``groups``: label → model ids (seeds are averaged); ``roles``: label →
    ``itm``, ``generative`` or ``discriminative`` (row order, and who can be the best
    discriminative)."""
    columns: list[tuple[str, str, str]] = []  # (column, benchmark, key)
    for benchmark in _benchmarks({"": {b: {} for b in metrics}}):
        for suffix, key in HEADLINES.get(metrics[benchmark], []):
            columns.append((benchmark_name(benchmark, names) + suffix, benchmark, key))
    rows: dict[str, dict[str, float]] = {
        "Random": {c: chance[b][k] for c, b, k in columns if b in chance}}
    order = {"itm": 0, "generative": 1, "discriminative": 2}
    for label in sorted(groups, key=lambda g: order.get(roles.get(g, ""), 3)):
        row = {}
        for column, benchmark, key in columns:
            values = [results[m][benchmark]["overall"][key] for m in groups[label]
                      if benchmark in results.get(m, {})]
            values = [v for v in values if v is not None]
            if values:
                row[column] = float(np.mean(values))
        rows[label] = row
    discriminative = [g for g in groups if roles.get(g) == "discriminative"]
    if discriminative:
        rows["Best discriminative"] = {
            c: max(rows[g][c] for g in discriminative if c in rows[g])
            for c, _, _ in columns if any(c in rows[g] for g in discriminative)}
    return _frame(rows, [c for c, _, _ in columns])


def llm_row(label: str) -> str:
    """Table 2's row of a text-only LM prior (``visualgptscore.llm`` entry label)."""
    return f"{LLM_ROW} {label}"


def prior_table(records: Records, labels: Mapping[str, str],
                names: Mapping[str, str] | None = None,
                llms: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Table 2: per model, the accuracy of P(t|null), P(t|i) (the row named by the model's
    label) and PMI on every benchmark; on pair benchmarks also their per-image accuracy
    (``"{name} Per-Image"``). ``llms`` (name -> label of each text-only LM prior, whose
    accuracy a record holds as ``accuracy_prior_only_llm_{name}``) add one row per LM,
    ``P_LLM(t) {label}``, first: a text-only score is the same whichever captioner's record
    carries it (the first one's is shown)."""
    rows: dict[str, dict[str, float]] = {llm_row(lb): {} for lb in (llms or {}).values()}
    columns: list[str] = []
    for model, per_model in records.items():
        label = labels.get(model, model)
        for benchmark in _benchmarks({model: per_model}):
            record = per_model[benchmark]
            column = alpha_column(benchmark, record["metric"], names)
            per_image = f"{benchmark_name(benchmark, names)} Per-Image"
            for col in (column, per_image if "per_image" in record else None):
                if col and col not in columns:
                    columns.append(col)
            for name, lm_label in (llms or {}).items():
                key = f"accuracy_prior_only_llm_{name}"
                if key in record:
                    rows[llm_row(lm_label)].setdefault(column, record[key])
            for measure, key in PRIOR_MEASURES.items():
                if key in record:
                    rows.setdefault(label + measure, {})[column] = record[key]
            for measure, key in PER_IMAGE.items():
                if "per_image" in record:
                    rows.setdefault(label + measure, {})[per_image] = record["per_image"][key]
    return _frame({row: values for row, values in rows.items() if values}, columns)


def null_prior_row(row: str, n: int) -> str:
    """A Table 4 row with VisualGPTScore Table 6's null-image prior of ``n`` images."""
    return f"{row} null n={n}"


def null_sampling_row(label: str, n: int, source: str = "null") -> str:
    """A row of VisualGPTScore appendix Table 5: ``label``'s oracle α* with P(t) from n null
    images (``source="train"``: n sampled training images, the paper's LAION rows)."""
    if source == "train":
        return f"{label} (alpha=alpha*) train n={n}"
    return null_prior_row(f"{label} (alpha=alpha*)", n)


def null_sampling_table(summaries: Mapping[str, pd.DataFrame], benchmark: str,
                        names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Appendix Table 5: per model label, image source and count n (`null_sampling_row`),
    the text score at the oracle α* and that α*, each with its std over seeds
    (``summaries``: label -> `vlcomp.metrics.null_sampling.null_sampling_summary`, indexed
    by source and n)."""
    score = alpha_column(benchmark, "winoground", names)
    alpha = f"{benchmark_name(benchmark, names)} alpha*"
    columns = [score, f"{score} std", alpha, f"{alpha} std"]
    rows = {null_sampling_row(label, int(n), str(source)): {
        score: row.accuracy, f"{score} std": row.accuracy_std,
        alpha: row.alpha, f"{alpha} std": row.alpha_std}
        for label, summary in summaries.items() for (source, n), row in summary.iterrows()}
    return _frame(rows, columns)


def alpha_table(records: Records, labels: Mapping[str, str],
                names: Mapping[str, str] | None = None,
                retrieval: Records | None = None, itm: Records | None = None,
                itm_retrieval: Records | None = None) -> pd.DataFrame:
    """Table 4: per model, α = 0 (the row named by its label), α = 1 and the validation α*
    (held-out accuracy mean ± std over repeats, and α* in ``"{name} alpha*"``), then the
    oracle α* picked on all items. ``retrieval`` records (`generative_retrieval`) add
    ``"{name} I2T R@1"``/``R@5`` at each α, their α* and the raw ``T2I`` recalls.

    Table 4a's ITMScore rows come first, one per ITM model (labelled by ``labels``): its
    held-out accuracy on the same halves (``itm``: `held_out_accuracy` records, mean ± std)
    and its I2T R@1 / R@5 (``itm_retrieval``: the model's retrieval metric records, which
    rank by its embeddings)."""
    rows: dict[str, dict[str, float]] = {}
    columns: list[str] = []

    def put(row: str, values: dict[str, float]) -> None:
        rows.setdefault(row, {}).update(values)
        columns.extend(c for c in values if c not in columns)

    for model in dict.fromkeys([*(itm or {}), *(itm_retrieval or {})]):
        label = labels.get(model, model)
        for benchmark in _benchmarks({model: (itm or {}).get(model, {})}):
            record = itm[model][benchmark]  # type: ignore[index]
            held = record["validation"]["summary"]["test_accuracy"]
            col = alpha_column(benchmark, record["metric"], names)
            put(label, {col: held["mean"], f"{col} std": held["std"]})
        for benchmark, record in sorted((itm_retrieval or {}).get(model, {}).items()):
            name = benchmark_name(benchmark, names)
            put(label, {f"{name} I2T R@1": record["overall"]["i2t_r1"],
                        f"{name} I2T R@5": record["overall"]["i2t_r5"]})

    for model, per_model in records.items():
        label = labels.get(model, model)
        for benchmark in _benchmarks({model: per_model}):
            record = per_model[benchmark]
            summary = record["validation"]["summary"]
            col = alpha_column(benchmark, record["metric"], names)
            alpha = f"{benchmark_name(benchmark, names)} alpha*"
            for row, key in ((label, "test_accuracy_alpha0"),
                             (f"{label} (alpha=1)", "test_accuracy_alpha1"),
                             (f"{label} (alpha=alpha*val)", "test_accuracy")):
                put(row, {col: summary[key]["mean"], f"{col} std": summary[key]["std"]})
            put(f"{label} (alpha=alpha*val)", {alpha: summary["alpha"]["mean"],
                                               f"{alpha} std": summary["alpha"]["std"]})
            put(f"{label} (oracle alpha*)", {col: record["oracle"]["accuracy"],
                                             alpha: record["oracle"]["alpha"]})
    for model, per_model in (retrieval or {}).items():
        label = labels.get(model, model)
        for benchmark in sorted(per_model):
            record, name = per_model[benchmark], benchmark_name(benchmark, names)
            i2t = {f"{name} I2T R@1": "i2t_r1", f"{name} I2T R@5": "i2t_r5"}
            put(label, {c: record["overall"][k] for c, k in i2t.items()})
            put(f"{label} (alpha=1)", {c: record["alpha1"][k] for c, k in i2t.items()})
            put(f"{label} (alpha=alpha*val)", {
                **{c: record["alpha_val"][k] for c, k in i2t.items()},
                f"{name} alpha*": record["alpha_val"]["alpha"]})
            put(f"{label} (oracle alpha*)", {f"{name} I2T R@1": record["oracle"]["i2t_r1"],
                                             f"{name} alpha*": record["oracle"]["alpha"]})
            put(label, {f"{name} T2I R@1": record["overall"]["t2i_r1"],
                        f"{name} T2I R@5": record["overall"]["t2i_r5"]})
            null = record.get("null")
            if null:  # Table 6's "Null Images": P(t) from n Gaussian images instead
                n = null["n_images"]
                put(null_prior_row(f"{label} (alpha=1)", n),
                    {c: null["alpha1"][k] for c, k in i2t.items()})
                put(null_prior_row(f"{label} (alpha=alpha*val)", n), {
                    **{c: null["alpha_val"][k] for c, k in i2t.items()},
                    f"{name} alpha*": null["alpha_val"]["alpha"]})
    return _frame(rows, columns)


def alpha_curves_figure(curves: Mapping[tuple[str, str], pd.DataFrame],
                        records: Records, labels: Mapping[str, str], path: Path | str,
                        title: str | None = None, names: Mapping[str, str] | None = None,
                        pdf: Path | str | None = None) -> Path:
    """Accuracy (%) against α, one panel per benchmark, one line per model; a dot marks each
    model's oracle α*. ``curves`` maps (model, benchmark) to its curve (``alpha``,
    ``accuracy``)."""
    # here, not at module load: the workflow's parse and the table jobs need no matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from vlcomp.report.figures import _save_png

    benchmarks = _benchmarks(records)
    cols = min(3, len(benchmarks)) or 1
    rows_n = int(np.ceil(len(benchmarks) / cols)) or 1
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows_n + 0.6))
    FigureCanvasAgg(fig)
    for k, benchmark in enumerate(benchmarks):
        ax = fig.add_subplot(rows_n, cols, k + 1)
        for model in records:
            curve = curves.get((model, benchmark))
            if curve is None:
                continue
            line = ax.plot(curve["alpha"], curve["accuracy"], lw=1.5,
                           label=labels.get(model, model))[0]
            oracle = records[model][benchmark]["oracle"]
            ax.plot([oracle["alpha"]], [oracle["accuracy"]], "o", color=line.get_color(), ms=4)
        metric = next(r[benchmark]["metric"] for r in records.values() if benchmark in r)
        ax.set_title(alpha_column(benchmark, metric, names), fontsize=10)
        ax.set_xlabel("α")
        ax.set_ylabel("accuracy (%)")
        ax.set_xlim(0, 1)
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=7)
    fig.tight_layout(rect=(0, 0, 1, 0.93 if title else 1))
    return _save_png(fig, path, title, pdf)


IntervalKey = tuple[str, str]  # (model, benchmark)


def _bounded(records: Records, intervals: Mapping[IntervalKey, pd.DataFrame],
             column: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Copies of the records whose numbers are replaced by their interval's ``column``
    (``value``, ``ci_low`` or ``ci_high``; NaN for a number without an interval)."""
    def swap(node: Any, path: str, found: Mapping[str, float]) -> Any:
        if isinstance(node, dict):
            return {k: swap(v, f"{path}{k}" if not path else f"{path}.{k}", found)
                    for k, v in node.items()}
        if isinstance(node, float):
            return found.get(path, float("nan"))
        return node

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for model, per_model in records.items():
        for benchmark, record in per_model.items():
            table = intervals.get((model, benchmark))
            found = ({} if table is None
                     else dict(zip(table.measure, table[column], strict=True)))
            out.setdefault(model, {})[benchmark] = swap(record, "", found)
    return out


def interval_tables(records: Records, retrieval: Records,
                    intervals: Mapping[IntervalKey, pd.DataFrame], labels: Mapping[str, str],
                    names: Mapping[str, str] | None = None,
                    llms: Mapping[str, str] | None = None) -> dict[str, pd.DataFrame]:
    """Tables 2 and 4 as long ``row, column, value, ci_low, ci_high`` frames: every cell
    with a bootstrap interval (`vlcomp.metrics.alpha_uncertainty`), laid out by the same
    builders as the tables themselves."""
    def build(bound: str) -> dict[str, pd.DataFrame]:
        rec, ret = (_bounded(records, intervals, bound), _bounded(retrieval, intervals, bound))
        return {"table2": prior_table(rec, labels, names, llms),
                "table4": alpha_table(rec, labels, names, ret)}

    tables = {bound: build(bound) for bound in ("value", "ci_low", "ci_high")}
    out = {}
    for name, value in tables["value"].items():
        stacked = {bound: tables[bound][name].reindex_like(value).stack(future_stack=True)
                   for bound in tables}
        frame = pd.DataFrame(stacked).dropna().rename_axis(["row", "column"]).reset_index()
        out[name] = frame[["row", "column", "value", "ci_low", "ci_high"]]
    return out
