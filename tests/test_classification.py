"""Classification sets (CIFAR, ImageNet, the world's shapes), zero-shot and linear probe."""

from __future__ import annotations

import io
import pickle
import tarfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vlcomp.benchmarks.classification import (
    class_names,
    templates,
    zero_shot_predict,
    zero_shot_scores,
    zero_shot_weights,
)
from vlcomp.data.classification import (
    cifar_class_names,
    imagenet_train_table,
    imagenet_val_table,
    imagenet_wnids,
    materialise_cifar,
    read_meta_mat,
)
from vlcomp.metrics.classification import (
    CLIP_C_GRID,
    linear_probe,
    search_c,
    split_train_val,
    topk_accuracy,
    topk_correct,
    zero_shot_metrics,
)
from vlcomp.metrics.logistic import fit_logistic
from vlcomp.world.classification import (
    classification_scenes,
    render_classification_set,
    world_class_names,
    world_templates,
)
from vlcomp.world.config import WorldConfig

CIFAR10_NAMES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
                 "ship", "truck"]


# ---------------------------------------------------------------------------- CIFAR


def _dump(obj: dict, path: Path) -> None:
    path.write_bytes(pickle.dumps(obj, protocol=2))


def _cifar10_release(root: Path, per_batch: int = 3) -> dict[str, tuple[np.ndarray, list]]:
    """A cifar-10-batches-py folder as released: bytes keys, uint8 CHW rows, batches.meta."""
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    batches = {}
    names = [f"data_batch_{k}" for k in range(1, 6)] + ["test_batch"]
    for b, name in enumerate(names):
        data = rng.integers(0, 256, size=(per_batch, 3072), dtype=np.uint8)
        labels = [(b * per_batch + i) % 10 for i in range(per_batch)]
        _dump({b"batch_label": f"batch {name}".encode(), b"labels": labels, b"data": data,
               b"filenames": [f"img_{b}_{i}.png".encode() for i in range(per_batch)]},
              folder / name)
        batches[name] = (data, labels)
    _dump({b"num_cases_per_batch": per_batch, b"label_names": [n.encode() for n in CIFAR10_NAMES],
           b"num_vis": 3072}, folder / "batches.meta")
    (folder / "readme.html").write_text("<html></html>")
    return batches


def _tar_gz(folder: Path, archive: Path) -> Path:
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return archive


def _hwc(row: np.ndarray) -> np.ndarray:
    """The release's row (1,024 R, then G, then B, each row-major) as a 32x32x3 image."""
    return np.stack([row[:1024].reshape(32, 32), row[1024:2048].reshape(32, 32),
                     row[2048:].reshape(32, 32)], axis=-1)


def test_cifar10_pngs_match_the_pickled_pixels(tmp_path: Path) -> None:
    batches = _cifar10_release(tmp_path / "release")
    table = materialise_cifar(tmp_path / "release", "cifar10", tmp_path / "png",
                              expect_sizes=False)
    assert list(table.columns) == ["image_id", "path", "label", "split", "filename"]
    assert table.split.tolist() == ["train"] * 15 + ["test"] * 3
    assert table.image_id.iloc[0] == "cifar10-train-00000"
    assert table.image_id.iloc[15] == "cifar10-test-00000"
    # train rows follow data_batch_1..5; the fourth train row is data_batch_2's first
    assert table.filename.iloc[3] == "img_1_0.png"
    assert table.label.tolist()[:15] == [i % 10 for i in range(15)]
    for position, (batch, row) in {0: ("data_batch_1", 0), 3: ("data_batch_2", 0),
                                   14: ("data_batch_5", 2), 17: ("test_batch", 2)}.items():
        with Image.open(table.path.iloc[position]) as img:
            assert img.mode == "RGB" and img.size == (32, 32)
            pixels = np.asarray(img)
        np.testing.assert_array_equal(pixels, _hwc(batches[batch][0][row]))
    assert cifar_class_names(tmp_path / "release", "cifar10") == class_names("cifar10")


