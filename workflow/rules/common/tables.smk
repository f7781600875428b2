# Paper tables: which tables a configuration makes, their labels, interval companions and
# inputs (rules in report_*.smk, tables.smk, summary.smk).

# the numbers with intervals: choice and retrieval benchmarks, and the classification sets
INTERVAL_BENCHMARKS = ANALYSIS_BENCHMARKS + list(CLS_KEYS)


INTERVAL_KINDS = {b: BENCHMARK_KIND[b] for b in ANALYSIS_BENCHMARKS} | {
    k: "classification" for k in CLS_KEYS
}


def classification_metrics_files():
    """Every classified model's record of every classification set."""
    return [f"results/metrics/{m}/{k}.json" for k in CLS_KEYS for m in CLS_MODELS]


def interval_benchmarks(key):
    """The benchmarks whose intervals a table's `_ci` companion reads (ARO Table 6 also the
    classification sets')."""
    return INTERVAL_BENCHMARKS if key == "aro/table6" else ANALYSIS_BENCHMARKS


def metrics_files(benchmarks):
    """Every model's metrics of these benchmarks (retrieval: models with embeddings)."""
    files = []
    for b in benchmarks:
        if b not in BENCHMARKS:
            continue
        needs_embeddings = BENCHMARK_KIND[b] in ("retrieval", "robustness")
        for model in EMBEDDING_MODELS if needs_embeddings else MODELS:
            files.append(f"results/metrics/{model}/{b}.json")
    return files


ARO_BENCHMARKS = ["vg_relation", "vg_attribution"] + ORDER_BENCHMARKS


# the world's Order / retrieval columns are compared with the papers' COCO ones
PUBLISHED_ALIASES = (
    WORLD_ALIASES if {"order", "world_retrieval"} & set(BENCHMARKS) else {}
)


def reads_only_world(benchmark):
    """Whether a benchmark's items, captions and galleries all come from the world."""
    spec = BENCHMARK_SPECS[benchmark]
    datasets = {dataset_of(benchmark)} | {
        g.get("dataset", "world") for g in spec.get("galleries", {}).values()
    }
    return source_of(benchmark) == "world" and datasets == {"world"}


# A run on the world alone stands for the papers' data without matching their numbers: its
# tables face the published ones by direction (vs chance, vs the first model), not by
# difference.
WORLD_ONLY = all(reads_only_world(b) for b in BENCHMARKS)


# published rows this configuration cannot reproduce, and why (said at start, and in the
# note column of every _vs_published table)
PUBLISHED_ONLY = config.get("published_only", {})


def vgs_names():
    """Display names of benchmarks in the VisualGPTScore tables."""
    return label_vgs_names(config)


def aro_columns():
    """ARO table columns: the VG benchmarks, then each Order benchmark by its dataset."""
    return label_aro_columns(BENCHMARKS)


def benchmark_labels():
    """Display names of the choice benchmarks (cross-benchmark tables and figures)."""
    names = dict(DISPLAY_NAMES)
    retrieval = {
        b: " ".join(filter(None, [dataset_label(b, "retrieval"), "Retrieval"]))
        for b in RETRIEVAL_BENCHMARKS
    }
    classification = {k: CLASSIFICATION_LABELS[d] for k, d in CLS_KEYS.items()}
    return names | aro_columns() | VGS_NAMES | retrieval | classification


def aro6_downstream():
    """ARO Table 6 downstream rows: R@1 both ways of each retrieval benchmark, then each
    classification set's top-1 per protocol."""
    return label_aro6_downstream(RETRIEVAL_BENCHMARKS) | label_aro6_classification(
        CLS_DATASETS, CLASSIFICATION.protocols
    )


# Paper tables whose `_ci` companion (every number with its CI) is written with the table
# itself, and tables that carry their CIs as columns already.
OWN_CI_TABLES = ("visualgptscore/table2", "visualgptscore/table4")


# companions holding intervals that no benchmark's uncertainty table has (alpha-picking
# procedures, per-tag bootstraps, caption metrics as BISON systems): the summary reads them
CELL_CI_TABLES = (
    *OWN_CI_TABLES,
    "visualgptscore/table11",
    "visualgptscore/table13",
    "bison/section6",
)


