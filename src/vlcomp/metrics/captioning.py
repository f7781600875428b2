"""COCO captioning metrics (BLEU-1..4, METEOR, ROUGE-L, CIDEr-D, SPICE) and BISON §6.

Scores come from the standard COCO caption evaluation code, the PyPI package
``pycocoevalcap`` (`PYCOCOEVALCAP_PIN`; not a project dependency: install it where these
metrics are wanted). As in its ``COCOEvalCap.evaluate``, references and candidates are first
tokenised by Stanford's PTBTokenizer (CoreNLP 3.4.1, ``-lowerCase``, punctuation tokens
dropped), then every scorer gets the tokenised text. Its ``Cider`` scorer is CIDEr-D (clipped
n-gram counts, Gaussian length penalty σ = 6, × 10; idf from the evaluated references), the
"CIDEr" of COCO tables. Values are reported × 100 (BISON Table 4: BLEU-4 32.35, CIDEr 97.20).

**Java.** PTBTokenizer, METEOR (``meteor-1.5.jar``) and SPICE (``spice-1.0.jar``) run ``java``
from ``PATH``. SPICE also needs Stanford CoreNLP 3.6.0 (``stanford-corenlp-3.6.0.jar`` and
``-models.jar``), which pycocoevalcap's ``Spice()`` would download at first use, inside a job;
here it never runs that way: rule ``spice_jars`` lays SPICE's jars and the two CoreNLP jars
(from the checksummed download of ``stanford-corenlp-full-2015-12-09.zip``) in one folder
(`prepare_spice`), and `run_spice` calls SPICE from there with its temporary files and cache
in a temporary folder. SPICE 1.0's cache (FST serialisation) is reported to fail on Java >= 16
(``InaccessibleObjectException``: tylin/coco-caption#59, yangbang18/MultiCapCLIP#2); it is
refused there (the conda environment ``envs/core.yaml`` brings Java 11). The tokenizer writes
a temporary file inside the package folder, which must be writable. A metric that cannot run
raises `MetricUnavailable` or, with ``on_unavailable="record"``, is listed as
``"unavailable: <reason>"`` with a ``None`` value.

``tokenizer="simple"`` is an explicit, pure-Python stand-in for PTBTokenizer (`simple_tokenize`)
for machines without Java. It is **not** the standard: it agrees with PTB on plain captions but
not on every quote, bracket or abbreviation, so its numbers are not comparable to published ones.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from vlcomp.io import atomic_folder
from vlcomp.seeding import stable_rng

PYCOCOEVALCAP_PIN = "pycocoevalcap==1.2"
METRICS = ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr-D", "SPICE")
SECTION6_METRICS = ("BLEU-4", "CIDEr-D", "METEOR", "SPICE")
JAVA_METRICS = ("METEOR", "SPICE")
SPICE_MAX_JAVA = 15
DECIMALS = 4
# pycocoevalcap.tokenizer.ptbtokenizer.PUNCTUATIONS: tokens dropped after PTB tokenisation
PTB_PUNCTUATIONS = frozenset({"''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?",
                              "!", ",", ":", "-", "--", "...", ";"})
_JARS = {
    "tokenizer": ("tokenizer/stanford-corenlp-3.4.1.jar",),
    "METEOR": ("meteor/meteor-1.5.jar", "meteor/data/paraphrase-en.gz"),
}
# SPICE's folder (rule spice_jars): its jar, the libraries pycocoevalcap ships beside it and
# the two CoreNLP 3.6.0 jars its manifest names under lib/
CORENLP = "stanford-corenlp-full-2015-12-09"
CORENLP_JARS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")
SPICE_JARS = ("spice-1.0.jar", *(f"lib/{jar}" for jar in CORENLP_JARS))
NO_SPICE_FOLDER = ("SPICE needs Stanford CoreNLP 3.6.0, which rule spice_jars fetches with a "
                   "configuration's downloads; this run has none (the synthetic world "
                   "downloads nothing)")
_TOKEN = re.compile(r"(?:[^\W\d_]\.){2,}|\d+(?::\d+)+|\w+(?:[-'./]\w+)*|\.\.\.|--|[^\w\s]")
_CLITIC = re.compile(r"^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$")
# PTB escapes brackets as -LRB- etc.; -lowerCase makes them -lrb-, which PTB_PUNCTUATIONS
# (upper case) does not drop, so the standard keeps them as words
_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}

Tokenizer = Literal["ptb", "simple"]
OnUnavailable = Literal["raise", "record"]


class MetricUnavailable(RuntimeError):
    """A requested captioning metric cannot run here (the message gives each reason)."""


@functools.lru_cache(maxsize=1)
def java_version() -> int | None:
    """Major version of the ``java`` on ``PATH`` (8 for ``1.8.0_x``), None if absent/broken."""
    java = shutil.which("java")
    if java is None:
        return None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if out.returncode != 0 or match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def _package_dir() -> Path | None:
    """pycocoevalcap's folder (a namespace package: it has no ``__init__.py``)."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def unavailable_reasons(
    metrics: Sequence[str] = METRICS, tokenizer: Tokenizer = "ptb",
    spice_dir: str | Path | None = None,
) -> dict[str, str]:
    """``{metric: reason}`` for every metric of ``metrics`` that cannot run here (SPICE: with
    its folder ``spice_dir``, `prepare_spice`)."""
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown captioning metric(s) {unknown}; known: {METRICS}")
    if tokenizer not in ("ptb", "simple"):
        raise ValueError(f"tokenizer must be 'ptb' or 'simple', got {tokenizer!r}")
    root = _package_dir()
    if root is None:
        return dict.fromkeys(metrics, f"pycocoevalcap is not installed (pip install "
                                      f"{PYCOCOEVALCAP_PIN})")
    java = java_version()
    no_java = "java is not on PATH (install a Java runtime, e.g. Debian default-jre-headless)"

    def missing(part: str) -> str | None:
        absent = [f for f in _JARS[part] if not (root / f).is_file()]
        return f"missing {', '.join(str(root / f) for f in absent)}" if absent else None

    common = None
    if tokenizer == "ptb":
        if java is None:
            common = f"the standard PTBTokenizer needs Java: {no_java}; tokenizer='simple' " \
                     "is a non-standard fallback"
        elif missing("tokenizer"):
            common = f"PTBTokenizer: {missing('tokenizer')}"
        elif not os.access(root / "tokenizer", os.W_OK):
            common = f"PTBTokenizer writes its temporary file into {root / 'tokenizer'}, " \
                     "which is not writable"
    reasons = {}
    for metric in metrics:
        reason = common
        if reason is None and metric in JAVA_METRICS:
            if java is None:
                reason = f"{metric} needs Java: {no_java}"
            elif metric != "SPICE":
                reason = missing(metric)
        if reason is None and metric == "SPICE":
            reason = _spice_reason(java, spice_dir)
        if reason is not None:
            reasons[metric] = reason
    return reasons