def test_cifar10_reads_the_archive_and_keeps_written_files(tmp_path: Path) -> None:
    _cifar10_release(tmp_path / "release")
    archive = _tar_gz(tmp_path / "release" / "cifar-10-batches-py",
                      tmp_path / "cifar-10-python.tar.gz")
    from_folder = materialise_cifar(tmp_path / "release", "cifar10", tmp_path / "a",
                                    splits=("test",), expect_sizes=False)
    from_archive = materialise_cifar(archive, "cifar10", tmp_path / "b", splits=("test",),
                                     expect_sizes=False)
    assert from_archive.label.tolist() == from_folder.label.tolist()
    for a, b in zip(from_folder.path, from_archive.path, strict=True):
        assert Path(a).read_bytes() == Path(b).read_bytes()
    first = Path(from_archive.path.iloc[0])
    first.write_bytes(b"kept")  # a rerun keeps what an earlier run wrote
    materialise_cifar(archive, "cifar10", tmp_path / "b", splits=("test",), expect_sizes=False)
    assert first.read_bytes() == b"kept"


def test_cifar_errors_name_the_file(tmp_path: Path) -> None:
    _cifar10_release(tmp_path / "release")
    with pytest.raises(ValueError, match="train has 15 images, the release has 50000"):
        materialise_cifar(tmp_path / "release", "cifar10", tmp_path / "png")
    batch = tmp_path / "release" / "cifar-10-batches-py" / "data_batch_3"
    _dump({b"labels": [0], b"data": np.zeros((1, 3072), np.uint8)}, batch)
    with pytest.raises(ValueError, match="data_batch_3: missing key 'filenames'"):
        materialise_cifar(tmp_path / "release", "cifar10", tmp_path / "png", expect_sizes=False)
    (tmp_path / "release" / "cifar-10-batches-py" / "test_batch").unlink()
    with pytest.raises(FileNotFoundError, match="test_batch"):
        materialise_cifar(tmp_path / "release", "cifar10", tmp_path / "png", splits=("test",),
                          expect_sizes=False)


def test_cifar100_uses_fine_labels(tmp_path: Path) -> None:
    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    fine = [n.replace(" ", "_") for n in class_names("cifar100")]  # the release's spelling
    rng = np.random.default_rng(1)
    for split, n in (("train", 4), ("test", 2)):
        _dump({b"filenames": [f"{split}{i}.png".encode() for i in range(n)],
               b"batch_label": f"{split} batch".encode(),
               b"fine_labels": [99 - i for i in range(n)], b"coarse_labels": [i for i in range(n)],
               b"data": rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)}, folder / split)
    _dump({b"fine_label_names": [n.encode() for n in fine],
           b"coarse_label_names": [f"super{k}".encode() for k in range(20)]}, folder / "meta")
    archive = _tar_gz(folder, tmp_path / "cifar-100-python.tar.gz")
    table = materialise_cifar(archive, "cifar100", tmp_path / "png", expect_sizes=False)
    assert table.label.tolist() == [99, 98, 97, 96, 99, 98]
    assert table.image_id.tolist()[-1] == "cifar100-test-00001"
    names = cifar_class_names(archive, "cifar100")
    assert names[1] == "aquarium_fish"
    assert [n.replace("_", " ") for n in names] == class_names("cifar100")


# ---------------------------------------------------------------------------- ImageNet

LEAF_IDS = {1: "n02119789", 2: "n02100735", 5: "n01440764", 1000: "n15075141"}


def _id_to_wnid() -> dict[int, str]:
    """ILSVRC2012_ID -> WNID for 1,000 leaves; like the devkit, IDs are not in WNID order
    (ID 1 is n02119789, kit fox)."""
    rest = [w for w in imagenet_wnids() if w not in LEAF_IDS.values()][::-1]
    free = [i for i in range(1, 1001) if i not in LEAF_IDS]
    return {**LEAF_IDS, **dict(zip(free, rest, strict=True))}


