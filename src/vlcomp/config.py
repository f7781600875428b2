"""A workflow configuration read whole (``extends``) and expanded: its training runs and
models by id, their roles, its datasets and text priors. Checking it: `vlcomp.config_checks`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vlcomp.config_defaults import section
from vlcomp.yaml_text import safe_load


class ConfigError(ValueError):
    """A configuration that does not match the schema."""


def merge_config(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``override``: mappings merge key by key, a ``null`` value deletes
    its key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_config(out[key], value)
        else:
            out[key] = value
    return out


def resolve_extends(config: dict[str, Any], folders: Sequence[str | Path] = (),
                    seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A configuration with ``extends: FILE`` made whole: FILE (found as given, else in each
    of ``folders``; it may extend another in turn) updated by the rest (`merge_config`).
    Raises ConfigError naming a missing or circular file."""
    if "extends" not in config:
        return config
    name = Path(str(config["extends"]))
    candidates = [name, *(Path(f) / name for f in folders)]
    found = next((c.resolve() for c in candidates if c.is_file()), None)
    if found is None:
        raise ConfigError(f"config.extends: {name} not found (looked in "
                          f"{', '.join(str(c) for c in candidates)})")
    if found in seen:
        raise ConfigError(f"config.extends: {found} extends itself")
    base = safe_load(found.read_text()) or {}
    base = resolve_extends(base, [found.parent, *folders], (*seen, found))
    return merge_config(base, {k: v for k, v in config.items() if k != "extends"})


def read_config(configfile: str | Path, snakefile: str | Path) -> dict[str, Any]:
    """A configuration file made whole as the Snakefile reads it: ``extends:`` looked up
    beside the file, then in the workflow's ``config/`` (beside ``snakefile``)."""
    configfile = Path(configfile)
    return resolve_extends(safe_load(configfile.read_text()),
                           [configfile.parent, Path(snakefile).resolve().parent / "config"])


def dataset_names(config: dict[str, Any]) -> list[str]:
    """Datasets a config can use: ``world`` (when it has a world) and ``config.datasets``."""
    return (["world"] if "world" in config else []) + list(config.get("datasets", {}))


def benchmark_source(config: dict[str, Any], benchmark: str) -> str:
    """Where a benchmark's items come from: ``world`` or a released source."""
    return config["benchmarks"].get(benchmark, {}).get("source", "world")


def released_negatives(config: dict[str, Any], run: dict[str, Any]) -> bool:
    """Whether a run's NegCLIP negatives (and neighbour images) come from NegCLIP's released
    training data rather than vlcomp's generators (``hard_negatives.negclip.source``)."""
    if run.get("negatives") != "negclip":
        return False
    block = config.get("hard_negatives", {}).get("negclip", {})
    return block.get("source", "generate") == "release"


def released_rows(config: dict[str, Any], run: dict[str, Any]) -> str | None:
    """``trohn_text`` / ``trohn_img`` when a run trains on BiVLC's released rows
    (``hard_negatives.sugarcrepe.source`` / ``generation.trohn_img.source: release``: one
    instance per released row, best epoch on the released validation split), else None."""
    if "generated" in run:
        block = config.get("generation", {}).get(run["generated"], {})
        return "trohn_img" if block.get("source", "generate") == "release" else None
    if run.get("negatives") == "sugarcrepe":
        block = config.get("hard_negatives", {}).get("sugarcrepe", {})
        return "trohn_text" if block.get("source", "generate") == "release" else None
    return None


def model_threads(config: Mapping[str, Any]) -> int:
    """Torch threads of a job that only runs a model: ``compute.inference_threads``, by
    default ``compute.threads`` (the training jobs')."""
    compute = config["compute"]
    return int(compute.get("inference_threads", compute["threads"]))


def retrieval_null_images(config: Mapping[str, Any]) -> int:
    """``visualgptscore.retrieval.null_images``: null images of VisualGPTScore Table 6's
    retrieval prior (0: none)."""
    retrieval = config.get("visualgptscore", {}).get("retrieval") or {}
    return int(retrieval.get("null_images") or 0)


