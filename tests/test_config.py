"""Configuration schema: the shipped configs validate; bad keys and types are named."""

from __future__ import annotations

import copy

import pytest
import yaml

from vlcomp.config import (
    ConfigError,
    expand_models,
    expand_runs,
    has_embeddings,
    is_captioner,
    model_groups,
    model_role,
    prior_column,
    resolve_extends,
    text_priors,
)
from vlcomp.config_checks import validate_config

from .conftest import REPO

SCHEMA = REPO / "config" / "schema.yaml"


def load(name: str) -> dict:
    return yaml.safe_load((REPO / name).read_text())


@pytest.mark.parametrize("name", ["config/config.yaml", "tests/data/tiny_config.yaml",
                                  "config/paper.yaml"])
def test_shipped_configs_validate(name):
    validate_config(load(name), SCHEMA)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["world"].update(colours=["red"]), "config.world: Additional properties"),
        (lambda c: c["world"]["splits"].update(train="many"),
         "config.world.splits.train: 'many' is not of type 'integer'"),
        (lambda c: c["benchmarks"].update(mmvp={}),
         "config.benchmarks: 'mmvp' does not match"),
        (lambda c: c["benchmarks"].update(winoground={"subsets": ["replace_obj"]}),
         "config.benchmarks.winoground.subsets.0: 'replace_obj' is not one of"),
        (lambda c: c["models"]["world_clip"].update(family="flava"), "config.models.world_clip"),
        (lambda c: c["models"]["world_clip"].update(run="nope"), "no training run 'nope'"),
        (lambda c: c["benchmarks"].pop("sugarcrepe"), "bivlc: source world needs"),
        (lambda c: c["train"]["world_clip"].update(epochs=-1), "config.train.world_clip.epochs"),
        (lambda c: c["train"]["negclip"].update(init="nope"), "negclip.init: no other training"),
        (lambda c: c["train"]["negclip"].update(seed=0), "give exactly one of 'seed' or 'seeds'"),
        (lambda c: c["train"]["negclip"].pop("neighbours"), "'negclip' needs 'neighbours'"),
        (lambda c: c["train"]["trohn_text"].pop("negatives"), "'trohn_text' needs 'negatives'"),
        (lambda c: c["train"]["negclip"]["neighbours"].update(model="x"), "no model 'x'"),
        (lambda c: c["hard_negatives"].pop("sugarcrepe"), "no config.hard_negatives.sugarcrepe"),
        (lambda c: c["train"]["clip_ft"].update(init="negclip"), "has several seeds"),
        (lambda c: c["train"]["clip_ft"].update(objective="mixup"), "config.train.clip_ft.objec"),
        (lambda c: c["train"]["trohn_img"].pop("generated"), "'trohn_img' needs 'generated'"),
        (lambda c: c["generation"].pop("trohn_img"), "no config.generation.trohn_img"),
        (lambda c: c["generation"].pop("bivlc"), "'generated' needs config.generation.bivlc"),
        (lambda c: c["generation"]["bivlc"]["filter"].update(model="nope"),
         "config.generation.bivlc.filter.model: 'nope' is not a model"),
        (lambda c: c["generation"]["bivlc"]["world"]["failures"].update(melt=0.1),
         "config.generation.bivlc.world.failures: Additional properties"),
        (lambda c: c["generation"]["trohn_img"].pop("selection"),
         "'selection' is a required property"),
        (lambda c: c["detectors"].update(encoders=["trohn_img"]),
         r"config.detectors.encoders: \['trohn_img'\] are not models"),
    ],
)
def test_errors_name_the_key(edit, message):
    config = copy.deepcopy(load("config/config.yaml"))
    edit(config)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_config(config, SCHEMA)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["benchmarks"]["coco_order"].update(dataset="coco5k"),
         "config.benchmarks.coco_order.dataset: no dataset 'coco5k'"),
        (lambda c: c["benchmarks"]["robustness"]["galleries"]["coco"].update(granularity="fine"),
         "galleries.coco.granularity: only world galleries"),
        (lambda c: c["benchmarks"]["bivlc"].update(negatives="generated"),
         "config.benchmarks.bivlc.negatives: only for source world"),
        (lambda c: c["benchmarks"]["vg_relation"].pop("source"),
         "config.benchmarks.vg_relation.source: no dataset 'world'"),
        (lambda c: c["train"]["negclip_coco"].update(init_model="blip_itm_base"),
         "config.train.negclip_coco.init_model: 'blip_itm_base' is not a pretrained"),
        (lambda c: c["train"]["negclip_coco"].pop("dataset"),
         "config.train.negclip_coco.init_model: fine-tunes on a real dataset"),
        (lambda c: c["models"]["clip_ft"].update(family="checkpoint"),
         "config.models.clip_ft.run: 'clip_ft_coco' fine-tunes an open_clip model"),
        (lambda c: c["compute"].update(gpus=0), "config.compute.gpus: 0 with device cuda"),
        (lambda c: c["datasets"].update(world={"source": "karpathy", "collection": "coco"}),
         "config.datasets: 'world' should not be valid"),
        (lambda c: c["models"]["blip_pretrained_large"]["convert"].update(source="negclipx"),
         "config.models.blip_pretrained_large.convert.source: 'negclipx' is not a source"),
        (lambda c: c["models"]["blip_pretrained_large"].update(model="Salesforce/blip"),
         "config.models.blip_pretrained_large.model: a converted model is read from "
         "resources/models/blip_pretrained_large_hf"),
        (lambda c: c["models"]["blip_itm_base"].update(convert={"source": "negclip"}),
         "config.models.blip_itm_base.convert: only for family hf_blip_lm"),
        # BLIP-2 ViT-L: the family's stage, LAVIS' ViT file, the T5 for stage t5 only, and one
        # spec per shared conversion name
        (lambda c: c["models"]["blip2_vitl_flant5"]["convert"].update(stage="qformer"),
         "config.models.blip2_vitl_flant5.convert: family hf_blip2_lm converts with `vit`"),
        (lambda c: c["models"]["blip2_vitl_flant5"]["convert"].pop("t5"),
         "config.models.blip2_vitl_flant5.convert.t5: the frozen T5's hub id"),
        (lambda c: c["models"]["blip2_vitl_flant5"]["convert"].update(vit="models/vit.pth"),
         "config.models.blip2_vitl_flant5.convert.vit: 'models/vit.pth' is not a file of"),
        (lambda c: c["models"]["blip2_vitl_flant5"]["convert"].pop("checkpoint"),
         "config.models.blip2_vitl_flant5.convert.checkpoint: source 'blip2_vitl' has 3 files"),
        (lambda c: c["models"]["blip2_vitl_itm"].update(convert={
            **c["models"]["blip2_vitl_itm"]["convert"], "vit_precision": "fp32"}),
         "config.models.blip2_vitl_itm.convert: conversion 'blip2_vitl_qformer' is also "
         "blip2_vitl_itc's"),
        (lambda c: c["models"]["blip_pretrained_large"]["convert"].update(stage="t5"),
         "config.models.blip_pretrained_large.convert: vit / stage / t5 / vit_precision are "
         "BLIP-2's keys"),
        (lambda c: c["models"]["blip_itm_base"].update(itm_first_token="sep"),
         "config.models.blip_itm_base.itm_first_token: 'sep' is not one of"),
        (lambda c: c["visualgptscore"]["null_images"]["n_by_benchmark"].update(mmvp=30),
         "config.visualgptscore.null_images.n_by_benchmark: .'mmvp'. are not under"),
        (lambda c: c["benchmarks"]["bison"]["captioning"].update(dataset="coco5k"),
         "config.benchmarks.bison.captioning.dataset: no dataset 'coco5k'"),
        (lambda c: c["benchmarks"]["bison"]["captioning"].update(dataset="coco2017"),
         "config.benchmarks.bison.captioning.dataset: 'coco2017' has no test split"),
        (lambda c: c["benchmarks"]["bison"]["captioning"].update(beams=0),
         "config.benchmarks.bison.captioning.beams: 0 is less than the minimum of 1"),
        (lambda c: c["visualgptscore"]["llm"].append({"model": "other/opt-2.7b"}),
         r"config.visualgptscore.llm\[3\]: name 'opt_2_7b' is taken"),
        (lambda c: c["visualgptscore"]["llm"][0].update(name="BART"),
         "config.visualgptscore.llm: "),
        (lambda c: c["models"]["blip2_itm"].update(pair_score="none"),
         "config.models.blip2_itm.pair_score: family hf_blip2_itm has no embeddings"),
        (lambda c: c["models"]["blip2_itm"].update(pair_score="itm_plus_itc"),
         "config.models.blip2_itm.pair_score: 'itm_plus_itc' is not a hf_blip2_itm pair"),
        (lambda c: c["models"]["blip2_itc"].update(pair_benchmarks=["vg_relation"]),
         "config.models.blip2_itc.pair_benchmarks: family hf_blip2_itm has no embeddings"),
        (lambda c: c["models"]["blip2_qformer_lm"].pop("lm_head"),
         "config.models.blip2_qformer_lm: family hf_blip2_qformer_lm needs 'lm_head'"),
        (lambda c: c["models"]["blip_itm_large"].update(retrieval=False),
         "config.models.blip_itm_large.retrieval: only for captioner families"),
    ],
)
def test_paper_errors_name_the_key(edit, message):
    config = copy.deepcopy(load("config/paper.yaml"))
    edit(config)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_config(config, SCHEMA)


