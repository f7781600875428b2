"""One shuffled copy of the test images (ARO image perturbations), as an image set: views
that each model shuffles after its own preprocessing, as ARO does (``preprocessed``), or
pictures shuffled before any model sees them, saved as PNG (``raw``)."""

from pathlib import Path

import pandas as pd
from tqdm import tqdm

from vlcomp.image.shuffle import IMAGE_PERTURBATIONS
from vlcomp.image.shuffle_views import ShuffleSpec, view_path
from vlcomp.io import open_rgb, read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.seeding import stable_rng

with job_log(snakemake.log[0]) as log:
    name, seed = snakemake.wildcards.perturbation, int(snakemake.wildcards.seed)
    where = snakemake.params.where
    shuffle = IMAGE_PERTURBATIONS[name]
    source = read_parquet(snakemake.input[0])
    folder = Path(snakemake.output.images)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for image_id, path in tqdm(zip(source.image_id, source.path, strict=True),
                               total=len(source), desc=name):
        if where == "preprocessed":  # each model shuffles its own tensor of the picture
            paths.append(view_path(str(path), ShuffleSpec(name, seed, str(image_id))))
            continue
        out = shuffle(open_rgb(path), stable_rng("image", name, seed, image_id))
        target = folder / f"{image_id}.png"
        out.save(target)
        paths.append(str(target))
    write_parquet(pd.DataFrame({"image_id": source.image_id, "path": paths}),
                  snakemake.output.imageset)
    log.info("%s seed %d (%s): %d images", name, seed, where, len(paths))
