"""Classification in the workflow (ARO Table 6's CIFAR10 / CIFAR100 / ImageNet rows): the
configuration section, image sets and prompts, the per-model record with each protocol, its
bootstrap over images, the Table 6 rows and the coverage plan. The rules run end to end in
the existing workflow fixtures: CIFAR-10 from a release-shaped archive in the real-format run
(tests/test_paper_workflow.py), the world's shapes in the tiny run (tests/test_workflow.py)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import yaml

from vlcomp.benchmarks.classification import class_names, templates
from vlcomp.benchmarks.classification_plan import (
    c_grid,
    classification_plan,
)
from vlcomp.benchmarks.classification_sets import check_labels, class_prompts, split_imagesets
from vlcomp.config import ConfigError, resolve_extends
from vlcomp.config_checks import validate_config
from vlcomp.data.sources import CIFAR_SHA256, SOURCES, manual_checks, remote_files
from vlcomp.metrics.classification import CLIP_C_GRID
from vlcomp.metrics.classification_eval import evaluate_classification, rows_by_id
from vlcomp.metrics.classification_uncertainty import aligned_outcomes, classification_outcomes
from vlcomp.metrics.uncertainty import bootstrap_outcomes
from vlcomp.report.coverage import coverage
from vlcomp.report.intervals import headline_columns
from vlcomp.report.labels import aro6_classification, classification_label
from vlcomp.report.tables import aro_table6
from vlcomp.world.config import WorldConfig

from .conftest import REPO

SCHEMA = REPO / "config" / "schema.yaml"
PAPER = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
# the three-seed world: every run's seeds take part
WORLD = resolve_extends(yaml.safe_load((REPO / "config" / "three_seeds.yaml").read_text()),
                        [REPO / "config"])


# ---------------------------------------------------------------------------- configuration


def test_plan_defaults_and_seeded_models():
    assert classification_plan({"compute": {"device": "cpu"}, "models": {}}).datasets == ()
    cfg = copy.deepcopy(WORLD)
    del cfg["classification"]["models"], cfg["classification"]["protocols"]
    plan = classification_plan(cfg)
    # default: every model with embeddings, each seed of a multi-seed run
    assert "world_captioner" not in plan.models
    assert {"world_clip", "clip_ft_s0", "clip_ft_s2", "trohn_img_s1"} <= set(plan.models)
    assert plan.protocols == ("linear_probe",)
    assert plan.probe["device"] == "cpu" and plan.probe["val_fraction"] == 0.1
    assert np.allclose(plan.c_grid(), CLIP_C_GRID, rtol=1e-12)
    assert plan.imagesets("world_shapes") == ("world_shapes_train", "world_shapes_test")
    paper = classification_plan(PAPER)
    assert paper.models == ("openai_clip", "clip_ft", "negclip_ours", "negclip_aro_loader")
    assert paper.imagesets("imagenet") == ("imagenet_train", "imagenet_val")
    assert paper.keys == {"classification_cifar10": "cifar10",
                          "classification_cifar100": "cifar100",
                          "classification_imagenet": "imagenet"}
    assert paper.probe_options()["device"] == "cuda"
    assert paper.probe_options()["loss_scale"] == "sum" and paper.probe_options()["tol"] == 1e-4
    assert len(paper.probe_options()["c_grid"]) == 97
    world = classification_plan(WORLD)
    assert world.models == ("world_clip", "clip_ft_s0", "clip_ft_s1", "clip_ft_s2",
                            "negclip_s0", "negclip_s1", "negclip_s2")


def test_c_grid_is_log_spaced_and_checked():
    assert c_grid({"min": 0.01, "max": 100, "points": 5}) == pytest.approx(
        (0.01, 0.1, 1.0, 10.0, 100.0))
    with pytest.raises(ValueError, match="need 0 < min < max"):
        c_grid({"min": 10, "max": 1, "points": 3})


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["classification"].update(models=["xvlm"]),
         "config.classification.models: 'xvlm' is not a model"),
        (lambda c: c["classification"].update(models=["world_captioner"]),
         "config.classification.models: 'world_captioner' is a captioner"),
        (lambda c: c["classification"].update(datasets=["mnist"]),
         "config.classification.datasets.0: 'mnist' is not one of"),
        (lambda c: c["classification"].update(protocols=["few_shot"]),
         "config.classification.protocols.0: 'few_shot' is not one of"),
        (lambda c: c["classification"]["linear_probe"].update(c_grid={"min": 5, "max": 1}),
         "config.classification.linear_probe.c_grid: C grid"),
        (lambda c: c["classification"].update(datasets=["cifar10"]),
         "config.classification.world_shapes: world_shapes is not under"),
    ],
)
def test_classification_errors_name_the_key(edit, message):
    cfg = copy.deepcopy(WORLD)
    edit(cfg)
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA)
    assert message in str(err.value)


def test_classification_sets_and_caption_datasets_have_their_own_names():
    cfg = copy.deepcopy(WORLD)
    cfg["classification"] = {"datasets": ["cifar10"]}
    cfg["datasets"] = {"cifar10": {"source": "karpathy", "collection": "coco"}}
    with pytest.raises(ConfigError, match=r"\['cifar10'\] are also caption datasets"):
        validate_config(cfg, SCHEMA)


def test_world_shapes_needs_the_world():
    cfg = copy.deepcopy(PAPER)
    cfg["classification"]["datasets"] = ["world_shapes"]
    with pytest.raises(ConfigError, match="world_shapes renders the world's shapes"):
        validate_config(cfg, SCHEMA)


def test_sources_pin_cifar_and_check_imagenet():
    files = remote_files()
    for name in ("cifar-10-python.tar.gz", "cifar-100-python.tar.gz"):
        f = files[f"cifar/{name}"]
        assert f.url == f"https://www.cs.toronto.edu/~kriz/{name}"
        assert f.sha256 == CIFAR_SHA256[name] and f.unpack_to is None  # read in place
    assert files["cifar/cifar-10-python.tar.gz"].sha256.startswith("6d958be0")
    checks = manual_checks()
    assert checks["imagenet/val"][0].count == 50_000
    assert checks["imagenet/train"][0].count == 1_281_167
    assert checks["imagenet/devkit"][0].pattern == "ILSVRC2012_devkit_t12.tar.gz"
    assert "image-net.org" in SOURCES["imagenet_val"].manual


# ---------------------------------------------------------------------------- image sets


def _table(dataset: str = "cifar10") -> pd.DataFrame:
    return pd.DataFrame({"image_id": [f"{dataset}-{s}-{i}" for s in ("train", "test")
                                      for i in range(3)],
                         "path": [f"results/images/x{i}.png" for i in range(6)],
                         "label": [0, 1, 2, 2, 1, 0],
                         "split": ["train"] * 3 + ["test"] * 3})


def test_split_imagesets_keep_order_and_name_problems():
    sets = split_imagesets(_table(), "cifar10")
    assert list(sets) == ["train", "test"]
    assert sets["test"].image_id.tolist() == ["cifar10-test-0", "cifar10-test-1",
                                              "cifar10-test-2"]
    assert sets["test"].label.tolist() == [2, 1, 0] and sets["test"].index[0] == 0
    with pytest.raises(ValueError, match="imagenet: no images in split 'val'"):
        split_imagesets(_table(), "imagenet")
    dup = _table()
    dup.loc[4, "image_id"] = "cifar10-test-0"
    with pytest.raises(ValueError, match="image id 'cifar10-test-0' occurs twice"):
        split_imagesets(dup, "cifar10")
    with pytest.raises(ValueError, match=r"lacks columns \['label'\]"):
        split_imagesets(_table().drop(columns="label"), "cifar10")
    with pytest.raises(ValueError, match="label 2 of image 'cifar10-train-2' is not a class"):
        check_labels(_table(), 2, "x.parquet")


def test_class_prompts_are_clips_and_the_worlds(world_cfg: WorldConfig):
    names, prompts = class_prompts("cifar10")
    assert names[:3] == ["airplane", "automobile", "bird"] and prompts == templates("cifar10")
    assert len(class_prompts("imagenet")[0]) == 1000 and len(class_prompts("imagenet")[1]) == 80
    assert class_prompts("cifar100")[0] == class_names("cifar100")
    shapes, world_templates = class_prompts("world_shapes", world_cfg)
    assert shapes == list(world_cfg.shapes) and world_templates[0] == "A {}."
    with pytest.raises(ValueError, match="need the world's configuration"):
        class_prompts("world_shapes")


# ---------------------------------------------------------------------------- the record


def _features(n_per_class: int, n_classes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit-norm features clustered around one axis per class."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(n_classes), n_per_class)
    x = np.eye(n_classes)[labels] + rng.normal(0, 0.1, (len(labels), n_classes))
    return x / np.linalg.norm(x, axis=1, keepdims=True), labels


def test_record_holds_each_protocol_and_per_image_outcomes():
    train_x, train_y = _features(20, 6)
    test_x, test_y = _features(5, 6, seed=1)
    weights = np.eye(6)
    weights[[4, 5]] = weights[[5, 4]]  # classes 4 and 5 swapped: zero-shot misses them
    ids = [f"img{i}" for i in range(len(test_y))]
    probe = {"c_grid": c_grid({"min": 0.01, "max": 100, "points": 5}), "seed": 0}
    record, per_image = evaluate_classification(
        "classification_x", ["linear_probe", "zero_shot"], train_x, train_y, test_x, test_y,
        ids, n_classes=6, weights=weights, probe=probe)
    overall = record["overall"]
    assert list(overall) == ["linear_probe_top1", "linear_probe_top5", "zero_shot_top1",
                             "zero_shot_top5"]
    assert overall["linear_probe_top1"] == overall["linear_probe_top5"] == 100.0
    assert overall["zero_shot_top1"] == pytest.approx(100 * 20 / 30, abs=1e-4)
    assert overall["zero_shot_top5"] == pytest.approx(
        100 * per_image.zero_shot_top5.mean(), abs=1e-4)
    assert overall["zero_shot_top1"] < overall["zero_shot_top5"] < 100
    assert record["protocols"]["linear_probe"]["c"] in probe["c_grid"]
    assert record["protocols"]["zero_shot"]["top1"]["correct"] == 20
    assert record["n_items"] == 30 and record["n_classes"] == 6 and record["chance"] == 16.6667
    assert per_image.columns.tolist() == [
        "image_id", "label", "linear_probe_pred", "linear_probe_top1", "linear_probe_top5",
        "zero_shot_pred", "zero_shot_top1", "zero_shot_top5"]
    wrong = per_image[~per_image.zero_shot_top1]
    assert set(wrong.label) == {4, 5}
    assert (wrong.zero_shot_pred.to_numpy() == 9 - wrong.label.to_numpy()).all()
    # every headline is a mean of the per-image outcomes, bootstrapped over the images
    outcomes = classification_outcomes(per_image)
    assert [o.metric for o in outcomes] == ["linear_probe top1", "linear_probe top5",
                                            "zero_shot top1", "zero_shot top5"]
    table = bootstrap_outcomes({"m": outcomes}, 30, benchmark="classification_x",
                               n_resamples=50, seed=0).table()
    zs = table[table.metric == "zero_shot top1"].iloc[0]
    assert zs.value == pytest.approx(record["overall"]["zero_shot_top1"], abs=1e-3)
    assert zs.ci_low < zs.value < zs.ci_high


def test_probe_tolerance_on_the_summed_loss_stops_where_clips_scikit_learn_did():
    """The mean loss's gradient is n times smaller than the summed loss's: the same tol stops
    the mean form at the zero start, the sum form (CLIP's scikit-learn < 1.4) goes on."""
    from vlcomp.metrics.classification import linear_probe

    train_x, train_y = _features(20, 6)
    test_x, test_y = _features(5, 6, seed=1)
    kwargs = {"c_grid": (1.0,), "tol": 0.5}
    mean = linear_probe(train_x, train_y, test_x, test_y, loss_scale="mean", **kwargs)
    summed = linear_probe(train_x, train_y, test_x, test_y, loss_scale="sum", **kwargs)
    assert mean["n_iter"] == 0 and mean["overall"] == pytest.approx(100 / 6, abs=1e-3)
    assert summed["n_iter"] > 0 and summed["overall"] == 100.0
    assert summed["options"]["loss_scale"] == "sum"
    with pytest.raises(ValueError, match="loss_scale must be 'mean' or 'sum'"):
        linear_probe(train_x, train_y, test_x, test_y, loss_scale="median", **kwargs)


def test_record_needs_class_embeddings_for_zero_shot_and_checks_labels():
    x, y = _features(3, 3)
    with pytest.raises(ValueError, match="zero_shot needs the class embeddings"):
        evaluate_classification("c", ["zero_shot"], x, y, x, y, list("abcdefghi"), n_classes=3)
    with pytest.raises(ValueError, match=r"c: train labels outside 0\.\.1"):
        evaluate_classification("c", ["zero_shot"], x, y, x, y, list("abcdefghi"), n_classes=2,
                                weights=np.eye(2, 3))
    with pytest.raises(ValueError, match="2 class embeddings for 3 classes"):
        evaluate_classification("c", ["zero_shot"], x, y, x, y, list("abcdefghi"), n_classes=3,
                                weights=np.eye(2, 3))
    with pytest.raises(ValueError, match=r"emb\.npy: no embedding for 1 images, e\.g\. \['z'\]"):
        rows_by_id(x, {"a": 0, "b": 1}, ["b", "z"], "emb.npy")
    assert rows_by_id(x, {"a": 0, "b": 1}, ["b", "a"], "emb.npy").tolist() == x[[1, 0]].tolist()


def test_aligned_outcomes_need_the_same_images():
    table = pd.DataFrame({"image_id": ["a", "b"], "label": [0, 1],
                          "zero_shot_pred": [0, 0], "zero_shot_top1": [True, False]})
    outcomes, n = aligned_outcomes({"m1": table, "m2": table.assign(zero_shot_top1=True)})
    assert n == 2 and [o.metric for o in outcomes["m2"]] == ["zero_shot top1"]
    with pytest.raises(ValueError, match="m2: its evaluation images differ from m1's"):
        aligned_outcomes({"m1": table, "m2": table.iloc[::-1]})


# ---------------------------------------------------------------------------- ARO Table 6


def test_table6_rows_and_interval_columns():
    rows = aro6_classification(["cifar10", "imagenet"], ["linear_probe", "zero_shot"])
    assert rows == {
        "classification_cifar10": {"linear_probe_top1": "CIFAR10",
                                   "zero_shot_top1": "CIFAR10 zero-shot"},
        "classification_imagenet": {"linear_probe_top1": "ImageNet",
                                    "zero_shot_top1": "ImageNet zero-shot"}}
    assert classification_label("world_shapes") == "World shapes"
    record = {"model": "clip", "benchmark": "classification_cifar10",
              "overall": {"linear_probe_top1": 95.12, "zero_shot_top1": 88.0}}
    results = {"clip": {"classification_cifar10": record}, "negclip": {}}
    table = aro_table6(results, compositional={}, downstream=rows)
    assert table.loc[("Downstream Tasks", "CIFAR10"), "clip"] == 95.12
    assert table.loc[("Downstream Tasks", "CIFAR10 zero-shot"), "clip"] == 88.0
    assert np.isnan(table.loc[("Downstream Tasks", "CIFAR10"), "negclip"])
    columns = headline_columns({"classification_cifar10": "classification"},
                               {"classification_cifar10": "CIFAR10"})
    assert columns == {"CIFAR10": ("classification_cifar10", "linear_probe top1"),
                       "CIFAR10 zero-shot": ("classification_cifar10", "zero_shot top1")}


def _aro6_status(config: dict) -> dict[tuple[str, str], str]:
    return {(f.row, f.column): f.status for f in coverage(config)
            if f.table == "table6" and f.paper == "aro"
            and f.column in ("CIFAR10", "CIFAR100", "ImageNet")}


def test_coverage_faces_the_nine_classification_cells_with_a_linear_probe():
    assert set(_aro6_status(PAPER).values()) == {"faced"} and len(_aro6_status(PAPER)) == 9
    zero_shot = copy.deepcopy(PAPER)
    zero_shot["classification"]["protocols"] = ["zero_shot"]  # not ARO's protocol
    assert set(_aro6_status(zero_shot).values()) == {"no column"}
    clip_only = copy.deepcopy(PAPER)
    clip_only["classification"]["models"] = ["openai_clip"]
    clip_only["classification"]["datasets"] = ["cifar10"]
    status = _aro6_status(clip_only)
    assert status[("CLIP", "CIFAR10")] == "faced"
    assert status[("NegCLIP", "CIFAR10")] == status[("CLIP", "ImageNet")] == "no column"
    # the world's shapes stand for no published column
    assert _aro6_status(WORLD) and set(_aro6_status(WORLD).values()) == {"no column"}

