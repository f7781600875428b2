"""What an evaluation of one's own model configures: the benchmarks of the papers asked for,
and a configuration without the models it leaves out (every reference to them pruned)."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from vlcomp.config import ConfigError, expand_models
from vlcomp.report.labels import ALPHA_KINDS, benchmark_kind

# the benchmark kinds each paper's tables read (`all_tables` in workflow/rules/common):
# ARO Tables 1-6 and the robustness galleries of its Tables 3-4; BiVLC's tables and its
# SugarCrepe table; BISON's two benchmarks; VisualGPTScore's alpha-debiased choice benchmarks
# and its generative retrieval; Hendriksen et al.'s perturbed galleries
PAPER_KINDS: dict[str, frozenset[str]] = {
    "aro": frozenset({"aro_relation", "aro_attribution", "order", "retrieval", "robustness"}),
    "bivlc": frozenset({"bivlc", "sugarcrepe"}),
    "bison": frozenset({"bison", "bison_altered"}),
    "visualgptscore": frozenset({*ALPHA_KINDS, "retrieval"}),
    "hendriksen": frozenset({"robustness"}),
}
# configuration sections only one paper's tables read
PAPER_SECTIONS = {"classification": "aro"}  # ARO Table 6's downstream rows


def parse_names(text: str | None) -> list[str]:
    """``a,b`` (or None) as a list of names, without blanks."""
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def select_benchmarks(config: dict[str, Any], papers: Iterable[str] = (),
                      benchmarks: Iterable[str] = ()) -> dict[str, Any]:
    """``config`` with only the benchmarks the papers' tables read (``papers``: keys of
    `PAPER_KINDS`) and, of those, only ``benchmarks`` when named; a section that only an
    unselected paper reads (`PAPER_SECTIONS`) goes too, and so do the per-benchmark null-image
    counts of benchmarks left out. ConfigError names an unknown paper or benchmark, and a
    selection that leaves none."""
    papers, benchmarks = [p.lower() for p in papers], list(benchmarks)
    unknown = [p for p in papers if p not in PAPER_KINDS]
    if unknown:
        raise ConfigError(f"--papers: unknown {unknown} (known: {sorted(PAPER_KINDS)})")
    configured = list(config["benchmarks"])
    missing = [b for b in benchmarks if b not in configured]
    if missing:
        raise ConfigError(f"--benchmarks: {missing} are not under benchmarks of this "
                          f"configuration (configured: {configured})")
    keep = benchmarks or configured
    if papers:
        kinds = set().union(*(PAPER_KINDS[p] for p in papers))
        keep = [b for b in keep if benchmark_kind(b) in kinds]
    if not keep:
        raise ConfigError(f"--papers {','.join(papers)} --benchmarks {','.join(benchmarks)}: "
                          "no configured benchmark is left")
    out = copy.deepcopy(config)
    out["benchmarks"] = {b: spec for b, spec in config["benchmarks"].items() if b in keep}
    null_images = (out.get("visualgptscore") or {}).get("null_images") or {}
    if "n_by_benchmark" in null_images:  # a count per benchmark, only for those configured
        null_images["n_by_benchmark"] = {b: n for b, n in null_images["n_by_benchmark"].items()
                                         if b in keep}
    for section, paper in PAPER_SECTIONS.items():
        if papers and paper not in papers:
            out.pop(section, None)
    return out


def generated_sets_in_use(config: dict[str, Any]) -> set[str]:
    """The generated sets something scores or trains on: those a training run names
    (``generated``), and BiVLC's when its benchmark reads the generated negatives."""
    used = {run.get("generated") for run in (config.get("train") or {}).values()
            if isinstance(run, dict)}
    if (config["benchmarks"].get("bivlc") or {}).get("negatives") == "generated":
        used.add("bivlc")
    return {u for u in used if u}