def test_text_priors_are_one_lm_or_a_list_with_names_and_labels():
    paper = load("config/paper.yaml")
    priors = text_priors(paper)
    assert [(p["name"], p["label"]) for p in priors] == [
        ("bart_base", "bart-base"), ("flan_t5_xl", "flan-t5-xl"), ("opt_2_7b", "opt-2.7b")]
    assert prior_column(paper) == "null"
    single = copy.deepcopy(paper)  # the one-mapping form of earlier configurations
    single["visualgptscore"].update(llm={"model": "facebook/opt-2.7b", "label": "OPT"},
                                    alpha_prior="llm")
    validate_config(single, SCHEMA)
    assert [(p["name"], p["label"]) for p in text_priors(single)] == [("opt_2_7b", "OPT")]
    assert prior_column(single) == "llm_opt_2_7b"
    assert text_priors(load("config/config.yaml")) == []


def test_families_decide_roles_embeddings_and_captioners():
    models = load("config/paper.yaml")["models"]
    roles = {name: model_role(entry) for name, entry in models.items()}
    assert {n for n, r in roles.items() if r == "generative"} == {
        "blip_caption_base", "blip_caption_large", "blip_pretrained_large",
        "blip2_vitl_qformer_lm", "blip2_vitl_flant5", "blip2_qformer_lm", "blip2_flant5"}
    assert {n for n, r in roles.items() if r == "itm"} == {
        "blip_itm_base", "blip_itm_base_flickr", "blip_itm_large", "xvlm_coco", "xvlm_flickr",
        "blip2_vitl_itm", "blip2_itm"}
    # an ITC score (pair score itc, or a cross-encoder's embeddings alone) is discriminative
    assert roles["blip2_itc"] == roles["blip2_vitl_itc"] == roles["blip_itc_large"] == \
        roles["flava"] == "discriminative"
    assert [n for n, e in models.items() if not has_embeddings(e)] == [
        "blip_caption_base", "blip_caption_large", "blip_pretrained_large", "blip2_vitl_itc",
        "blip2_vitl_itm", "blip2_vitl_qformer_lm", "blip2_vitl_flant5", "blip2_itc",
        "blip2_itm", "blip2_qformer_lm", "blip2_flant5"]
    assert all(is_captioner(models[n]) for n in ("blip2_flant5", "blip2_qformer_lm",
                                                 "blip2_vitl_flant5", "blip2_vitl_qformer_lm"))


