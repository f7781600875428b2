"""Which published numbers a configuration will set a reproduced number beside, before it runs.

`plan_cells` reads a configuration (no results) and predicts, per reproduced paper table
(`vlcomp.report.published.COMPARED`), the cells it will hold: rows named as the tables name
them (display labels and seed groups; ``gallery / strategy / label`` for ARO Tables 3-4),
columns as the table builders label them. `coverage` then walks every published cell
(``published.yaml``) and says which reproduced cell faces it, or why none will:

* ``faced``: a reproduced cell will stand beside it;
* ``no table``: vlcomp builds no table for that published table, or this configuration
  does not build it (its benchmark is not configured);
* ``no row``: no configured model reproduces that published row (e.g. X-VLM);
* ``no column``: no configured benchmark or table column gives that published column.

Cells that exist only if the data holds them (ARO's per-relation columns) count as faced when
the benchmark reads the released data, and are marked ``data``. A published row is matched
to the labels of the models that reproduce it (`row_counterparts`): a model's own label, or
the row its entry names under ``published_as`` for that paper.

``python -m vlcomp.report.coverage --configfile config/paper.yaml`` prints every published
cell with its counterpart or reason, then ``published cells with a reproduced counterpart:
N/M``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vlcomp.config import (
    expand_models,
    has_embeddings,
    is_captioner,
    model_groups,
    model_role,
    text_priors,
)
from vlcomp.report.labels import (
    ALPHA_KINDS,
    aro6_classification,
    aro6_downstream,
    aro_columns,
    benchmark_kind,
    configured_benchmarks,
    folded_retrieval,
    vgs_names,
)
from vlcomp.report.published import (
    COMPARED,
    WORLD_ALIASES,
    load_published,
    published_only_reason,
)

STD = " std"
Cell = tuple[str, str]  # (row, column) as `models_as_rows` shows a reproduced table


@dataclass
class TableCells:
    """The cells a reproduced table will hold; ``data``: cells that exist only if the
    released data has them (or the run's machine can compute them: SPICE's jars)."""

    cells: set[Cell] = field(default_factory=set)
    data: set[Cell] = field(default_factory=set)

    def add(self, rows: Iterable[str], columns: Iterable[str], data: bool = False) -> None:
        new = {(r, c) for r in rows for c in columns}
        self.cells |= new
        if data:
            self.data |= new


@dataclass(frozen=True)
class Run:
    """What a configuration runs, read from the configuration alone."""

    config: Mapping[str, Any]
    models: Mapping[str, Mapping[str, Any]]
    groups: Mapping[str, Sequence[str]]
    benchmarks: Sequence[str]

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Run:
        models = expand_models(dict(config))
        return cls(config, models, model_groups(models), configured_benchmarks(config))

    def kind(self, benchmark: str) -> str:
        return benchmark_kind(benchmark)

    def has(self, model: str, benchmark: str) -> bool:
        """Whether a model gets a metric record of a benchmark (captioners and BLIP-2's
        Q-Former ITM: no embeddings, so no retrieval or robustness)."""
        if benchmark not in self.benchmarks:
            return False
        if self.kind(benchmark) in ("retrieval", "robustness"):
            return has_embeddings(self.models[model])
        return True

    def labels_with(self, benchmark: str) -> list[str]:
        """Row labels (seed groups) whose every member has the benchmark."""
        return [label for label, members in self.groups.items()
                if all(self.has(m, benchmark) for m in members)]

    def spread(self, label: str, benchmark: str) -> bool:
        """Whether a row's ``std`` column holds a number: several seeds, or one model's
        spread over Order's perturbation seeds."""
        return len(self.groups[label]) > 1 or self.kind(benchmark) == "order"

    def role(self, label: str) -> str:
        """VisualGPTScore Table 1's role of a row (`vlcomp.config.model_role`)."""
        return model_role(self.models[self.groups[label][0]])

    def generative(self, retrieval: bool = False) -> list[str]:
        """Captioner rows (``retrieval``: those scoring the log P(t|i) galleries)."""
        return [label for label, members in self.groups.items()
                if is_captioner(self.models[members[0]])
                and (not retrieval or self.models[members[0]].get("retrieval", True))]

    def source(self, benchmark: str) -> str:
        return self.config["benchmarks"].get(benchmark, {}).get("source", "world")


