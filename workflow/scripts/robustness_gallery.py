"""One retrieval gallery: the first N test images of its dataset, every caption a query, at a
granularity (world galleries only), optionally through BLIP's ``pre_caption`` (ARO's retrieval
queries; the text perturbations then apply to the pre-captioned queries, as in ARO's
``main_retrieval.py``; their query ids get a ``-pre_caption`` suffix, as FG captions' get
``-fg``, so that a gallery of the same images with other texts keeps its own perturbed
texts). ``t2i_extra`` lists the images
text→image ranks besides the gallery's: none (``t2i_gallery: test``), or with ``folder`` the
test images past the first N and every other image of the test images' folder (Hendriksen et
al.), each with the image set that embeds it."""

import logging

import pandas as pd

from vlcomp.benchmarks.retrieval import gallery_queries, preprocess_queries
from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log


def t2i_extra(spec: dict, test: pd.DataFrame, image_ids: list[str], imagesets: dict[str, str],
              log: logging.Logger) -> pd.DataFrame:
    """(image_id, imageset) of the images text->image ranks after the gallery's."""
    if spec.get("t2i_gallery", "test") == "test":
        return pd.DataFrame({"image_id": pd.Series(dtype=str), "imageset": pd.Series(dtype=str)})
    rest = sorted(set(test.image_id) - set(image_ids))
    folder = read_parquet(snakemake.input.folder)
    outside = sorted(set(folder.image_id) - set(test.image_id))
    log.info("t2i_gallery folder: %d gallery images + %d more test images (%s) + %d other "
             "images of the folder (%s)", len(image_ids), len(rest), imagesets["test"],
             len(outside), imagesets["folder"])
    return pd.DataFrame({"image_id": rest + outside,
                         "imageset": [imagesets["test"]] * len(rest)
                         + [imagesets["folder"]] * len(outside)})


with job_log(snakemake.log[0]) as log:
    spec = snakemake.params.spec
    test = read_parquet(snakemake.input.imageset)
    n = spec["images"]
    if n > len(test):
        raise ValueError(f"gallery {snakemake.wildcards.gallery}: {n} images asked, the test "
                         f"split has {len(test)} (config benchmarks.robustness.galleries)")
    image_ids = sorted(test.image_id)[:n]
    captions = read_parquet(snakemake.input.captions)
    scenes = read_scenes(snakemake.input.scenes) if hasattr(snakemake.input, "scenes") else None
    granularity = spec.get("granularity", "original")
    queries = gallery_queries(captions[captions.split == "test"], image_ids, scenes, granularity)
    if granularity != "original":
        queries["query_id"] = queries.query_id + f"-{granularity}"
    if snakemake.params.fg:  # FG captions share their caption ids with the plain dataset's
        queries["query_id"] = queries.query_id + "-fg"
    preprocess = spec.get("query_preprocess", "none")
    processed = preprocess_queries(queries, preprocess)
    log.info("query_preprocess=%s: %d of %d query texts changed", preprocess,
             int((processed.text != queries.text).sum()), len(queries))
    if preprocess != "none":
        processed["query_id"] = processed.query_id + f"-{preprocess}"
    queries = processed
    extra = t2i_extra(spec, test, image_ids, snakemake.params.imagesets, log)
    write_parquet(pd.DataFrame({"image_id": image_ids}), snakemake.output.gallery)
    write_parquet(queries, snakemake.output.queries)
    write_parquet(extra, snakemake.output.t2i_extra)
    log.info("%d images, %d queries (%s captions), mean %.1f characters; text->image ranks "
             "%d images (t2i_gallery %s)", len(image_ids), len(queries), granularity,
             queries.text.str.len().mean(), len(image_ids) + len(extra),
             spec.get("t2i_gallery", "test"))