NO_CI_TABLES = (  # tables of counts, procedures and text statistics: nothing to resample
    "bivlc/filter",
    "bivlc/table5",
    "bison/table4",  # caption metrics of generated captions: not resampled here
    "visualgptscore/table5",  # a spread over sampling seeds, as the paper gives it
    "robustness/granularity_statistics",
)


def ci_tables(tables):
    """Keys (``paper/table``) of the paper tables among ``tables`` that get a `_ci`
    companion."""
    keys = [
        t.removeprefix("results/tables/").removesuffix(".md")
        for t in tables
        if t.startswith("results/tables/") and t.endswith(".md")
    ]
    return [
        k
        for k in keys
        if k not in NO_CI_TABLES
        and not k.startswith("analysis/")
        and not k.endswith(("_ci", "_vs_published"))  # companions are not paper tables
    ]


def table_index(key):
    """Index columns of a paper table's csv (ARO Table 6: section and task)."""
    return [0, 1] if key == "aro/table6" else 0


def model_roles():
    """Display label -> VisualGPTScore Table 1 role: itm (a cross-encoder's ITM head),
    generative (a captioner) or discriminative (cosine, or an ITC pair score)."""
    return {entry["label"]: model_role(entry) for entry in MODEL_ENTRIES.values()}


def table_interval_files(key):
    """A paper table, every benchmark's intervals and seed spreads, and the cells of its
    own kind (robustness conditions, detectors, BiVLC Table 1's benchmarks)."""
    return {
        "table": f"results/tables/{key}.csv",
        "intervals": expand(
            "results/uncertainty/{benchmark}.csv", benchmark=interval_benchmarks(key)
        ),
        "seeds": expand(
            "results/uncertainty/{benchmark}_seeds.csv",
            benchmark=interval_benchmarks(key),
        ),
        "robustness": (
            ["results/uncertainty/robustness.csv"]
            if key.startswith("robustness/")
            else []
        ),
        "detectors": (
            ["results/uncertainty/detectors.csv"] if key == "bivlc/table4" else []
        ),
        "benchmarks": (
            expand("results/benchmarks/{b}.parquet", b=["sugarcrepe", "bivlc"])
            if key == "bivlc/table1"
            else []
        ),
        "cells": cell_interval_files(key),
    }


def table_interval_inputs(wildcards):
    """Every file the interval companions of `INTERVAL_TABLES` read (each once)."""
    files = {
        f
        for key in INTERVAL_TABLES
        for group in table_interval_files(key).values()
        for f in ([group] if isinstance(group, str) else group)
    }
    return sorted(files)


def table_interval_specs():
    """Per table of `INTERVAL_TABLES`: its key, csv index, benchmarks and their kinds, and
    the files it reads (`table_interval_files`)."""
    return [
        {
            "key": key,
            "index": table_index(key),
            "benchmarks": interval_benchmarks(key),
            "kinds": {b: INTERVAL_KINDS[b] for b in interval_benchmarks(key)},
            "files": table_interval_files(key),
        }
        for key in INTERVAL_TABLES
    ]


def cell_interval_files(key):
    """The intervals of a table's cells that no benchmark's uncertainty table has:
    VisualGPTScore Table 11's alpha rows, Table 13's tags, BISON section 6's caption
    metrics."""
    if key == "visualgptscore/table11":
        return expand(
            "results/uncertainty/alpha/{model}/{benchmark}.csv",
            model=[m for m in BLIP_MODELS if m in GENERATIVE_MODELS],
            benchmark=PAIR_TABLE_BENCHMARKS,
        )
    if key == "visualgptscore/table13":
        return expand(
            "results/uncertainty/winoground_tags/{model}.csv", model=TAG_MODELS
        )
    if key == "bison/section6":
        return ["results/uncertainty/bison_section6.csv"]
    return []