def _with_std(run: Run, table: TableCells, benchmark: str, columns: Iterable[str],
              labels: Sequence[str] | None = None) -> None:
    labels = run.labels_with(benchmark) if labels is None else labels
    for column in columns:
        table.add(labels, [column])
        table.add([lb for lb in labels if run.spread(lb, benchmark)], [column + STD])


def _aro(run: Run, chance: bool = False) -> TableCells:
    from vlcomp.report.tables import CHANCE_LEVEL

    table = TableCells()
    for benchmark, column in aro_columns(run.benchmarks).items():
        _with_std(run, table, benchmark, [column])
        if chance:
            table.add([CHANCE_LEVEL], [column])
    return table


def _aro_table2(run: Run, relations: Iterable[str]) -> TableCells:
    table = TableCells()
    if "vg_relation" not in run.benchmarks:
        return table
    from vlcomp.report.tables import EXCLUDED_SUFFIX
    from vlcomp.world.scene import RELATIONS

    labels = run.labels_with("vg_relation")
    table.add(labels, ["Accuracy"])
    released = run.source("vg_relation") == "aro"  # the released data's relations, else the
    names = relations if released else RELATIONS  # world grammar's
    # a section holds the relations the data has of it (a subset may have none)
    sections = run.config["benchmarks"]["vg_relation"].get("relation_groups", {})
    table.add(labels, [f"Accuracy ({name})" for name in sections], data=released)
    excluded = set(run.config["benchmarks"]["vg_relation"].get("symmetric_relations", []))
    table.add(labels, [r + EXCLUDED_SUFFIX if r in excluded else r for r in names],
              data=released)
    return table


def _aro_table6(run: Run) -> TableCells:
    from vlcomp.benchmarks.classification_plan import classification_plan

    table = _aro(run)
    for benchmark, keys in aro6_downstream(run.benchmarks).items():
        _with_std(run, table, benchmark, keys.values())
    plan = classification_plan(run.config)  # CIFAR / ImageNet rows of the models classified
    labels = [label for label, members in run.groups.items()
              if all(m in plan.models for m in members)]
    for keys in aro6_classification(plan.datasets, plan.protocols).values():
        table.add(labels, keys.values())
        table.add([lb for lb in labels if len(run.groups[lb]) > 1],
                  [row + STD for row in keys.values()])
    return table


def _robustness(run: Run, strategies: Mapping[str, str], kind: str) -> TableCells:
    from vlcomp.metrics.robustness import CLEAN
    from vlcomp.report.robustness import ARO_COLUMNS, GALLERY_LABELS

    table = TableCells()
    spec = run.config["benchmarks"].get("robustness", {})
    if not spec:
        return table
    chosen = set(spec.get(f"{kind}_perturbations", [])) | {CLEAN}
    labels = run.labels_with("robustness")
    for gallery in spec.get("perturbed_galleries", []):
        if "aro" not in spec["galleries"][gallery].get("tables", ["aro"]):
            continue
        for name, strategy in strategies.items():
            if name not in chosen:
                continue
            rows = [f"{GALLERY_LABELS.get(gallery, gallery)} / {strategy} / {lb}"
                    for lb in labels]
            table.add(rows, ARO_COLUMNS)
            if len(spec.get("seeds", [0])) > 1 and name != CLEAN:
                table.add(rows, [c + STD for c in ARO_COLUMNS])
    return table


def _bivlc(run: Run, scores: Sequence[str], sugarcrepe: bool = True,
           random_row: bool = False) -> TableCells:
    from vlcomp.report.tables import RANDOM

    table = TableCells()
    if "bivlc" not in run.benchmarks:
        return table
    _with_std(run, table, "bivlc", scores)
    if random_row:
        table.add([RANDOM], scores)
    if sugarcrepe and "sugarcrepe" in run.benchmarks:
        _with_std(run, table, "sugarcrepe", ["SugarCrepe"], run.labels_with("bivlc"))
        if random_row:
            table.add([RANDOM], ["SugarCrepe"])
    return table


def _bivlc_table4(run: Run) -> TableCells:
    from vlcomp.report.generation import DETECTOR_COLUMNS

    table = TableCells()
    detectors = run.config.get("detectors")
    if not detectors:
        return table
    rows = [f"{run.models[m]['label']}/Det" for m in detectors["encoders"]]
    table.add(["Random", *rows], DETECTOR_COLUMNS.values())
    return table


