"""Expected sizes of what a configuration evaluates, known before anything runs.

Shard counts and resource requests are fixed when the DAG is built, before any data exists,
so they rest on these expectations; a shard job then takes its block of the real items, so
an expectation that is off changes job lengths, never results. Released benchmarks have the
sizes of their releases (each with its source); the world's scale with its test split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vlcomp.config_defaults import section


@dataclass(frozen=True)
class Size:
    """A benchmark's test items, distinct images and distinct texts to embed."""

    items: int
    images: int
    texts: int
    source: str


RELEASED: dict[str, Size] = {
    "vg_relation": Size(23_937, 23_937, 47_874, "ARO §2, App. A.1: 23,937 test cases, one "
                        "crop and two captions each"),
    "vg_attribution": Size(28_748, 28_748, 57_496, "ARO §2, App. A.1: 28,748 test cases, "
                           "one crop and two captions each"),
    "coco_order": Size(25_010, 5_000, 525_210, "Karpathy COCO test (5,000 images, 25,010 "
                       "captions), 4 shuffles per caption for each of 5 seeds"),
    "flickr30k_order": Size(5_000, 1_000, 105_000, "Karpathy Flickr30k test (1,000 images, "
                            "5,000 captions), 4 shuffles per caption for each of 5 seeds"),
    "sugarcrepe": Size(7_511, 1_560, 11_844, "counted in SugarCrepe's 7 JSONs: 7,511 items "
                       "on 1,560 COCO val2017 images, 11,844 distinct texts"),
    "bivlc": Size(2_933, 4_094, 5_322, "counted in BiVLC's release: 2,933 items, 1,161 COCO "
                  "images + 2,933 generated, 5,322 distinct texts"),
    "winoground": Size(400, 800, 800, "Winoground: 400 items of 2 images and 2 captions"),
    "winoground_no_tag": Size(172, 0, 0, "Diwan et al.'s tags: 172 untagged items (the "
                              "papers print 171), Winoground's own pictures and captions"),
    "eqben": Size(25_000, 50_000, 50_000, "approx.: EqBen's README, '~25K image-text pairs' "
                  "in its public 10% subset"),
    "crepe_atom": Size(16_727, 16_727, 100_362, "CREPE productivity atom, complexities 4-12 "
                       "(vlcomp.data.crepe), 1 positive + 5 negatives"),
    "crepe_negate": Size(16_336, 16_336, 98_016, "CREPE productivity negate, as crepe_atom"),
    "crepe_swap": Size(6_652, 6_652, 39_912, "CREPE productivity swap, as crepe_atom"),
    "vl_checklist": Size(80_000, 40_000, 120_000, "approx.: VL-CheckList Relation, 68,533 "
                         "items on 34,675 images counted without HAKE's action file, plus "
                         "an allowance for it"),
    "coco_retrieval": Size(30_010, 5_000, 25_010, "Karpathy COCO test: 5,000 images, "
                           "25,010 captions"),
    "flickr30k_retrieval": Size(6_000, 1_000, 5_000, "Karpathy Flickr30k test: 1,000 "
                                "images, 5,000 captions"),
    "bison": Size(54_253, 38_680, 271_308, "BISON Table 2: 54,253 items on 38,680 COCO "
                  "val2014 images, 45,218 captions and up to 5 alterations of each"),
    "robustness": Size(90_030, 126_287, 2_160_720, "approx.: Hendriksen's galleries (COCO "
                       "val2014's 40,504 and Flickr30k's 31,783 images, 54,000 shuffled), "
                       "90,030 queries and up to 2,070,690 perturbed ones"),
}
UNKNOWN = Size(0, 0, 0, "unknown: not in vlcomp.plan.sizes.RELEASED")
# the world's distinct images and texts to embed per test image (tiny run: 941 and 6,295
# for 80 test images)
WORLD_IMAGES_PER_TEST_IMAGE = 12
WORLD_TEXTS_PER_TEST_IMAGE = 80