def all_tables():
    tables = []
    if GENERATIVE_MODELS and ALPHA_BENCHMARKS:
        tables += expand(
            "results/tables/visualgptscore/{table}.md",
            table=["table1", "table2", "table4"],
        )
    if NULL_SAMPLING_MODELS:
        tables += ["results/tables/visualgptscore/table5.md"]
    if BLIP2_MODELS and TABLE10_BENCHMARKS:
        tables += ["results/tables/visualgptscore/table10.md"]
    if BLIP_MODELS and PAIR_TABLE_BENCHMARKS:
        tables += ["results/tables/visualgptscore/table11.md"]
    if TAG_MODELS:
        tables += ["results/tables/visualgptscore/table13.md"]
    if any(b in BENCHMARKS for b in ARO_BENCHMARKS):
        tables += ["results/tables/aro/aro.md"]
    if "vg_relation" in BENCHMARKS:
        tables += ["results/tables/aro/table2.md"]
    if any(b in BENCHMARKS for b in ARO_BENCHMARKS + RETRIEVAL_BENCHMARKS):
        tables += ["results/tables/aro/table6.md", "results/figures/aro_fig3_radar.png"]
    elif CLS_DATASETS:  # classification alone: ARO Table 6's downstream rows
        tables += ["results/tables/aro/table6.md"]
    if "sugarcrepe" in BENCHMARKS:
        tables += ["results/tables/sugarcrepe/sugarcrepe.md"]
    if "bison" in BENCHMARKS:
        tables += ["results/tables/bison/bison.md"]
    if BISON_CAPTION_SCORES:
        tables += ["results/tables/bison/section6.md"]
    if BISON_CAPTIONING:
        tables += ["results/tables/bison/table4.md"]
    if "winoground" in BENCHMARKS:
        tables += ["results/tables/winoground/winoground.md"]
    if "bison_altered" in BENCHMARKS:
        tables += ["results/tables/bison/fig9.md", "results/figures/bison_fig9.png"]
    if ROBUSTNESS:
        tables += expand(
            "results/tables/robustness/{table}.md",
            table=["aro_table3", "aro_table4", "hendriksen", "granularity"],
        )
        tables += ["results/tables/robustness/granularity_statistics.md"]
    if "bivlc" in BENCHMARKS:
        tables += expand(
            "results/tables/bivlc/{table}.md",
            table=["table1", "table2", "table3", "table6"],
        )
    if TROHN_TEXT_ROWS:
        tables += ["results/tables/bivlc/table5.md"]
    if (
        "bivlc" in GENERATION
    ):  # BiVLC's construction, also beside the released benchmark
        tables += [
            "results/tables/bivlc/filter.md",
            "results/figures/bivlc_generated_examples.png",
        ]
    if DETECTORS:
        tables += ["results/tables/bivlc/table4.md"]
    tables += [f"results/tables/{key}_ci.md" for key in ci_tables(tables)]
    tables += [
        t.replace(".md", "_vs_published.md")
        for t in list(tables)
        if t.removeprefix("results/tables/").removesuffix(".md") in PUBLISHED_FOR
    ]
    tables += expand(
        "results/uncertainty/{benchmark}.csv", benchmark=INTERVAL_BENCHMARKS
    )
    if "robustness" in BENCHMARKS:
        tables += ["results/uncertainty/robustness.csv"]
    if DETECTORS:
        tables += ["results/uncertainty/detectors.csv"]
    if len(MODELS) >= 3 and len(CHOICE_BENCHMARKS) >= 2:
        tables += ["results/tables/analysis/rank_correlation.md"]
    if "vg_relation" in BENCHMARKS:
        tables += ["results/figures/aro_relations.png"]
    if "bivlc" in BENCHMARKS:
        tables += ["results/figures/bivlc_scatter.png"]
    if ROBUSTNESS:
        tables += ["results/figures/robustness_drops.png"]
    return tables


# Paper tables with published records this configuration writes (rule model_vs_published)
COMPARED_TABLES = [k for k in PUBLISHED_FOR if f"results/tables/{k}.md" in all_tables()]


def group_label(model):
    """The display label of a configured model (its seeds' shared label)."""
    return next(e["label"] for e in MODEL_ENTRIES.values() if e["group"] == model)


# Tables whose `_ci` companion rule table_intervals writes
INTERVAL_TABLES = [k for k in ci_tables(all_tables()) if k not in OWN_CI_TABLES]


def front_page(description):
    """The report's front page: the findings job's copy of ``description`` with the run's
    findings (``results/report_front.rst``, from the working folder), once it exists."""
    written = Path("results/report_front.rst")
    return str(written.resolve()) if written.is_file() else description


def model_targets():
    """Every configured model's metrics on every benchmark it scores, inputs of the default
    target: a model whose inputs cannot be made stops the run (dry run included) even in a
    finished folder, whose tables would otherwise stand without it."""
    return metrics_files(BENCHMARKS)