def _spice_reason(java: int | None, spice_dir: str | Path | None) -> str | None:
    """Why SPICE cannot run with Java ``java`` from ``spice_dir``, or None."""
    if spice_dir is None:
        return NO_SPICE_FOLDER
    absent = [jar for jar in SPICE_JARS if not (Path(spice_dir) / jar).is_file()]
    if absent:
        return (f"missing {', '.join(str(Path(spice_dir) / j) for j in absent)} (rule "
                f"spice_jars lays them out from {CORENLP}.zip)")
    if java is not None and java > SPICE_MAX_JAVA:
        return (f"SPICE 1.0's cache fails on Java {java} (>= 16, InaccessibleObjectException); "
                "put Java 8 or 11 first on PATH (envs/core.yaml brings Java 11)")
    return None


def prepare_spice(corenlp_zip: str | Path, dest: str | Path) -> Path:
    """SPICE's folder: pycocoevalcap's ``spice-1.0.jar`` and ``lib/*.jar`` beside the two
    CoreNLP 3.6.0 jars read from ``stanford-corenlp-full-2015-12-09.zip``; written under a
    temporary name and renamed into place. A zip without them is an error naming it."""
    import zipfile

    root = _package_dir()
    if root is None:
        raise MetricUnavailable(f"pycocoevalcap is not installed (pip install {PYCOCOEVALCAP_PIN})")
    with atomic_folder(dest) as tmp:
        (tmp / "lib").mkdir()
        shutil.copy2(root / "spice" / "spice-1.0.jar", tmp / "spice-1.0.jar")
        for jar in sorted((root / "spice" / "lib").glob("*.jar")):
            shutil.copy2(jar, tmp / "lib" / jar.name)
        with zipfile.ZipFile(corenlp_zip) as zf:
            names = set(zf.namelist())
            for jar in CORENLP_JARS:
                member = f"{CORENLP}/{jar}"
                if member not in names:
                    raise ValueError(f"{corenlp_zip}: no {member}; is it {CORENLP}.zip?")
                with zf.open(member) as src, open(tmp / "lib" / jar, "wb") as out:
                    shutil.copyfileobj(src, out)
    return Path(dest)