def null_sampling(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """``visualgptscore.null_sampling`` (VisualGPTScore appendix Table 5) with its
    defaults: ``benchmark`` (winoground), ``counts`` (sorted, distinct), ``seeds``,
    ``models`` (None: every captioner scoring the benchmark) and ``sources`` (``null``, and
    ``train`` for sampled training images); None when absent."""
    spec = config.get("visualgptscore", {}).get("null_sampling")
    if not spec:
        return None
    return {"benchmark": str(spec.get("benchmark", "winoground")),
            "counts": sorted({int(n) for n in spec["counts"]}),
            "seeds": [int(s) for s in spec["seeds"]],
            "models": list(spec["models"]) if spec.get("models") else None,
            "sources": [str(s) for s in spec.get("sources") or ["null"]]}


def null_sampling_models(config: Mapping[str, Any]) -> list[str]:
    """The captioners Table 5's null sampling runs for: ``models`` that are captioners of the
    configuration (default: every captioner), none when its benchmark is not configured (a
    configuration cut down from another may leave either out)."""
    spec = null_sampling(config)
    if not spec or spec["benchmark"] not in config.get("benchmarks", {}):
        return []
    captioners = [m for m, e in expand_models(dict(config)).items() if is_captioner(e)]
    return [m for m in (spec["models"] or captioners) if m in captioners]


RERANK_PAIR_SCORES = ("itm_plus_itc",)
"""Pair scores whose models retrieval re-ranks (ARO's BLIP and X-VLM score)."""
DEFAULT_K_TEST = 128  # ARO's k_test for BLIP (no benchmark in retrieval.k_test)


def rerank_k_test(config: Mapping[str, Any], model: str, entry: Mapping[str, Any],
                  benchmark: str) -> int | None:
    """Candidates a re-ranked retrieval re-scores per query for ``model`` on ``benchmark``
    (schema section ``retrieval``), or None when the model ranks by its embeddings alone:
    ``retrieval.rerank: none``, no embeddings, or a pair score other than ITM + ITC."""
    spec = section(dict(config), "retrieval")
    if (spec["rerank"] == "none" or not has_embeddings(dict(entry))
            or entry.get("pair_score") not in RERANK_PAIR_SCORES):
        return None
    own = entry.get("k_test")
    if isinstance(own, Mapping):
        own = own.get(benchmark)
    if own is not None:
        return int(own)
    return int((spec.get("k_test") or {}).get(benchmark, DEFAULT_K_TEST))


GALLERY_TABLE_NAMES = ("aro", "hendriksen", "granularity")
"""The robustness tables a gallery can feed (``galleries.<g>.tables``, default all)."""
ARO_WORD_ORDER = ("shuffle_nouns_and_adj", "shuffle_allbut_nouns_and_adj",
                  "shuffle_within_trigrams", "shuffle_trigrams", "shuffle_all_words")
"""ARO Table 3's text perturbations (its Table 1's five word-order shuffles)."""


def robustness_k_test(config: Mapping[str, Any], model: str, entry: Mapping[str, Any],
                      gallery: str) -> int | None:
    """Candidates each query of a robustness ``gallery`` re-scores for ``model``, or None when
    the gallery is ranked by the model's embeddings: the gallery's ``rerank`` (true, false or
    the models it re-ranks; default: true when it feeds ARO's tables) leaves the model out,
    or `rerank_k_test` of its dataset's retrieval is None."""
    spec = config["benchmarks"]["robustness"]["galleries"][gallery]
    rerank = spec.get("rerank", "aro" in spec.get("tables", GALLERY_TABLE_NAMES))
    if not (model in rerank if isinstance(rerank, list) else rerank):
        return None
    return rerank_k_test(config, model, entry, f"{spec.get('dataset', 'world')}_retrieval")


def gallery_text_perturbations(config: Mapping[str, Any], gallery: str) -> list[str]:
    """The text perturbations a robustness ``gallery`` is evaluated under, in the configured
    order: those a table it feeds reads. ARO's Tables 3–4 read the five word-order shuffles
    (`ARO_WORD_ORDER`), Hendriksen's and the granularity tables every configured one; a
    gallery not in ``perturbed_galleries`` has none."""
    spec = config["benchmarks"].get("robustness") or {}
    if gallery not in spec.get("perturbed_galleries", []):
        return []
    names = list(spec.get("text_perturbations", []))
    tables = spec["galleries"][gallery].get("tables", GALLERY_TABLE_NAMES)
    if set(tables) - {"aro"}:
        return names
    return [n for n in names if n in ARO_WORD_ORDER]


def expand_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Training runs by id: a run with ``seeds`` becomes ``{name}_s{seed}``, one per seed."""
    runs: dict[str, dict[str, Any]] = {}
    for name, run in config.get("train", {}).items():
        if "seeds" not in run:
            runs[name] = dict(run)
            continue
        for seed in run["seeds"]:
            settings = {k: v for k, v in run.items() if k != "seeds"}
            runs[f"{name}_s{seed}"] = {**settings, "seed": seed}
    return runs


def conversion_name(model: str, entry: Mapping[str, Any] | None = None) -> str:
    """The name of a model's conversion (``convert.name``, default the model's)."""
    return str(((entry or {}).get("convert") or {}).get("name", model))


def converted_folder(model: str, entry: Mapping[str, Any] | None = None) -> str:
    """Where rule convert_blip writes the transformers folder of a model with ``convert``
    (named by `conversion_name`)."""
    return f"resources/models/{conversion_name(model, entry)}_hf"


# generative scorers, log P(text | image) (VisualGPTScore): BLIP's captioner, BLIP-2 with a
# frozen LLM, BLIP-2's Q-Former captioner; every place that treats captioners treats these
CAPTIONER_FAMILIES = ("hf_blip_lm", "hf_blip2_lm", "hf_blip2_qformer_lm")
# families without single-vector embeddings: they score choice benchmarks pair by pair and
# get no retrieval or robustness metrics (BLIP-2's ITC is a max over 32 query embeddings)
PAIR_ONLY_FAMILIES = (*CAPTIONER_FAMILIES, "hf_blip2_itm")
# cross-encoders whose pair score is an ITM head: VisualGPTScore Table 1's ITMScore role
ITM_FAMILIES = ("hf_blip_itm", "xvlm", "hf_blip2_itm")


def is_captioner(entry: dict[str, Any]) -> bool:
    """Whether a model entry scores log P(text | image) (a captioner family)."""
    return entry["family"] in CAPTIONER_FAMILIES


def has_embeddings(entry: dict[str, Any]) -> bool:
    """Whether a model entry embeds images and texts (retrieval, robustness, cosine)."""
    return entry["family"] not in PAIR_ONLY_FAMILIES


def model_role(entry: dict[str, Any]) -> str:
    """VisualGPTScore Table 1's role of a model: ``generative`` (a captioner), ``itm`` (a
    cross-encoder scoring pairs with its ITM head) or ``discriminative`` (embeddings' cosine,
    or an ITC pair score)."""
    if is_captioner(entry):
        return "generative"
    if entry["family"] in ITM_FAMILIES and entry.get("pair_score", "none") not in ("none", "itc"):
        return "itm"
    return "discriminative"


def expand_models(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Model entries by id: a model of a multi-seed run becomes ``{model}_s{seed}`` per seed.

    Every entry gets ``label`` (its display name: the configured label or the model name) and
    ``group`` (the configured model name, shared by all seeds).
    """
    train = config.get("train", {})
    models: dict[str, dict[str, Any]] = {}
    for name, entry in config["models"].items():
        base = {**entry, "label": entry.get("label", name), "group": name}
        run = train.get(entry.get("run", ""), {})
        if "run" in entry and "seeds" in run:
            for seed in run["seeds"]:
                models[f"{name}_s{seed}"] = {**base, "run": f"{entry['run']}_s{seed}"}
        else:
            models[name] = base
    return models