def test_three_seed_world_is_the_default_with_more_seeds():
    default = load("config/config.yaml")
    three = resolve_extends(load("config/three_seeds.yaml"), [REPO / "config"])
    validate_config(three, SCHEMA)
    assert [k for k in expand_runs(default) if k.startswith("negclip")] == ["negclip_s0"]
    assert three["benchmarks"]["order"]["seeds"] == [0, 1, 2]
    for name in ("clip_ft", "negclip", "trohn_text", "trohn_img"):
        assert three["train"].pop(name) == {**default["train"].pop(name), "seeds": [0, 1, 2]}
    three["benchmarks"].pop("order"), default["benchmarks"].pop("order")
    assert three == default  # nothing else differs


def test_seeded_runs_and_models_expand_per_seed():
    config = resolve_extends(load("config/three_seeds.yaml"), [REPO / "config"])
    runs = expand_runs(config)
    assert {"world_clip", "negclip_s0", "negclip_s1", "negclip_s2"} <= set(runs)
    assert "negclip" not in runs and runs["negclip_s2"]["seed"] == 2
    assert "seeds" not in runs["negclip_s1"]
    models = expand_models(config)
    assert models["negclip_s1"]["run"] == "negclip_s1"
    assert models["negclip_s1"]["label"] == "NegCLIP" and models["negclip_s1"]["group"] == "negclip"
    assert models["world_clip"]["run"] == "world_clip"
    groups = model_groups(models)
    assert groups["NegCLIP"] == ["negclip_s0", "negclip_s1", "negclip_s2"]
    assert groups["CLIP"] == ["world_clip"]
    assert list(groups)[:2] == ["CLIP", "CLIP-FT"]  # config order


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["models"]["world_captioner"].update(run="nope"),
         "config.models.world_captioner.run: no captioner 'nope'"),
        (lambda c: c["models"]["world_captioner"].update(model="Salesforce/x"),
         r"give 'run' \(a captioner trained here\) or 'model'"),
        (lambda c: c["captioners"].update(world_clip=c["captioners"]["world_captioner"]),
         r"config.captioners: \['world_clip'\] are also training runs"),
        (lambda c: c["captioners"]["world_captioner"]["model"].update(depth=3),
         "config.captioners.world_captioner.model: Additional properties"),
        (lambda c: c.update(visualgptscore={"alpha_prior": "train"}),
         "'train' needs config.visualgptscore.train_images"),
    ],
)
def test_captioner_errors_name_the_key(edit, message):
    config = copy.deepcopy(load("tests/data/tiny_config.yaml"))
    edit(config)
    with pytest.raises(ConfigError, match=message):
        validate_config(config, SCHEMA)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["datasets"]["flickr30k"].update(splits=["test"]),
         r"config.benchmarks.flickr30k_retrieval \(VisualGPTScore's alpha\* for "
         r"blip_caption_base, blip_caption_large, blip_pretrained_large\): its gallery would "
         r"be empty: "
         r"config.datasets.flickr30k.splits has no 'val' split"),
        (lambda c: c["datasets"]["cocofg"].update(splits=["val"]),
         r"config.benchmarks.robustness.galleries.coco_fine: its gallery would be empty: "
         r"config.datasets.cocofg.splits has no 'test'"),
        (lambda c: c["datasets"]["coco"].update(splits=["train", "val"]),
         r"config.benchmarks.coco_order: its gallery would be empty"),
    ],
)
def test_paper_config_refuses_empty_galleries_at_start(edit, message):
    config = load("config/paper.yaml")
    edit(config)
    with pytest.raises(ConfigError, match=message):
        validate_config(config, SCHEMA)