def _bivlc_table1(run: Run) -> TableCells:
    """BiVLC Table 1: retrieval examples per category of SugarCrepe, BiVLC and Winoground."""
    from vlcomp.benchmarks.bivlc import category_columns

    table = TableCells()
    if "bivlc" in run.benchmarks:
        rows = [BIVLC_TABLE1_ROWS["SugarCrepe"], BIVLC_TABLE1_ROWS["BiVLC"]]
        if "winoground" in run.benchmarks:
            rows.append(_winoground_row(run.config))
            if run.source("winoground") == "release":  # its Relation tag: SWAP REL
                table.add(rows[-1:], ["SWAP REL"])
        table.add(rows, [*category_columns(), "Total"])
    return table


def _bivlc_table5(run: Run) -> TableCells:
    """BiVLC Table 5: TROHN-Text's instances per category (generated here: every category;
    the hub's release carries none, so only its total) of the first TROHN-Text run."""
    from vlcomp.benchmarks.bivlc_counts import INSTANCES_ROW, TABLE5_COLUMNS
    from vlcomp.config import expand_runs, released_rows

    table = TableCells()
    for run_spec in expand_runs(dict(run.config)).values():
        if run_spec.get("objective") != "trohn_text":
            continue
        released = released_rows(run.config, run_spec) == "trohn_text"
        table.add([INSTANCES_ROW], TABLE5_COLUMNS[-1:] if released else TABLE5_COLUMNS)
        break
    return table


def _sugarcrepe(run: Run) -> TableCells:
    from vlcomp.report.tables import SUGARCREPE_COLUMNS

    table = TableCells()
    if "sugarcrepe" in run.benchmarks:
        _with_std(run, table, "sugarcrepe", [*SUGARCREPE_COLUMNS.values(), "Avg (micro)"])
    return table


def _bison(run: Run) -> TableCells:
    from vlcomp.report.tables import COCO_1K_COLUMNS

    table = TableCells()
    if "bison" in run.benchmarks:
        _with_std(run, table, "bison", ["Accuracy"])
        folded = folded_retrieval(run.config)
        if folded:  # COCO-1K beside the accuracy (BISON Tables 3 / 7)
            _with_std(run, table, folded, COCO_1K_COLUMNS.values())
    return table


def _bison_table4(run: Run) -> TableCells:
    """BISON Tables 4 / 6 on the configured BLIP captioners: caption metrics and BISON
    accuracy, and the Human row's caption metrics (one reference against the others)."""
    from vlcomp.report.bison_captioners import ACCURACY, HUMAN

    table = TableCells()
    spec = run.config["benchmarks"].get("bison", {}).get("captioning")
    captioners = [label for label, members in run.groups.items()
                  if run.models[members[0]]["family"] == "hf_blip_lm"]
    if "bison" not in run.benchmarks or not spec or not captioners:
        return table
    metrics = list(spec.get("metrics", ["BLEU-4", "CIDEr-D", "SPICE", "METEOR"]))
    plain = [m for m in metrics if m != "SPICE"]
    table.add(captioners, [*plain, ACCURACY])
    table.add([HUMAN], plain)
    # SPICE runs where Stanford CoreNLP's jars are installed
    table.add([*captioners, HUMAN], [m for m in metrics if m == "SPICE"], data=True)
    return table


def _bison_section6(run: Run) -> TableCells:
    table = TableCells()
    spec = run.config["benchmarks"].get("bison", {})
    if "bison" in run.benchmarks and run.source("bison") == "release" and \
            "caption_scores" in spec:
        metrics = spec["caption_scores"].get("metrics", ["BLEU-4", "CIDEr-D", "METEOR", "SPICE"])
        # SPICE runs where Stanford CoreNLP's jars are installed (pycocoevalcap fetches them)
        table.add([m for m in metrics if m != "SPICE"], ["Accuracy"])
        table.add([m for m in metrics if m == "SPICE"], ["Accuracy"], data=True)
    return table


def _vgs_table1(run: Run) -> TableCells:
    from vlcomp.report.visualgptscore import HEADLINES, benchmark_name

    table = TableCells()
    if not run.generative():
        return table
    names = vgs_names(run.config)
    for benchmark in run.benchmarks:
        if run.kind(benchmark) not in (*ALPHA_KINDS, "bison"):
            continue
        columns = [benchmark_name(benchmark, names) + suffix
                   for suffix, _ in HEADLINES[run.kind(benchmark)]]
        table.add(["Random", "Best discriminative", *run.labels_with(benchmark)], columns)
    return table


