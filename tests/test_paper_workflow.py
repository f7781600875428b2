"""config/paper.yaml builds the whole paper DAG (dry run), and the same rules run end to end
on real-format files served by a file:// mirror, with tiny models in the papers' families."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from vlcomp.report.table_ci import NO_INTERVAL

from .conftest import REPO
from .workflow_runs import snakemake

PAPER = REPO / "config" / "paper.yaml"

# Jobs per rule of `snakemake -n --configfile config/paper.yaml` in an empty folder.
PAPER_JOBS = {
    "all": 1,
    # 58 files from vlcomp.data.sources (X-VLM: 2 checkpoints + their YAMLs, the Swin and
    # BERT JSONs; CIFAR-10/100's archives read in place; BLIP-2: LAVIS' stage-1 checkpoint for
    # the Q-Former's LM head; GNM's gnm_clip.pt), Stanford CoreNLP 3.6.0 for SPICE (laid out
    # by spice_jars) and OpenAI's ViT-B/32 and ViT-L/14 weights (vlcomp.pins), 12 folders
    # unpacked (Visual Genome's two zips into one); Flickr30k, VL-CheckList's HAKE images and
    # ImageNet's train, val and devkit checked (manual downloads); 20 hub snapshots: 17 models
    # (BLIP x 5, BLIP-2 x 2, ALIGN, AltCLIP, GroupViT, FLAVA, BERT's tokenizer, BART, FLAN-T5,
    # OPT, SDXL and its DPO UNet; BLIP's large captioner also gives the BLIP conversion its
    # tokenizer, the BLIP-2 snapshots and FLAN-T5 the ViT-L conversions their processors and
    # T5) and 3 datasets (BiVLC, TROHN-Text, TROHN-Img); LAVIS' 3 BLIP-2 ViT-L files;
    # Princeton's WordNet 3.0 archive (unpacked for rule wordnet)
    "download_file": 65, "unpack_archive": 14, "check_manual_download": 5, "wordnet": 1,
    "download_hub_snapshot": 20, "spice_jars": 1,
    "dataset_tables": 5, "imageset_split": 7,  # val splits: generative retrieval's alpha*
    "imageset_folder": 2,  # COCO val2014 / Flickr30k images outside the test split
    "aro_vg": 1, "sugarcrepe_benchmark": 1, "bivlc_benchmark": 1, "bison_benchmark": 1,
    "bison_altered_benchmark": 1, "winoground_benchmark": 1,
    # VisualGPTScore's other sets: CREPE's three negative types, VL-CheckList Relation, EqBen,
    # Winoground's untagged items
    "crepe_release": 3, "vl_checklist_release": 1, "eqben_release": 1, "winoground_no_tag": 1,
    "perturb_order": 10, "order_benchmark": 2, "retrieval_benchmark": 2,
    "robustness_gallery": 6, "perturb_texts": 1, "perturb_images": 18,
    # ARO: NegCLIP's released TSV (negatives + neighbours); BiVLC: the released TROHN-Text
    # and TROHN-Img rows, SDXL for BiVLC's own construction only
    "negclip_release": 1, "trohn_text_release": 1, "trohn_img_release": 1,
    # BiVLC's 30,048 SDXL images in 8 shards of ~5.5 A100-hours (vlcomp.plan.estimates)
    "generate_candidates_shard": 8, "generate_candidates_gather": 1,
    "filter_generated": 1, "train_detectors": 2,
    # 5 fine-tuning runs, each cut into segments of under 6 A100-hours (vlcomp.plan.estimates):
    # CLIP_COCO and CLIP_TROHN-Img's ~18 h in 4, CLIP_TROHN-Text's ~144 h in 24
    "train_clip": 5, "train_clip_segment": 3 + 23 + 3,
    # 17 dual encoders embed (NegCLIP twice: QuickGELU, and GELU as ARO loads it; GNM; CLIP
    # ViT-L/14; BLIP's ITC alone, VisualGPTScore's ITCScore); 3 BLIP ITMs (base and large:
    # ITM everywhere; base's Flickr30k fine-tune: ITM on Flickr30k-Order, cosine on the rest),
    # 2 X-VLMs (COCO: ITM everywhere; Flickr30k: ITM on ARO's 4 sets) and FLAVA (likewise)
    # embed and score pairs in one job each; BLIP-2's Q-Former ITC and ITM (ViT-L and ViT-g)
    # score pairs only (no embeddings); the 7 BLIP and BLIP-2 captioners score pairs and
    # priors in one job each, and the 3 BLIP captioners' log P(t|i) galleries run in shards:
    # COCO's (2 x 5,000 x 25,010 pairs) in 6 (base) or 9 (large), Flickr30k's in 1; 15 choice
    # benchmarks' scores and metrics in one job a model: 17 score_and_metrics, 6 + 4 + 5 + 2
    # pair_metrics
    "embed_model": 17, "score_pairs": 6, "score_pairs_only": 4,
    "score_generative_choice": 5, "score_generative_retrieval_shard": 6 + 9 + 9 + 3,
    # BLIP-2 FLAN-T5's choice pairs and priors (~16M LLM passes, ~45 A100-hours) in 8 shards,
    # for each image encoder (ViT-L, ViT-g)
    "score_generative_choice_shard": 16, "score_generative_choice_gather": 2,
    "score_generative_retrieval_gather": 6, "score_and_metrics": 17, "pair_metrics": 17,
    # BLIP's pre-training checkpoint -> VisualGPTScore's captioner; LAVIS' BLIP-2 ViT-L: its
    # Q-Former (ITC, ITM, captioner: one folder) and its FLAN-T5 stage
    "convert_blip": 3,
    # 23 embedding models (the 17 dual encoders, 3 BLIP ITMs, 2 X-VLMs, FLAVA) x 2 galleries
    "retrieval_metrics": 46, "robustness_metrics": 23,
    "rerank_candidates": 10, "rerank_shard": 10, "rerank_gather": 10,
    # ARO's coco gallery re-ranked by BLIP base's and X-VLM's COCO fine-tunes, flickr by their
    # Flickr30k ones (ARO App. B): 25 conditions each (clean, 5 text and 3 image shuffles x 3
    # seeds), shards of whole conditions
    "robustness_rerank_candidates": 4, "robustness_rerank_shard": 14,
    "robustness_rerank_gather": 4,
    "results_page": 1,
    "table_aro": 1, "table_aro_finetuning": 2, "figure_aro_radar": 1, "table_sugarcrepe": 1,
    "table_bivlc": 3, "table_bivlc_counts": 1, "table_bivlc_filter": 1,
    "table_bivlc_table5": 1,  # TROHN-Text's released rows: totals per split (no categories)
    "table_bivlc_detectors": 1, "figure_generated_examples": 1, "table_bison": 1,
    "table_bison_fig9": 1, "figure_bison_fig9": 1, "table_robustness": 4,
    "table_bison_section6": 1,  # BISON section 6: captioning metrics as BISON systems
    "bison_rank_agreement": 1,  # BISON §4.2: its systems' accuracy against COCO-1K R@1
    # BISON Tables 4 / 6 on the 3 BLIP captioners (BLIP-2's score, not generate, here): their
    # Karpathy test captions, one table
    "generate_captions": 3, "table_bison_captioners": 1,
    "granularity_statistics": 1,  # Hendriksen et al. section 3, per gallery's captions
    # every reproduced table with published numbers (22, VisualGPTScore's appendix
    # included) beside them, in one job
    "table_winoground": 1, "table_vs_published": 1,
    # VisualGPTScore: 7 captioners (3 BLIP, 4 BLIP-2) x 13 image->text benchmarks; Tables 1,
    # 2 and 4
    "alpha_curve": 91, "table_visualgptscore": 1,
    "llm_prior": 3,  # Table 2a's text-only BART, FLAN-T5 and OPT, each once for every captioner
    # Table 4a's ITMScore row: 7 ITM models (3 BLIP ITMs, 2 X-VLMs, BLIP-2's Q-Former ITMs)
    # on the captioners' held-out halves of the 4 pair sets (BiVLC, Winoground, its No-Tag
    # items, EqBen)
    "held_out_accuracy": 28,
    "table_visualgptscore_methods": 1, "generative_retrieval": 6, "retrieval_null_prior": 6,
    # appendix Table 5's null half: the LAION-pretrained BLIP on Winoground, 5 seeds
    "null_sampling_prior": 1, "table_visualgptscore_null_sampling": 1,
    # the appendix: Table 10 (BLIP-2 on ARO, Crepe, VL-CheckList), Tables 11-12 (BLIP and
    # BLIP-2 on Winoground, its No-Tag items and EqBen), Table 13 (Winoground per Diwan tag:
    # the 15 BLIP and BLIP-2 models' scores per tag)
    "table_visualgptscore_blip2": 1, "table_visualgptscore_pairs": 1,
    "winoground_tags": 15, "table_visualgptscore_tags": 1,
    # bootstrap CIs and paired tests per choice benchmark
    "uncertainty": 15, "uncertainty_retrieval": 2, "rank_correlation": 1, "summary": 1,
    "findings": 1,  # the papers' claims tested on the run
    "uncertainty_robustness": 1, "uncertainty_detectors": 1,  # every gallery; Table 4
    # VisualGPTScore Tables 2/4: 7 captioners x 13 + 3 BLIP captioners x 2 retrieval
    "uncertainty_alpha": 97,
    # blind baselines on 13 image->text benchmarks, one job each: a bigram LM and 7
    # captioners' P(t|null)
    "blind_scores": 8,
    "figure_analysis": 3,  # ARO per-relation bars, BiVLC I2T vs T2I, Hendriksen drops
    # ARO Table 6's classification rows: CIFAR-10/100 as PNGs, ImageNet's tables; ARO's 4
    # models (CLIP, CLIP-FT, NegCLIP ours and ARO's loader) embed 3 datasets x (train,
    # evaluation) images and their zero-shot prompts, and fit a probe per dataset; CIs per set
    "cifar_imagesets": 2, "imagenet_imagesets": 1, "embed_images": 24, "class_embeddings": 4,
    "classification_metrics": 12, "uncertainty_classification": 3,
    # every paper table's _ci companion (21; VisualGPTScore Tables 2/4 write theirs
    # themselves; Tables 10, 11, 13 and BISON section 6 among these), in one job
    "table_intervals": 1,
}


# hard_negatives.negclip.source: generate (the paper config reads NegCLIP's released TSV):
# one more embed_images job (COCO train for the neighbours)
REGENERATE_ONLY = {"negclip_negatives": 1, "embed_images": PAPER_JOBS["embed_images"] + 1,
                   "nearest_neighbours": 1}
# hard_negatives.sugarcrepe.source and generation.trohn_img.source: generate (the paper
# config reads BiVLC's released TROHN-Text and TROHN-Img): LLM negatives, TROHN-Img's
# selection, its SDXL images and their filter
# (TROHN-Text's 4.1M LLM generations in 19 shards, TROHN-Img's 296,070 SDXL images in 73
# beside BiVLC's 8)
TROHN_GENERATE_ONLY = {"sugarcrepe_negatives_shard": 19, "sugarcrepe_negatives_gather": 1,
                       "trohn_img_negatives": 1,
                       "generate_candidates_shard": 8 + 73, "generate_candidates_gather": 2,
                       "filter_generated": 2}


def job_counts(stdout: str) -> dict[str, int]:
    """Jobs per rule from the ``Job stats`` table of a dry run."""
    table = stdout.split("Job stats:")[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)
            if m[1] != "total"}


def test_paper_dag_dry_runs_with_every_rule(tmp_path):
    result = snakemake("-n", "--quiet", "rules", "--configfile", str(PAPER), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    counts = job_counts(result.stdout)
    assert counts == PAPER_JOBS
    rules = snakemake("--list-rules", "--configfile", str(PAPER), cwd=tmp_path)
    defined = set(rules.stdout.split())
    # mining NegCLIP's neighbour images runs only when its negatives are regenerated; the
    # LLM route stays defined beside the released TROHN-Text (nothing asks for its file);
    # each model's embeddings take under a GPU hour, so no embedding job is sharded; BISON's
    # Table 1 judgement needs the world's oracle, so retrieval_errors runs on the world only;
    # a model's cells beside the published numbers are `vlcomp evaluate`'s, asked for by it
    assert defined - set(counts) == set(REGENERATE_ONLY) - {"negclip_negatives",
                                                            "embed_images"} | {
        "sugarcrepe_negatives", "embed_model_shard", "embed_model_gather",
        "score_generative", "generate_candidates", "sugarcrepe_negatives_shard",
        "sugarcrepe_negatives_gather", "retrieval_errors", "model_vs_published"}
    # the heavy rules ask a cluster for a GPU (and memory, time)
    detail = snakemake("-n", "--configfile", str(PAPER), cwd=tmp_path).stdout
    # every job feeds a table, a figure or a finding, and each paper's tables have a cost
    from vlcomp.plan.dag import report_plan
    from vlcomp.plan.dry_run import parse_dry_run

    jobs = parse_dry_run(detail)
    # one job a model (or table set) writes one file each per benchmark (or table)
    outputs = {j.rule: j.output for j in jobs if j.rule in ("table_intervals",
                                                            "table_vs_published")}
    assert len([f for f in outputs["table_intervals"] if f.endswith("_ci.md")]) == 21
    assert len([f for f in outputs["table_vs_published"] if f.endswith(".md")]) == 22
    for rule, per_benchmark in (("score_and_metrics", 3), ("pair_metrics", 2)):
        # (scores +) json + csv of the 15 choice benchmarks
        assert {len(j.output) for j in jobs if j.rule == rule} == {per_benchmark * 15}
    reports = report_plan(jobs, lambda job: (float(job.gpus), 1.0))
    assert not reports.idle, sorted({j.rule for j in reports.idle})
    assert {c.name for c in reports.papers} == {"ARO", "BiVLC", "BISON", "VisualGPTScore",
                                                "Hendriksen et al.", "across papers"}
    resources = {}
    for block in re.split(r"\n(?=rule \w+:)", detail):
        if block.startswith("rule ") and "resources:" in block:
            rule = block.split(":")[0].removeprefix("rule ")
            resources.setdefault(rule, block.split("resources:")[1].split("\n")[0])
    heavy = ["train_clip", "train_clip_segment", "embed_model", "score_pairs",
             "score_generative_choice",
             "score_generative_retrieval_shard", "rerank_shard", "generate_candidates_shard",
             "filter_generated",
             "train_detectors", "embed_images",
             "class_embeddings", "classification_metrics",  # the probe runs on CUDA
             "llm_prior", "retrieval_null_prior", "null_sampling_prior"]
    for rule in heavy:
        assert "gpu=1" in resources[rule] and "runtime=" in resources[rule], rule
        assert "mem_mb=" in resources[rule], rule
    assert "gpu=" not in resources["table_aro"] and "gpu=" not in resources["download_file"]
    # the shipped SLURM profile's partition file sends every rule that asks for a GPU to the
    # GPU partition and every other rule to the CPU one (the plugin's own choice)
    from snakemake_executor_plugin_slurm.partitions import read_partition_file

    from vlcomp.plan.dry_run import DryJob
    from vlcomp.preflight.profile import choose_partition, job_resources, load_profile
    from vlcomp.preflight.slurm import ClusterPartition

    profile = load_profile(REPO / "profiles" / "slurm")
    configured = read_partition_file(REPO / "profiles" / "slurm" / "partitions.yaml")
    cluster = {"cpu": ClusterPartition("cpu", True, None, False),
               "gpu": ClusterPartition("gpu", False, None, True)}
    for rule, line in resources.items():
        pairs = dict(p.strip().split("=", 1) for p in line.split(",") if "=" in p)
        job = DryJob(rule, resources=pairs)
        chosen = choose_partition(job, job_resources(job, profile), configured, cluster)
        assert chosen == ("gpu" if pairs.get("gpu") == "1" else "cpu"), (rule, line)
        assert "gpu_model" not in pairs or pairs.get("gpu") == "1", (rule, line)


def test_paper_dag_regenerates_the_released_training_data_behind_one_switch_each(tmp_path):
    """hard_negatives.negclip.source, hard_negatives.sugarcrepe.source and
    generation.trohn_img.source: generate re-create NegCLIP's negatives and neighbour images
    and build TROHN-Text / TROHN-Img as BiVLC did (LLM, selection, SDXL) instead of reading
    the released data (one dry run for the three switches)."""
    cfg = yaml.safe_load(PAPER.read_text())
    cfg["hard_negatives"]["negclip"]["source"] = "generate"
    cfg["hard_negatives"]["sugarcrepe"]["source"] = "generate"
    cfg["generation"]["trohn_img"]["source"] = "generate"
    for run in ("trohn_text", "trohn_img"):  # no released validation rows: R@1 on val2017
        cfg["train"][run]["selection"] = "val_recall"
    config = tmp_path / "generate.yaml"
    config.write_text(yaml.safe_dump(cfg))
    result = snakemake("-n", "--configfile", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    counts = job_counts(result.stdout)
    assert not {"negclip_release", "trohn_text_release", "trohn_img_release"} & set(counts)
    wanted = REGENERATE_ONLY | TROHN_GENERATE_ONLY
    assert {rule: counts.get(rule) for rule in wanted} == wanted
    gathers = {"sugarcrepe_negatives_gather", "generate_candidates_gather"}  # CPU, light
    for rule in ["embed_images", *(r for r in TROHN_GENERATE_ONLY if r not in gathers)]:
        block = result.stdout.split(f"rule {rule}:")[1].split("\n\n")[0]
        assert "gpu=1" in block and "runtime=" in block and "mem_mb=" in block, rule


def test_paper_config_does_not_inherit_the_world(tmp_path):
    """--configfile replaces config/config.yaml: no world model or run leaks in."""
    result = snakemake("-n", "results/data/world/images.parquet", "--configfile", str(PAPER),
                       cwd=tmp_path)
    assert result.returncode != 0
    assert "MissingRuleException" in result.stdout + result.stderr


@pytest.mark.slow
def test_real_formats_run_end_to_end(real_run):
    work, _ = real_run
    coco = pd.read_parquet(work / "results/data/coco/images.parquet")
    assert coco.split.value_counts().to_dict() == {"train": 32, "test": 12, "val": 6}
    assert coco.path.str.contains("2014_train/train2014|2014_val/val2014").all()
    sugar = pd.read_parquet(work / "results/benchmarks/sugarcrepe.parquet")
    assert len(sugar) == 14 and (sugar.release == "7511").all()
    crops = pd.read_parquet(work / "results/imagesets/vg_crops.parquet")
    assert len(crops) == 6 and crops.bbox.map(list).iloc[0] == [2.0, 3.0, 30.0, 28.0]
    queries = pd.read_parquet(work / "results/benchmarks/coco_retrieval/queries.parquet")
    assert len(queries) == 60  # every caption of the 12 test images
    for model in ("tiny_clip", "negclip_ours", "blip_itm", "blip_lm"):
        for benchmark in ("vg_relation", "vg_attribution", "coco_order", "sugarcrepe", "bison"):
            record = json.loads((work / f"results/metrics/{model}/{benchmark}.json").read_text())
            assert record["model"] == model
    # BLIP's captioner has no embeddings: no retrieval for it
    assert not (work / "results/metrics/blip_lm/coco_retrieval.json").exists()
    aro = pd.read_csv(work / "results/tables/aro/aro.csv")
    assert {"VG-Relation", "VG-Attribution", "COCO-Order"} <= set(aro.columns)
    table6 = (work / "results/tables/aro/table6.md").read_text()
    assert "COCO Retrieval I2T R@1" in table6
    # BLIP and X-VLM ranked as BLIP's evaluation ranks: ITC's top k_test re-scored by ITM +
    # ITC (k_test 256 > 60 texts: the whole gallery), the ITC figures beside; tables say so
    for model in ("blip_itm", "xvlm_coco"):
        record = json.loads((work / f"results/metrics/{model}/coco_retrieval.json").read_text())
        assert record["ranking"] == "ITM re-ranked (top 256 by ITC)", model
        assert record["overall_itc"].keys() == record["overall"].keys()
        # COCO-1K folds cut in the order of Karpathy's dataset_coco.json (as served)
        assert record["folds"]["order"] == {
            "source": "karpathy_json", "same_image_order": True, "images_moved": 0,
            "caption_mismatches": 0, "same_caption_order": True}, model
    reranked = np.load(work / "results/scores/blip_itm/rerank/coco_retrieval.npz")
    assert reranked["i2t"].shape == (12, 60) and reranked["t2i"].shape == (60, 12)
    clip = json.loads((work / "results/metrics/tiny_clip/coco_retrieval.json").read_text())
    assert clip["ranking"] == "embedding cosine" and "overall_itc" not in clip
    assert "blip_itm (coco_retrieval: ITM re-ranked (top 256 by ITC))" in table6
    assert "blip_itm (coco_retrieval: ITM re-ranked (top 256 by ITC))" in (
        work / "results/tables/visualgptscore/table4.md").read_text()  # Table 4a's ITMScore
    # BLIP-2 with LAVIS' ViT-L, converted from the mirror's LAVIS files: 23 of CLIP's 24
    # blocks, fp16-rounded, LAVIS' ln_pre beside; it scores the choice sets and faces the
    # appendix's published Q-Former row
    folder = work / "resources/models/blip2_vitl_qformer_hf"
    record = json.loads((folder / "vlcomp_conversion.json").read_text())
    assert (record["vit_layers"], record["vit_precision"], record["stage"]) == (23, "fp16",
                                                                                "qformer")
    assert any(".resblocks.23." in key for key in record["dropped"])
    assert (folder / "vision_pre_layernorm.safetensors").is_file()
    vitl = json.loads((work / "results/metrics/blip2_vitl_itm/vg_relation.json").read_text())
    assert vitl["model"] == "blip2_vitl_itm"
    assert "BLIP-2 Q-Former ITM (ViT-L)" in (work / "results/tables/visualgptscore/table10.md"
                                             ).read_text()
    assert "| CIFAR10 |" in table6 and "| CIFAR10 zero-shot |" in table6
    cifar = json.loads((work / "results/metrics/tiny_clip/classification_cifar10.json")
                       .read_text())
    assert cifar["n_items"] == 20 and cifar["protocols"]["linear_probe"]["n_train"] == 100
    log = (work / "logs/train/negclip_coco.log").read_text()
    assert "fine-tuning negclip from tiny_clip" in log
    # the papers' claims on the real formats: tested where the models exist, numbers beside
    # published ones as differences (not directions: this is not the world)
    from vlcomp.report.findings import FAILS, HOLDS, NOT_RUN, read_findings

    findings = read_findings(work / "results/findings.csv")
    clip = findings[findings.id == "aro.clip_relation_order"].iloc[0]
    assert clip.verdict in (HOLDS, FAILS) and clip.compared == "CLIP vs chance 50"
    # the papers' models as the configuration plays them; ARO's CLIP-FT is played by none
    negclip = findings[findings.id == "aro.negclip_over_ablation[vg_relation]"].iloc[0]
    assert negclip.verdict == NOT_RUN and negclip.note.startswith("CLIP-FT absent")
    vgs = findings[findings.id == "visualgptscore.beats_itm_i2t[vg_relation]"].iloc[0]
    assert vgs.verdict in (HOLDS, FAILS)
    assert vgs.compared == "VisualGPTScore [BLIP P(t|i)] vs ITMScore [BLIP ITM]"
    from vlcomp.report.claim_verdicts import read_claims

    claims = read_claims(work / "results/claims.csv")
    assert {"ARO", "BiVLC", "BISON", "VisualGPTScore"} <= set(
        claims[claims.verdict != NOT_RUN].paper)
    assert (work / "results/findings.md").read_text().startswith("# Findings")
    assert "difference" in pd.read_csv(work / "results/tables/aro/aro_vs_published.csv")
    # BISON section 6's caption-score selection (a table of no model) and BISON above its
    # COCO-1K R@1 (the folds' metric, the first candidate) run on the released formats
    selection = findings[findings.id.str.startswith("bison.caption_scores_select_wrongly")]
    assert (selection[selection.id.str.contains("CIDEr-D")].verdict != NOT_RUN).all()
    above = findings[findings.id.str.startswith("bison.above_r1")]
    assert above.id.tolist() == ["bison.above_r1[retrieval system/CLIP]",
                                 "bison.above_r1[retrieval system/BLIP ITM]"]
    assert (above.metric == "accuracy vs folds t2i_r1").all()
    # BISON Tables 4 / 6 beside their published numbers: the Human row measured here
    captioning = pd.read_csv(work / "results/tables/bison/table4_vs_published.csv")
    human = captioning[(captioning.row == "Human") & (captioning.column == "BLEU-4")]
    assert len(human) == 2 and human.reproduced.notna().all()  # Tables 4 and 6
    # in 2 segments (tests/paper_run.py): the second continued from the first's state
    assert "segment 2 of 2, continuing from results/checkpoints/negclip_coco/segments/" \
        "0-of-2.pt" in log
    assert "segment 1 of 2" in (work / "logs/train/negclip_coco/0-of-2.log").read_text()
    # NegCLIP trains on its released TSV's rows (one caption per image), with its neighbours
    assert "released hard negatives: training on 32 of 160 training captions" in log
    release_log = (work / "logs/negatives/coco_negclip_release.log").read_text()
    assert "32 released rows: 32 matched a train caption, 0 did not" in release_log
    # BiVLC's construction on SugarCrepe's release: 4 SDXL candidates per negative caption,
    # chosen by the model decider, drawn beside COCO positives
    candidates = pd.read_parquet(work / "results/generated/bivlc/candidates.parquet")
    assert len(candidates) == 4 * 14
    assert (work / "results/tables/bivlc/filter.md").exists()
    assert (work / "results/figures/bivlc_generated_examples.png").stat().st_size > 1000
    compared = pd.read_csv(work / "results/tables/aro/aro_vs_published.csv")
    assert compared.reproduced.notna().any()
    # VisualGPTScore: null-image and text-only LM priors, and Table 2 with both
    prior = pd.read_parquet(work / "results/priors/blip_lm/sugarcrepe.parquet")
    assert prior[["log_prior_null", "log_prior_llm_flan_t5", "log_prior_llm_opt"]].lt(
        0).all().all()
    table2 = pd.read_csv(work / "results/tables/visualgptscore/table2.csv", index_col=0)
    assert {"P_LLM(t) flan-t5", "P_LLM(t) opt", "BLIP P(t|i) P(t|null)"} <= set(table2.index)
    # Winoground's released format (t2v_metrics' zip), scored by every model
    wino = pd.read_parquet(work / "results/benchmarks/winoground.parquet")
    assert len(wino) == 6 and set(wino.subset) == {"Object", "Relation", "Both"}
    table1 = pd.read_csv(work / "results/tables/visualgptscore/table1.csv", index_col=0)
    # VL-CheckList sampled as its Evaluate samples (the first 1000 per corpus), said in a note
    sampling = json.loads((work / "results/benchmarks/vl_checklist_sampling.json").read_text())
    assert sampling["max_per_corpus"] == 1000
    assert {(c["subset"], c["corpus"]) for c in sampling["corpora"]} == {
        ("action", "swig"), ("action", "vg"), ("spatial", "vg")}
    assert "VL-CheckList Relation: the first 1000 entries with an image per corpus" in (
        work / "results/tables/visualgptscore/table1.md").read_text()
    assert {"Winoground Text Score", "Winoground Image Score"} <= set(table1.columns)
    assert table1.loc["Random", "Winoground Text Score"] == 25.0
    # retrieval with log P(t|i): alpha* from the val gallery, COCO I2T R@1/R@5 (Table 4a)
    table4 = pd.read_csv(work / "results/tables/visualgptscore/table4.csv", index_col=0)
    assert {"COCO I2T R@1", "COCO I2T R@5", "COCO alpha*"} <= set(table4.columns)
    record = json.loads((work / "results/metrics/blip_lm/coco_retrieval_alpha.json").read_text())
    assert record["n_images"] == 12 and record["n_texts"] == 60
    assert record["val"]["n_images"] == 6
    # BISON Tables 4 / 6: the captioner's Karpathy test captions by COCO metrics
    captions = pd.read_parquet(work / "results/captions/blip_lm/coco_test.parquet")
    assert len(captions) == 12 and list(captions.columns) == ["image_id", "caption"]
    captioners = pd.read_csv(work / "results/tables/bison/table4.csv", index_col="model")
    assert list(captioners.index) == ["BLIP P(t|i)", "Human"]  # one reference vs the rest
    assert list(captioners.columns) == ["BLEU-4", "CIDEr-D", "SPICE", "METEOR", "Accuracy"]
    # BLIP-2 scores pairs without embeddings: no retrieval, and its captioner no galleries
    assert not (work / "results/metrics/blip2_itm/coco_retrieval.json").exists()
    assert not (work / "results/scores/blip2_t5/coco_retrieval.npz").exists()
    assert "BLIP-2 ITM" in table4.index  # Table 4a's ITMScore rows: every ITM model
    assert {"BLIP ITM", "BLIP-2 ITM"} <= set(table4.dropna(subset="EqBen Text Score").index)
    # the appendix: Table 10 (BLIP-2), 11 (pair sets, alpha rows), 13 (Winoground per tag)
    table10 = pd.read_csv(work / "results/tables/visualgptscore/table10.csv", index_col=0)
    assert list(table10.index) == ["Random", "BLIP-2 ITM", "BLIP-2 Q-Former ITM (ViT-L)",
                                   "BLIP-2 P(t|i)"]
    assert {"VG-Relation", "Crepe Negate", "VL-CheckList Relation"} <= set(table10.columns)
    table11 = pd.read_csv(work / "results/tables/visualgptscore/table11.csv", index_col=0)
    assert {"BLIP-2 P(t|i) (alpha=alpha*)", "BLIP P(t|i) (alpha=1)"} <= set(table11.index)
    assert {"EqBen Group Score", "Winoground alpha*"} <= set(table11.columns)
    table13 = pd.read_csv(work / "results/tables/visualgptscore/table13.csv", index_col=0)
    assert "Winoground No-Tag Group Score" in table13.columns
    assert "BLIP-2 P(t|i) (alpha=alpha*)" in table13.index
    # appendix Table 5's null half on the released Winoground layout (2 seeds here)
    table5 = pd.read_csv(work / "results/tables/visualgptscore/table5.csv", index_col=0)
    assert list(table5.index) == ["BLIP P(t|i) (alpha=alpha*) null n=3",
                                  "BLIP P(t|i) (alpha=alpha*) null n=10"]
    assert table5["Winoground alpha*"].between(0, 1).all()
    assert table5["Winoground Text Score"].between(0, 100).all()
    # every number of every paper table has its CI (or is exact: counts, chance levels),
    # VisualGPTScore's appendix Tables 11 and 13 and BISON section 6 included
    companions = sorted(work.glob("results/tables/*/*_ci.csv"))
    assert len(companions) == 18
    assert {"table11_ci", "table13_ci", "section6_ci"} <= {p.stem for p in companions}
    for path in companions:
        notes = pd.read_csv(path).get("note", pd.Series(dtype=str)).fillna("")
        assert not (notes == NO_INTERVAL).any(), path


@pytest.mark.slow
def test_cifar10_from_its_release_archive_reaches_aro_table6(real_run):
    """ARO Table 6's CIFAR10 rows: the python archive read in place, PNGs per split, the
    probe and zero-shot record, the row, its interval and the published cell beside it."""
    import numpy as np

    work, _ = real_run
    train = pd.read_parquet(work / "results/imagesets/cifar10_train.parquet")
    assert len(train) == 100 and train.path.str.startswith("results/images/cifar10/train/").all()
    assert train.filename.iloc[0] == "airplane_s_000000.png"
    record = json.loads((work / "results/metrics/tiny_clip/classification_cifar10.json")
                        .read_text())
    assert record["model"] == "tiny_clip" and record["n_items"] == 20 and record["n_train"] == 100
    assert set(record["overall"]) == {"linear_probe_top1", "linear_probe_top5",
                                      "zero_shot_top1", "zero_shot_top5"}
    assert record["protocols"]["linear_probe"]["n_val"] == 10  # one per class held out
    classes = np.load(work / "results/embeddings/tiny_clip/classes/cifar10.npy")
    assert classes.shape[0] == 10 and np.allclose(np.linalg.norm(classes, axis=1), 1, atol=1e-5)
    table6 = pd.read_csv(work / "results/tables/aro/table6.csv", index_col=[0, 1])
    cifar = table6.loc[("Downstream Tasks", "CIFAR10"), "CLIP"]
    assert cifar == pytest.approx(record["overall"]["linear_probe_top1"], abs=1e-4)
    intervals = pd.read_csv(work / "results/tables/aro/table6_ci.csv")
    row = intervals[(intervals.row == "CLIP") & (intervals.column == "CIFAR10")].iloc[0]
    assert row.ci_low <= row.value <= row.ci_high
    beside = pd.read_csv(work / "results/tables/aro/table6_vs_published.csv")
    published = beside[(beside.row == "CLIP") & (beside.column == "CIFAR10")].iloc[0]
    assert published.published == 95 and published.reproduced == pytest.approx(cifar)


@pytest.mark.slow
def test_xvlm_from_its_release_files_faces_aros_x_vlm_rows(real_run):
    """ARO's fourth model end to end: the checkpoint and YAML from their Drive ids, the Swin
    and BERT JSONs from X-VLM's repository (checked against the lock file), ITM + ITC pair
    scores on ARO's sets from one job, its rows facing the published X-VLM cells."""
    work, _ = real_run
    lock = json.loads((work / "downloads.lock.json").read_text())["files"]
    assert {"models/xvlm/xvlm-coco.pth", "models/xvlm/xvlm-coco-config.yaml",
            "models/xvlm/config_swinB_384.json", "models/xvlm/config_bert.json"} <= set(lock)
    log = (work / "logs/score_pairs/xvlm_coco.log").read_text()
    assert "70 images through xvlm_coco's vision tower" in log
    aro = pd.read_csv(work / "results/tables/aro/aro.csv", index_col=0)
    assert aro.loc["X-VLM", ["VG-Relation", "VG-Attribution", "COCO-Order"]].notna().all()
    beside = pd.read_csv(work / "results/tables/aro/aro_vs_published.csv")
    faced = beside[beside.ours == "X-VLM"]
    assert set(faced.column) >= {"VG-Relation", "VG-Attribution", "COCO-Order"}
    assert faced.published.notna().all() and faced.reproduced.notna().any()


