"""The real-format run: config/paper.yaml cut down to the files of the miniature download
sites (tests/real_mirror.py), with tiny models of every family it runs (CLIP, BLIP ITM and
captioner, BLIP-2's Q-Former ITM and FLAN-T5, X-VLM, text-only LMs, SDXL), saved the way the
real ones are, served as hub repositories at pinned commits by the mirror's copy of the hub,
fetched by the download rules and loaded through the same code paths, offline.

config/paper.yaml's own keys run as they are (`nlp` whole: the spaCy pipeline by its name,
WordNet's checksummed archive through the download rule; `downloads`' retries; `compute`'s
other keys; every benchmark's source and layout keys). What remains overridden, and why:
- `compute.device: cpu`, `compute.threads: 1`: CI has no GPU; one torch thread a job lets two
  jobs share the test machine's 2 cores. `compute.gpus` then defaults to 0, as on a CPU run.
- `downloads.mirrors`: the real URLs, served by prefix from the mirror's files (no network);
  the URLs themselves are config/paper.yaml's.
- `downloads.sha256`: the mirror's miniatures (SugarCrepe, BISON, NegCLIP, CREPE, VL-CheckList,
  Diwan's tags, X-VLM's configs, CIFAR-10, WordNet's archive packed here) are not the
  published bytes, so their pins give way to the lock file (tests.real_mirror
  .mirror_checksums); every other pin is checked as configured.
- `datasets`, `benchmarks`, `train`, `classification`, `shards`, `embed`: sizes (COCO only, 12
  test images, 3 folds, 1 epoch, a few items per set), not sources.
- `models`, `paper_models`: tiny models of every family saved the way the real ones are (no
  weights can be downloaded here), published on the mirror's hub at pinned commits; BLIP-2's
  ViT-L and X-VLM keep config/paper.yaml's entries but for the tokenizer's repository.
- `hard_negatives.sugarcrepe`, `generation.trohn_img`, `detectors`: cut (they need an LLM that
  no tiny stand-in can play); `generation.bivlc.diffusers` is a tiny SDXL saved like the real.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .conftest import REPO
from .real_mirror import EQBEN_ITEMS, build_mirror, caption_words, mirror_checksums, publish_to_hub

PAPER = REPO / "config" / "paper.yaml"


def paper_like_config(mirrors: dict[str, str], models: dict[str, dict], sdxl: dict) -> dict:
    """config/paper.yaml cut down to the mirror's files, with tiny models."""
    cfg = yaml.safe_load(PAPER.read_text())
    # no GPU here; one torch thread a job, so two jobs share the test machine's 2 cores
    cfg["compute"] = {**cfg["compute"], "device": "cpu", "threads": 1}
    cfg["downloads"] = {**cfg["downloads"], "mirrors": mirrors, "sha256": mirror_checksums()}
    cfg["datasets"] = {"coco": cfg["datasets"]["coco"]}
    b = cfg["benchmarks"]
    cfg["benchmarks"] = {
        "vg_relation": {**b["vg_relation"], "min_count": 0},
        "vg_attribution": {"source": "aro", "min_count": 0},
        "coco_order": {"dataset": "coco", "seeds": [0, 1]},
        "sugarcrepe": b["sugarcrepe"],
        "coco_retrieval": {**b["coco_retrieval"], "folds": 3},  # 12 test images: 3 folds of 4
        "bison": {**b["bison"], "alterations": ["negate", "reverse"], "expected_items": 6},
        "winoground": {**b["winoground"], "expected_items": 6},
        # VisualGPTScore's other sets in their released layouts (tests/real_mirror.py)
        "winoground_no_tag": b["winoground_no_tag"],
        "eqben": {**b["eqben"], "expected_items": EQBEN_ITEMS},
        "crepe_negate": {**b["crepe_negate"], "complexities": [4, 5]},
        "vl_checklist": {**b["vl_checklist"], "corpora": ["swig", "vg"]},
        "robustness": {
            # re-ranked as config/paper.yaml names its ARO galleries' models, by list
            "galleries": {"coco": {"dataset": "coco", "images": 12,
                                   "rerank": ["blip_itm", "xvlm_coco"]}},
            "perturbed_galleries": ["coco"],
            "text_perturbations": ["shuffle_all_words", "char_swap", "synonym_noun"],
            "image_perturbations": ["shuffle_rows"], "seeds": [0],
            "relevance_model": "tiny_clip"},
    }
    run = cfg["train"]["negclip_coco"]
    cfg["train"] = {"negclip_coco": {**run, "init_model": "tiny_clip", "epochs": 1,
                                     "batch_size": 8, "lr": 1.0e-5, "warmup_steps": 2,
                                     "neighbours": {"model": "tiny_clip", "k": 2}}}
    # TROHN's negatives need an LLM (no tiny stand-in answers SugarCrepe's templates); BiVLC's
    # generation runs through a tiny SDXL saved like the real one
    del cfg["hard_negatives"]["sugarcrepe"], cfg["generation"]["trohn_img"], cfg["detectors"]
    cfg["generation"]["bivlc"]["diffusers"] = sdxl
    cfg["generation"]["bivlc"]["filter"]["model"] = "tiny_clip"
    cfg["models"] = models
    # the papers' models as the tiny ones play them (config/paper.yaml names the real ones)
    cfg["paper_models"] = {
        "ARO": {"CLIP": "tiny_clip", "NegCLIP": "negclip_ours", "BLIP": "blip_itm",
                "X-VLM": "xvlm_coco"},
        "BiVLC": {"CLIP": "tiny_clip", "NegCLIP": "negclip_ours"},
        "BISON": {"retrieval system": ["tiny_clip", "blip_itm"],
                  "captioning system": ["blip_lm"]},
        "VisualGPTScore": {"VisualGPTScore": "blip_lm", "ITMScore": "blip_itm",
                           "NegCLIP": "negclip_ours",
                           "BLIP2-FlanT5 VisualGPTScore": "blip2_t5",
                           "BLIP2-QFormer ITMScore": "blip2_vitl_itm"},
        "Hendriksen et al.": {"CLIP": "tiny_clip"}}
    # 16 images a pass, so the 3 embedding shards each get whole batches of the few images;
    # pairs a pass as shipped (auto: the CPU batch here); no loader workers on 2 cores
    cfg["embed"] = {**cfg["embed"], "batch_size": 16, "vision_batch": 16, "workers": 0}
    # CLIP's embeddings, BLIP's log P(t|i) galleries and BLIP-2 FLAN-T5's choice pairs and
    # priors in 3 shards (tests/test_shard_workflow.py: as one job's, byte for byte),
    # NegCLIP's fine-tuning in 2 segments, and BiVLC's SDXL images in 2 shards (the paper
    # scale's estimate asks for 8: each loads the pipeline, and 2 exercise the same path)
    cfg["shards"] = {"counts": {"embed": {"tiny_clip": 3}, "retrieval": {"blip_lm": 3},
                                "pairs": {"blip2_t5": 3}, "train": {"negclip_coco": 2},
                                "generate": {"bivlc": 2}}}
    null = cfg["visualgptscore"]["null_images"]  # the benchmarks kept (EqBen, No-Tag are cut)
    null["n_by_benchmark"] = {b: n for b, n in null.get("n_by_benchmark", {}).items()
                              if b in cfg["benchmarks"]}
    # appendix Table 5's null half with the tiny captioner: 2 counts, 2 seeds
    cfg["visualgptscore"]["null_sampling"] = {"benchmark": "winoground", "counts": [3, 10],
                                              "seeds": [0, 1], "models": ["blip_lm"]}
    # ARO Table 6's CIFAR10 row on the mirror's release-shaped archive (100 train, 20 test)
    cfg["classification"] = {
        "datasets": ["cifar10"], "protocols": ["linear_probe", "zero_shot"],
        "models": ["tiny_clip"], "check_sizes": False,
        "linear_probe": {"c_grid": {"min": 0.01, "max": 100.0, "points": 9}, "device": "cpu"}}
    return cfg