def benchmark_size(config: dict[str, Any], name: str) -> Size:
    """A configured benchmark's expected size (the world's: from its test split)."""
    if "world" in config:
        test = int(config["world"]["splits"]["test"])
        return Size(test, test, 2 * test, "world: its test split")
    return RELEASED.get(name, UNKNOWN)


def embedding_items(config: dict[str, Any]) -> tuple[int, int]:
    """Images and texts a model's embedding job embeds, expected: each benchmark's summed
    (an upper bound where benchmarks share pictures or captions)."""
    if "world" in config:
        test = int(config["world"]["splits"]["test"])
        return WORLD_IMAGES_PER_TEST_IMAGE * test, WORLD_TEXTS_PER_TEST_IMAGE * test
    sizes = [benchmark_size(config, b) for b in config.get("benchmarks", {})]
    return sum(s.images for s in sizes), sum(s.texts for s in sizes)


# captions each generated set illustrates: BiVLC's SugarCrepe negatives (§3 Step 2: 7,512 x 4
# images = 30,048) and TROHN-Img's selected TROHN-Text negatives (§5.2: 296,070, 1 image each)
RELEASED_PROMPTS = {"bivlc": 7_512, "trohn_img": 296_070}
# the world's, per image of the split they come from (tiny run: 505 SugarCrepe-style items for
# 80 test images; 1,014 TROHN-Img selections for 256 train images)
WORLD_PROMPTS_PER_IMAGE = {"bivlc": ("test", 6.3), "trohn_img": ("train", 4.0)}


def generation_prompts(config: dict[str, Any], genset: str) -> int:
    """Captions a generated set makes candidate images for, expected."""
    if "world" in config:
        split, ratio = WORLD_PROMPTS_PER_IMAGE.get(genset, ("test", 6.3))
        return round(ratio * int(config["world"]["splits"][split]))
    return RELEASED_PROMPTS.get(genset, 0)


def generated_images(config: dict[str, Any], genset: str) -> int:
    """Candidate images a generated set makes, expected: its captions × ``images_per_prompt``
    (the schema's default where unset)."""
    per_prompt = section(config, f"generation.{genset}")["images_per_prompt"]
    return generation_prompts(config, genset) * int(per_prompt)


def retrieval_pairs(config: dict[str, Any], benchmark: str) -> int:
    """(image, query) pairs a generative model scores for a retrieval benchmark: its test
    gallery and the validation gallery built the same way (for α*), at most
    ``visualgptscore.retrieval.images`` images each."""
    cap = config.get("visualgptscore", {}).get("retrieval", {}).get("images")
    size = benchmark_size(config, benchmark)
    images = min(size.images, cap) if cap else size.images
    texts_per_image = size.texts / max(size.images, 1)
    return round(2 * images * images * texts_per_image)


# captions of the released caption datasets' splits (by collection)
RELEASED_CAPTIONS = {
    "coco2017": {"train": 591_753, "val": 25_014},  # BiVLC App. E; captions_val2017.json
    "coco": {"train": 566_747, "val": 25_010, "test": 25_010},  # Karpathy's splits
    "flickr30k": {"train": 145_000, "val": 5_070, "test": 5_000},
}


def dataset_captions(config: dict[str, Any], dataset: str, split: str) -> int:
    """Captions of one split of a caption dataset, expected (the world's: 5 an image)."""
    if dataset == "world" or "world" in config:
        world = config.get("world", {})
        return int(world.get("captions_per_image", 5)) * int(world["splits"][split])
    collection = config.get("datasets", {}).get(dataset, {}).get("collection", dataset)
    return RELEASED_CAPTIONS.get(collection, {}).get(split, 0)