def run_spice(gts: dict[int, list[str]], res: dict[int, list[str]], spice_dir: str | Path
              ) -> tuple[float, list[float]]:
    """SPICE's F-score per item and their mean, as pycocoevalcap's ``Spice.compute_score``
    computes them (``java -jar -Xmx8G spice-1.0.jar in.json -cache -out -subset -silent``),
    run from ``spice_dir`` with its input, output and cache in a temporary folder."""
    import json
    import tempfile

    ids = sorted(gts)
    with tempfile.TemporaryDirectory(prefix="spice-") as work:
        source, target = Path(work) / "in.json", Path(work) / "out.json"
        source.write_text(json.dumps([{"image_id": i, "test": res[i][0], "refs": gts[i]}
                                      for i in ids]))
        subprocess.run(["java", "-jar", "-Xmx8G", "spice-1.0.jar", str(source), "-cache",
                        str(Path(work) / "cache"), "-out", str(target), "-subset", "-silent"],
                       cwd=spice_dir, check=True)
        found = {item["image_id"]: item["scores"]["All"]["f"]
                 for item in json.loads(target.read_text())}
    items = [float("nan") if found[i] is None else float(found[i]) for i in ids]
    return float(np.mean(items)), items


def simple_tokenize(text: str) -> str:
    """Pure-Python approximation of pycocoevalcap's PTB step (NOT the standard): lower-case,
    split punctuation and clitics (``dog's`` → ``dog 's``, ``don't`` → ``do n't``), keep
    abbreviations (``t.v.``), numbers (``3.5``, ``10:30``), ``a/b`` and hyphenated words, write
    brackets as PTB does (``-lrb-``), drop `PTB_PUNCTUATIONS` and double quotes, join with
    single spaces."""
    out: list[str] = []
    for token in _TOKEN.findall(text.replace("\n", " ").lower()):
        clitic = _CLITIC.match(token)
        parts = [clitic.group(1), clitic.group(2)] if clitic else [token]
        out += [_BRACKETS.get(p, p) for p in parts if p not in PTB_PUNCTUATIONS and p != '"']
    return " ".join(out)


def _ptb_tokenize(texts: Mapping[int, Sequence[str]]) -> dict[int, list[str]]:
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    wrapped = {k: [{"caption": t} for t in v] for k, v in texts.items()}
    return PTBTokenizer().tokenize(wrapped)


def _validate(references: Mapping[Hashable, Sequence[str]],
              candidates: Mapping[Hashable, str]) -> list[Hashable]:
    """The ids (reference order) after checking both mappings hold the same, non-empty texts."""
    ids = list(references)
    extra = [k for k in candidates if k not in references]
    missing = [k for k in ids if k not in candidates]
    if extra or missing:
        raise ValueError(f"references and candidates must have the same ids: no reference for "
                         f"{extra[:3]}, no candidate for {missing[:3]}")
    if not ids:
        raise ValueError("no captions to score")
    for key in ids:
        refs, cand = references[key], candidates[key]
        if isinstance(refs, str) or not refs:
            raise ValueError(f"references[{key!r}] must be a non-empty list of strings")
        if not all(isinstance(r, str) and r.strip() for r in refs):
            raise ValueError(f"references[{key!r}] holds an empty or non-string caption")
        if not isinstance(cand, str) or not cand.strip():
            raise ValueError(f"candidates[{key!r}] must be a non-empty string")
    return ids


def _score(metric_group: str, gts: dict[int, list[str]], res: dict[int, list[str]],
           spice_dir: str | Path | None = None) -> dict[str, tuple[float, list[float]]]:
    """Run one pycocoevalcap scorer: ``{metric: (overall, per-item list)}`` as fractions."""
    if metric_group == "BLEU":
        from pycocoevalcap.bleu.bleu import Bleu

        overall, items = Bleu(4).compute_score(gts, res, verbose=0)
        return {f"BLEU-{n + 1}": (overall[n], items[n]) for n in range(4)}
    if metric_group == "METEOR":
        from pycocoevalcap.meteor.meteor import Meteor

        scorer = Meteor()
        try:
            overall, items = scorer.compute_score(gts, res)
        finally:
            del scorer  # its __del__ ends the Java process
        return {"METEOR": (overall, items)}
    if metric_group == "ROUGE-L":
        from pycocoevalcap.rouge.rouge import Rouge

        overall, items = Rouge().compute_score(gts, res)
        return {"ROUGE-L": (overall, list(items))}
    if metric_group == "CIDEr-D":
        from pycocoevalcap.cider.cider import Cider

        overall, items = Cider().compute_score(gts, res)
        return {"CIDEr-D": (overall, list(items))}
    return {"SPICE": run_spice(gts, res, spice_dir or "")}