def prepare_paper_run(root: Path) -> Path:
    """Write the mirror, the tiny models and the configuration under ``root``; returns the
    configuration file (the run's folder is ``root / "work"``)."""
    import torch
    from transformers import BlipForConditionalGeneration, BlipForImageTextRetrieval

    from vlcomp.generate.tiny_pipeline import save_tiny_sdxl
    from vlcomp.models.checkpoint import save_checkpoint
    from vlcomp.models.world_clip import build_world_clip

    from .tiny_blip import save_tiny_blip
    from .tiny_blip2 import save_tiny_blip2_itm, save_tiny_blip2_lm
    from .tiny_lm import save_tiny_causal_lm, save_tiny_seq2seq_lm

    mirrors = build_mirror(root / "mirror")
    # the hub's copy: every tiny transformers / diffusers model below is a repository there
    hub = root / "mirror" / "hub"
    mirrors["https://huggingface.co"] = hub.as_uri()

    def published(folder: Path, repo: str) -> dict[str, str]:
        return {"model": repo, "revision": publish_to_hub(Path(folder), hub, repo)}

    paper_models = yaml.safe_load(PAPER.read_text())["models"]
    model_cfg = {"embed_dim": 32, "vision": {"image_size": 32, "layers": [1, 1, 1, 1],
                                             "width": 16, "head_width": 16},
                 "text": {"context_length": 32, "vocab_size": 49408, "width": 32, "heads": 2,
                          "layers": 1}}
    torch.manual_seed(0)
    save_checkpoint(root / "tiny_clip.pt", build_world_clip(model_cfg), model_cfg, {}, 0)
    (root / "itm").mkdir()
    (root / "lm").mkdir()
    itm, _, _ = save_tiny_blip(root / "itm", BlipForImageTextRetrieval, caption_words())
    lm, _, _ = save_tiny_blip(root / "lm", BlipForConditionalGeneration, caption_words())
    # BLIP-2: the Q-Former's ITM (pairs only, no embeddings) and a FLAN-T5 captioner without
    # retrieval galleries, as the paper configuration runs them
    blip2_itm = save_tiny_blip2_itm(root / "blip2_itm", caption_words())
    blip2_t5 = save_tiny_blip2_lm(root / "blip2_t5", "t5", caption_words())
    blip2_processor = published(blip2_itm, "mirror-org/blip2-itm-tiny")
    tokenizer = published(root / "mirror" / "xvlm_tokenizer", "mirror-org/bert-tiny")
    models = {
        "tiny_clip": {"family": "checkpoint", "path": str(root / "tiny_clip.pt"),
                      "label": "CLIP"},
        "negclip_ours": {"family": "checkpoint", "run": "negclip_coco", "label": "NegCLIP"},
        "blip_itm": {"family": "hf_blip_itm", **published(itm, "mirror-org/blip-itm-tiny"),
                     "pair_score": "itm_plus_itc", "label": "BLIP ITM"},
        "blip_lm": {"family": "hf_blip_lm", **published(lm, "mirror-org/blip-caption-tiny"),
                    "label": "BLIP P(t|i)"},
        "blip2_itm": {"family": "hf_blip2_itm", **blip2_processor,
                      "pair_score": "itm_prob", "label": "BLIP-2 ITM"},
        "blip2_t5": {"family": "hf_blip2_lm", **published(blip2_t5, "mirror-org/blip2-t5-tiny"),
                     "retrieval": False, "label": "BLIP-2 P(t|i)"},
        # BLIP-2 with LAVIS' ViT-L (VisualGPTScore's appendix): the mirror's LAVIS files
        # converted by rule convert_blip, the processor of the mirror hub's tiny BLIP-2
        "blip2_vitl_itm": {**paper_models["blip2_vitl_itm"], "convert": {
            **paper_models["blip2_vitl_itm"]["convert"], "tokenizer": blip2_processor["model"],
            "tokenizer_revision": blip2_processor["revision"]}},
        # ARO's X-VLM from the mirror's Drive and GitHub files, as config/paper.yaml names
        # them, with the mirror hub's tokenizer; ITM on ARO's sets only, as its Flickr30k entry
        "xvlm_coco": {**paper_models["xvlm_coco"], "tokenizer": tokenizer["model"],
                      "tokenizer_revision": tokenizer["revision"],
                      "pair_benchmarks": ["vg_relation", "vg_attribution", "coco_order"]},
    }
    config = root / "paper_tiny.yaml"
    pipeline, dpo = save_tiny_sdxl(root / "sdxl")
    sdxl = {"pipeline": "mirror-org/sdxl-tiny",
            "revision": publish_to_hub(pipeline, hub, "mirror-org/sdxl-tiny"),
            "unet": "mirror-org/dpo-sdxl-tiny",
            "unet_revision": publish_to_hub(dpo, hub, "mirror-org/dpo-sdxl-tiny"),
            "variant": None, "dtype": "float32", "num_inference_steps": 2, "resize": 48}
    cfg = paper_like_config(mirrors, models, sdxl)
    # Table 2a's text-only LMs through both of lm_prior's paths: a seq2seq stand-in for
    # FLAN-T5 and a causal one for OPT (the ids' last parts name them); OPT's commit is
    # not configured, so the download lock file pins it at the first fetch
    cfg["visualgptscore"]["llm"] = [
        published(save_tiny_seq2seq_lm(root / "flan-t5", caption_words()), "mirror-org/flan-t5"),
        {"model": "mirror-org/opt", "batch_size": 4}]
    publish_to_hub(save_tiny_causal_lm(root / "opt", caption_words()), hub, "mirror-org/opt")
    config.write_text(yaml.safe_dump(cfg))
    return config