@pytest.mark.slow
def test_real_run_is_complete(real_run):
    work, config = real_run
    result = snakemake("-n", "--configfile", str(config), cwd=work)
    assert result.returncode == 0 and "Nothing to be done" in result.stdout + result.stderr


@pytest.mark.slow
def test_published_coverage_plan_matches_the_real_format_run(real_run):
    from .test_coverage import assert_plan_matches_run

    work, config = real_run
    assert_plan_matches_run(work, yaml.safe_load(config.read_text()))


def test_evaluate_only_plan_lists_no_training_or_generation():
    """config/evaluate.yaml through the plan command: its dry run scores the released
    checkpoints on every benchmark, and trains and generates nothing."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "vlcomp.plan", "--configfile",
                           str(REPO / "config" / "evaluate.yaml")],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    rules = {line.split()[0] for line in done.stdout.splitlines()[1:-1]}
    for trained in ("train_clip", "train_detectors", "train_captioner", "generate_candidates",
                    "generate_candidates_shard", "filter_generated", "sugarcrepe_negatives",
                    "trohn_img_negatives", "nearest_neighbours"):
        assert trained not in rules
    assert {"embed_model", "score_pairs", "score_generative_retrieval_shard", "table_aro",
            "table_bivlc",
            "table_visualgptscore", "table_bison", "table_robustness",
            "table_vs_published"} <= rules
    last = done.stdout.splitlines()[-1]
    assert re.fullmatch(r"longest job: [\d.]+ h; total: [\d.]+ GPU-h, [\d.]+ CPU-h", last)
    # what each paper's tables and each table cost; every job feeds one
    assert "what each paper's tables cost" in done.stdout
    assert re.search(r"^  tables/robustness/aro_table3 +[\d.]+ GPU-h", done.stdout, re.M)
    assert "jobs that feed no table, figure or finding: none" in done.stdout
    # the plan the docs quote is today's
    assert f"`{last}`" in (REPO / "docs" / "cluster.md").read_text()
    readme = " ".join((REPO / "README.md").read_text().split())
    assert f"`{last}`" in readme


def test_real_format_run_read_every_model_from_pinned_snapshots_offline(real_run, tmp_path,
                                                                       monkeypatch):
    """The real-format run fetched every hub model and tokenizer from the mirror's hub at its
    pinned commit (OPT, unpinned, at the commit the lock file recorded), then ran every job
    offline with a home nothing could be written under; a job whose snapshot lost a file, or
    whose configuration pins another commit, fails naming them."""
    import shutil

    from transformers import BlipForImageTextRetrieval, BlipProcessor

    from vlcomp.metrics.captioning import SPICE_MAX_JAVA, java_version
    from vlcomp.models.hf_loading import load_pretrained
    from vlcomp.models.hub import SnapshotError, read_manifest

    from .real_mirror import hub_revision

    work, config = real_run
    cfg = yaml.safe_load(config.read_text())
    pinned = [(e["model"], e["revision"]) for e in cfg["models"].values() if "revision" in e]
    pinned += [(cfg["models"]["xvlm_coco"]["tokenizer"],
                cfg["models"]["xvlm_coco"]["tokenizer_revision"])]
    assert len(pinned) == 5
    for repo, revision in pinned:
        manifest = read_manifest(work / "resources" / "models" / "hub" / repo)
        assert manifest["revision"] == revision == hub_revision(repo)
    lock = json.loads((work / "downloads.lock.json").read_text())
    assert lock["revisions"] == {"hub/models/mirror-org/opt": hub_revision("mirror-org/opt")}
    # the run's HOME was an empty file; the only cache written is Snakemake's own
    node = work.parent / "node"
    assert (node / "home").is_file() and (node / "home").stat().st_size == 0
    assert {p.name for p in (node / "cache").iterdir()} <= {"snakemake"}
    # SPICE's folder was laid out from the CoreNLP zip; SPICE itself ran or said why not
    assert (work / "resources/spice/jars/lib/stanford-corenlp-3.6.0-models.jar").is_file()
    section6 = json.loads((work / "results/metrics/bison_section6.json").read_text())
    java = java_version()
    if java is None or java > SPICE_MAX_JAVA:
        assert "Java" in section6["unavailable"]["SPICE"]
    # the loaders the jobs ran, on a copy of a fetched snapshot
    repo, revision = cfg["models"]["blip_itm"]["model"], cfg["models"]["blip_itm"]["revision"]
    copy = tmp_path / "resources" / "models" / "hub" / repo
    shutil.copytree(work / "resources" / "models" / "hub" / repo, copy)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _, model = load_pretrained(BlipForImageTextRetrieval, BlipProcessor, repo, revision, "cpu")
    assert not model.training
    with pytest.raises(SnapshotError, match=f"holds revision {revision}, but the "
                                            f"configuration pins {'0' * 40}"):
        load_pretrained(BlipForImageTextRetrieval, BlipProcessor, repo, "0" * 40, "cpu")
    (copy / "processor_config.json").unlink()
    with pytest.raises(SnapshotError, match=r"blip-itm-tiny/processor_config\.json is missing"):
        load_pretrained(BlipForImageTextRetrieval, BlipProcessor, repo, revision, "cpu")
    shutil.rmtree(copy)
    with pytest.raises(SnapshotError, match="mirror-org/blip-itm-tiny/ is missing and this "
                                            "job may not download"):
        load_pretrained(BlipForImageTextRetrieval, BlipProcessor, repo, revision, "cpu")


def test_a_missing_model_file_fails_the_dry_run_naming_it(tmp_path):
    """A `pretrained:` path of one's own that does not exist stops the plan before anything
    runs (not 55 s into a GPU job), naming the key and the file."""
    config = tmp_path / "mine.yaml"
    config.write_text(yaml.safe_dump({
        "extends": str(REPO / "config" / "evaluate.yaml"),
        "models": {"mine": {"family": "open_clip", "arch": "ViT-B-32-quickgelu",
                            "pretrained": str(tmp_path / "missing" / "mine.pt"),
                            "label": "Mine"}}}))
    result = snakemake("-n", "--configfile", str(config), cwd=tmp_path)
    said = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"models.mine.pretrained: no such file: {tmp_path / 'missing' / 'mine.pt'}" in said


@pytest.mark.slow
def test_rerank_on_the_real_format_run(real_run, monkeypatch):
    """On the real-format run's gallery, BLIP ITM's re-ranking (k_test 256 > 60 texts) equals
    the ranking of every pair by ITM + ITC; k_test = 1 keeps the ITC ranking's R@1; three
    shards write the same file as the run's one."""
    import hashlib

    from vlcomp.io import read_parquet, write_npz
    from vlcomp.metrics.rerank import select_candidates
    from vlcomp.metrics.retrieval import hits_summary, retrieval_hits_from_scores
    from vlcomp.models.registry import build_scorer
    from vlcomp.score.embeddings import gallery_embeddings, open_image
    from vlcomp.score.pairs import image_index
    from vlcomp.score.rerank_files import join_rerank_shards, reranked_arrays, reranked_metrics
    from vlcomp.score.rerank_shards import score_rerank_shard

    work, config = real_run
    monkeypatch.chdir(work)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    entry = yaml.safe_load(config.read_text())["models"]["blip_itm"]
    record = json.loads(Path("results/metrics/blip_itm/coco_retrieval.json").read_text())
    gallery = read_parquet("results/benchmarks/coco_retrieval/gallery.parquet")
    queries = read_parquet("results/benchmarks/coco_retrieval/queries.parquet")
    images, texts, links = gallery_embeddings(
        gallery, queries, "results/embeddings/blip_itm/images/coco_test.npy",
        "results/embeddings/blip_itm/texts/coco_retrieval.npy")
    refs = [image_index([read_parquet("results/imagesets/coco_test.parquet")])[i]
            for i in gallery.image_id]
    scorer = build_scorer("blip_itm", entry, "cpu")
    # every pair by ITM + ITC: the ranking the re-ranked record reports
    full = np.stack([scorer.score_pairs([open_image(ref.path, ref.box)] * len(queries),
                                        list(queries.text), kind="itm_plus_itc")
                     for ref in refs])
    dense = hits_summary(retrieval_hits_from_scores(full, full.T, links), len(refs), len(links))
    assert dense["overall"] == record["overall"]
    # k_test = 1 and 3 shards on the run's files
    candidates = select_candidates(images, texts, 1)
    ids = {"image_ids": list(gallery.image_id), "query_ids": list(queries.query_id)}
    digests = []
    for count in (1, 3):
        paths = []
        for index in range(count):
            shard = score_rerank_shard(scorer, refs, list(queries.text), candidates,
                                       f"{index}-of-{count}", kind="itm_plus_itc")
            paths.append(str(Path(config).parent / f"k1_{count}_{index}.npz"))
            write_npz(shard, paths[-1])
        out = Path(config).parent / f"k1_{count}.npz"
        write_npz(reranked_arrays(candidates, join_rerank_shards(paths, candidates), 1, ids), out)
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    top1 = reranked_metrics(str(out), gallery, queries, links)["overall"]
    assert (top1["i2t_r1"], top1["t2i_r1"]) == (record["overall_itc"]["i2t_r1"],
                                                record["overall_itc"]["t2i_r1"])


