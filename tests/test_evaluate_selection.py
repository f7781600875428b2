"""``vlcomp evaluate``'s configuration: the papers' benchmarks, the models left out with every
list that names them, the model a job belongs to (`vlcomp.evaluate.selection`)."""

from __future__ import annotations

import pytest
import yaml

from vlcomp.config import ConfigError, read_config
from vlcomp.evaluate.__main__ import read_model_file
from vlcomp.evaluate.selection import (
    model_of_job,
    select_benchmarks,
    tool_models,
    without_construction,
    without_models,
)

from .conftest import REPO

SNAKEFILE = REPO / "Snakefile"


@pytest.fixture(scope="module")
def evaluate_config() -> dict:
    return read_config(REPO / "config" / "evaluate.yaml", SNAKEFILE)


def test_papers_keep_the_benchmarks_their_tables_read(evaluate_config):
    bivlc = select_benchmarks(evaluate_config, ["bivlc"])
    assert list(bivlc["benchmarks"]) == ["sugarcrepe", "bivlc"]
    assert "classification" not in bivlc  # ARO Table 6 only
    assert bivlc["visualgptscore"]["null_images"]["n_by_benchmark"] == {}
    aro = select_benchmarks(evaluate_config, ["aro"])
    assert set(aro["benchmarks"]) == {"vg_relation", "vg_attribution", "coco_order",
                                      "flickr30k_order", "coco_retrieval",
                                      "flickr30k_retrieval", "robustness"}
    assert aro["classification"] == evaluate_config["classification"]
    assert list(select_benchmarks(evaluate_config, ["hendriksen"])["benchmarks"]) == [
        "robustness"]
    both = select_benchmarks(evaluate_config, ["aro"], ["vg_relation", "sugarcrepe"])
    assert list(both["benchmarks"]) == ["vg_relation"]
    assert evaluate_config["benchmarks"]["bison"]  # the base is not changed


def test_a_selection_that_names_nothing_known_is_refused(evaluate_config):
    with pytest.raises(ConfigError, match=r"--papers: unknown \['clip'\] \(known: \['aro'"):
        select_benchmarks(evaluate_config, ["clip"])
    with pytest.raises(ConfigError, match=r"--benchmarks: \['order'\] are not under"):
        select_benchmarks(evaluate_config, [], ["order"])
    with pytest.raises(ConfigError, match="no configured benchmark is left"):
        select_benchmarks(evaluate_config, ["bivlc"], ["vg_relation"])


def test_a_model_left_out_leaves_every_list_that_names_it(evaluate_config):
    out = without_models(evaluate_config, ["blip_itm_base", "xvlm_coco", "blip_pretrained_large",
                                           "negclip_aro_loader"])
    assert {"blip_itm_base", "xvlm_coco"}.isdisjoint(out["models"])
    galleries = out["benchmarks"]["robustness"]["galleries"]
    assert "rerank" not in galleries["coco"]
    assert galleries["flickr"]["rerank"] == ["blip_itm_base_flickr", "xvlm_flickr"]
    assert "null_sampling" not in out["visualgptscore"]
    assert out["classification"]["models"] == ["openai_clip"]
    assert "BLIP" not in out["paper_models"]["ARO"] and "X-VLM" not in out["paper_models"]["ARO"]
    assert out["paper_models"]["BISON"]["retrieval system"] == [
        "openai_clip", "clip_coco", "negclip"]
    assert evaluate_config["benchmarks"]["robustness"]["galleries"]["coco"]["rerank"]


def test_a_tool_model_stays_without_its_optional_work(evaluate_config):
    assert tool_models(evaluate_config) == {"openai_clip"}  # the relevance model
    with pytest.raises(ConfigError, match=r"\['openai_clip'\] are used by other stages"):
        without_models(evaluate_config, ["openai_clip"])
    out = without_models(evaluate_config, ["negclip_aro_loader"], tools=["openai_clip"])
    assert "openai_clip" in out["models"]
    assert "classification" not in out  # neither of ARO Table 6's models is left
    assert out["paper_models"]["ARO"]["CLIP"] == "openai_clip"


def test_a_job_belongs_to_its_model_its_seed_or_its_run():
    config = {"models": {"clip": {"family": "open_clip"}, "ft": {"run": "ft_run"},
                         "seeded": {"run": "multi"}},
              "train": {"ft_run": {}, "multi": {"seeds": [0, 1]}}}
    assert model_of_job({"model": "clip", "benchmark": "bivlc"}, config) == "clip"
    assert model_of_job({"model": "seeded_s1"}, config) == "seeded"
    assert model_of_job({"run": "ft_run"}, config) == "ft"
    assert model_of_job({"run": "multi_s0"}, config) == "seeded"
    assert model_of_job({"benchmark": "bivlc"}, config) is None


def test_a_model_file_joins_its_base_or_says_what_is_missing(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({"models": {"my_clip": {
        "family": "open_clip", "arch": "ViT-B-32-quickgelu", "pretrained": "openai",
        "quick_gelu": True}, "flava": None}}))
    config, new = read_model_file(mine, REPO / "config" / "evaluate.yaml", SNAKEFILE)
    assert new == ["my_clip"]
    assert "my_clip" in config["models"] and "flava" not in config["models"]
    assert config["compute"]["device"] == "cuda"  # evaluate.yaml's
    mine.write_text(yaml.safe_dump({"extends": str(REPO / "config" / "config.yaml"),
                                    "models": {"my_clip": {"family": "checkpoint",
                                                           "path": "w.pt"}}}))
    config, new = read_model_file(mine, REPO / "config" / "evaluate.yaml", SNAKEFILE)
    assert "world_clip" in config["models"] and new == ["my_clip"]
    mine.write_text("paper_models: {}\n")
    with pytest.raises(ConfigError, match=r"mine.yaml: no models: give `models:"):
        read_model_file(mine, REPO / "config" / "evaluate.yaml", SNAKEFILE)


def test_a_trained_model_left_out_takes_its_training_run_along():
    paper = read_config(REPO / "config" / "paper.yaml", SNAKEFILE)
    run = paper["models"]["negclip_ours"]["run"]
    out = without_models(paper, ["negclip_ours"])
    assert run not in out["train"] and "negclip_ours" not in out["models"]
    assert set(out["train"]) == set(paper["train"]) - {run}
    assert "negclip_ours" not in out["classification"]["models"]


def test_an_added_model_needs_no_construction_stage():
    paper = read_config(REPO / "config" / "paper.yaml", SNAKEFILE)
    out = without_construction(paper)
    assert "detectors" not in out and "detectors" in paper
    assert list(out["generation"]) == ["trohn_img"]  # TROHN-Img's run trains on it
    generated = {**paper, "benchmarks": {**paper["benchmarks"],
                                         "bivlc": {"negatives": "generated"}}}
    assert set(without_construction(generated)["generation"]) == {"bivlc", "trohn_img"}
    trained = without_models(out, ["trohn_img_ours"])  # its run, then its set, go
    assert "trohn_img" not in trained["train"] and "generation" not in trained