def _devkit(root: Path) -> Path:
    """ILSVRC2012_devkit_t12/data with meta.mat (struct array 'synsets', 1,000 leaves and
    two inner nodes, as in the release) and the validation ground truth."""
    from scipy.io import savemat

    data = root / "ILSVRC2012_devkit_t12" / "data"
    data.mkdir(parents=True)
    fields = ["ILSVRC2012_ID", "WNID", "words", "gloss", "num_children", "children",
              "wordnet_height", "num_train_images"]
    leaves = sorted(_id_to_wnid().items())
    inner = [(1001, "n00001740", 2), (1002, "n00002137", 1)]
    synsets = np.zeros((len(leaves) + len(inner), 1), dtype=[(f, "O") for f in fields])
    for k, (ilsvrc_id, wnid) in enumerate(leaves):
        synsets[k, 0] = (float(ilsvrc_id), wnid, f"words {wnid}", "a gloss", 0.0,
                         np.zeros((1, 0)), 0.0, 1300.0)
    for k, (ilsvrc_id, wnid, n_children) in enumerate(inner, len(leaves)):
        synsets[k, 0] = (float(ilsvrc_id), wnid, "entity", "a gloss", float(n_children),
                         np.array([[1.0, 2.0][:n_children]]), 10.0, 0.0)
    savemat(data / "meta.mat", {"synsets": synsets})
    (data / "ILSVRC2012_validation_ground_truth.txt").write_text("1\n5\n1000\n1\n2\n")
    return root / "ILSVRC2012_devkit_t12"


def _jpeg(path: Path, value: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (value, value, value)).save(path, format="JPEG")


def test_meta_mat_leaves(tmp_path: Path) -> None:
    leaves = read_meta_mat(_devkit(tmp_path))
    assert len(leaves) == 1000
    assert leaves[1] == "n02119789" and leaves[1000] == "n15075141"
    assert 1001 not in leaves


@pytest.mark.parametrize("as_archive", [False, True])
def test_imagenet_flat_val_with_devkit(tmp_path: Path, as_archive: bool) -> None:
    devkit = _devkit(tmp_path / "dev")
    if as_archive:
        devkit = _tar_gz(devkit, tmp_path / "ILSVRC2012_devkit_t12.tar.gz")
    val = tmp_path / "val"
    for n in (3, 1, 2, 5, 4):
        _jpeg(val / f"ILSVRC2012_val_{n:08d}.JPEG", n)
    table = imagenet_val_table(val, devkit, expected=5)
    assert table.image_id.tolist() == [f"ILSVRC2012_val_{n:08d}" for n in range(1, 6)]
    assert table.wnid.tolist() == ["n02119789", "n01440764", "n15075141", "n02119789",
                                   "n02100735"]
    # labels are sorted-WNID positions (torchvision's order): kit fox 278, tench 0
    assert table.label.tolist() == [278, 0, 999, 278, imagenet_wnids().index("n02100735")]
    assert class_names("imagenet")[278] == "kit fox"
    assert set(table.split) == {"val"}
    with pytest.raises(ValueError, match="5 images, expected 50000"):
        imagenet_val_table(val, devkit, expected=50_000)
    _jpeg(val / "ILSVRC2012_val_00000009.JPEG")
    with pytest.raises(ValueError, match=r"ILSVRC2012_val_00000009\.JPEG: image 9 has no line"):
        imagenet_val_table(val, devkit)


def test_imagenet_flat_val_needs_the_devkit(tmp_path: Path) -> None:
    _jpeg(tmp_path / "val" / "ILSVRC2012_val_00000001.JPEG")
    with pytest.raises(ValueError, match="needs the devkit"):
        imagenet_val_table(tmp_path / "val")
    with pytest.raises(FileNotFoundError, match=r"meta\.mat"):
        imagenet_val_table(tmp_path / "val", tmp_path / "nowhere")


def test_imagenet_wnid_folders(tmp_path: Path) -> None:
    for split in ("train", "val"):
        _jpeg(tmp_path / split / "n15075141" / f"n15075141_{split}2.JPEG")
        _jpeg(tmp_path / split / "n01440764" / f"n01440764_{split}1.JPEG")
        _jpeg(tmp_path / split / "n01440764" / f"n01440764_{split}0.JPEG")
    (tmp_path / "train" / "n01440764" / "notes.txt").write_text("not an image")
    train = imagenet_train_table(tmp_path / "train", expected=3)
    assert train.image_id.tolist() == ["n01440764_train0", "n01440764_train1",
                                       "n15075141_train2"]
    assert train.label.tolist() == [0, 0, 999]
    val = imagenet_val_table(tmp_path / "val")
    assert val.label.tolist() == [0, 0, 999] and set(val.split) == {"val"}
    _jpeg(tmp_path / "train" / "n99999999" / "x.JPEG")
    with pytest.raises(ValueError, match="'n99999999' is no ILSVRC2012 class"):
        imagenet_train_table(tmp_path / "train")


# ---------------------------------------------------------------------------- zero-shot