def _vgs_table2(run: Run) -> TableCells:
    from vlcomp.report.visualgptscore import PAIR_KINDS, alpha_column, benchmark_name, llm_row

    table = TableCells()
    names = vgs_names(run.config)
    llms = [llm_row(lm["label"]) for lm in text_priors(dict(run.config))]
    for label in run.generative():
        measures = ["", " P(t|null)", " PMI"]
        for benchmark in run.benchmarks:
            kind = run.kind(benchmark)
            if kind not in ALPHA_KINDS:
                continue
            table.add([label + m for m in measures] + llms,
                      [alpha_column(benchmark, kind, names)])
            if kind in PAIR_KINDS:
                table.add([label + m for m in ("", " P(t|null)", " PMI")],
                          [f"{benchmark_name(benchmark, names)} Per-Image"])
    return table


def _vgs_table4(run: Run) -> TableCells:
    from vlcomp.config import retrieval_null_images
    from vlcomp.report.visualgptscore import alpha_column, benchmark_name, null_prior_row

    table = TableCells()
    names = vgs_names(run.config)
    halves = ("bivlc", "winoground")  # the ITM rows' held-out pair sets
    for label in [lb for lb in run.groups if run.role(lb) == "itm"] if run.generative() else []:
        for benchmark in run.benchmarks:
            kind, name = run.kind(benchmark), benchmark_name(benchmark, names)
            if kind in halves:
                column = alpha_column(benchmark, kind, names)
                table.add([label], [column, column + STD])
            elif kind == "retrieval" and label in run.labels_with(benchmark):
                table.add([label], [f"{name} I2T R@1", f"{name} I2T R@5"])
    for label in run.generative():
        variants = [label, f"{label} (alpha=1)", f"{label} (alpha=alpha*val)"]
        oracle = f"{label} (oracle alpha*)"
        for benchmark in run.benchmarks:
            kind, name = run.kind(benchmark), benchmark_name(benchmark, names)
            if kind in ALPHA_KINDS:
                column = alpha_column(benchmark, kind, names)
                table.add(variants, [column, column + STD])
                table.add([variants[2]], [f"{name} alpha*", f"{name} alpha*{STD}"])
                table.add([oracle], [column, f"{name} alpha*"])
            elif kind == "retrieval" and label in run.generative(retrieval=True):
                i2t = [f"{name} I2T R@1", f"{name} I2T R@5"]
                table.add(variants, i2t)
                table.add([variants[2], oracle], [f"{name} alpha*"])
                table.add([oracle], i2t[:1])
                table.add([label], [f"{name} T2I R@1", f"{name} T2I R@5"])
                n = retrieval_null_images(dict(run.config))
                if n:  # Table 6's "Null Images" rows
                    null = [null_prior_row(v, n) for v in variants[1:]]
                    table.add(null, i2t)
                    table.add(null[1:], [f"{name} alpha*"])
    return table


def _vgs_table5(run: Run) -> TableCells:
    """Appendix Table 5's null half (`visualgptscore.null_sampling`): per captioner and
    count, the oracle α* text score and α*, each with its std over seeds."""
    from vlcomp.config import null_sampling, null_sampling_models
    from vlcomp.report.visualgptscore import alpha_column, benchmark_name, null_sampling_row

    table = TableCells()
    models = null_sampling_models(dict(run.config))
    if not models:
        return table
    spec = null_sampling(dict(run.config))
    names = vgs_names(run.config)
    labels = [label for label, members in run.groups.items()
              if any(m in models for m in members)]
    score = alpha_column(spec["benchmark"], "winoground", names)
    alpha = f"{benchmark_name(spec['benchmark'], names)} alpha*"
    table.add([null_sampling_row(label, n) for label in labels for n in spec["counts"]],
              [score, score + STD, alpha, alpha + STD])
    return table


def _appendix_labels(run: Run, families: Iterable[str]) -> list[str]:
    """Rows of the appendix tables: the labels of the models of these families."""
    families = tuple(families)
    return [label for label, members in run.groups.items()
            if run.models[members[0]]["family"] in families]