def caption_metrics(
    references: Mapping[Hashable, Sequence[str]],
    candidates: Mapping[Hashable, str],
    *,
    metrics: Sequence[str] = METRICS,
    tokenizer: Tokenizer = "ptb",
    on_unavailable: OnUnavailable = "raise",
    per_item: bool = False,
    spice_dir: str | Path | None = None,
) -> dict[str, Any]:
    """COCO caption metrics × 100 of ``candidates[id]`` against ``references[id]``.

    ``overall`` holds pycocoevalcap's corpus values (BLEU from summed n-gram counts, METEOR
    from the jar's aggregate, the others the mean per item), rounded to 4 places; a metric that
    cannot run is ``None`` there and its reason is in ``unavailable`` (``on_unavailable=
    "record"``) or raises `MetricUnavailable` (``"raise"``, before anything runs).
    ``per_item=True`` adds ``per_item[metric][id]`` (× 100, unrounded). SPICE runs from
    ``spice_dir`` (`prepare_spice`).
    """
    if on_unavailable not in ("raise", "record"):
        raise ValueError(f"on_unavailable must be 'raise' or 'record', got {on_unavailable!r}")
    ids = _validate(references, candidates)
    reasons = unavailable_reasons(metrics, tokenizer, spice_dir)
    if reasons and on_unavailable == "raise":
        raise MetricUnavailable("; ".join(f"{m} unavailable: {r}" for m, r in reasons.items()))
    runnable = [m for m in metrics if m not in reasons]
    gts: dict[int, list[str]] = {}
    res: dict[int, list[str]] = {}
    if runnable:
        n = len(ids)
        texts = {i: list(references[k]) for i, k in enumerate(ids)}
        texts.update({n + i: [candidates[k]] for i, k in enumerate(ids)})
        if tokenizer == "ptb":
            tokens = _ptb_tokenize(texts)
        else:
            tokens = {i: [simple_tokenize(t) for t in v] for i, v in texts.items()}
        gts = {i: tokens[i] for i in range(n)}
        res = {i: tokens[n + i] for i in range(n)}
    values: dict[str, tuple[float, list[float]]] = {}
    groups = dict.fromkeys("BLEU" if m.startswith("BLEU") else m for m in runnable)
    for group in groups:
        values.update(_score(group, gts, res, spice_dir))
    out: dict[str, Any] = {
        "metric": "captioning", "scorer": _scorer_version(), "tokenizer": tokenizer,
        "java": java_version(), "scale": 100, "n_items": len(ids),
        "overall": {m: (round(100.0 * float(values[m][0]), DECIMALS) if m in values else None)
                    for m in metrics},
        "unavailable": {m: f"unavailable: {r}" for m, r in reasons.items()},
    }
    if per_item:
        out["per_item"] = {m: {k: 100.0 * float(v) for k, v in zip(ids, values[m][1], strict=True)}
                           for m in metrics if m in values}
    return out


def _scorer_version() -> str | None:
    try:
        return f"pycocoevalcap {importlib.metadata.version('pycocoevalcap')}"
    except importlib.metadata.PackageNotFoundError:
        return None


# ---- BISON §6: captioning scores used as a BISON system --------------------------------------