def model_groups(models: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Display label → model ids (the seeds of one configured model), in config order."""
    groups: dict[str, list[str]] = {}
    for model_id, entry in models.items():
        groups.setdefault(entry["label"], []).append(model_id)
    return groups


def _llm_slug(model: str) -> str:
    """A text prior's default name: the last part of its model id or folder, lower case, runs
    of other characters as ``_`` (``facebook/opt-2.7b`` -> ``opt_2_7b``)."""
    import re

    last = str(model).rstrip("/").rsplit("/", 1)[-1].lower()
    return re.sub(r"[^a-z0-9]+", "_", last).strip("_") or "llm"


def text_priors(config: dict[str, Any]) -> list[dict[str, Any]]:
    """VisualGPTScore's text-only LM priors P_LLM(t) (``visualgptscore.llm``: one mapping or a
    list of them), each with ``name`` (its column ``log_prior_llm_{name}``; default from the
    model id) and ``label`` (its Table 2 row ``P_LLM(t) {label}``; default the model id's
    last part). Names must be unique."""
    value = config.get("visualgptscore", {}).get("llm") or []
    entries = [value] if isinstance(value, dict) else list(value)
    out, seen = [], set()
    for k, entry in enumerate(entries):
        name = entry.get("name") or _llm_slug(entry["model"])
        if name in seen:
            raise ConfigError(f"config.visualgptscore.llm[{k}]: name {name!r} is taken by "
                              "another text prior (give each a distinct name)")
        seen.add(name)
        label = entry.get("label") or str(entry["model"]).rstrip("/").rsplit("/", 1)[-1]
        out.append({**entry, "name": name, "label": label})
    return out


def prior_column(config: dict[str, Any]) -> str:
    """The prior α divides by, as the ``log_prior_{...}`` column of the prior tables:
    ``null``, ``train`` or, for ``alpha_prior: llm``, the first text prior's
    ``llm_{name}``."""
    prior = config.get("visualgptscore", {}).get("alpha_prior", "null")
    if prior == "llm":
        return f"llm_{text_priors(config)[0]['name']}"
    return prior