def test_prompt_data() -> None:
    assert class_names("cifar10") == CIFAR10_NAMES
    assert len(class_names("cifar100")) == 100 and class_names("cifar100")[-1] == "worm"
    assert len(templates("cifar10")) == 18 and templates("cifar10")[0] == "a photo of a {}."
    assert templates("cifar100") == templates("cifar10")
    names = class_names("imagenet")
    assert len(names) == 1000 and names[0] == "tench" and names[-1] == "toilet paper"
    assert len(templates("imagenet")) == 80
    assert templates("imagenet")[0] == "a bad photo of a {}."
    assert len(imagenet_wnids()) == 1000 and imagenet_wnids()[0] == "n01440764"
    with pytest.raises(ValueError, match="known"):
        class_names("mnist")


def test_zero_shot_weights_average_normalised_prompts() -> None:
    table = {"a cat": [10.0, 0.0, 0.0], "the cat": [0.0, 1.0, 0.0],
             "a dog": [0.0, 0.0, 2.0], "the dog": [0.0, 0.0, 5.0]}
    calls = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.array([table[t] for t in texts])

    weights = zero_shot_weights(encode, ["cat", "dog"], ["a {}", "the {}"])
    assert calls == [["a cat", "the cat", "a dog", "the dog"]]
    # each prompt is normalised before the mean: not (10, 1, 0) / |.|
    np.testing.assert_allclose(weights, [[2 ** -0.5, 2 ** -0.5, 0.0], [0.0, 0.0, 1.0]])
    images = np.array([[1.0, 1.2, 0.0], [0.1, 0.0, 3.0], [0.0, 0.0, -1.0], [3.0, 0.0, 3.0]])
    scores = zero_shot_scores(images, weights)
    np.testing.assert_allclose(scores[3], [0.5, 2 ** -0.5])
    assert zero_shot_predict(images, weights).tolist() == [0, 1, 0, 1]
    metrics = zero_shot_metrics(scores, np.array([0, 1, 1, 0]), benchmark="toy")
    assert metrics["overall"] == 50.0 and metrics["top1"] == {"accuracy": 50.0, "correct": 2,
                                                              "n": 4}
    assert "top5" not in metrics  # two classes
    with pytest.raises(ValueError, match="placeholder"):
        zero_shot_weights(encode, ["cat"], ["a cat"])


def test_topk_ties_go_to_the_lower_class() -> None:
    scores = np.array([[0.3, 0.3, 0.1], [0.3, 0.3, 0.1], [0.1, 0.2, 0.3], [0.5, 0.5, 0.5]])
    labels = np.array([0, 1, 0, 2])
    assert topk_correct(scores, labels, 1).tolist() == [True, False, False, False]
    assert topk_correct(scores, labels, 2).tolist() == [True, True, False, False]
    assert topk_accuracy(scores, labels, 3) == 100.0
    assert topk_accuracy(np.array([[1.0, 2.0, 0.0]] * 3), np.array([1, 1, 0]), 1) == 66.6667


# ---------------------------------------------------------------------------- linear probe