def bison_reference_sets(
    items: pd.DataFrame, captions: pd.DataFrame, *, seed: int, n_negative_refs: int = 4
) -> tuple[dict[tuple[str, str], list[str]], dict[tuple[str, str], str]]:
    """Scorer inputs for BISON §6: for every item the query caption is the candidate twice,
    against (``item_id``, ``"positive"``) = the positive image's reference captions without
    the query (matched by ``caption_id``) and (``item_id``, ``"negative"``) =
    ``n_negative_refs`` of the negative image's captions drawn without replacement
    (`stable_rng` of ``seed`` and the item id, over the image's captions in ``caption_id``
    order).

    ``items``: BISON items in the choice schema (``t2i``, ``texts = [query]``, ``image_ids``
    the two candidates, ``label`` the positive's index) with a ``caption_id`` column;
    ``captions``: ``image_id, caption_id, text`` (COCO: file stem, annotation id, caption).
    """
    need = {"item_id", "image_ids", "texts", "label", "caption_id"} - set(items.columns)
    if need:
        raise ValueError(f"items lack column(s) {sorted(need)}")
    need = {"image_id", "caption_id", "text"} - set(captions.columns)
    if need:
        raise ValueError(f"captions lack column(s) {sorted(need)}")
    if n_negative_refs < 1:
        raise ValueError(f"n_negative_refs must be >= 1, got {n_negative_refs}")
    by_image = {str(image): group.sort_values("caption_id", kind="stable")
                for image, group in captions.groupby("image_id", sort=False)}
    references: dict[tuple[str, str], list[str]] = {}
    candidates: dict[tuple[str, str], str] = {}
    for row in items.itertuples(index=False):
        item, images, texts = str(row.item_id), list(row.image_ids), list(row.texts)
        label = int(row.label)
        if len(images) != 2 or len(texts) != 1 or label not in (0, 1):
            raise ValueError(f"item {item!r}: needs two image_ids, one text and label 0/1")
        pos, neg = (by_image.get(str(images[i])) for i in (label, 1 - label))
        for image, caps in ((images[label], pos), (images[1 - label], neg)):
            if caps is None:
                raise ValueError(f"item {item!r}: image {image!r} has no captions")
        keep = pos.caption_id != row.caption_id
        if keep.all():
            raise ValueError(f"item {item!r}: query caption_id {row.caption_id!r} is not a "
                             f"caption of its positive image {images[label]!r}")
        if not keep.any():
            raise ValueError(f"item {item!r}: positive image has no caption besides the query")
        if len(neg) < n_negative_refs:
            raise ValueError(f"item {item!r}: negative image {images[1 - label]!r} has "
                             f"{len(neg)} captions, fewer than {n_negative_refs}")
        pick = stable_rng("bison-caption-score", seed, item).choice(
            len(neg), size=n_negative_refs, replace=False)
        references[(item, "positive")] = [str(t) for t in pos.text[keep]]
        references[(item, "negative")] = [str(t) for t in neg.text.iloc[np.sort(pick)]]
        candidates[(item, "positive")] = candidates[(item, "negative")] = str(texts[0])
    if not references:
        raise ValueError("no BISON items")
    return references, candidates


def caption_score_accuracy(
    items: pd.DataFrame,
    captions: pd.DataFrame,
    *,
    metrics: Sequence[str] = SECTION6_METRICS,
    seed: int = 0,
    n_negative_refs: int = 4,
    tie_policy: Literal["strict", "lenient"] = "strict",
    tokenizer: Tokenizer = "ptb",
    on_unavailable: OnUnavailable = "record",
    spice_dir: str | Path | None = None,
) -> tuple[dict[str, Any], pd.DataFrame]:
    """BISON §6 ("Do caption score differences provide signal for BISON?"): score the query
    as a caption of each candidate image against that image's COCO references
    (`bison_reference_sets`) and pick the higher-scoring image; BISON accuracy (percent) per
    captioning metric. All ``2 × n_items`` (query, reference set) pairs go through one
    `caption_metrics` call, so CIDEr-D's idf comes from those reference sets. The paper does
    not say how ties are broken: ``strict`` counts a tie as wrong, ``lenient`` as right;
    ``ties`` counts them per metric. Published: BLEU-4 70.73, CIDEr-D 70.78, METEOR 74.44,
    SPICE 62.79. Returns the record and each item's outcome per available metric (index
    ``item_id`` in the items' order, one bool column per metric: its pick was right)."""
    if tie_policy not in ("strict", "lenient"):
        raise ValueError(f"tie_policy must be 'strict' or 'lenient', got {tie_policy!r}")
    references, candidates = bison_reference_sets(items, captions, seed=seed,
                                                  n_negative_refs=n_negative_refs)
    scored = caption_metrics(references, candidates, metrics=metrics, tokenizer=tokenizer,
                             on_unavailable=on_unavailable, per_item=True, spice_dir=spice_dir)
    item_ids = list(dict.fromkeys(item for item, _ in references))
    overall: dict[str, float | None] = dict.fromkeys(metrics)
    ties: dict[str, int | None] = dict.fromkeys(metrics)
    outcomes = pd.DataFrame(index=pd.Index(item_ids, name="item_id"))
    for metric, per in scored["per_item"].items():
        pos = np.array([per[(i, "positive")] for i in item_ids], dtype=np.float64)
        neg = np.array([per[(i, "negative")] for i in item_ids], dtype=np.float64)
        correct = pos > neg if tie_policy == "strict" else pos >= neg
        overall[metric] = round(100.0 * float(correct.mean()), DECIMALS)
        ties[metric] = int((pos == neg).sum())
        outcomes[metric] = correct
    return {
        "metric": "caption_score_accuracy", "tie_policy": tie_policy, "seed": seed,
        "n_negative_refs": n_negative_refs, "tokenizer": tokenizer,
        "scorer": scored["scorer"], "n_items": len(item_ids), "overall": overall,
        "ties": ties, "unavailable": scored["unavailable"],
    }, outcomes
