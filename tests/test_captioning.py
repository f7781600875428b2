"""COCO captioning metrics via pycocoevalcap, and BISON §6 caption-score accuracy."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vlcomp.data.bison import bison_items
from vlcomp.data.coco_references import coco_references
from vlcomp.metrics import captioning as cap
from vlcomp.metrics.captioning import (
    MetricUnavailable,
    bison_reference_sets,
    caption_metrics,
    caption_score_accuracy,
    simple_tokenize,
    unavailable_reasons,
)

HAVE_SCORER = importlib.util.find_spec("pycocoevalcap") is not None
needs_scorer = pytest.mark.skipif(
    not HAVE_SCORER, reason="pycocoevalcap not installed (pip install pycocoevalcap==1.2)")
needs_java = pytest.mark.skipif(cap.java_version() is None, reason="java is not on PATH")
TOKENIZERS = ["simple", pytest.param("ptb", marks=needs_java)]


def _ok(metrics: tuple[str, ...], tokenizer: str) -> None:
    reasons = unavailable_reasons(metrics, tokenizer)
    if reasons:
        pytest.skip(f"not runnable here: {reasons}")


# ---- BLEU (hand-checked) -------------------------------------------------------------------


@needs_scorer
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_bleu_hand_checked_precisions(tokenizer):
    # "a man rides a horse" vs "a man rides a bike": clipped n-gram precisions 4/5, 3/4, 2/3,
    # 1/2, equal lengths (no brevity penalty); BLEU-n is their geometric mean
    out = caption_metrics({"img": ["A man rides a bike!"]}, {"img": "A man rides a horse."},
                          metrics=("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4"),
                          tokenizer=tokenizer, per_item=True)
    expect = {"BLEU-1": 80.0, "BLEU-2": 100 * math.sqrt(0.6),
              "BLEU-3": 100 * 0.4 ** (1 / 3), "BLEU-4": 100 * 0.2 ** 0.25}
    assert out["overall"] == pytest.approx(expect, abs=1e-4)
    assert out["per_item"]["BLEU-4"]["img"] == pytest.approx(66.874, abs=1e-3)
    assert out["tokenizer"] == tokenizer and out["n_items"] == 1


@needs_scorer
def test_bleu_brevity_penalty_and_closest_reference_length():
    out = caption_metrics({1: ["a man rides a horse"]}, {1: "a man rides"},
                          metrics=("BLEU-1", "BLEU-3"), tokenizer="simple")
    bp = math.exp(1 - 5 / 3)  # candidate 3 words, reference 5: precisions are all 1
    assert out["overall"] == pytest.approx({"BLEU-1": 100 * bp, "BLEU-3": 100 * bp}, abs=1e-4)
    # references of 8 and 4 words: the closest (4) is used, so a 5-word candidate whose words
    # all occur in a reference has no penalty (the average length 6 would give exp(1 - 6/5))
    out = caption_metrics({1: ["a man rides a horse on the beach", "a man on horseback"]},
                          {1: "a man rides a horse"}, metrics=("BLEU-1",), tokenizer="simple")
    assert out["overall"]["BLEU-1"] == pytest.approx(100.0, abs=1e-4)


@needs_scorer
def test_bleu_corpus_value_pools_counts_over_items():
    refs = {"a": ["a man rides a bike"], "b": ["two cats"]}
    cands = {"a": "a man rides a horse", "b": "two dogs"}
    out = caption_metrics(refs, cands, metrics=("BLEU-1",), tokenizer="simple", per_item=True)
    assert out["overall"]["BLEU-1"] == pytest.approx(100 * 5 / 7, abs=1e-4)  # (4+1)/(5+2)
    assert out["per_item"]["BLEU-1"] == pytest.approx({"a": 80.0, "b": 50.0}, abs=1e-4)


# ---- CIDEr-D (hand-checked) ----------------------------------------------------------------
# Every n-gram below occurs in exactly one item's references, so with 2 items every idf is
# log(2) - log(1) (unseen candidate n-grams also get df 1): the tf-idf cosines are plain ratios.


@needs_scorer
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_cider_d_identical_captions_score_ten(tokenizer):
    refs = {1: ["A dog runs on grass."], 2: ["Two cats eat fish."]}
    cands = {1: "a dog runs on grass", 2: "two cats eat fish"}
    out = caption_metrics(refs, cands, metrics=("CIDEr-D",), tokenizer=tokenizer)
    assert out["overall"]["CIDEr-D"] == pytest.approx(1000.0, abs=1e-4)  # 10.0 × 100


@needs_scorer
def test_cider_d_partial_overlap_and_bigram_cosines():
    refs = {"a": ["dog runs"], "b": ["cat eats"]}
    cands = {"a": "dog sleeps", "b": "cat eats"}
    out = caption_metrics(refs, cands, metrics=("CIDEr-D",), tokenizer="simple", per_item=True)
    # a: unigram cosine 1/2, bigram 0, no 3-/4-grams → mean 0.125 × 10; b: (1 + 1 + 0 + 0)/4 × 10
    assert out["per_item"]["CIDEr-D"] == pytest.approx({"a": 125.0, "b": 500.0}, abs=1e-6)
    assert out["overall"]["CIDEr-D"] == pytest.approx(312.5, abs=1e-4)


@needs_scorer
def test_cider_d_gaussian_length_penalty():
    refs = {"a": ["dog runs fast"], "b": ["cat eats"]}
    cands = {"a": "dog runs", "b": "cat eats"}
    out = caption_metrics(refs, cands, metrics=("CIDEr-D",), tokenizer="simple", per_item=True)
    # unigram cosine 2/√6, bigram 1/√2, length difference 1 → exp(-1 / (2 σ²)), σ = 6
    expect = (2 / math.sqrt(6) + 1 / math.sqrt(2)) / 4 * math.exp(-1 / 72) * 10 * 100
    assert out["per_item"]["CIDEr-D"]["a"] == pytest.approx(expect, abs=1e-6)


# ---- ROUGE-L, METEOR, tokenizer ------------------------------------------------------------


@needs_scorer
def test_rouge_l_from_longest_common_subsequence():
    out = caption_metrics({1: ["dog sleeps on grass"]}, {1: "dog runs on grass"},
                          metrics=("ROUGE-L",), tokenizer="simple")
    assert out["overall"]["ROUGE-L"] == pytest.approx(75.0, abs=1e-4)  # LCS 3 of 4 both ways


@needs_scorer
@needs_java
def test_meteor_runs_with_java():
    _ok(("METEOR",), "ptb")
    refs = {1: ["A man riding a horse."], 2: ["Two dogs play in the snow."]}
    cands = {1: "a man riding a horse", 2: "a dog in snow"}
    out = caption_metrics(refs, cands, metrics=("METEOR",), per_item=True)
    assert out["per_item"]["METEOR"][1] == pytest.approx(100.0, abs=1e-6)
    assert 0 < out["per_item"]["METEOR"][2] < 50
    assert 0 < out["overall"]["METEOR"] < 100


@needs_scorer
@needs_java
def test_simple_tokenizer_agrees_with_ptb_on_coco_like_captions():
    _ok(("BLEU-1",), "ptb")
    captions = ["A man with a red helmet on a small moped on a dirt road. ",
                "The man doesn't have a hat; he's smiling.", "A \"large\" pizza (with cheese)",
                "3.5 inch screen at 10:30 a.m.", "A woman's purse... on a bench -- outside",
                "A black-and-white cat on a T.V.", "cats/dogs in a room", "A 100% cotton shirt",
                "Café au lait on a table\nnear a window"]
    ptb = cap._ptb_tokenize({i: [c] for i, c in enumerate(captions)})
    assert [simple_tokenize(c) for c in captions] == [ptb[i][0] for i in range(len(captions))]
    assert ptb[2][0] == "a large pizza -lrb- with cheese -rrb-"  # PTB's lower-cased brackets


def test_simple_tokenize():
    assert simple_tokenize("The dog's toy isn't red, it's BLUE!") == \
        "the dog 's toy is n't red it 's blue"
    assert simple_tokenize("A man (left) on a T.V. at 10:30") == \
        "a man -lrb- left -rrb- on a t.v. at 10:30"


# ---- availability ----------------------------------------------------------------------------


def _fake_package(root: Path, *, corenlp_36: bool) -> Path:
    for part, files in cap._JARS.items():
        for f in files:
            if part == "SPICE" and "3.6.0" in f and not corenlp_36:
                continue
            (root / f).parent.mkdir(parents=True, exist_ok=True)
            (root / f).write_bytes(b"jar")
    return root


def test_without_java_the_standard_tokenizer_blocks_every_metric(monkeypatch, tmp_path):
    monkeypatch.setattr(cap, "_package_dir", lambda: _fake_package(tmp_path, corenlp_36=True))
    monkeypatch.setattr(cap, "java_version", lambda: None)
    reasons = unavailable_reasons(("BLEU-4", "CIDEr-D"), "ptb")
    assert set(reasons) == {"BLEU-4", "CIDEr-D"}
    assert "PTBTokenizer needs Java" in reasons["BLEU-4"]
    reasons = unavailable_reasons(cap.METRICS, "simple")
    assert set(reasons) == {"METEOR", "SPICE"}
    assert reasons["METEOR"].startswith("METEOR needs Java")
    with pytest.raises(MetricUnavailable, match="BLEU-4 unavailable: the standard PTBTokenizer"):
        caption_metrics({1: ["a dog"]}, {1: "a dog"}, metrics=("BLEU-4",))
    out = caption_metrics({1: ["a dog"]}, {1: "a dog"}, metrics=("BLEU-4", "SPICE"),
                          on_unavailable="record")
    assert out["overall"] == {"BLEU-4": None, "SPICE": None}
    assert out["unavailable"]["SPICE"].startswith("unavailable: the standard PTBTokenizer")


def _corenlp_zip(path: Path, members: tuple[str, ...] = cap.CORENLP_JARS) -> Path:
    """``stanford-corenlp-full-2015-12-09.zip`` as released: one top folder holding the jars
    (and much else: here a README and a lib jar)."""
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:
        for name in (*members, "README.txt", "joda-time.jar"):
            zf.writestr(f"{cap.CORENLP}/{name}", f"stand-in for {name}")
    return path


def test_spice_needs_its_folder_and_a_java_before_16(monkeypatch, tmp_path):
    monkeypatch.setattr(cap, "_package_dir", lambda: _fake_package(tmp_path, corenlp_36=True))
    monkeypatch.setattr(cap, "java_version", lambda: 11)
    # no folder (the world downloads nothing): a reason that says so, never a blank
    reasons = unavailable_reasons(cap.METRICS, "ptb")
    assert list(reasons) == ["SPICE"] and "Stanford CoreNLP 3.6.0" in reasons["SPICE"]
    spice = tmp_path / "spice"
    (spice / "lib").mkdir(parents=True)
    (spice / "spice-1.0.jar").write_bytes(b"jar")
    reasons = unavailable_reasons(cap.METRICS, "ptb", spice)
    assert "lib/stanford-corenlp-3.6.0-models.jar" in reasons["SPICE"]
    assert "rule spice_jars" in reasons["SPICE"]
    for jar in cap.CORENLP_JARS:
        (spice / "lib" / jar).write_bytes(b"jar")
    assert unavailable_reasons(cap.METRICS, "ptb", spice) == {}
    monkeypatch.setattr(cap, "java_version", lambda: 17)
    assert list(unavailable_reasons(cap.METRICS, "ptb", spice)) == ["SPICE"]
    assert "Java 17" in unavailable_reasons(("SPICE",), "ptb", spice)["SPICE"]


def test_prepare_spice_lays_out_spice_and_the_corenlp_jars(tmp_path):
    dest = cap.prepare_spice(_corenlp_zip(tmp_path / "corenlp.zip"), tmp_path / "spice")
    assert (dest / "spice-1.0.jar").is_file()
    assert (dest / "lib" / "stanford-corenlp-3.6.0-models.jar").read_text() == \
        "stand-in for stanford-corenlp-3.6.0-models.jar"
    assert (dest / "lib" / "SceneGraphParser-1.0.jar").is_file()  # pycocoevalcap's own jars
    assert not (dest / "lib" / "joda-time.jar").exists()
    bad = _corenlp_zip(tmp_path / "other.zip", members=("stanford-corenlp-3.6.0.jar",))
    with pytest.raises(ValueError, match=r"other.zip: no stanford-corenlp-full-2015-12-09/"
                                         r"stanford-corenlp-3.6.0-models.jar"):
        cap.prepare_spice(bad, tmp_path / "spice2")
    assert not (tmp_path / "spice2").exists() and not (tmp_path / ".spice2.partial").exists()


def test_run_spice_reads_spice_output_as_pycocoevalcap(monkeypatch, tmp_path):
    def fake_java(cmd, cwd, check):
        out = Path(cmd[cmd.index("-out") + 1])
        items = json.loads(Path(cmd[4]).read_text())
        assert cmd[:4] == ["java", "-jar", "-Xmx8G", "spice-1.0.jar"] and cwd == tmp_path
        out.write_text(json.dumps([{"image_id": it["image_id"], "scores": {
            "All": {"f": 0.5 if it["test"] == "a dog" else None}}} for it in items]))

    monkeypatch.setattr(cap.subprocess, "run", fake_java)
    mean, items = cap.run_spice({0: ["a dog"], 1: ["a cat"]}, {0: ["a dog"], 1: ["x"]}, tmp_path)
    assert items[0] == 0.5 and np.isnan(items[1]) and np.isnan(mean)


def test_missing_package_is_named_with_its_pin(monkeypatch):
    monkeypatch.setattr(cap, "_package_dir", lambda: None)
    reasons = unavailable_reasons(("BLEU-1", "SPICE"), "simple")
    assert reasons == dict.fromkeys(("BLEU-1", "SPICE"), "pycocoevalcap is not installed "
                                    "(pip install pycocoevalcap==1.2)")


@pytest.mark.parametrize(("stderr", "major"), [
    ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment', 17),
    ('java version "1.8.0_312"\nJava(TM) SE Runtime Environment', 8),
    ('openjdk version "11" 2018-09-25', 11),
])
def test_java_version_parsing(monkeypatch, stderr, major):
    monkeypatch.setattr(cap.shutil, "which", lambda name: "/usr/bin/java")
    monkeypatch.setattr(cap.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a[0], 0, stdout="", stderr=stderr))
    assert cap.java_version.__wrapped__() == major
    monkeypatch.setattr(cap.shutil, "which", lambda name: None)
    assert cap.java_version.__wrapped__() is None


def test_inputs_are_checked():
    with pytest.raises(ValueError, match=r"no candidate for \[2\]"):
        caption_metrics({1: ["a"], 2: ["b"]}, {1: "a"}, tokenizer="simple")
    with pytest.raises(ValueError, match=r"references\[1\] must be a non-empty list"):
        caption_metrics({1: "a dog"}, {1: "a dog"}, tokenizer="simple")
    with pytest.raises(ValueError, match=r"candidates\[1\] must be a non-empty string"):
        caption_metrics({1: ["a dog"]}, {1: "  "}, tokenizer="simple")
    with pytest.raises(ValueError, match="unknown captioning metric"):
        caption_metrics({1: ["a dog"]}, {1: "a dog"}, metrics=("CIDEr",))


# ---- BISON §6 ------------------------------------------------------------------------------

CAPTIONS = {  # COCO image id → [(annotation id, caption)], raw as in captions_val2014.json
    1: [(11, "A brown dog runs on the green grass."), (12, "A brown dog runs on the grass. "),
        (13, "A dog running on green grass"), (14, "A brown dog is running outside\n"),
        (15, "The dog runs across a lawn")],
    2: [(21, "A cat sleeps on a red sofa."), (22, "A grey cat sleeping on a couch"),
        (23, "A cat curled up on a sofa"), (24, "A sleepy cat on the couch"),
        (25, "A cat lies on a red couch"), (26, "Cat asleep on furniture")],
    3: [(31, "A man rides a bike down the street."), (32, "Bananas in a bowl"),
        (33, "A bowl of fruit on a table"), (34, "Yellow bananas on a wooden table"),
        (35, "Fruit in a bowl")],
    4: [(41, "A man rides a bike down the street."), (42, "A man riding a bicycle on a road"),
        (43, "A cyclist on a city street"), (44, "A person rides a bike down a street")],
    5: [(51, "A red train at the station."), (52, "Two zebras in a field"),
        (53, "Zebras grazing on grass"), (54, "A pair of zebras standing"),
        (55, "Zebras in the wild")],
    6: [(61, "Two zebras in a field"), (62, "Zebras grazing on grass"),
        (63, "A pair of zebras standing"), (64, "Zebras in the wild")],
}
# (bison_id, query caption id, true image, candidates in file order)
BISON = [(0, 11, 1, [2, 1]), (1, 31, 3, [3, 4]), (2, 51, 5, [5, 6])]


def _name(image_id: int) -> str:
    return f"COCO_val2014_{image_id:012d}.jpg"


@pytest.fixture
def bison_files(tmp_path):
    """BISON annotation JSON and COCO captions_val2014.json shaped like the released files."""
    coco = {
        "info": {"description": "This is stable 1.0 version of the 2014 MS COCO dataset."},
        "images": [{"license": 3, "url": f"http://mscoco.org/images/{i}",
                    "file_name": _name(i), "id": i, "width": 640, "height": 480,
                    "date_captured": "2013-11-14 16:28:13"} for i in sorted(CAPTIONS)],
        "licenses": [{"url": "http://creativecommons.org/licenses/by-nc-sa/2.0/", "id": 3,
                      "name": "Attribution-NonCommercial-ShareAlike License"}],
        "annotations": [{"image_id": i, "id": a, "caption": c}
                        for i, caps in CAPTIONS.items() for a, c in caps][::-1],
    }
    bison = {"info": {"source": "coco", "split": "val2014"}, "data": [
        {"bison_id": b, "caption_id": q, "true_image_id": t,
         "image_candidates": [{"image_id": i, "image_filename": _name(i)} for i in cands]}
        for b, q, t, cands in BISON]}
    (tmp_path / "captions_val2014.json").write_text(json.dumps(coco))
    (tmp_path / "bison_annotations.cocoval2014.json").write_text(json.dumps(bison))
    items, _ = bison_items(tmp_path / "bison_annotations.cocoval2014.json",
                           tmp_path / "captions_val2014.json", tmp_path / "val2014",
                           expected_items=None)
    return items, coco_references(tmp_path / "captions_val2014.json")


def test_coco_references_keys_like_bison(bison_files):
    items, refs = bison_files
    assert list(refs.columns) == ["image_id", "caption_id", "text"]
    assert len(refs) == sum(len(v) for v in CAPTIONS.values())
    first = refs.iloc[0]
    assert (first.image_id, first.caption_id) == ("COCO_val2014_000000000001", 11)
    assert set(items.image_ids.sum()) <= set(refs.image_id)


def test_reference_sets_drop_the_query_by_id_and_sample_four_negatives(bison_files):
    items, refs = bison_files
    r, c = bison_reference_sets(items, refs, seed=0)
    pos = r[("bison-0", "positive")]
    assert pos == [t for _, t in CAPTIONS[1][1:]]  # all but caption 11, in id order
    assert c[("bison-0", "positive")] == c[("bison-0", "negative")] == CAPTIONS[1][0][1]
    neg = r[("bison-0", "negative")]
    assert len(neg) == len(set(neg)) == 4 and set(neg) < {t for _, t in CAPTIONS[2]}
    # image 4 has exactly four captions: all are used, including the query's exact text
    assert r[("bison-1", "negative")] == [t for _, t in CAPTIONS[4]]
    # deterministic, independent of item order, and the seed matters
    shuffled = items.iloc[::-1].reset_index(drop=True)
    assert bison_reference_sets(shuffled, refs.sample(frac=1, random_state=1), seed=0)[0] == r
    draws = {tuple(bison_reference_sets(items, refs, seed=s)[0][("bison-0", "negative")])
             for s in range(8)}
    assert len(draws) > 1


def test_duplicate_text_of_the_query_stays_in_the_positive_references(bison_files):
    items, refs = bison_files
    dup = pd.DataFrame([{"image_id": "COCO_val2014_000000000001", "caption_id": 16,
                         "text": CAPTIONS[1][0][1]}])
    r, _ = bison_reference_sets(items, pd.concat([refs, dup]), seed=0)
    assert r[("bison-0", "positive")][-1] == CAPTIONS[1][0][1]
    assert len(r[("bison-0", "positive")]) == 5


def test_reference_sets_reject_bad_items(bison_files):
    items, refs = bison_files
    with pytest.raises(ValueError, match=r"bison-0.*query caption_id 99 is not a caption"):
        bison_reference_sets(items.assign(caption_id=[99, 31, 51]), refs, seed=0)
    with pytest.raises(ValueError, match=r"bison-1.*has 4 captions, fewer than 5"):
        bison_reference_sets(items, refs, seed=0, n_negative_refs=5)
    with pytest.raises(ValueError, match="image 'COCO_val2014_000000000006' has no captions"):
        bison_reference_sets(items, refs[refs.image_id != "COCO_val2014_000000000006"],
                             seed=0)


def test_caption_score_accuracy_picks_the_higher_score_and_counts_ties(bison_files, monkeypatch):
    items, refs = bison_files
    fake = {("bison-0", "positive"): 30.0, ("bison-0", "negative"): 10.0,
            ("bison-1", "positive"): 5.0, ("bison-1", "negative"): 90.0,
            ("bison-2", "positive"): 0.0, ("bison-2", "negative"): 0.0}

    def fake_metrics(references, candidates, *, metrics, **kwargs):
        assert set(references) == set(fake) and kwargs["per_item"]
        return {"scorer": "fake", "per_item": {"BLEU-4": fake},
                "unavailable": {"SPICE": "unavailable: test"}}

    monkeypatch.setattr(cap, "caption_metrics", fake_metrics)
    out, outcomes = caption_score_accuracy(items, refs, metrics=("BLEU-4", "SPICE"))
    assert out["overall"] == {"BLEU-4": 33.3333, "SPICE": None}
    assert out["ties"] == {"BLEU-4": 1, "SPICE": None}
    assert out["unavailable"] == {"SPICE": "unavailable: test"}
    # each item's outcome, in the items' order (what section 6's bootstrap resamples)
    assert list(outcomes.columns) == ["BLEU-4"]
    assert list(outcomes.index) == list(items.item_id)
    assert outcomes["BLEU-4"].tolist() == [True, False, False]
    lenient, _ = caption_score_accuracy(items, refs, metrics=("BLEU-4",), tie_policy="lenient")
    assert lenient["overall"]["BLEU-4"] == 66.6667


@needs_scorer
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_caption_score_accuracy_with_real_scorers(bison_files, tokenizer):
    items, refs = bison_files
    out, _ = caption_score_accuracy(items, refs, metrics=("BLEU-4", "CIDEr-D", "ROUGE-L"),
                                    tokenizer=tokenizer)
    # item 0: the positive's other captions share 4-grams with the query, the cat captions do
    # not; item 1: the negative image carries the query's exact text; item 2: same references
    assert out["overall"] == {"BLEU-4": 33.3333, "CIDEr-D": 33.3333, "ROUGE-L": 33.3333}
    assert out["ties"] == {"BLEU-4": 1, "CIDEr-D": 1, "ROUGE-L": 1}
    assert out["n_items"] == 3 and out["unavailable"] == {}


def test_unknown_tie_policy_is_refused():
    with pytest.raises(ValueError, match="tie_policy"):
        caption_score_accuracy(pd.DataFrame(), pd.DataFrame(), tie_policy="random")