def test_robustness_rerank_on_the_real_format_run(real_run, monkeypatch):
    """ARO's perturbed retrieval re-ranked by ITM on the real-format run: BLIP ITM's every
    condition says so, its clean condition (k_test 256 > the gallery's 60 texts) equals
    ranking every pair by ITM + ITC, the dual encoder stays on its cosine, and ARO's Table 3
    names the re-ranked models."""
    from vlcomp.io import read_parquet
    from vlcomp.metrics.ranking import rank_scores
    from vlcomp.metrics.robustness import condition_items, gallery_links, record_of
    from vlcomp.models.registry import build_scorer
    from vlcomp.score.embeddings import open_image
    from vlcomp.score.pairs import image_index
    from vlcomp.score.robustness_rerank import read_embeddings

    work, config = real_run
    monkeypatch.chdir(work)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    blip = json.loads(Path("results/metrics/blip_itm/robustness.json").read_text())["conditions"]
    assert {(c["ranking"], c["k_test"]) for c in blip} == {("ITM re-ranked (top 256 by ITC)",
                                                            256)}
    assert len(blip) == 5  # clean, 3 text perturbations, 1 image shuffle (seed 0)
    clip = json.loads(Path("results/metrics/tiny_clip/robustness.json").read_text())
    assert {c["ranking"] for c in clip["conditions"]} == {"embedding cosine"}
    ids = read_parquet("results/benchmarks/robustness/coco/gallery.parquet").image_id.tolist()
    queries = read_parquet("results/benchmarks/robustness/coco/queries.parquet")
    refs = image_index([read_parquet("results/imagesets/coco_test.parquet")])
    scorer = build_scorer("blip_itm", yaml.safe_load(config.read_text())["models"]["blip_itm"],
                          "cpu")
    full = np.stack([scorer.score_pairs([open_image(refs[i].path, refs[i].box)] * len(queries),
                                        list(queries.text), kind="itm_plus_itc") for i in ids])
    links = gallery_links("coco", ids, queries)
    rankings = (rank_scores(full, np.arange(len(ids)), links),
                rank_scores(full.T, links, np.arange(len(ids))))
    relevance = read_embeddings(["coco_test"], ["results/embeddings/tiny_clip/images/"
                                                "coco_test.npy"],
                                "results/embeddings/tiny_clip/texts/robustness.npy")
    side = relevance.side("coco_test", ids, list(queries.text))
    per_image, per_query, _ = condition_items(side, side, links, rankings=rankings)
    clean = blip[0]
    assert clean["perturbation"] == "none"
    assert record_of(per_image, per_query) == {k: clean[k] for k in record_of(per_image,
                                                                                per_query)}
    note = Path("results/tables/robustness/aro_table3.md").read_text()
    assert "blip_itm (robustness coco: ITM re-ranked (top 256 by ITC))" in note