# (image, text) pairs a pair scorer scores on each released choice benchmark: an item's
# options against its image(s) (Order: 5 options a caption for each of 5 seeds; BISON's
# altered queries: up to 5 alterations of each of 45,218 captions against 2 images)
RELEASED_CHOICE_PAIRS = {
    "vg_relation": 47_874, "vg_attribution": 57_496, "coco_order": 625_250,
    "flickr30k_order": 125_000, "sugarcrepe": 15_022, "bivlc": 11_732, "winoground": 1_600,
    "winoground_no_tag": 0, "eqben": 100_000, "crepe_atom": 100_362, "crepe_negate": 98_016,
    "crepe_swap": 39_912, "vl_checklist": 160_000, "bison": 108_506, "bison_altered": 452_180,
}
# the world's choice pairs per test image (tiny run: 24,283 pairs over 9 sets, 80 test images)
WORLD_PAIRS_PER_TEST_IMAGE = 300


def choice_pairs(config: dict[str, Any], benchmarks: Sequence[str]) -> int:
    """(image, text) pairs of these choice benchmarks, expected."""
    if "world" in config:
        share = len(benchmarks) / 9
        return round(WORLD_PAIRS_PER_TEST_IMAGE * int(config["world"]["splits"]["test"])
                     * share)
    return sum(RELEASED_CHOICE_PAIRS.get(b, 0) for b in benchmarks)


# images of the image sets embedded on their own (rule embed_images): the classification
# datasets (ARO Table 6) and the caption datasets' splits (NegCLIP's neighbour mining)
RELEASED_IMAGESETS = {
    "cifar10_train": 50_000, "cifar10_test": 10_000, "cifar100_train": 50_000,
    "cifar100_test": 10_000, "imagenet_train": 1_281_167, "imagenet_val": 50_000,
}
RELEASED_IMAGES = {  # by collection and split (Karpathy's for coco and flickr30k)
    "coco": {"train": 113_287, "val": 5_000, "test": 5_000},
    "coco2017": {"train": 118_287, "val": 5_000},
    "flickr30k": {"train": 29_000, "val": 1_014, "test": 1_000},
}


def imageset_images(config: dict[str, Any], imageset: str) -> int:
    """Images of an image set embedded on its own, expected (0 when unknown)."""
    if imageset in RELEASED_IMAGESETS:
        return RELEASED_IMAGESETS[imageset]
    name, _, split = imageset.rpartition("_")
    if "world" in config:
        splits = config["world"]["splits"]
        return int(splits.get(split, splits["test"]))
    if split == "generated":
        return generated_images(config, name)
    collection = config.get("datasets", {}).get(name, {}).get("collection", name)
    return RELEASED_IMAGES.get(collection, {}).get(split, 0)


# training rows of BiVLC's released TROHN sets (train splits; an epoch is a pass over them)
RELEASED_TRAIN_ROWS = {
    "trohn_text": 2_922_276,  # imirandam/TROHN-Text train
    "trohn_img": 236_856,  # imirandam/TROHN-Img train: 80 % of 296,070 instances
}
CAPTION_SPLIT_TRAIN = 0.8  # CLIP_COCO: 80 % of the train captions (val_split: bivlc_captions)


def train_rows(config: dict[str, Any], run: dict[str, Any]) -> int:
    """Rows one epoch of a training run passes over, expected: BiVLC's released TROHN rows,
    CLIP_COCO's caption rows, a generated set's instances, else the train split's images."""
    from vlcomp.config import released_rows

    data = run.get("dataset", "world")
    release = released_rows(config, run)
    if "world" in config:
        train = int(config["world"]["splits"]["train"])
        if "generated" in run:
            return round(WORLD_PROMPTS_PER_IMAGE["trohn_img"][1] * train)
        return train
    if release is not None:
        return RELEASED_TRAIN_ROWS[release]
    if run.get("val_split") == "bivlc_captions":
        return round(CAPTION_SPLIT_TRAIN * dataset_captions(config, data, "train"))
    if "generated" in run:
        return generation_prompts(config, run["generated"])
    collection = config.get("datasets", {}).get(data, {}).get("collection", data)
    return RELEASED_IMAGES.get(collection, {}).get("train", 0)