def without_construction(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without the stages that build a paper's data rather than score models:
    BiVLC's natural-vs-synthetic detectors, and every generated set nothing scores or trains
    on (`generated_sets_in_use`; BiVLC's images and filter when its benchmark is the
    released one). An added model's rows need none of them."""
    out = {k: v for k, v in config.items() if k != "detectors"}
    used = generated_sets_in_use(config)
    generation = {k: v for k, v in (config.get("generation") or {}).items() if k in used}
    if generation:
        out["generation"] = generation
    else:
        out.pop("generation", None)
    return out


def tool_models(config: dict[str, Any]) -> set[str]:
    """Models other stages use as tools (their jobs feed other models' rows): the relevance
    model of the robustness galleries, a generated set's filter or similarity model, the
    detectors' encoders, a training run's initial or neighbour model."""
    found: set[str] = set()
    relevance = (config["benchmarks"].get("robustness") or {}).get("relevance_model")
    if relevance:
        found.add(relevance)
    for block in (config.get("generation") or {}).values():
        if isinstance(block, dict):
            found.add((block.get("filter") or {}).get("model"))
            found.add((block.get("selection") or {}).get("similarity_model"))
    found.update((config.get("detectors") or {}).get("encoders") or [])
    for run in (config.get("train") or {}).values():
        if isinstance(run, dict):
            found.update({run.get("init"), run.get("init_model"),
                          (run.get("neighbours") or {}).get("model")})
    return {m for m in found if m}


def _kept(value: Any, gone: set[str]) -> Any:
    """A model name or a list of names without those in ``gone`` (None when none is left)."""
    if isinstance(value, list):
        left = [v for v in value if v not in gone]
        return left or None
    return None if value in gone else value


def without_models(config: dict[str, Any], gone: Iterable[str],
                   tools: Iterable[str] = ()) -> dict[str, Any]:
    """``config`` without the configured models in ``gone``, and every list that names them:
    the classification models, the robustness galleries' re-rankers, VisualGPTScore's
    null-sampling models, the papers' models (a list or a key left empty goes), and the
    training runs only they were made by. ``tools``
    (models `tool_models` names, which must stay: ConfigError otherwise) leave those lists
    but for the papers' models: they run only what other stages need of them."""
    gone, tools = set(gone), set(tools)
    needed = sorted(gone & tool_models(config))
    if needed:
        raise ConfigError(f"models {needed} are used by other stages and cannot be left out")
    out = copy.deepcopy(config)
    out["models"] = {m: e for m, e in config["models"].items() if m not in gone}
    _prune_optional_lists(out, gone | tools)
    # a training run only left-out models read trains for nothing
    gone_runs = ({config["models"][m].get("run") for m in gone}
                 - {e.get("run") for e in out["models"].values()})
    if out.get("train"):
        out["train"] = {name: run for name, run in out["train"].items()
                        if name not in gone_runs}
        if not out["train"]:
            out.pop("train")
        if "generation" in out:  # the sets only those runs trained on
            used = generated_sets_in_use(out)
            dropped = {run.get("generated") for run in config["train"].values()} - used
            out["generation"] = {k: v for k, v in out["generation"].items() if k not in dropped}
            if not out["generation"]:
                out.pop("generation")
    papers = out.get("paper_models") or {}
    for paper in list(papers):
        roles = {role: _kept(value, gone) for role, value in (papers[paper] or {}).items()}
        papers[paper] = {role: value for role, value in roles.items() if value is not None}
        if not papers[paper]:
            papers.pop(paper)
    return out


def _prune_optional_lists(config: dict[str, Any], gone: set[str]) -> None:
    """The lists of models that add work to a model (classification, re-ranking, null
    sampling) without those in ``gone``, in place; an emptied list's section or key goes."""
    classification = config.get("classification")
    if classification and "models" in classification:
        classification["models"] = _kept(classification["models"], gone)
        if classification["models"] is None:
            config.pop("classification")
    galleries = (config["benchmarks"].get("robustness") or {}).get("galleries") or {}
    for spec in galleries.values():
        if isinstance(spec, dict) and "rerank" in spec:
            spec["rerank"] = _kept(spec["rerank"], gone)
            if spec["rerank"] is None:
                spec.pop("rerank")
    null_sampling = (config.get("visualgptscore") or {}).get("null_sampling")
    if null_sampling and "models" in null_sampling:
        null_sampling["models"] = _kept(null_sampling["models"], gone)
        if null_sampling["models"] is None:
            config["visualgptscore"].pop("null_sampling")


def _owners(config: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Model id → configured model, and training run / captioner → configured model."""
    models = expand_models(config)
    return ({m: e["group"] for m, e in models.items()},
            {e["run"]: e["group"] for e in models.values() if "run" in e})


def _owner(wildcards: dict[str, str], ids: dict[str, str], runs: dict[str, str]) -> str | None:
    if wildcards.get("model") in ids:
        return ids[wildcards["model"]]
    for key in ("run", "captioner"):
        if wildcards.get(key) in runs:
            return runs[wildcards[key]]
    return None


def model_of_job(wildcards: dict[str, str], config: dict[str, Any]) -> str | None:
    """The configured model (its name under ``models``) a job's wildcards name, by model id
    (a seed's ``{model}_s{seed}`` included) or by the training run or captioner it comes
    from; None for a job of no one model."""
    return _owner(wildcards, *_owners(config))


def job_models(jobs: Iterable[Any], config: dict[str, Any]) -> list[str | None]:
    """`model_of_job` of each dry-run job (its ``wildcards``), the lookup built once."""
    ids, runs = _owners(config)
    return [_owner(job.wildcards, ids, runs) for job in jobs]