def _vgs_table10(run: Run) -> TableCells:
    from vlcomp.report.visualgptscore import HEADLINES, benchmark_name
    from vlcomp.report.visualgptscore_appendix import BLIP2_FAMILIES, TABLE10_KINDS

    table = TableCells()
    labels = _appendix_labels(run, BLIP2_FAMILIES)
    names = vgs_names(run.config)
    for benchmark in run.benchmarks if labels else []:
        kind = run.kind(benchmark)
        if kind in TABLE10_KINDS:
            table.add(["Random", *labels], [benchmark_name(benchmark, names) + suffix
                                            for suffix, _ in HEADLINES[kind]])
    return table


def _vgs_table11(run: Run) -> TableCells:
    from vlcomp.report.visualgptscore import benchmark_name
    from vlcomp.report.visualgptscore_appendix import (
        ALPHA1,
        BLIP2_FAMILIES,
        BLIP_FAMILIES,
        ORACLE,
        PAIR_SCORES,
    )

    table = TableCells()
    labels = _appendix_labels(run, BLIP_FAMILIES + BLIP2_FAMILIES)
    names = vgs_names(run.config)
    for benchmark in run.benchmarks if labels else []:
        if run.kind(benchmark) != "winoground":
            continue
        name = benchmark_name(benchmark, names)
        scores = [name + suffix for suffix in PAIR_SCORES]
        table.add(labels, scores)
        captioners = [lb for lb in labels if run.role(lb) == "generative"]
        table.add([lb + ALPHA1 for lb in captioners], scores[:1])
        table.add([lb + ORACLE for lb in captioners], [*scores, f"{name} alpha*"])
    return table


def _vgs_table13(run: Run) -> TableCells:
    from vlcomp.data.winoground_tags import NO_TAG, TAGS
    from vlcomp.report.visualgptscore_appendix import (
        BLIP2_FAMILIES,
        BLIP_FAMILIES,
        ORACLE,
        PAIR_SCORES,
        tag_label,
    )

    table = TableCells()
    labels = _appendix_labels(run, BLIP_FAMILIES + BLIP2_FAMILIES)
    if not labels or "winoground" not in run.benchmarks or run.source("winoground") != "release":
        return table
    for tag in (NO_TAG, *TAGS):  # every tag holds items in Diwan et al.'s file
        prefix = f"Winoground {tag_label(tag)}"
        scores = [prefix + suffix for suffix in PAIR_SCORES]
        table.add(labels, [*scores, f"{prefix} n"], data=True)
        table.add([lb + ORACLE for lb in labels if run.role(lb) == "generative"],
                  [*scores, f"{prefix} alpha*"], data=True)
    return table


def plan_cells(config: Mapping[str, Any], relations: Iterable[str] = ()) -> dict[str, TableCells]:
    """Per reproduced table key (``aro/aro``, ...), the cells this configuration will hold.
    ``relations``: ARO Table 2's relation columns the released VG-Relation holds."""
    from vlcomp.report.robustness import ARO_IMAGE_STRATEGIES, ARO_TEXT_STRATEGIES
    from vlcomp.report.tables import BIVLC_DIRECTIONAL, BIVLC_MAIN, BIVLC_TYPE_LABELS

    run = Run.of(config)
    types = [f"{BIVLC_TYPE_LABELS[t]} {s}" for t in BIVLC_TYPE_LABELS for s in BIVLC_MAIN]
    return {
        "aro/aro": _aro(run, chance=True),
        "aro/table2": _aro_table2(run, relations),
        "aro/table6": _aro_table6(run),
        "robustness/aro_table3": _robustness(run, ARO_TEXT_STRATEGIES, "text"),
        "robustness/aro_table4": _robustness(run, ARO_IMAGE_STRATEGIES, "image"),
        "bivlc/table1": _bivlc_table1(run),
        "bivlc/table2": _bivlc(run, BIVLC_MAIN, random_row=True),
        "bivlc/table3": _bivlc(run, (*BIVLC_MAIN, *BIVLC_DIRECTIONAL)),
        "bivlc/table4": _bivlc_table4(run),
        "bivlc/table5": _bivlc_table5(run),
        "bivlc/table6": _bivlc(run, types, sugarcrepe=False),
        "bison/bison": _bison(run),
        "bison/table4": _bison_table4(run),
        "bison/section6": _bison_section6(run),
        "sugarcrepe/sugarcrepe": _sugarcrepe(run),
        "visualgptscore/table1": _vgs_table1(run),
        "visualgptscore/table2": _vgs_table2(run),
        "visualgptscore/table4": _vgs_table4(run),
        "visualgptscore/table5": _vgs_table5(run),
        "visualgptscore/table10": _vgs_table10(run),
        "visualgptscore/table11": _vgs_table11(run),
        "visualgptscore/table13": _vgs_table13(run),
    }


