"""How the workflow names benchmarks and the paper tables' columns, from the configuration.

One home for the names the rules (``workflow/rules/common.smk``) and the published-coverage
plan (`vlcomp.report.coverage`) both use: a benchmark's metric kind, the configured
benchmarks, and the ARO tables' column labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

NAMED_KINDS = {
    "vg_relation": "aro_relation",
    "vg_attribution": "aro_attribution",
    "order": "order",
    "sugarcrepe": "sugarcrepe",
    "bivlc": "bivlc",
    "winoground": "winoground",
    "bison": "bison",
    "bison_altered": "bison_altered",
    "robustness": "robustness",
    "vl_checklist": "vl_checklist",
    # 2 x 2 pair sets scored as Winoground (text / image / group scores)
    "eqben": "winoground",
    "winoground_no_tag": "winoground",
}
CREPE_PREFIX = "crepe_"  # crepe_atom, crepe_negate, crepe_swap: one per negative type
DATASET_LABELS = {"world": "", "coco": "COCO", "flickr30k": "Flickr30k"}
# how tables name the choice benchmarks (VisualGPTScore's columns: "Crepe Atom-Foils", ...)
DISPLAY_NAMES = {
    "vg_relation": "VG-Relation",
    "vg_attribution": "VG-Attribution",
    "order": "Order",
    "coco_order": "COCO-Order",
    "flickr30k_order": "Flickr30k-Order",
    "sugarcrepe": "SugarCrepe",
    "bivlc": "BiVLC",
    "winoground": "Winoground",
    "bison": "BISON",
    "bison_altered": "BISON altered",
    "crepe_atom": "Crepe Atom-Foils",
    "crepe_negate": "Crepe Negate",
    "crepe_swap": "Crepe Swap",
    "vl_checklist": "VL-CheckList Relation",
    "eqben": "EqBen",
    "winoground_no_tag": "Winoground No-Tag",
}
# metric kinds with image->text choices that VisualGPTScore's alpha-debiasing applies to
ALPHA_KINDS = ("aro_relation", "aro_attribution", "order", "sugarcrepe", "bivlc", "winoground",
               "crepe", "vl_checklist")


def benchmark_kind(name: str) -> str:
    """Metric kind: by name, ``crepe_*`` (one CREPE negative type each), or ``*_order`` /
    ``*_retrieval`` for dataset benchmarks."""
    if name.startswith(CREPE_PREFIX):
        return "crepe"
    if name.endswith("_order"):
        return "order"
    if name.endswith("_retrieval"):
        return "retrieval"
    return NAMED_KINDS[name]


def configured_benchmarks(config: Mapping[str, Any]) -> list[str]:
    """The benchmarks a configuration evaluates: ``config.benchmarks`` and, when BISON has
    query alterations, ``bison_altered`` (BISON Fig. 9)."""
    benchmarks = list(config["benchmarks"])
    if config["benchmarks"].get("bison", {}).get("alterations"):
        benchmarks.append("bison_altered")
    return benchmarks


def dataset_label(benchmark: str, suffix: str) -> str:
    """``order`` -> "", ``coco_order`` -> COCO (the dataset part of an ARO table label)."""
    prefix = benchmark.removesuffix(suffix).removesuffix("_")
    return DATASET_LABELS.get(prefix, prefix.capitalize())


def aro_columns(benchmarks: Iterable[str]) -> dict[str, str]:
    """ARO table columns: the VG benchmarks, then each Order benchmark by its dataset."""
    benchmarks = list(benchmarks)
    columns = {"vg_relation": "VG-Relation", "vg_attribution": "VG-Attribution"}
    for b in benchmarks:
        if benchmark_kind(b) == "order":
            columns[b] = "-".join(filter(None, [dataset_label(b, "order"), "Order"]))
    return {b: label for b, label in columns.items() if b in benchmarks}


def aro6_downstream(benchmarks: Iterable[str]) -> dict[str, dict[str, str]]:
    """ARO Table 6 downstream rows: R@1 both ways of each retrieval benchmark."""
    rows = {}
    for b in benchmarks:
        if benchmark_kind(b) == "retrieval":
            prefix = " ".join(filter(None, [dataset_label(b, "retrieval"), "Retrieval"]))
            rows[b] = {"i2t_r1": f"{prefix} I2T R@1", "t2i_r1": f"{prefix} T2I R@1"}
    return rows


# ARO Table 6's classification rows (the published column names) and the world's shape set
CLASSIFICATION_LABELS = {"cifar10": "CIFAR10", "cifar100": "CIFAR100", "imagenet": "ImageNet",
                         "world_shapes": "World shapes"}
# the row of each protocol: ARO's linear probe keeps the published name
PROTOCOL_SUFFIXES = {"linear_probe": "", "zero_shot": " zero-shot"}


def classification_label(dataset: str, protocol: str = "linear_probe") -> str:
    """``cifar10`` -> CIFAR10 (linear probe, ARO's), CIFAR10 zero-shot."""
    return CLASSIFICATION_LABELS[dataset] + PROTOCOL_SUFFIXES[protocol]


def aro6_classification(datasets: Iterable[str], protocols: Iterable[str]
                        ) -> dict[str, dict[str, str]]:
    """ARO Table 6 downstream rows of the classification sets: benchmark
    ``classification_{dataset}`` -> {``{protocol}_top1`` (its record's overall key) -> row}."""
    from vlcomp.benchmarks.classification_plan import KEY_PREFIX

    protocols = list(protocols)
    return {KEY_PREFIX + d: {f"{p}_top1": classification_label(d, p) for p in protocols}
            for d in datasets}


# the world's analogues of released sets, named so that no table mistakes them for the papers'
WORLD_STYLE_NAMES = {
    "winoground": "Winoground-style",
    "eqben": "EqBen-style",
    "crepe_atom": "Crepe-style Atom-Foils",
    "crepe_negate": "Crepe-style Negate",
    "crepe_swap": "Crepe-style Swap",
    "vl_checklist": "VL-CheckList-style Relation",
}


def world_names(config: Mapping[str, Any]) -> dict[str, str]:
    """Display names of the configured benchmarks built from the world instead of a release."""
    return {b: name for b, name in WORLD_STYLE_NAMES.items()
            if b in config["benchmarks"]
            and config["benchmarks"][b].get("source", "world") == "world"}


def vgs_names(config: Mapping[str, Any]) -> dict[str, str]:
    """Display names in the VisualGPTScore tables: the world's analogues (`world_names`) and
    each retrieval benchmark by its dataset."""
    retrieval = {b: dataset_label(b, "retrieval") or "Retrieval"
                 for b in configured_benchmarks(config) if benchmark_kind(b) == "retrieval"}
    return world_names(config) | retrieval


def folded_retrieval(config: Mapping[str, Any]) -> str | None:
    """The retrieval benchmark scored in folds (COCO-1K), which BISON's table sets beside
    its accuracy; None when no retrieval has ``folds``."""
    return next((b for b in configured_benchmarks(config) if benchmark_kind(b) == "retrieval"
                 and config["benchmarks"][b].get("folds")), None)