def test_released_negclip_data_names_its_own_neighbours():
    from vlcomp.config import released_negatives

    config = load("config/paper.yaml")
    run = config["train"]["negclip_coco"]
    assert released_negatives(config, run)
    run.pop("neighbours")
    validate_config(config, SCHEMA)  # the release's neg_image rows are the neighbours
    config["hard_negatives"]["negclip"]["source"] = "generate"
    assert not released_negatives(config, run)
    with pytest.raises(ConfigError, match="'negclip' needs 'neighbours'"):
        validate_config(config, SCHEMA)


def test_extends_merges_and_null_removes(tmp_path):
    from vlcomp.config import ConfigError, merge_config, resolve_extends

    assert merge_config({"a": {"x": 1, "y": 2}, "b": [1], "c": 3},
                        {"a": {"y": None, "z": 4}, "b": [2], "c": None}) == {
        "a": {"x": 1, "z": 4}, "b": [2]}
    (tmp_path / "base.yaml").write_text("a: {x: 1}\nkeep: 1\n")
    (tmp_path / "mid.yaml").write_text("extends: base.yaml\na: {y: 2}\n")
    whole = resolve_extends({"extends": "mid.yaml", "keep": None}, [tmp_path])
    assert whole == {"a": {"x": 1, "y": 2}}
    with pytest.raises(ConfigError, match=r"nowhere\.yaml not found"):
        resolve_extends({"extends": "nowhere.yaml"}, [tmp_path])
    (tmp_path / "loop.yaml").write_text("extends: loop.yaml\n")
    with pytest.raises(ConfigError, match="extends itself"):
        resolve_extends({"extends": "loop.yaml"}, [tmp_path])