# rows a table derives from a model's label, as the papers name them: VisualGPTScore's α
# variants and priors, BiVLC's detector systems
ROW_SUFFIXES = (" (alpha=alpha*val)", " (alpha=alpha*)", " (alpha=1)", " P(t|null)", "/Det")
# VisualGPTScore's rows with a sampled prior (Tables 5 and 6): "X (alpha=1) null n=3"
SAMPLED_PRIOR_ROW = re.compile(r" \(alpha=[^)]+\) (?:null|LAION) n=\d+$")
# published rows that name PMI: (paper, row) -> (model row, suffix)
PRIOR_ROWS = {("visualgptscore", "PMI"): ("VisualGPTScore", " PMI")}
# BiVLC Table 1's published rows -> the rows of our counts that reproduce them (Winoground's:
# `_winoground_row`)
BIVLC_TABLE1_ROWS = {"SugarCrepe": "SugarCrepe-style (I2T examples)",
                     "BiVLC": "BiVLC-style (I2T + T2I examples)"}
# VisualGPTScore Table 2a's text-only LM rows, by the part of a model id that names them
LLM_ROWS = {"opt": "OPT", "bart": "BART", "flan-t5": "FLAN-T5"}


def _faces(entry: Mapping[str, Any], paper: str) -> list[str]:
    """The published rows of ``paper`` a model entry reproduces: ``published_as.{paper}``
    (a row, a list of rows, or null for none), else its own label."""
    named = entry.get("published_as", {})
    if paper not in named:
        return [entry["label"]]
    value = named[paper]
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _model_rows(models: Mapping[str, Mapping[str, Any]], paper: str, name: str) -> list[str]:
    return list(dict.fromkeys(e["label"] for e in models.values() if name in _faces(e, paper)))


def row_counterparts(config: Mapping[str, Any], paper: str, row: str) -> list[str]:
    """Our row labels that reproduce a published row of ``paper``: the labels of the models
    whose entry names it (``published_as.{paper}``) or, without such a key for that paper,
    whose label it is. Robustness rows ``gallery / strategy / model`` map their last part;
    VisualGPTScore's ``X (alpha=1)``-style rows and BiVLC's ``X/Det`` map ``X``; ``PMI`` maps
    VisualGPTScore's own model's PMI row, and a text-only LM's name (``BART``, ``FLAN-T5``,
    ``OPT``) the ``P_LLM(t) {label}`` rows of the configured LMs whose model id names it."""
    from vlcomp.report.visualgptscore import llm_row

    if paper == "bivlc" and row in (*BIVLC_TABLE1_ROWS, "Winoground"):  # Table 1's counts
        return [BIVLC_TABLE1_ROWS.get(row) or _winoground_row(config)]
    models = expand_models(dict(config))
    prefix, _, name = row.rpartition(" / ")
    sampled = SAMPLED_PRIOR_ROW.search(name)
    suffix = sampled.group(0) if sampled else next(
        (s for s in ROW_SUFFIXES if name.endswith(s)), "")
    base = name.removesuffix(suffix) if suffix else name
    if paper == "visualgptscore" and name in LLM_ROWS.values():  # text-only: no captioner
        key = next(k for k, v in LLM_ROWS.items() if v == name)
        return [llm_row(lm["label"]) for lm in text_priors(dict(config))
                if key in str(lm["model"]).lower().rstrip("/").rsplit("/", 1)[-1]]
    if not suffix and (paper, name) in PRIOR_ROWS:
        base, suffix = PRIOR_ROWS[(paper, name)]
    labels = _model_rows(models, paper, base)
    return [f"{prefix} / {lb}{suffix}" if prefix else f"{lb}{suffix}" for lb in labels]