def test_results_page_of_the_real_format_run(real_run):
    """The paper configuration's results page: its item browsers show the released
    benchmarks' items with thumbnails of their real images, and the findings table lies
    fully visible at 1920x1080."""
    from vlcomp.io import read_parquet
    from vlcomp.report.screenshot import layout_check

    work, _ = real_run
    page = work / "results/index.html"
    html = page.read_text()
    for benchmark in ("sugarcrepe", "winoground", "vl_checklist"):
        section = html.split(f'id="items-{benchmark}"')[1].split("</table>")[0]
        ids = set(read_parquet(work / f"results/benchmarks/{benchmark}.parquet").item_id)
        shown = re.findall(r'<tr data-subset="[^"]*" data-right="[^"]*"><td>([^<]+)<', section)
        assert shown and set(shown) <= ids, benchmark
        assert section.count("data:image/jpeg;base64,") >= len(shown), benchmark
    box = layout_check(page, "table.findings", 1920, 1080)
    assert box["covered"] == [] and box["page_scroll_width"] <= box["viewport_width"], box


@pytest.mark.slow
def test_vlcomp_evaluate_on_the_real_format_run(real_run, tmp_path):
    """A CLIP checkpoint of one's own through ARO's and BiVLC's benchmarks of a copy of the
    real-format run, offline: only its jobs run (every released model stays as it was), its
    rows join the tables, and its cells face ARO's and SugarCrepe's published numbers."""
    import shutil

    from .workflow_runs import offline_home, vlcomp

    reference, config = real_run
    work = tmp_path / "work"
    shutil.copytree(reference, work, symlinks=True)
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({"models": {"mine": {
        "family": "checkpoint", "path": str(config.parent / "tiny_clip.pt"),
        "label": "My CLIP"}}}))
    done = vlcomp("evaluate", str(mine), "--configfile", str(config), "--directory", str(work),
                  "--benchmarks", "vg_relation,coco_order,sugarcrepe", "--cores", "2",
                  cwd=tmp_path, env=offline_home(tmp_path / "node"))
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-4000:]
    assert "vlcomp evaluate: mine on coco_order, sugarcrepe, vg_relation" in said  # config order
    assert "left out" not in said  # every released model is evaluated there
    ran = {line.split("model=")[1].split(",")[0] for line in said.splitlines()
           if "wildcards:" in line and "model=" in line}
    assert ran == {"mine"}, ran
    aro = pd.read_csv(work / "results" / "tables" / "aro" / "aro.csv", index_col=0)
    pd.testing.assert_series_equal(aro.loc["My CLIP"], aro.loc["CLIP"], check_names=False)
    beside = pd.read_csv(work / "results" / "models" / "mine_vs_published.csv")
    assert {"aro/aro", "sugarcrepe/sugarcrepe"} <= set(beside.table)
    clip = beside[(beside.table == "sugarcrepe/sugarcrepe") & (beside["published row"] == "CLIP")]
    assert len(clip) == 7 and clip["My CLIP"].notna().all()  # SugarCrepe's seven columns