def test_evaluate_config_is_the_paper_config_without_training_or_generation():
    from vlcomp.config import resolve_extends

    config_dir = REPO / "config"
    paper = yaml.safe_load((config_dir / "paper.yaml").read_text())
    evaluate = resolve_extends(yaml.safe_load((config_dir / "evaluate.yaml").read_text()),
                               [config_dir])
    validate_config(evaluate, SCHEMA)
    for gone in ("train", "hard_negatives", "generation", "detectors"):
        assert gone not in evaluate
    assert not any("run" in m for m in evaluate["models"].values())
    trained = {m for m, e in paper["models"].items() if "run" in e}
    assert set(evaluate["models"]) == set(paper["models"]) - trained
    assert evaluate["benchmarks"] == paper["benchmarks"]
    assert evaluate["downloads"] == paper["downloads"]


def test_section_defaults_are_the_schemas():
    """Defaults are written once, in config/schema.yaml: a section is its config over them,
    and the rules read sections instead of repeating default values."""
    from vlcomp.config_defaults import defaults, schema_node, section

    assert section({}, "uncertainty") == {"resamples": 1000, "seed": 0, "confidence": 0.95,
                                           "method": "percentile"}
    assert section({"visualgptscore": {"null_images": {"n": 3}}},
                   "visualgptscore.null_images")["n"] == 3
    assert defaults("embed") == {"batch_size": 256, "pair_batch_size": 64, "vision_batch": None,
                                 "text_batch_size": 32, "workers": 0}
    assert schema_node("visualgptscore.null_images.seed")["type"] == "integer"  # $ref followed
    with pytest.raises(KeyError, match="no key 'nul_images'"):
        defaults("visualgptscore.nul_images")
    rules = "\n".join(p.read_text() for p in (REPO / "workflow" / "rules").rglob("*.smk"))
    for repeated in ('config["embed"].get(', '.get("autocast", "none")', '"resamples": 1000',
                     '"discount": 0.75', '"space": "normalized"', '"tokenizer": "ptb"'):
        assert repeated not in rules, repeated