def _clusters(per_class: list[int], dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = 6.0 * np.eye(dim)[: len(per_class)]
    x = np.concatenate([c + 0.3 * rng.standard_normal((n, dim))
                        for c, n in zip(centres, per_class, strict=True)])
    y = np.repeat(np.arange(len(per_class)), per_class)
    return x, y


def test_split_train_val_is_stratified_and_seeded() -> None:
    labels = np.repeat([0, 1, 2], [20, 10, 30])
    fit, val = split_train_val(labels, 0.1, seed=3)
    assert np.bincount(labels[val]).tolist() == [2, 1, 3]
    assert np.intersect1d(fit, val).size == 0 and len(fit) + len(val) == 60
    again = split_train_val(labels, 0.1, seed=3)
    assert np.array_equal(val, again[1])
    assert not np.array_equal(val, split_train_val(labels, 0.1, seed=4)[1])


def test_search_c_finds_the_peak_of_a_unimodal_curve() -> None:
    calls = []

    def evaluate(c: float) -> float:
        calls.append(c)
        return -abs(np.log10(c) - 1.25)

    best, sweep = search_c(evaluate)
    assert best == CLIP_C_GRID[58]  # 10^1.25: 7.25 decades above 10^-6, 8 steps each
    assert len(calls) == len(set(calls)) == len(sweep) <= 7 + 2 * 4
    assert sorted(sweep) == sorted(calls)


def test_logistic_fit_is_stationary() -> None:
    x, y = _clusters([15, 10, 12], 4, seed=0)
    x[:5] += 4.0 * np.eye(4)[1]  # overlap, so the optimum is finite and the penalty matters
    model = fit_logistic(x, y, c=0.5, n_classes=3, tol=1e-10)
    assert model.converged
    z = model.scores(x)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    residual = p - np.eye(3)[y]
    n = len(y)
    np.testing.assert_allclose(residual.T @ x / n + model.coef / (0.5 * n), 0.0, atol=1e-7)
    np.testing.assert_allclose(residual.sum(axis=0) / n, 0.0, atol=1e-7)


def test_linear_probe_on_separable_features() -> None:
    train_x, train_y = _clusters([30, 30, 30], 8, seed=1)
    test_x, test_y = _clusters([10, 10, 10], 8, seed=2)
    result = linear_probe(train_x, train_y, test_x, test_y, seed=0)
    assert result["overall"] == 100.0 and result["top1"]["n"] == 30
    # every C separates the clusters; the tie goes to the smallest C, found after 11 fits
    assert result["c"] == CLIP_C_GRID[0] == 1e-6
    assert len(result["sweep"]) == 11 and set(result["sweep"].values()) == {100.0}
    assert (result["n_train"], result["n_fit"], result["n_val"]) == (90, 81, 9)
    assert linear_probe(train_x, train_y, test_x, test_y, seed=0) == result


def test_linear_probe_c_matters_when_classes_are_imbalanced() -> None:
    # with a tiny C the weights vanish and the (unpenalised) intercept predicts the majority
    train_x, train_y = _clusters([90, 10], 4, seed=5)
    test_x, test_y = _clusters([20, 20], 4, seed=6)
    result = linear_probe(train_x, train_y, test_x, test_y, seed=0)
    assert result["sweep"]["1e-06"] == 90.0
    assert result["c"] > 1e-4 and result["overall"] == 100.0


# ---------------------------------------------------------------------------- world


def test_world_classification_set_is_seeded(tmp_path: Path, world_cfg: WorldConfig) -> None:
    sizes = {"train": 12, "test": 6}
    scenes = classification_scenes(world_cfg, seed=7, sizes=sizes)
    assert scenes == classification_scenes(world_cfg, seed=7, sizes=sizes)
    assert scenes != classification_scenes(world_cfg, seed=8, sizes=sizes)
    assert all(len(s.objects) == 1 for s in scenes)
    labels = [s.meta["label"] for s in scenes]
    assert labels[:12] == [i % 5 for i in range(12)]
    assert [world_class_names(world_cfg)[k] for k in labels] == [s.objects[0].shape
                                                                 for s in scenes]
    a = render_classification_set(scenes, world_cfg, tmp_path / "a")
    b = render_classification_set(classification_scenes(world_cfg, seed=7, sizes=sizes),
                                  world_cfg, tmp_path / "b")
    assert list(a.columns) == ["image_id", "path", "label", "split", "class_name", "color",
                               "size"]
    assert a.image_id.iloc[12] == "cls-test-000000" and a.split.iloc[12] == "test"
    for pa, pb in zip(a.path, b.path, strict=True):
        assert Path(pa).read_bytes() == Path(pb).read_bytes()
    with Image.open(a.path.iloc[0]) as img:
        assert img.size == (world_cfg.image_size, world_cfg.image_size)
        assert len(np.unique(np.asarray(img.convert("RGB")).reshape(-1, 3), axis=0)) > 1


def test_world_templates_follow_the_grammar(world_cfg: WorldConfig) -> None:
    assert world_templates(world_cfg) == ["A {}.", "There is a {}.", "The {}."]
    with pytest.raises(ValueError, match="'octagon'"):
        world_templates(WorldConfig(shapes=("circle", "octagon")))


def test_cifar_pickle_fixture_round_trips_bytes_keys() -> None:
    """The fixture pickles load with bytes keys, as the Python 2 release does."""
    buf = io.BytesIO(pickle.dumps({b"data": np.zeros((1, 3072), np.uint8)}, protocol=2))
    assert list(pickle.load(buf, encoding="bytes")) == [b"data"]