def _winoground_row(config: Mapping[str, Any]) -> str:
    """BiVLC Table 1's Winoground row as `vlcomp.benchmarks.bivlc_table1.with_winoground`
    names it (the world's Winoground-style set, or the release)."""
    from vlcomp.report.labels import vgs_names

    return f"{vgs_names(config).get('winoground', 'Winoground')} (I2T + T2I examples)"


def published_counterparts(config: Mapping[str, Any], paper: str,
                           tables: Sequence[str]) -> dict[str, list[str]]:
    """Every published row of a paper's tables -> our rows that reproduce it (the
    `row_counterparts` of each; the table_vs_published job sets them side by side)."""
    rows = {row for r in load_published(paper, tables) for row in r["rows"]}
    return {row: row_counterparts(config, paper, row) for row in sorted(rows)}


@dataclass(frozen=True)
class Face:
    """One published cell and what faces it."""

    paper: str
    table: str
    row: str
    column: str
    published: float
    reproduced_table: str
    counterparts: tuple[str, ...]
    status: str  # faced | no table | no row | no column | published only: <reason>
    data: bool = False


def published_to_reproduced() -> dict[tuple[str, str], str]:
    """``(paper, published table) -> reproduced table key``."""
    return {(paper, table): key for key, (paper, tables) in COMPARED.items()
            for table in tables}


def coverage(config: Mapping[str, Any]) -> list[Face]:
    """Every published cell with the reproduced cells that will face it, or why none will."""
    records = load_published()
    relations = {r["column"] for r in records if (r["paper"], r["table"]) == ("aro", "table2")
                 and not r["column"].startswith("Accuracy")}  # subtotals are not relations
    planned = plan_cells(config, relations)
    published_only = config.get("published_only", {})
    target = published_to_reproduced()
    # the world's Order / retrieval columns stand for the papers' COCO ones (as in the
    # table_vs_published jobs)
    aliases = WORLD_ALIASES if {"order", "world_retrieval"} & set(
        configured_benchmarks(config)) else {}
    faces = []
    for record in records:
        key = target.get((record["paper"], record["table"]), "")
        cells = planned.get(key, TableCells())
        columns = {c for _, c in cells.cells}
        rows = {r for r, _ in cells.cells}
        column = record["column"]
        column = column if column in columns else aliases.get(column, column)
        for row, value in record["rows"].items():
            ours = row_counterparts(config, record["paper"], row)
            if not ours and row in rows:  # a row of the table itself (Random, Best ...)
                ours = [row]
            found = tuple(r for r in ours if (r, column) in cells.cells)
            if not cells.cells:
                status = "no table"
            elif found:
                status = "faced"
            elif not rows & set(ours):
                status = "no row" if column in columns else "no column"
            else:
                status = "no column"
            reason = published_only_reason(row, published_only, record["paper"],
                                           record["table"])
            if not found and reason:
                status = f"published only: {reason}"
            data = any((r, column) in cells.data for r in found)
            faces.append(Face(record["paper"], record["table"], row, record["column"],
                              float(value), key, found, status, data))
    return faces


def summary_line(faces: Sequence[Face]) -> str:
    faced = sum(f.status == "faced" for f in faces)
    return f"published cells with a reproduced counterpart: {faced}/{len(faces)}"


def report(faces: Sequence[Face]) -> str:
    """One line per published cell, grouped by table, then per-table counts and the total."""
    lines, counts = [], {}
    for f in faces:
        where = f"{f.paper}/{f.table}"
        counts.setdefault(where, [0, 0])
        counts[where][1] += 1
        counts[where][0] += f.status == "faced"
        target = (f"{f.reproduced_table}: {' | '.join(f.counterparts)}"
                  + " (data)" * f.data if f.status == "faced" else f.status)
        lines.append(f"{where}\t{f.row}\t{f.column}\t{f.published:g}\t{target}")
    lines.append("")
    lines += [f"{where}: {n}/{m}" for where, (n, m) in counts.items()]
    lines.append(summary_line(faces))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vlcomp.report.coverage",
        description="Every published number and the reproduced number a configuration will "
                    "set beside it (or why none), from the configuration alone.")
    parser.add_argument("--configfile", default="config/config.yaml", type=Path)
    args = parser.parse_args(argv)
    from vlcomp.config import resolve_extends

    # a configuration that extends another (config/evaluate.yaml) is made whole first
    config = resolve_extends(yaml.safe_load(args.configfile.read_text()),
                             [args.configfile.parent])
    print(report(coverage(config)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
